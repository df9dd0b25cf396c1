#include "check/performance.h"

#include "util/regex.h"

namespace hb {

namespace {

Result<double> Extract(const PerfSpec& spec, OutputFiles& files) {
  Result<Regex> re = Regex::Compile(spec.pattern);
  if (!re.ok()) return re.status();
  PatternQuery q;
  q.group = spec.group;
  q.type = spec.type;
  q.reduce = spec.reduce;
  Result<PatternScan> found = ScanPattern(files, spec.in, *re, q);
  if (!found.ok()) return found.status();
  if (found->count == 0) return Status::Error("pattern '" + spec.pattern + "' not found in " + spec.in);
  const ExtractedValue& v = *found->value;
  if (!v.number) return Status::Error("type must be int or float, got '" + spec.type + "'");
  Status st = CheckComparisons(v, spec.value_checks, DescribeGroup(spec.pattern, spec.group, spec.reduce, spec.in));
  if (!st.ok()) return st;
  return *v.number;
}

}  // namespace

Result<double> ExtractPerf(const PerfSpec& spec, OutputFiles& files) {
  Result<double> v = Extract(spec, files);
  if (!v.ok()) return v.status().Prefixed(spec.name);
  return v;
}

Result<double> ExtractPerf(const PerfSpec& spec, const CheckInput& in) {
  OutputFiles files(in);
  return ExtractPerf(spec, files);
}

Result<std::vector<PerfValue>> ExtractPerformance(const std::vector<PerfSpec>& specs, OutputFiles& files) {
  std::vector<PerfValue> out;
  for (const auto& spec : specs) {
    Result<double> v = ExtractPerf(spec, files);
    if (!v.ok()) return v.status();
    out.push_back({spec.name, *v, spec.unit});
  }
  return out;
}

Result<std::vector<PerfValue>> ExtractPerformance(const std::vector<PerfSpec>& specs, const CheckInput& in) {
  OutputFiles files(in);
  return ExtractPerformance(specs, files);
}

}  // namespace hb
