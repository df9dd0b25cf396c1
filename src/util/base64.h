// Base64 (RFC 4648, the standard alphabet with '=' padding), through
// OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock: kubeconfig data fields,
// exec-plugin cluster info, and the stage archives sent to and read back
// from pods.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hb {

// One line, padded.
std::string Base64Encode(std::string_view in);

// Decodes `in`, ignoring whitespace anywhere (base64 in files and logs is
// wrapped). Padding is optional ("YQ" and "YQ==" are both "a") but only at
// the end. nullopt for any other character, '=' before the end, or a
// length that no encoding has (one character left over).
std::optional<std::string> Base64Decode(std::string_view in);

}  // namespace hb
