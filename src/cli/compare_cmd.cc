// `hetbench compare BASE TARGET`: two selections of stored runs side by
// side, with a significance test per performance variable, and a gate for
// CI (--fail-on-regression PCT).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

int Fail(const Status& st) {
  std::fprintf(stderr, "hetbench: error: %s\n", st.str().c_str());
  return 2;
}

std::string Num(double v, const std::string& unit = "") {
  if (std::isnan(v)) return "-";
  return FormatNumber(v) + (unit.empty() ? "" : " " + unit);
}

std::string Pct(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

std::string PValue(const CompareRow& r) {
  if (!r.test) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, r.test->p < 0.001 ? "%.1e" : "%.3f", r.test->p);
  return buf;
}

std::string CaseLabel(const PerfSeriesKey& k) { return k.display_name.empty() ? k.name : k.display_name; }

// Narrows the store query to what the two selections can pick.
void Narrow(const Selection& a, const Selection& b, StoreQuery* q) {
  using K = Selection::Kind;
  if (a.kind == K::kTimeRange && b.kind == K::kTimeRange && !q->since && !q->until) {
    q->since = std::min(a.since, b.since);
    q->until = std::max(a.until, b.until);
  }
  if (a.kind == K::kSessions && b.kind == K::kSessions && q->session.empty()) {
    q->sessions = a.sessions;
    q->sessions.insert(q->sessions.end(), b.sessions.begin(), b.sessions.end());
  }
}

Json OrNull(double v) { return std::isnan(v) ? Json(nullptr) : Json(v); }

// "-9.9% [-10.4, -9.5]": the Hodges-Lehmann change and its 95 % interval.
std::string Change(const CompareRow& r) {
  if (std::isnan(r.shift_pct)) return "-";
  if (std::isnan(r.ci_low_pct)) return Pct(r.shift_pct) + " [too few]";
  char buf[64];
  std::snprintf(buf, sizeof buf, " [%+.1f, %+.1f]", r.ci_low_pct, r.ci_high_pct);
  return Pct(r.shift_pct) + buf;
}

// "0.4/0.5%": the CV of each side; a side of one value is "-".
std::string Cvs(const CompareRow& r) {
  auto one = [](double v) {
    if (std::isnan(v)) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return std::string(buf);
  };
  return one(r.cv_base_pct) + "/" + one(r.cv_target_pct) + "%";
}

bool IsChange(const CompareRow& r) { return r.verdict == "worse" || r.verdict == "better"; }

Json RowJson(const PerfTable& t, const CompareRow& r) {
  const PerfSeriesKey& k = t.series[r.series];
  auto side = [](double v, size_t n) { return Json{{"value", std::isnan(v) ? Json(nullptr) : Json(v)}, {"count", n}}; };
  Json j = {{"test", k.name},
            {"case", CaseLabel(k)},
            {"system", k.system},
            {"partition", k.partition},
            {"environ", k.environ},
            {"variable", k.var},
            {"unit", k.unit},
            {"lower_is_better", r.lower_is_better},
            {"base", side(r.base_value, r.base.size())},
            {"target", side(r.target_value, r.target.size())},
            {"diff_pct", OrNull(r.diff_pct)},
            {"shift_pct", OrNull(r.shift_pct)},
            {"ci_low_pct", OrNull(r.ci_low_pct)},
            {"ci_high_pct", OrNull(r.ci_high_pct)},
            {"ci_confidence", OrNull(r.shift.confidence)},
            {"cv_base_pct", OrNull(r.cv_base_pct)},
            {"cv_target_pct", OrNull(r.cv_target_pct)},
            {"p", r.test ? Json(r.test->p) : Json(nullptr)},
            {"test_method", r.test ? Json(r.test->method) : Json(nullptr)},
            {"significant", r.significant},
            {"verdict", r.verdict}};
  return j;
}

std::string CsvNumber(double v) { return std::isnan(v) ? "" : FormatNumber(v); }

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

int CompareCommand(const CompareCommandOptions& o) {
  double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto base = ParseSelection(o.base, now);
  if (!base.ok()) return Fail(base.status().Prefixed("BASE"));
  auto target = ParseSelection(o.target, now);
  if (!target.ok()) return Fail(target.status().Prefixed("TARGET"));
  CompareOptions co;
  auto agg = ParseAggregate(o.aggregate);
  if (!agg.ok()) return Fail(agg.status().Prefixed("--aggregate"));
  co.aggregate = *agg;
  co.alpha = o.alpha;
  co.min_samples = o.min_samples;
  co.lower_is_better = o.lower_is_better;
  co.higher_is_better = o.higher_is_better;
  if (o.alpha <= 0 || o.alpha >= 1) return Fail(Status::Error("--alpha must be between 0 and 1"));
  if (o.min_samples < 2) return Fail(Status::Error("--min-samples must be at least 2"));

  auto query = MakeStoreQuery(o.filters);
  if (!query.ok()) return Fail(query.status());
  auto store = OpenResultsStore(o.filters, false);
  if (!store.ok()) return Fail(store.status());
  // Sessions named by prefix become full ids (an unknown one is an error).
  for (Selection* s : {&*base, &*target}) {
    for (auto& id : s->sessions) {
      auto found = (*store)->FindSession(id);
      if (!found.ok()) return Fail(found.status().Prefixed(s == &*base ? "BASE" : "TARGET"));
      id = found->info.session_id;
    }
  }
  Narrow(*base, *target, &*query);
  auto table = (*store)->Perf(*query);
  if (!table.ok()) return Fail(table.status());
  auto cmp = Compare(*table, *base, *target, co);
  if (!cmp.ok()) return Fail(cmp.status());
  std::vector<const CompareRow*> regressions;
  if (o.fail_on_regression >= 0) regressions = Regressions(*cmp, o.fail_on_regression);

  std::vector<const CompareRow*> below;
  if (o.fail_on_regression >= 0) below = WorseBelowThreshold(*cmp, o.fail_on_regression);
  std::map<std::string, int> counts;  // of every row, shown or not
  for (const auto& r : cmp->rows) ++counts[r.verdict];
  const bool untested_fails = o.fail_on_untested && counts["untested"] > 0;

  std::vector<const CompareRow*> shown;
  for (const auto& r : cmp->rows)
    if (!o.changes_only || IsChange(r)) shown.push_back(&r);
  for (const auto& w : cmp->warnings) std::fprintf(stderr, "hetbench: warning: %s\n", w.c_str());
  static const char* const kVerdicts[] = {"worse", "better", "not significant", "untested", "new", "gone"};

  if (o.format == "json") {
    Json rows = Json::array(), regs = Json::array(), summary = Json::object();
    for (const auto* r : shown) rows.push_back(RowJson(*table, *r));
    for (const auto* r : regressions) regs.push_back(RowJson(*table, *r));
    for (const char* v : kVerdicts) summary[v] = counts[v];
    Json j = {{"schema", "hetbench-compare"},
              {"schema_version", 2},
              {"base", o.base},
              {"target", o.target},
              {"aggregate", co.aggregate.name},
              {"alpha", co.alpha},
              {"min_samples", co.min_samples},
              {"fail_on_regression_pct", o.fail_on_regression >= 0 ? Json(o.fail_on_regression) : Json(nullptr)},
              {"fail_on_untested", o.fail_on_untested},
              {"changes_only", o.changes_only},
              {"summary", summary},
              {"warnings", cmp->warnings},
              {"rows", rows},
              {"regressions", regs}};
    std::printf("%s\n", JsonText(j, 2).c_str());
  } else if (o.format == "csv") {
    std::printf(
        "test,case,system,partition,environ,variable,unit,base,base_count,target,target_count,diff_pct,"
        "shift_pct,ci_low_pct,ci_high_pct,cv_base_pct,cv_target_pct,p,significant,verdict\n");
    for (const auto* r : shown) {
      const PerfSeriesKey& k = table->series[r->series];
      std::vector<std::string> f = {k.name,
                                    CaseLabel(k),
                                    k.system,
                                    k.partition,
                                    k.environ,
                                    k.var,
                                    k.unit,
                                    std::isnan(r->base_value) ? "" : FormatNumber(r->base_value),
                                    std::to_string(r->base.size()),
                                    std::isnan(r->target_value) ? "" : FormatNumber(r->target_value),
                                    std::to_string(r->target.size()),
                                    CsvNumber(r->diff_pct),
                                    CsvNumber(r->shift_pct),
                                    CsvNumber(r->ci_low_pct),
                                    CsvNumber(r->ci_high_pct),
                                    CsvNumber(r->cv_base_pct),
                                    CsvNumber(r->cv_target_pct),
                                    r->test ? FormatNumber(r->test->p) : "",
                                    r->significant ? "true" : "false",
                                    r->verdict};
      for (auto& x : f) x = CsvField(x);
      std::printf("%s\n", Join(f, ",").c_str());
    }
  } else {
    std::printf(
        "Comparing %s (base) with %s (target): %s of each side; Mann-Whitney U, p < %g, with at least %d "
        "values a side; CHANGE is the Hodges-Lehmann shift with its 95%% interval\n\n",
        o.base.c_str(), o.target.c_str(), co.aggregate.name.c_str(), co.alpha, co.min_samples);
    std::vector<std::vector<std::string>> rows = {{"CASE", "SYSTEM", "ENVIRON", "VARIABLE", "BASE", "TARGET", "DIFF",
                                                   "CHANGE [95% CI]", "CV", "N", "P", "VERDICT"}};
    for (const auto* r : shown) {
      const PerfSeriesKey& k = table->series[r->series];
      rows.push_back({CaseLabel(k), k.system + ":" + k.partition, k.environ,
                      k.var + (r->lower_is_better ? " (lower is better)" : ""), Num(r->base_value, k.unit),
                      Num(r->target_value, k.unit), Pct(r->diff_pct), Change(*r), Cvs(*r),
                      std::to_string(r->base.size()) + "/" + std::to_string(r->target.size()), PValue(*r), r->verdict});
    }
    if (rows.size() > 1)
      std::printf(
          "%s\n",
          TextTable(rows, {false, false, false, false, true, true, true, true, true, true, true, false}).c_str());
    std::vector<std::string> parts;
    for (const char* v : kVerdicts)
      if (counts.count(v) && counts[v]) parts.push_back(std::to_string(counts[v]) + " " + v);
    std::printf("%zu value series compared%s%s%s\n", cmp->rows.size(), parts.empty() ? "" : ": ",
                Join(parts, ", ").c_str(),
                o.changes_only ? (" (" + std::to_string(shown.size()) + " changes shown)").c_str() : "");
    if (cmp->rows.empty())
      std::printf(
          "No performance values in both selections; check the filters (hetbench results cases) and the "
          "selections.\n");
    for (const auto* r : regressions) {
      const PerfSeriesKey& k = table->series[r->series];
      std::printf("REGRESSION: %s on %s:%s (%s) %s: %s -> %s (change %s, p = %s) reaches a slowdown of %g%%\n",
                  CaseLabel(k).c_str(), k.system.c_str(), k.partition.c_str(), k.environ.c_str(), k.var.c_str(),
                  Num(r->base_value, k.unit).c_str(), Num(r->target_value, k.unit).c_str(), Change(*r).c_str(),
                  PValue(*r).c_str(), o.fail_on_regression);
    }
    for (const auto* r : below) {
      const PerfSeriesKey& k = table->series[r->series];
      std::printf(
          "note: %s on %s:%s (%s) %s is significantly worse (%s), but its interval does not reach %g%%: "
          "not a regression for the gate\n",
          CaseLabel(k).c_str(), k.system.c_str(), k.partition.c_str(), k.environ.c_str(), k.var.c_str(),
          Change(*r).c_str(), o.fail_on_regression);
    }
    if (untested_fails)
      std::printf("UNTESTED: %d series could not be tested (--fail-on-untested)\n", counts["untested"]);
  }
  return regressions.empty() && !untested_fails ? 0 : 1;
}

}  // namespace hb
