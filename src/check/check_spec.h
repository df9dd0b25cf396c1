// What a test file asks to be checked, as plain data: sanity assertions,
// performance variables and references. The model layer fills these from
// YAML; the check layer (sanity.h, performance.h, reference.h) evaluates
// them against the files a job produced. Plain values; thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace hb {

// A comparison of an extracted value: op is one of eq, ne, lt, le, gt, ge.
// `value` is kept as text; it is compared numerically when both sides parse
// as numbers, else as strings.
struct Comparison {
  std::string op;
  std::string value;
};

// One sanity entry of a test file.
//   {pattern: RE, in: stdout}                      RE must match
//   {not_pattern: RE, in: stderr}                  RE must not match
//   {pattern: RE, group: 1, type: int, eq: 0}      the extracted value compares
//   {pattern: RE, count: 4} / {count: {ge: 4}}     the number of matches compares
//   {exit_code: 0} / {exit_code: [0, 3]}          the job's exit code is one of these
// `in` is "stdout", "stderr" or a file path relative to the stage directory.
struct SanitySpec {
  enum class Kind { kPattern, kNotPattern, kExitCode };
  Kind kind = Kind::kPattern;
  std::string pattern;
  std::string in = "stdout";
  std::string group;             // "" = whole match; a number or a group name
  std::string type = "str";      // str | int | float
  std::string reduce = "first";  // which match's value is compared (see PerfSpec)
  std::vector<Comparison> value_checks;
  std::vector<Comparison> count_checks;
  std::vector<int> exit_codes;
  SourceMark mark;
};

// One performance variable:
//   name: {pattern: RE, group: 1, type: float, reduce: max, unit: MB/s, in: stdout}
// reduce is one of first, last, min, max, mean, median, sum (over all matches).
//   name: {expr: '72 / time', unit: GFLOP/s}      derived from the others
struct PerfSpec {
  std::string name;  // any non-empty string, spaces included ("Epoch Length")
  std::string pattern;
  std::string expr;  // a derived variable's expression (model/expr.h); pattern is then empty
  std::string in = "stdout";
  std::string group = "1";
  std::string type = "float";
  std::string reduce = "first";
  std::string unit;
  std::vector<Comparison> value_checks;
  // The test's headline number (`figure_of_merit: true`), and which way is
  // better (`better: higher|lower`; "" = by the unit: times are lower).
  bool figure_of_merit = false;
  std::string better;
  SourceMark mark;
};

// A reference as ReFrame defines it: [value, lower, upper, unit]. lower and
// upper are fractions of value (lower in [-1, 0], upper >= 0; absolute
// bounds when value is 0); nullopt means unbounded.
struct Reference {
  double value = 0;
  std::optional<double> lower;
  std::optional<double> upper;
  std::string unit;
  SourceMark mark;
};

}  // namespace hb
