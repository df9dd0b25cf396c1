#include "check/reference.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "util/strings.h"

namespace hb {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The Reference for `var` in the first scope called one of `keys`.
std::optional<Reference> FindIn(const ReferenceTable& refs, const std::vector<std::string>& keys,
                                const std::string& var) {
  for (const auto& [scope, vars] : refs) {
    bool wanted = false;
    for (const auto& k : keys) wanted = wanted || scope == k;
    if (!wanted) continue;
    auto it = vars.find(var);
    if (it != vars.end()) return it->second;
  }
  return std::nullopt;
}

// assert_reference's calc_bound, with PR #3434's reference of 0.
std::optional<double> CalcBound(double ref, std::optional<double> thres) {
  if (!thres) return std::nullopt;
  if (ref == 0) return *thres;
  double t = ref < 0 ? -*thres : *thres;  // "Inverse threshold if ref < 0"
  return ref * (1 + t);
}

// "15" for 15.3, "7.5" for 7.46: an integer from 10 up, one decimal below.
std::string Percent(double pct, int extra_decimals = 0) {
  double a = std::fabs(pct);
  int decimals = (a < 10 ? 1 : 0) + extra_decimals;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, a);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// The deviation and the allowed threshold in percent, rendered with enough
// decimals that they differ ("10.4% ... (allowed 10%)", not "10% ... 10%").
std::pair<std::string, std::string> Percents(double deviation, double allowed) {
  for (int extra = 0; extra < 4; ++extra) {
    std::string d = Percent(deviation, extra), a = Percent(allowed, extra);
    if (d != a) return {d, Percent(allowed)};
  }
  return {Percent(deviation, 4), Percent(allowed)};
}

std::string Measured(const std::string& name, double value, const std::string& unit) {
  return name + " " + FormatNumber(value) + (unit.empty() ? "" : " " + unit);
}

// Why `value` is outside [lower, upper] of `ref`.
std::string FailureMessage(const std::string& name, double value, const std::string& unit, const Reference& ref,
                           const ReferenceBounds& b) {
  std::string head = Measured(name, value, unit);
  std::string tail = " reference " + FormatNumber(ref.value);
  if (std::isnan(value)) return head + " is not a number (" + tail.substr(1) + ")";
  bool below = value < b.lower;
  std::string dir = below ? " below" : " above";
  std::string sign = below ? "-" : "+";
  double thres = below ? *ref.lower : *ref.upper;
  if (ref.value == 0) {
    return head + " is " + FormatNumber(std::fabs(value)) + dir + tail + " (allowed " + sign +
           FormatNumber(std::fabs(thres)) + ")";
  }
  double deviation = (value - ref.value) / std::fabs(ref.value) * 100;
  auto [d, a] = Percents(deviation, thres * 100);
  return head + " is " + d + "%" + dir + tail + " (allowed " + sign + a + "%)";
}

std::string Num(double v) { return FormatNumber(v, 15); }

}  // namespace

std::optional<Reference> FindReference(const ReferenceTable& refs, const std::string& system,
                                       const std::string& partition, const std::string& var,
                                       const std::vector<std::string>& aliases) {
  std::vector<std::string> exact = {system + ":" + partition};
  for (const auto& a : aliases) exact.push_back(system + ":" + a);
  for (const auto& keys : std::vector<std::vector<std::string>>{exact, {system + ":*", system}, {"*"}}) {
    std::optional<Reference> r = FindIn(refs, keys, var);
    if (r) return r;
  }
  return std::nullopt;
}

// The ranges are assert_reference's: lower in [-1, 0] for ref >= 0 and
// (-inf, 0] for ref < 0; upper in [0, inf) for ref >= 0 and [0, 1] for
// ref < 0. With a reference of 0 (absolute bounds) lower <= 0 <= upper.
Status ValidateReference(const Reference& ref) {
  if (std::isnan(ref.value)) return Status::Error(ref.mark, "reference value is not a number");
  if (ref.lower) {
    double l = *ref.lower;
    if (ref.value > 0 && !(l >= -1 && l <= 0)) {
      return Status::Error(ref.mark, "lower threshold must be in [-1, 0], got " + Num(l));
    }
    if (ref.value <= 0 && !(l <= 0)) {
      return Status::Error(ref.mark, "lower threshold must be <= 0, got " + Num(l));
    }
  }
  if (ref.upper) {
    double u = *ref.upper;
    if (ref.value < 0 && !(u >= 0 && u <= 1)) {
      return Status::Error(ref.mark, "upper threshold must be in [0, 1] for a negative reference, got " + Num(u));
    }
    if (ref.value >= 0 && !(u >= 0)) {
      return Status::Error(ref.mark, "upper threshold must be >= 0, got " + Num(u));
    }
  }
  return Status::OK();
}

ReferenceBounds ComputeBounds(const Reference& ref) {
  return {CalcBound(ref.value, ref.lower).value_or(-kInf), CalcBound(ref.value, ref.upper).value_or(kInf)};
}

PerfResult EvaluateReference(const std::string& name, double value, const std::string& unit,
                             const std::optional<Reference>& ref) {
  PerfResult r;
  r.name = name;
  r.value = value;
  r.unit = unit.empty() && ref ? ref->unit : unit;
  r.reference = ref;
  if (!ref) return r;
  Status valid = ValidateReference(*ref);
  if (!valid.ok()) {
    r.verdict = "fail";
    r.message = name + ": " + valid.message();
    return r;
  }
  ReferenceBounds b = ComputeBounds(*ref);
  bool inside = value >= b.lower && value <= b.upper;  // false for NaN
  r.verdict = inside ? "pass" : "fail";
  if (!inside) r.message = FailureMessage(name, value, r.unit, *ref, b);
  return r;
}

}  // namespace hb
