#include "check/extract.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Python's `digitpart`: digits with single underscores between them.
// Advances i past it; false when there is none.
bool ScanDigitPart(const std::string& s, size_t& i) {
  if (i >= s.size() || !IsDigit(s[i])) return false;
  while (i < s.size()) {
    if (IsDigit(s[i])) {
      ++i;
    } else if (s[i] == '_' && i + 1 < s.size() && IsDigit(s[i + 1])) {
      i += 2;
    } else {
      break;
    }
  }
  return true;
}

std::string WithoutUnderscores(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  return s;
}

// Python's int() of a str in base 10: sign, then a digitpart.
std::optional<double> ParsePythonInt(const std::string& text) {
  std::string s = Trim(text);
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  if (!ScanDigitPart(s, i) || i != s.size()) return std::nullopt;
  return std::strtod(WithoutUnderscores(s).c_str(), nullptr);
}

std::string FormatComputed(double v) { return FormatNumber(v, 12); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool Less(const ExtractedValue& a, const ExtractedValue& b) {
  if (a.number && b.number) return *a.number < *b.number;
  return a.text < b.text;
}

bool Holds(int cmp, const std::string& op) {
  if (cmp == 2) return op == "ne";  // NaN
  if (op == "eq") return cmp == 0;
  if (op == "ne") return cmp != 0;
  if (op == "lt") return cmp < 0;
  if (op == "le") return cmp <= 0;
  if (op == "gt") return cmp > 0;
  return cmp >= 0;  // ge
}

// -1, 0 or 1 as lhs is below, equal to or above rhs; numbers compare as
// numbers. NaN compares unequal to everything (2).
int Compare(const ExtractedValue& lhs, const std::string& rhs) {
  std::optional<double> a = lhs.number ? lhs.number : ParsePythonFloat(lhs.text);
  std::optional<double> b = ParsePythonFloat(rhs);
  if (a && b) {
    if (std::isnan(*a) || std::isnan(*b)) return 2;
    return *a < *b ? -1 : *a > *b ? 1 : 0;
  }
  int c = lhs.text.compare(rhs);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

}  // namespace

Result<std::string> OutputFiles::Resolve(const std::string& in) const {
  std::string path;
  if (in == "stdout")
    path = in_.stdout_path;
  else if (in == "stderr")
    path = in_.stderr_path;
  else
    path = JoinPath(in_.stagedir, in);
  if (!PathExists(path)) {
    if (in == "stdout" || in == "stderr") return Status::Error(in + " file '" + path + "' not found");
    if (!in.empty() && in[0] == '/') return Status::Error("file '" + in + "' not found");
    return Status::Error("file '" + in + "' not found in the stage directory");
  }
  return path;
}

Status OutputFiles::Scan(const std::string& in, const Regex& re, const Regex::ScanVisitor& visit) const {
  Result<std::string> path = Resolve(in);
  if (!path.ok()) return path.status();
  auto source = FileScanSource::Open(*path);
  if (!source.ok()) return source.status();
  Regex::ScanOptions opts;
  opts.interrupted = in_.interrupted;
  return re.Scan(**source, opts, visit);
}

bool IsValueType(const std::string& t) { return t == "str" || t == "int" || t == "float"; }

bool IsReduce(const std::string& r) {
  static const std::vector<std::string> kReduces = {"first", "last", "min", "max", "mean", "median", "sum"};
  return std::find(kReduces.begin(), kReduces.end(), r) != kReduces.end();
}

bool IsComparisonOp(const std::string& op) {
  return op == "eq" || op == "ne" || op == "lt" || op == "le" || op == "gt" || op == "ge";
}

std::optional<double> ParsePythonFloat(const std::string& text) {
  std::string s = Trim(text);
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  std::string word = s.substr(i);
  std::transform(word.begin(), word.end(), word.begin(), ::tolower);
  if (word == "inf" || word == "infinity" || word == "nan") return std::strtod(s.c_str(), nullptr);
  bool whole = ScanDigitPart(s, i);
  bool frac = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    frac = ScanDigitPart(s, i);
  }
  if (!whole && !frac) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!ScanDigitPart(s, i)) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return std::strtod(WithoutUnderscores(s).c_str(), nullptr);
}

Result<ExtractedValue> ConvertValue(const std::string& text, const std::string& type) {
  if (type == "str") return ExtractedValue{text, std::nullopt};
  std::optional<double> n = type == "int" ? ParsePythonInt(text) : ParsePythonFloat(text);
  if (!n) {
    return Status::Error("conversion: '" + text + "' is not " + (type == "int" ? "an int" : "a float"));
  }
  return ExtractedValue{Trim(text), n};
}

Status ValueReducer::Add(const std::string& text) {
  Result<ExtractedValue> v = ConvertValue(text, type_);
  if (!v.ok()) return v.status();
  return Add(std::move(v).value());
}

Status ValueReducer::Add(ExtractedValue v) {
  bool numeric = reduce_ == "mean" || reduce_ == "median" || reduce_ == "sum";
  if (!IsReduce(reduce_)) return Status::Error("unknown reduce '" + reduce_ + "'");
  if (numeric && !v.number) return Status::Error("reduce '" + reduce_ + "' needs type int or float");
  if (numeric) {
    sum_ += *v.number;
    if (reduce_ == "median") all_.push_back(*v.number);
  }
  bool keep =
      count_ == 0 || reduce_ == "last" || (reduce_ == "min" && Less(v, kept_)) || (reduce_ == "max" && Less(kept_, v));
  if (keep) kept_ = std::move(v);
  ++count_;
  return Status::OK();
}

Result<ExtractedValue> ValueReducer::Value() const {
  if (count_ == 0) return Status::Error("nothing to reduce");
  if (count_ == 1 || (reduce_ != "mean" && reduce_ != "median" && reduce_ != "sum")) return kept_;
  double r = reduce_ == "sum" ? sum_ : reduce_ == "mean" ? sum_ / count_ : Median(all_);
  return ExtractedValue{FormatComputed(r), r};
}

Result<ExtractedValue> ReduceValues(const std::vector<ExtractedValue>& values, const std::string& reduce) {
  ValueReducer r("str", reduce);
  for (const auto& v : values) {
    Status st = r.Add(v);
    if (!st.ok()) return st;
  }
  return r.Value();
}

Result<PatternScan> ScanPattern(const OutputFiles& files, const std::string& in, const Regex& re,
                                const PatternQuery& q) {
  int index = 0;
  if (q.group) {
    Result<int> g = re.ResolveGroup(*q.group);
    if (!g.ok()) return g.status();
    index = *g;
  }
  ValueReducer reducer(q.type, q.reduce);
  PatternScan out;
  Status failed;
  Status st = files.Scan(in, re, [&](const RegexMatch& m, const Regex::MatchPlace&) {
    ++out.count;
    if (q.group && !reducer.done()) {
      const std::optional<std::string>& text = m.groups[index];
      if (!text) {
        failed = Status::Error("group " + *q.group + " of '" + re.pattern() + "' did not take part in a match");
        return false;
      }
      failed = reducer.Add(*text);
      if (!failed.ok()) return false;
    }
    return q.count_all || !(q.group ? reducer.done() : true);
  });
  if (!st.ok()) return st;
  if (!failed.ok()) return failed;
  if (q.group && reducer.count() > 0) {
    Result<ExtractedValue> v = reducer.Value();
    if (!v.ok()) return v.status();
    out.value = std::move(v).value();
  }
  return out;
}

std::string DescribeGroup(const std::string& pattern, const std::string& group, const std::string& reduce,
                          const std::string& in) {
  std::string s = "'" + pattern + "'";
  if (!group.empty()) s += " group " + group;
  if (reduce != "first") s = reduce + " of " + s;
  return s + " in " + in;
}

Status CheckComparisons(const ExtractedValue& value, const std::vector<Comparison>& checks, const std::string& what) {
  for (const auto& c : checks) {
    if (!IsComparisonOp(c.op)) return Status::Error("unknown comparison '" + c.op + "'");
    if (!Holds(Compare(value, c.value), c.op)) {
      return Status::Error(what + ": " + value.text + " is not " + c.op + " " + c.value);
    }
  }
  return Status::OK();
}

}  // namespace hb
