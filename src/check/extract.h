// The pieces sanity and performance checks share: CheckInput (where a job's
// output is), OutputFiles (reads each output file at most once per
// evaluation) and the value pipeline of an extraction: convert the text a
// regex group captured to str/int/float, reduce all matches to one value,
// compare it. The conversions follow Python's str(), int() and float(),
// which is what ReFrame's extractall(..., conv) applies.
//
// OutputFiles caches file contents and is not thread-safe; the functions
// are pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/check_spec.h"
#include "check/regex.h"
#include "util/status.h"

namespace hb {

// Where the files a job produced are, and how it ended.
struct CheckInput {
  std::string stagedir;
  std::string stdout_path;
  std::string stderr_path;
  int exit_code = 0;  // -1 when the scheduler could not tell
};

class OutputFiles {
 public:
  explicit OutputFiles(CheckInput in) : in_(std::move(in)) {}
  const CheckInput& input() const { return in_; }

  // The content of `in` ("stdout", "stderr", or a path relative to the
  // stage directory; absolute allowed). The pointer stays valid as long as
  // this object. Errors: "file 'out.txt' not found in the stage directory".
  Result<const std::string*> Read(const std::string& in);

 private:
  CheckInput in_;
  std::map<std::string, std::string> cache_;  // by resolved path
};

// A value taken from a match: its text as shown in messages and, for the
// int and float types, its number.
struct ExtractedValue {
  std::string text;
  std::optional<double> number;
};

// True for the types, reduces and comparison operators a spec may name.
bool IsValueType(const std::string& type);
bool IsReduce(const std::string& reduce);
bool IsComparisonOp(const std::string& op);

// Python's float() syntax (underscores between digits, inf, nan; no hex).
std::optional<double> ParsePythonFloat(const std::string& text);

// Converts captured text to `type` (str, int, float) as Python's str(),
// int() and float() would. Error: "conversion: 'abc' is not an int".
Result<ExtractedValue> ConvertValue(const std::string& text, const std::string& type);

// Reduces the values of all matches (at least one) with first, last, min,
// max, mean, median or sum. mean, median and sum need numbers.
Result<ExtractedValue> ReduceValues(const std::vector<ExtractedValue>& values,
                                    const std::string& reduce);

// The value of `group` ("" = whole match, a number or a name) in every
// match, converted to `type` and reduced with `reduce`. `matches` must not
// be empty.
Result<ExtractedValue> ReduceGroup(const Regex& re, const std::vector<RegexMatch>& matches,
                                   const std::string& group, const std::string& type,
                                   const std::string& reduce);

// Names what ReduceGroup extracted, for messages:
// "'wrong: (\d+)' group 1 in stdout", "max of 'x: (\S+)' group 1 in out.txt".
std::string DescribeGroup(const std::string& pattern, const std::string& group,
                          const std::string& reduce, const std::string& in);

// Checks `value` against every comparison: numerically when both sides
// are numbers, else as text. Error: "<what>: 2 is not eq 0".
Status CheckComparisons(const ExtractedValue& value, const std::vector<Comparison>& checks,
                        const std::string& what);

}  // namespace hb
