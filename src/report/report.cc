#include "report/report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "analysis/analyses.h"
#include "analysis/changes.h"
#include "analysis/compare.h"
#include "analysis/stats.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

Json Num(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

bool LowerBetter(const std::string& var, const std::string& unit) { return LowerIsBetter(var, unit, {}); }

std::string Label(const PerfSeriesKey& k) { return k.display_name.empty() ? k.name : k.display_name; }

Json Counts(const StoredSession& s) {
  return {{"total", s.total},
          {"passed", s.passed},
          {"failed", s.failed},
          {"skipped", s.skipped},
          {"cancelled", s.cancelled}};
}

Json Latest(const ReportInput& in) {
  if (in.sessions.empty()) return nullptr;
  const StoredSession& s = in.sessions.back();
  Json failures = Json::array(), perf = Json::array();
  // The counts of the cases in the selection (-n, -t, --system), not of
  // the whole session.
  std::map<std::string, int> n = {{"total", 0}, {"passed", 0}, {"failed", 0}, {"skipped", 0}, {"cancelled", 0}};
  for (const auto& sc : in.latest_cases) {
    const CaseResult& c = sc.c;
    ++n["total"];
    if (c.result == "pass")
      ++n["passed"];
    else if (c.result == "fail")
      ++n["failed"];
    else if (c.result == "skip")
      ++n["skipped"];
    else if (c.result == "cancelled")
      ++n["cancelled"];
    std::string label = c.display_name.empty() ? c.name : c.display_name;
    if (c.repetition) label += " [rep " + std::to_string(c.repetition) + "]";
    if (c.result != "pass")
      failures.push_back({{"case", label},
                          {"system", c.system},
                          {"partition", c.partition},
                          {"environ", c.environ},
                          {"result", c.result},
                          {"stage", c.fail_stage},
                          {"reason", c.fail_reason}});
    for (const auto& p : c.perf) {
      Json j = {{"case", label},         {"system", c.system},  {"partition", c.partition}, {"var", p.name},
                {"value", Num(p.value)}, {"unit", p.unit},      {"ref", nullptr},           {"lower", nullptr},
                {"upper", nullptr},      {"verdict", p.verdict}};
      if (p.reference) {
        j["ref"] = Num(p.reference->value);
        if (p.reference->lower) j["lower"] = Num(*p.reference->lower);
        if (p.reference->upper) j["upper"] = Num(*p.reference->upper);
      }
      perf.push_back(j);
    }
  }
  return {{"session_id", s.info.session_id},
          {"system", s.info.system},
          {"hostname", s.info.hostname},
          {"start_time", s.info.start_time},
          {"counts", Json(n)},
          {"session_counts", Counts(s)},
          {"failures", failures},
          {"perf", perf}};
}

// A number as JSON: the shortest text that reads back the same; null for
// NaN and infinities.
void Number(std::string* out, double v) {
  if (!std::isfinite(v)) {
    *out += "null";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// [run, value, time, ok]: a point of a history chart.
void Quad(std::string* out, int run, double value, double time, bool ok) {
  if (out->size() > 1) *out += ',';
  *out += '[';
  Number(out, run);
  *out += ',';
  Number(out, value);
  *out += ',';
  Number(out, time);
  *out += ok ? ",1]" : ",0]";
}

void Triple(std::string* out, double a, double b, double c) {
  if (out->size() > 1) *out += ',';
  *out += '[';
  Number(out, a);
  *out += ',';
  Number(out, b);
  *out += ',';
  Number(out, c);
  *out += ']';
}

// JSON text appended so that it can stand inside <script>: "</" could end
// the element, and JSON allows "<\/" for it.
void AppendForScript(const std::string& json, std::string* out) {
  size_t from = 0;
  for (size_t at; (at = json.find("</", from)) != std::string::npos; from = at + 2) {
    out->append(json, from, at - from);
    *out += "<\\/";
  }
  out->append(json, from, std::string::npos);
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

void AppendReportJson(const ReportInput& in, std::string* out) {
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
  ChangeOptions cho;
  const std::vector<SessionSeries> per_session = PerSessionMedians(t);
  std::string series = "[", points, band;
  series.reserve(t.points.size() * 28 + 1024);
  std::map<std::string, std::vector<int>> tests;
  std::map<std::string, int> test_changes;
  std::vector<int> json_index(t.series.size(), -1);  // series without values are left out
  int written = 0;
  for (size_t s = 0; s < t.series.size(); ++s) {
    const PerfSeriesKey& k = t.series[s];
    const auto& pts = by_series[s];
    if (pts.empty()) continue;
    json_index[s] = written++;
    bool lower = LowerIsBetter(k, CompareOptions{});
    // Change points and a recent shift over the per-session medians
    // (analysis/changes.h), as `hetbench results changes` finds them.
    Json changes = Json::array();
    for (const auto& c : FindChanges(per_session[s].values, lower, cho)) {
      changes.push_back({{"session", t.sessions[per_session[s].sessions[c.index]].session_id},
                         {"time", per_session[s].times[c.index]},
                         {"run", per_session[s].sessions[c.index] + 1},
                         {"mean_before", Num(c.before)},
                         {"mean_after", Num(c.after)},
                         {"rel_change", Num(c.change_pct / 100)},
                         {"p", Num(c.p)},
                         {"method", c.method},
                         {"kind", c.regression ? "regression" : "improvement"}});
    }
    size_t first = pts.size() > static_cast<size_t>(std::max(1, in.max_points)) ? pts.size() - in.max_points : 0;
    // An unbounded side of the band ends a little beyond the values drawn.
    double vmin = INFINITY, vmax = -INFINITY;
    for (size_t i = first; i < pts.size(); ++i) {
      vmin = std::min(vmin, pts[i]->value);
      vmax = std::max(vmax, pts[i]->value);
    }
    // A band's unbounded side ends a little beyond the values drawn (not
    // at the top or bottom of the chart).
    double pad = std::max(std::fabs(vmax - vmin) * 0.1, std::fabs(vmax) * 0.01);
    const double clip_lo = vmin - pad, clip_hi = vmax + pad;
    // The values are most of the data: written as text, not as JSON nodes.
    // The band is a step line: an entry where it changes, and at the end.
    points.assign("[");
    band.assign("[");
    double band_lo = NAN, band_hi = NAN;
    for (size_t i = first; i < pts.size(); ++i) {
      // x is the run: the session's number in the selection, oldest 1.
      const int run = pts[i]->session + 1;
      auto [lo, hi] = Band(*pts[i]);
      bool bounded = std::isfinite(lo) || std::isfinite(hi);
      // An unbounded side is NaN (Band).
      bool ok = (!std::isfinite(lo) || pts[i]->value >= lo) && (!std::isfinite(hi) || pts[i]->value <= hi);
      Quad(&points, run, pts[i]->value, pts[i]->time, ok);
      if (bounded) {
        lo = std::isfinite(lo) ? lo : std::min(clip_lo, hi);
        hi = std::isfinite(hi) ? hi : std::max(clip_hi, lo);
      }
      bool changed = bounded ? !(lo == band_lo && hi == band_hi) : !std::isnan(band_lo);
      if (changed || (bounded && i + 1 == pts.size())) Triple(&band, run, lo, hi);
      band_lo = bounded ? lo : NAN;
      band_hi = bounded ? hi : NAN;
    }
    points += "]";
    band += "]";
    test_changes[k.name] += static_cast<int>(changes.size());
    tests[k.name].push_back(json_index[s]);
    Json meta = {{"test", k.name},           {"case", Label(k)},         {"system", k.system},
                 {"partition", k.partition}, {"environ", k.environ},     {"var", k.var},
                 {"unit", k.unit},           {"lower_is_better", lower}, {"figure_of_merit", k.figure_of_merit},
                 {"total", pts.size()},      {"changes", changes}};
    std::string text = JsonText(meta);
    text.pop_back();  // the closing brace
    if (series.size() > 1) series += ',';
    series += text;
    series += ",\"points\":";
    series += points;
    series += ",\"band\":";
    series += band;
    series += '}';
  }
  series += "]";
  Json tj = Json::array();
  for (const auto& [name, ids] : tests)
    tj.push_back({{"name", name}, {"series", ids}, {"changes", test_changes[name]}});
  j["tests"] = tj;
  j["changepoint_method"] =
      "Change points: split/merge of the per-session medians (E-divisive candidates; Welch's t-test, "
      "Bonferroni-corrected for the places a candidate was chosen from, p < 0.001; at least 3 sessions on each "
      "side), as Apache Otava does; and a recent shift: the last 5 sessions against at least 10 before them, "
      "Mann-Whitney U, p < 0.001. A regression is a move in the worse direction (the test's `better:`, else by the "
      "unit: times up, others down).";

  Json parts = Json::array();
  for (const auto& [var, group] : StepParts()) parts.push_back(var);
  j["breakdown_parts"] = parts;
  Json bd = Json::array();
  for (const auto& b : TimeBreakdowns(t)) {
    Json p = Json::object();
    for (const auto& part : b.parts) p[part.var] = part.seconds;
    Json groups = Json::object(), percent = Json::object();
    for (const auto& g : b.groups) {
      groups[g.group] = g.seconds;
      percent[g.group] = g.percent;
    }
    bd.push_back({{"case", b.label},
                  {"system", b.system},
                  {"partition", b.partition},
                  {"environ", b.environ},
                  {"session", t.sessions[b.session].session_id},
                  {"parts", p},
                  {"groups", groups},
                  {"percent", percent},
                  {"total", b.total}});
  }
  j["breakdown"] = bd;
  j["breakdown_groups"] = StepGroups();
  j["cv_limit_pct"] = in.cv_limit_pct;
  Json sc = Json::array();
  for (const auto& c : ScalingCurves(t, LowerBetter)) {
    Json pts = Json::array();
    for (const auto& p : c.points)
      pts.push_back({{"scale", p.scale},
                     {"value", Num(p.value)},
                     {"speedup", Num(p.speedup)},
                     {"efficiency", Num(p.efficiency)},
                     {"ideal", p.ideal},
                     {"count", p.count}});
    sc.push_back({{"test", c.test},
                  {"label", c.label},
                  {"system", c.system},
                  {"partition", c.partition},
                  {"environ", c.environ},
                  {"var", c.var},
                  {"unit", c.unit},
                  {"parameter", c.parameter},
                  {"lower_is_better", c.lower_is_better},
                  {"points", pts}});
  }
  j["scaling"] = sc;
  // The variability of the latest session of each series that repeated.
  std::map<int, Variability> latest_var;
  for (const auto& v : RepetitionVariability(t)) latest_var[v.series] = v;  // sessions ascend
  Json va = Json::array();
  for (const auto& [s, v] : latest_var)
    va.push_back({{"series", json_index[s]},
                  {"session", t.sessions[v.session].session_id},
                  {"count", v.count},
                  {"mean", Num(v.mean)},
                  {"cv", Num(v.cv)}});
  j["variability"] = va;
  std::string head = JsonText(j);
  head.pop_back();
  AppendForScript(head, out);
  *out += ",\"series\":";
  AppendForScript(series, out);
  *out += '}';
}

std::string ReportJson(const ReportInput& in) {
  std::string out;
  AppendReportJson(in, &out);
  return out;
}

Json ReportData(const ReportInput& in) { return Json::parse(ReportJson(in)); }

std::string RenderReport(const ReportInput& in) {
  const std::string page = kReportPageHtml;
  const std::string js_mark = "/*HB_CHARTJS*/", data_mark = "/*HB_DATA*/";
  size_t js_at = page.find(js_mark), data_at = page.find(data_mark);
  std::string out;
  out.reserve(page.size() + std::char_traits<char>::length(kChartJs) + in.table.points.size() * 28 + (1 << 20));
  out.append(page, 0, js_at);
  out += kChartJs;
  out.append(page, js_at + js_mark.size(), data_at - js_at - js_mark.size());
  AppendReportJson(in, &out);
  out.append(page, data_at + data_mark.size(), std::string::npos);
  return out;
}

}  // namespace hb
