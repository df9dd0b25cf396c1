// The pieces sanity and performance checks share: CheckInput (where a job's
// output is), OutputFiles (streams an output file through a pattern) and
// the value pipeline of an extraction: convert the text a regex group
// captured to str/int/float, reduce all matches to one value, compare it. The conversions follow Python's str(), int()
// and float(), which is what ReFrame's extractall(..., conv) applies.
//
// The functions are pure apart from reading the files.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check/check_spec.h"
#include "util/regex.h"
#include "util/status.h"

namespace hb {

// Where the files a job produced are, and how it ended. `interrupted`,
// when set, is asked while long outputs are searched (Regex::Scan); a true
// answer ends the check with an error Regex::ScanInterrupted() knows.
struct CheckInput {
  std::string stagedir;
  std::string stdout_path;
  std::string stderr_path;
  int exit_code = 0;  // -1 when the scheduler could not tell
  std::function<bool()> interrupted = nullptr;
};

// The output files of one job, streamed: nothing is read whole, so a check
// of a 1 GB output holds a few MiB (Regex::Scan).
class OutputFiles {
 public:
  explicit OutputFiles(CheckInput in) : in_(std::move(in)) {}
  const CheckInput& input() const { return in_; }

  // The path of `in` ("stdout", "stderr", or a path relative to the stage
  // directory; absolute allowed). Errors: "file 'out.txt' not found in the
  // stage directory".
  Result<std::string> Resolve(const std::string& in) const;
  // Streams `in` through `re` (Regex::Scan).
  Status Scan(const std::string& in, const Regex& re, const Regex::ScanVisitor& visit) const;

 private:
  CheckInput in_;
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

// Reduces the values of matches one at a time with first, last, min,
// max, mean, median or sum, as ReFrame's sn.extractall followed by sn.min &
// co. would: min and max keep the first of equal values; mean, median and
// sum need numbers and give the captured text itself for a single match.
// Only median keeps every value (one double per match).
class ValueReducer {
 public:
  ValueReducer(std::string type, std::string reduce) : type_(std::move(type)), reduce_(std::move(reduce)) {}
  // Converts `text` to the type and adds it. Errors: "conversion: 'abc' is
  // not an int", "reduce 'mean' needs type int or float".
  Status Add(const std::string& text);
  Status Add(ExtractedValue v);
  // True when more values cannot change the result (reduce first).
  bool done() const { return count_ > 0 && reduce_ == "first"; }
  size_t count() const { return count_; }
  // The reduced value; an error before any value was added.
  Result<ExtractedValue> Value() const;

 private:
  std::string type_, reduce_;
  size_t count_ = 0;
  ExtractedValue kept_;  // first, last, min or max so far; the first for the numeric reduces
  double sum_ = 0;
  std::vector<double> all_;  // median only
};

// Reduces values already converted (at least one), like ValueReducer.
Result<ExtractedValue> ReduceValues(const std::vector<ExtractedValue>& values, const std::string& reduce);

// What one pass of a pattern over an output file found: the number of
// matches (all of them when `count_all`, else it stops once the answer is
// known) and, when `group` is set, that group's value in every match,
// converted to `type` and reduced with `reduce`.
struct PatternQuery {
  bool count_all = false;
  std::optional<std::string> group;  // "" = whole match; a number; a name
  std::string type = "str";
  std::string reduce = "first";
};
struct PatternScan {
  size_t count = 0;
  std::optional<ExtractedValue> value;  // set when there was a match and a group
};
Result<PatternScan> ScanPattern(const OutputFiles& files, const std::string& in, const Regex& re,
                                const PatternQuery& q);

// Names what ScanPattern extracted, for messages:
// "'wrong: (\d+)' group 1 in stdout", "max of 'x: (\S+)' group 1 in out.txt".
std::string DescribeGroup(const std::string& pattern, const std::string& group, const std::string& reduce,
                          const std::string& in);

// Checks `value` against every comparison: numerically when both sides
// are numbers, else as text. Error: "<what>: 2 is not eq 0".
Status CheckComparisons(const ExtractedValue& value, const std::vector<Comparison>& checks, const std::string& what);

}  // namespace hb
