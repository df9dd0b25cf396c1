#include "util/ecma_regex.h"

#include <cctype>

namespace hb {

namespace {

// The first {m} or {m,n} bound above the limit, outside a [...] class and
// not escaped; -1 when there is none.
long LargestOverLimit(const std::string& p) {
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      continue;
    }
    if (c == '[') {
      in_class = true;
      continue;
    }
    if (c != '{') continue;
    for (size_t j = i + 1; j < p.size() && (std::isdigit(static_cast<unsigned char>(p[j])) || p[j] == ',');) {
      size_t k = j;
      while (k < p.size() && std::isdigit(static_cast<unsigned char>(p[k]))) ++k;
      if (k - j > 4 || (k > j && std::stol(p.substr(j, k - j)) > kMaxEcmaRepeat)) return 1;
      j = k < p.size() && p[k] == ',' ? k + 1 : p.size();
    }
  }
  return -1;
}

}  // namespace

Result<std::regex> CompileEcmaRegex(const std::string& pattern, std::regex::flag_type flags) {
  if (LargestOverLimit(pattern) > 0)
    return Status::Error("'" + pattern + "': a repeat count above " + std::to_string(kMaxEcmaRepeat) +
                         " is not supported");
  try {
    return std::regex(pattern, flags);
  } catch (const std::regex_error& e) {
    return Status::Error("'" + pattern + "': " + e.what());
  }
}

}  // namespace hb
