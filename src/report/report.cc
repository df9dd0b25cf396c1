#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/analyses.h"
#include "analysis/changepoint.h"
#include "analysis/compare.h"
#include "analysis/stats.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

Json Num(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

bool LowerBetter(const std::string& var, const std::string& unit) { return LowerIsBetter(var, unit, {}); }

std::string Label(const PerfSeriesKey& k) { return k.display_name.empty() ? k.name : k.display_name; }

Json Counts(const StoredSession& s) {
  return {{"total", s.total}, {"passed", s.passed}, {"failed", s.failed}, {"skipped", s.skipped},
          {"cancelled", s.cancelled}};
}

Json Latest(const ReportInput& in) {
  if (in.sessions.empty()) return nullptr;
  const StoredSession& s = in.sessions.back();
  Json failures = Json::array(), perf = Json::array();
  for (const auto& sc : in.latest_cases) {
    const CaseResult& c = sc.c;
    std::string label = c.display_name.empty() ? c.name : c.display_name;
    if (c.repetition) label += " [rep " + std::to_string(c.repetition) + "]";
    if (c.result != "pass")
      failures.push_back({{"case", label}, {"system", c.system}, {"partition", c.partition}, {"environ", c.environ},
                          {"result", c.result}, {"stage", c.fail_stage}, {"reason", c.fail_reason}});
    for (const auto& p : c.perf) {
      Json j = {{"case", label}, {"system", c.system}, {"partition", c.partition}, {"var", p.name},
                {"value", Num(p.value)}, {"unit", p.unit}, {"ref", nullptr}, {"lower", nullptr}, {"upper", nullptr},
                {"verdict", p.verdict}};
      if (p.reference) {
        j["ref"] = Num(p.reference->value);
        if (p.reference->lower) j["lower"] = Num(*p.reference->lower);
        if (p.reference->upper) j["upper"] = Num(*p.reference->upper);
      }
      perf.push_back(j);
    }
  }
  return {{"session_id", s.info.session_id}, {"system", s.info.system}, {"hostname", s.info.hostname},
          {"start_time", s.info.start_time}, {"counts", Counts(s)}, {"failures", failures}, {"perf", perf}};
}

// [lower, upper] of a value's reference, as assert_reference reads the
// thresholds (fractions of |ref|); NaN where unbounded.
std::pair<double, double> Band(const PerfPoint& p) {
  double lo = NAN, hi = NAN;
  if (p.has_ref && p.has_lower) lo = p.ref + p.lower * std::fabs(p.ref);
  if (p.has_ref && p.has_upper) hi = p.ref + p.upper * std::fabs(p.ref);
  return {lo, hi};
}

}  // namespace

Json ReportData(const ReportInput& in) {
  const PerfTable& t = in.table;
  Json j;
  j["schema"] = "hetbench-report";
  j["schema_version"] = 1;
  j["title"] = in.title;
  j["scope"] = in.scope;
  j["store"] = in.store_path;
  j["version"] = in.version;
  j["generated"] = in.generated;
  j["latest"] = Latest(in);
  Json sessions = Json::array();
  for (const auto& s : in.sessions) {
    Json x = Counts(s);
    x["session_id"] = s.info.session_id;
    x["start_time"] = s.info.start_time;
    x["system"] = s.info.system;
    x["hostname"] = s.info.hostname;
    sessions.push_back(x);
  }
  j["sessions"] = sessions;

  // Points of each series, in time order.
  std::vector<std::vector<const PerfPoint*>> by_series(t.series.size());
  for (const auto& p : t.points) by_series[p.series].push_back(&p);
  ChangePointOptions cpo;
  Json series = Json::array();
  std::map<std::string, std::vector<int>> tests;
  std::map<std::string, int> test_changes;
  std::vector<int> json_index(t.series.size(), -1);  // series without values are left out
  for (size_t s = 0; s < t.series.size(); ++s) {
    const PerfSeriesKey& k = t.series[s];
    const auto& pts = by_series[s];
    if (pts.empty()) continue;
    json_index[s] = static_cast<int>(series.size());
    bool lower = LowerBetter(k.var, k.unit);
    // One value per session (the median of its repetitions) for the change points.
    std::vector<double> per_session;
    std::vector<int> session_of;
    std::vector<double> time_of;
    for (size_t i = 0; i < pts.size();) {
      size_t e = i;
      std::vector<double> vals;
      while (e < pts.size() && pts[e]->session == pts[i]->session) vals.push_back(pts[e++]->value);
      std::sort(vals.begin(), vals.end());
      per_session.push_back(QuantileSorted(vals, 0.5));
      session_of.push_back(pts[i]->session);
      time_of.push_back(pts[i]->time);
      i = e;
    }
    Json changes = Json::array();
    for (const auto& cp : DetectChangePoints(per_session, cpo)) {
      bool worse = lower ? cp.mean_after > cp.mean_before : cp.mean_after < cp.mean_before;
      changes.push_back({{"session", t.sessions[session_of[cp.index]].session_id},
                         {"time", time_of[cp.index]},
                         {"mean_before", Num(cp.mean_before)},
                         {"mean_after", Num(cp.mean_after)},
                         {"rel_change", Num(cp.rel_change)},
                         {"p", Num(cp.pvalue)},
                         {"kind", worse ? "regression" : "improvement"}});
    }
    size_t first = pts.size() > static_cast<size_t>(std::max(1, in.max_points)) ? pts.size() - in.max_points : 0;
    // An unbounded side of the band ends a little beyond the values drawn.
    double vmin = INFINITY, vmax = -INFINITY;
    for (size_t i = first; i < pts.size(); ++i) {
      vmin = std::min(vmin, pts[i]->value);
      vmax = std::max(vmax, pts[i]->value);
    }
    double pad = std::max(std::fabs(vmax - vmin), std::fabs(vmax)) * 0.05;
    Json points = Json::array(), band = Json::array();
    for (size_t i = first; i < pts.size(); ++i) {
      points.push_back(Json::array({pts[i]->time, Num(pts[i]->value)}));
      auto [lo, hi] = Band(*pts[i]);
      if (std::isfinite(lo) || std::isfinite(hi))
        band.push_back(Json::array({pts[i]->time, Num(std::isfinite(lo) ? lo : std::min(vmin, hi) - pad),
                                    Num(std::isfinite(hi) ? hi : std::max(vmax, lo) + pad)}));
    }
    test_changes[k.name] += static_cast<int>(changes.size());
    tests[k.name].push_back(json_index[s]);
    series.push_back({{"test", k.name}, {"case", Label(k)}, {"system", k.system}, {"partition", k.partition},
                      {"environ", k.environ}, {"var", k.var}, {"unit", k.unit}, {"lower_is_better", lower},
                      {"total", pts.size()}, {"points", points}, {"band", band}, {"changes", changes}});
  }
  j["series"] = series;
  Json tj = Json::array();
  for (const auto& [name, ids] : tests) tj.push_back({{"name", name}, {"series", ids}, {"changes", test_changes[name]}});
  j["tests"] = tj;
  j["changepoint_method"] =
      "Change points: split/merge of the per-session medians (E-divisive candidates, Welch's t-test p < " +
      std::to_string(cpo.max_pvalue).substr(0, 5) + ", at least " + std::to_string(cpo.min_segment) +
      " sessions on each side), as Apache Otava does. A regression is a move in the worse direction (units of time: "
      "up; others: down).";

  Json parts = Json::array();
  for (const auto& [var, group] : BreakdownParts()) parts.push_back(var);
  j["breakdown_parts"] = parts;
  Json bd = Json::array();
  for (const auto& b : TimeBreakdowns(t)) {
    Json p = Json::object();
    for (const auto& part : b.parts) p[part.var] = part.seconds;
    bd.push_back({{"case", b.label}, {"system", b.system}, {"partition", b.partition}, {"environ", b.environ},
                  {"session", t.sessions[b.session].session_id}, {"parts", p}, {"total", b.total}});
  }
  j["breakdown"] = bd;
  Json sc = Json::array();
  for (const auto& c : ScalingCurves(t, LowerBetter)) {
    Json pts = Json::array();
    for (const auto& p : c.points)
      pts.push_back({{"scale", p.scale}, {"value", Num(p.value)}, {"speedup", Num(p.speedup)},
                     {"efficiency", Num(p.efficiency)}, {"ideal", p.ideal}, {"count", p.count}});
    sc.push_back({{"test", c.test}, {"label", c.label}, {"system", c.system}, {"partition", c.partition},
                  {"environ", c.environ}, {"var", c.var}, {"unit", c.unit}, {"parameter", c.parameter},
                  {"lower_is_better", c.lower_is_better}, {"points", pts}});
  }
  j["scaling"] = sc;
  // The variability of the latest session of each series that repeated.
  std::map<int, Variability> latest_var;
  for (const auto& v : RepetitionVariability(t)) latest_var[v.series] = v;  // sessions ascend
  Json va = Json::array();
  for (const auto& [s, v] : latest_var)
    va.push_back({{"series", json_index[s]}, {"session", t.sessions[v.session].session_id}, {"count", v.count},
                  {"mean", Num(v.mean)}, {"cv", Num(v.cv)}});
  j["variability"] = va;
  return j;
}

std::string RenderReport(const ReportInput& in) {
  std::string data = ReportData(in).dump();
  // Inside <script>, "</" could end the element: JSON allows "<\/".
  std::string safe;
  safe.reserve(data.size() + 64);
  for (size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '<' && i + 1 < data.size() && data[i + 1] == '/') {
      safe += "<\\/";
      ++i;
    } else {
      safe += data[i];
    }
  }
  std::string page = kReportPageHtml;
  auto put = [&](const std::string& mark, const std::string& text) {
    size_t at = page.find(mark);
    if (at != std::string::npos) page.replace(at, mark.size(), text);
  };
  put("/*HB_CHARTJS*/", kChartJs);
  put("/*HB_DATA*/", safe);
  return page;
}

}  // namespace hb
