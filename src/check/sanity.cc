#include "check/sanity.h"

#include <algorithm>

#include "util/regex.h"
#include "util/strings.h"

namespace hb {

namespace {

constexpr size_t kMaxLineShown = 120;

std::string JoinCodes(const std::vector<int>& codes) {
  std::vector<std::string> parts;
  for (int c : codes) parts.push_back(std::to_string(c));
  return Join(parts, ", ");
}

Status EvaluateExitCode(const SanitySpec& s, int exit_code) {
  if (exit_code == -1) return Status::Error("exit code is unknown");
  if (std::find(s.exit_codes.begin(), s.exit_codes.end(), exit_code) != s.exit_codes.end()) {
    return Status::OK();
  }
  std::string want = s.exit_codes.size() == 1 ? std::to_string(s.exit_codes[0]) : "one of " + JoinCodes(s.exit_codes);
  return Status::Error("exit code " + std::to_string(exit_code) + " is not " + want);
}

Status EvaluateNotPattern(const SanitySpec& s, const Regex& re, const OutputFiles& files) {
  std::string where;
  Status st = files.Scan(s.in, re, [&](const RegexMatch&, const Regex::MatchPlace& at) {
    where = "line " + std::to_string(at.Line()) + ": \"" + at.LineText(kMaxLineShown) + "\"";
    return false;
  });
  if (!st.ok()) return st;
  if (where.empty()) return Status::OK();
  return Status::Error("pattern '" + s.pattern + "' found in " + s.in + " (" + where + ")");
}

Status EvaluatePattern(const SanitySpec& s, const Regex& re, const OutputFiles& files) {
  PatternQuery q;
  q.count_all = !s.count_checks.empty();
  if (!s.value_checks.empty()) q.group = s.group;
  q.type = s.type;
  q.reduce = s.reduce;
  Result<PatternScan> found = ScanPattern(files, s.in, re, q);
  if (!found.ok()) return found.status();
  if (!s.count_checks.empty()) {
    double n = static_cast<double>(found->count);
    Status st =
        CheckComparisons({std::to_string(found->count), n}, s.count_checks, "count of '" + s.pattern + "' in " + s.in);
    if (!st.ok()) return st;
    if (found->count == 0 && s.value_checks.empty()) return Status::OK();
  }
  if (found->count == 0) return Status::Error("pattern '" + s.pattern + "' not found in " + s.in);
  if (s.value_checks.empty()) return Status::OK();
  return CheckComparisons(*found->value, s.value_checks, DescribeGroup(s.pattern, s.group, s.reduce, s.in));
}

Status EvaluateOne(const SanitySpec& s, OutputFiles& files) {
  if (s.kind == SanitySpec::Kind::kExitCode) return EvaluateExitCode(s, files.input().exit_code);
  Result<Regex> re = Regex::Compile(s.pattern);
  if (!re.ok()) return re.status();
  if (s.kind == SanitySpec::Kind::kNotPattern) return EvaluateNotPattern(s, *re, files);
  return EvaluatePattern(s, *re, files);
}

bool HasExitCodeSpec(const std::vector<SanitySpec>& specs) {
  return std::any_of(specs.begin(), specs.end(),
                     [](const SanitySpec& s) { return s.kind == SanitySpec::Kind::kExitCode; });
}

// Checks what a pattern-based spec of either kind shares.
Status ValidateExtraction(const std::string& pattern, const std::string& group, const std::string& reduce,
                          const std::vector<Comparison>& checks) {
  Result<Regex> re = Regex::Compile(pattern);
  if (!re.ok()) return re.status();
  Result<int> g = re->ResolveGroup(group);
  if (!g.ok()) return g.status();
  if (!IsReduce(reduce)) {
    return Status::Error("reduce must be one of first, last, min, max, mean, median, sum, got '" + reduce + "'");
  }
  for (const auto& c : checks) {
    if (!IsComparisonOp(c.op)) {
      return Status::Error("unknown comparison '" + c.op + "' (use eq, ne, lt, le, gt, ge)");
    }
  }
  return Status::OK();
}

Status ValidateSanityFields(const SanitySpec& s) {
  if (s.kind == SanitySpec::Kind::kExitCode) {
    return s.exit_codes.empty() ? Status::Error("exit_code needs at least one code") : Status::OK();
  }
  if (s.in.empty()) return Status::Error("'in' must name stdout, stderr or a file");
  if (!IsValueType(s.type)) return Status::Error("type must be str, int or float, got '" + s.type + "'");
  if (s.kind == SanitySpec::Kind::kNotPattern && (!s.value_checks.empty() || !s.count_checks.empty())) {
    return Status::Error("not_pattern takes no value or count checks");
  }
  for (const auto& c : s.count_checks) {
    if (!ParsePythonFloat(c.value)) return Status::Error("count must be compared with a number, got '" + c.value + "'");
  }
  std::vector<Comparison> all = s.value_checks;
  all.insert(all.end(), s.count_checks.begin(), s.count_checks.end());
  return ValidateExtraction(s.pattern, s.group, s.reduce, all);
}

}  // namespace

Status EvaluateSanity(const std::vector<SanitySpec>& specs, OutputFiles& files) {
  int code = files.input().exit_code;
  if (!HasExitCodeSpec(specs) && code != 0 && code != -1) {
    return Status::Error("exit code " + std::to_string(code));
  }
  for (const auto& s : specs) {
    Status st = EvaluateOne(s, files);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

Status EvaluateSanity(const std::vector<SanitySpec>& specs, const CheckInput& in) {
  OutputFiles files(in);
  return EvaluateSanity(specs, files);
}

Status ValidateSanitySpec(const SanitySpec& spec) {
  Status st = ValidateSanityFields(spec);
  return st.ok() ? st : Status::Error(spec.mark, st.message());
}

Status ValidatePerfSpec(const PerfSpec& spec) {
  Status st;
  if (spec.type != "int" && spec.type != "float") {
    st = Status::Error("performance type must be int or float, got '" + spec.type + "'");
  } else if (spec.in.empty()) {
    st = Status::Error("'in' must name stdout, stderr or a file");
  } else if (!spec.expr.empty()) {
    return Status::OK();  // derived: its expression is checked by the model
  } else {
    st = ValidateExtraction(spec.pattern, spec.group, spec.reduce, spec.value_checks);
  }
  if (st.ok()) return st;
  std::string who = spec.name.empty() ? "" : spec.name + ": ";
  return Status::Error(spec.mark, who + st.message());
}

}  // namespace hb
