// The one way a std::regex is made from a pattern a user wrote (hostnames,
// -n/-x/-t/-p filters, resubmit_on_errors). libstdc++'s std::regex reads
// a {m,n} bound into a long without checking (a 20-digit count is signed
// overflow, found by fuzz/fuzz_config.cc) and expands a count into that
// many states, so a bound above kMaxEcmaRepeat (and a back-reference
// number of more than 4 digits, read the same way) is refused before it
// is compiled. Errors are values: "'a{99999}': a repeat count above 1000 is
// not supported", or std::regex's own message.
#pragma once

#include <regex>
#include <string>

#include "util/status.h"

namespace hb {

constexpr long kMaxEcmaRepeat = 1000;

Result<std::regex> CompileEcmaRegex(const std::string& pattern,
                                    std::regex::flag_type flags = std::regex::ECMAScript);

}  // namespace hb
