#include "util/ecma_regex.h"

#include <algorithm>
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
      // \N is a back-reference, read into a long like a count.
      size_t k = i + 1;
      while (k < p.size() && std::isdigit(static_cast<unsigned char>(p[k]))) ++k;
      if (k - (i + 1) > 4) return 1;
      i = std::max(i + 1, k - 1);
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
                         " (or a back-reference number of more than 4 digits) is not supported");
  try {
    return std::regex(pattern, flags);
  } catch (const std::regex_error& e) {
    return Status::Error("'" + pattern + "': " + e.what());
  }
}

}  // namespace hb
