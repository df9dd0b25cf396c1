#include "util/base64.h"

#include <cctype>

#include <openssl/evp.h>

namespace hb {

std::string Base64Encode(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view in) {
  std::string text;
  text.reserve(in.size());
  for (char c : in)
    if (!std::isspace(static_cast<unsigned char>(c))) text += c;
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  text.resize(text.size() - pad);
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/') return std::nullopt;
  if (text.size() % 4 == 1) return std::nullopt;
  size_t missing = (4 - text.size() % 4) % 4;  // the padding EVP_DecodeBlock needs
  text.append(missing, '=');
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  out.resize(static_cast<size_t>(n) - missing);
  return out;
}

}  // namespace hb
