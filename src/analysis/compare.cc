#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "util/regex.h"
#include "util/strings.h"

namespace hb {

namespace {

const char kForms[] = "expected SESSION[,SESSION...], FROM..TO (e.g. 14d..7d, 2026-11-01..now), last:N or runs:A-B";

Result<int> PositiveInt(const std::string& text, const std::string& sel) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || !end || *end || v < 1 || v > 1000000)
    return Status::Error("selection '" + sel + "': '" + text + "' is not a positive whole number; " + kForms);
  return static_cast<int>(v);
}

bool AnyMatches(const std::vector<std::string>& patterns, const std::string& text) {
  for (const auto& p : patterns) {
    auto re = Regex::Compile(p);
    if (!re.ok()) continue;
    auto found = re->FindFirst(text);
    if (found.ok() && found->has_value()) return true;
  }
  return false;
}

}  // namespace

Result<Selection> ParseSelection(const std::string& text, double now) {
  Selection s;
  s.text = text;
  if (text.empty()) return Status::Error(std::string("empty selection; ") + kForms);
  if (StartsWith(text, "last:")) {
    auto n = PositiveInt(text.substr(5), text);
    if (!n.ok()) return n.status();
    s.kind = Selection::Kind::kRuns;
    s.first = 1;
    s.last = *n;
    return s;
  }
  if (StartsWith(text, "runs:")) {
    std::string range = text.substr(5);
    size_t dash = range.find('-');
    auto a = PositiveInt(range.substr(0, dash), text);
    if (!a.ok()) return a.status();
    auto b = dash == std::string::npos ? a : PositiveInt(range.substr(dash + 1), text);
    if (!b.ok()) return b.status();
    if (*b < *a) return Status::Error("selection '" + text + "': the range runs:A-B needs A <= B");
    s.kind = Selection::Kind::kRuns;
    s.first = *a;
    s.last = *b;
    return s;
  }
  if (size_t dots = text.find(".."); dots != std::string::npos) {
    auto from = ParseTimeSpec(text.substr(0, dots), now);
    if (!from.ok()) return from.status().Prefixed("selection '" + text + "'");
    auto to = ParseTimeSpec(text.substr(dots + 2), now);
    if (!to.ok()) return to.status().Prefixed("selection '" + text + "'");
    if (*to <= *from) return Status::Error("selection '" + text + "': the time range ends before it begins");
    s.kind = Selection::Kind::kTimeRange;
    s.since = *from;
    s.until = *to;
    return s;
  }
  s.kind = Selection::Kind::kSessions;
  for (const auto& id : Split(text, ',')) {
    if (id.empty()) return Status::Error("selection '" + text + "': an empty session id; " + kForms);
    s.sessions.push_back(id);
  }
  return s;
}

bool LowerIsBetter(const std::string& var, const std::string& unit, const CompareOptions& o) {
  if (AnyMatches(o.lower_is_better, var)) return true;
  if (AnyMatches(o.higher_is_better, var)) return false;
  static const std::set<std::string> kTime = {"s",       "sec", "secs", "second", "seconds", "ms",    "msec",
                                              "us",      "µs",  "usec", "ns",     "nsec",    "min",   "mins",
                                              "minutes", "h",   "hr",   "hours",  "ps",      "cycles"};
  return kTime.count(unit) > 0;
}

bool LowerIsBetter(const PerfSeriesKey& k, const CompareOptions& o) {
  if (AnyMatches(o.lower_is_better, k.var)) return true;
  if (AnyMatches(o.higher_is_better, k.var)) return false;
  if (k.better == "lower") return true;
  if (k.better == "higher") return false;
  return LowerIsBetter(k.var, k.unit, o);
}

std::vector<size_t> SelectPoints(const PerfTable& t, const Selection& sel) {
  std::vector<size_t> out;
  switch (sel.kind) {
    case Selection::Kind::kSessions: {
      std::set<int> wanted;
      for (size_t i = 0; i < t.sessions.size(); ++i)
        if (std::find(sel.sessions.begin(), sel.sessions.end(), t.sessions[i].session_id) != sel.sessions.end())
          wanted.insert(static_cast<int>(i));
      for (size_t i = 0; i < t.points.size(); ++i)
        if (wanted.count(t.points[i].session)) out.push_back(i);
      break;
    }
    case Selection::Kind::kTimeRange:
      for (size_t i = 0; i < t.points.size(); ++i)
        if (t.points[i].time >= sel.since && t.points[i].time < sel.until) out.push_back(i);
      break;
    case Selection::Kind::kRuns: {
      // Sessions are numbered oldest first, so a series' runs, latest
      // first, are its distinct session numbers in decreasing order.
      std::vector<std::vector<int>> runs(t.series.size());
      for (const auto& p : t.points) {
        auto& r = runs[p.series];
        if (r.empty() || r.back() != p.session) r.push_back(p.session);
      }
      for (auto& r : runs) {
        std::sort(r.begin(), r.end(), std::greater<int>());
        r.erase(std::unique(r.begin(), r.end()), r.end());
      }
      for (size_t i = 0; i < t.points.size(); ++i) {
        const auto& r = runs[t.points[i].series];
        auto pos = std::lower_bound(r.begin(), r.end(), t.points[i].session, std::greater<int>()) - r.begin() + 1;
        if (pos >= sel.first && pos <= sel.last) out.push_back(i);
      }
      break;
    }
  }
  return out;
}

Result<RunComparison> Compare(const PerfTable& t, const Selection& base, const Selection& target,
                              const CompareOptions& o) {
  for (const auto& list : {o.lower_is_better, o.higher_is_better})
    for (const auto& p : list)
      if (auto re = Regex::Compile(p); !re.ok()) return re.status();
  std::vector<std::vector<double>> b(t.series.size()), g(t.series.size());
  for (size_t i : SelectPoints(t, base)) b[t.points[i].series].push_back(t.points[i].value);
  for (size_t i : SelectPoints(t, target)) g[t.points[i].series].push_back(t.points[i].value);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  RunComparison c;
  for (size_t s = 0; s < t.series.size(); ++s) {
    if (b[s].empty() && g[s].empty()) continue;
    CompareRow r;
    r.series = static_cast<int>(s);
    r.base = std::move(b[s]);
    r.target = std::move(g[s]);
    r.base_value = r.base.empty() ? nan : Apply(o.aggregate, r.base);
    r.target_value = r.target.empty() ? nan : Apply(o.aggregate, r.target);
    r.diff_pct = (r.base.empty() || r.target.empty() || r.base_value == 0)
                     ? nan
                     : (r.target_value - r.base_value) / std::fabs(r.base_value) * 100;
    r.lower_is_better = LowerIsBetter(t.series[s], o);
    auto pct_of_base = [&](double v) {
      return std::isnan(v) || std::isnan(r.base_value) || r.base_value == 0 ? nan : v / std::fabs(r.base_value) * 100;
    };
    if (!r.base.empty() && !r.target.empty()) r.shift = HodgesLehmann(r.target, r.base, 0.95);
    r.shift_pct = pct_of_base(r.shift.shift);
    r.ci_low_pct = pct_of_base(r.shift.low);
    r.ci_high_pct = pct_of_base(r.shift.high);
    auto cv_pct = [&](const std::vector<double>& v) {
      if (v.size() < 2) return nan;
      Summary sum = Summarize(v);
      return sum.mean == 0 ? nan : sum.cv * 100;
    };
    r.cv_base_pct = cv_pct(r.base);
    r.cv_target_pct = cv_pct(r.target);
    if (r.base.empty()) {
      r.verdict = "new";
    } else if (r.target.empty()) {
      r.verdict = "gone";
    } else if (static_cast<int>(r.base.size()) < o.min_samples || static_cast<int>(r.target.size()) < o.min_samples) {
      r.verdict = "untested";
    } else {
      r.test = MannWhitneyU(r.target, r.base);
      r.significant = r.test->p < o.alpha && r.target_value != r.base_value;
      bool up = r.target_value > r.base_value;
      r.verdict = !r.significant ? "not significant" : (up != r.lower_is_better ? "better" : "worse");
    }
    c.rows.push_back(std::move(r));
  }
  // Sample sizes with which the test can never reach alpha, and those
  // left untested by --min-samples.
  std::set<std::pair<size_t, size_t>> hopeless;
  std::map<std::pair<size_t, size_t>, int> untested;
  for (const auto& r : c.rows) {
    if (r.test && MannWhitneyMinP(r.base.size(), r.target.size()) >= o.alpha)
      hopeless.insert({r.base.size(), r.target.size()});
    if (r.verdict == "untested") ++untested[{r.base.size(), r.target.size()}];
  }
  for (const auto& [sizes, n] : untested) {
    double min_p = MannWhitneyMinP(sizes.first, sizes.second);
    char p[32];
    std::snprintf(p, sizeof p, "%.3g", min_p);
    c.warnings.push_back(std::to_string(n) + (n == 1 ? " series was" : " series were") +
                         " not tested: " + std::to_string(sizes.first) + " base and " + std::to_string(sizes.second) +
                         " target values, fewer than --min-samples " + std::to_string(o.min_samples) +
                         (min_p >= o.alpha ? std::string("; with so few values the smallest possible p is ") + p +
                                                 ", so select more runs rather than lower --min-samples"
                                           : std::string("; lower --min-samples or select more runs")));
  }
  for (const auto& [nb, nt] : hopeless) {
    char p[32];
    std::snprintf(p, sizeof p, "%.3g", MannWhitneyMinP(nb, nt));
    c.warnings.push_back("with " + std::to_string(nb) + " base and " + std::to_string(nt) +
                         " target values the smallest possible p is " + p + ", so no change can be significant at " +
                         "alpha " + FormatNumber(o.alpha) +
                         ": select more runs (e.g. last:5 against runs:6-10) or "
                         "raise --alpha");
  }
  return c;
}

bool IsRegression(const CompareRow& r, double pct) {
  if (r.verdict != "worse") return false;
  double reach = r.lower_is_better ? r.ci_high_pct : -r.ci_low_pct;  // the worse end of the interval
  if (std::isnan(reach)) return std::fabs(r.diff_pct) > pct;
  return reach >= pct;
}

std::vector<const CompareRow*> Regressions(const RunComparison& c, double pct) {
  std::vector<const CompareRow*> out;
  for (const auto& r : c.rows)
    if (IsRegression(r, pct)) out.push_back(&r);
  return out;
}

std::vector<const CompareRow*> WorseBelowThreshold(const RunComparison& c, double pct) {
  std::vector<const CompareRow*> out;
  for (const auto& r : c.rows)
    if (r.verdict == "worse" && !IsRegression(r, pct)) out.push_back(&r);
  return out;
}

}  // namespace hb
