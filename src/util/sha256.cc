#include "util/sha256.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <openssl/evp.h>

namespace hb {

std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1) std::abort();
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    hex += kHex[md[i] >> 4];
    hex += kHex[md[i] & 15];
  }
  return hex;
}

std::string TestHashcode(const std::string& name, const std::vector<std::pair<std::string, std::string>>& params) {
  std::vector<std::string> items;
  for (const auto& [k, v] : params) items.push_back(k + "=" + v);
  std::sort(items.begin(), items.end());
  std::string text = name;
  for (const auto& i : items) text += i;
  return Sha256Hex(text).substr(0, 8);
}

}  // namespace hb
