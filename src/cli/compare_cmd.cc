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

Json RowJson(const PerfTable& t, const CompareRow& r) {
  const PerfSeriesKey& k = t.series[r.series];
  auto side = [](double v, size_t n) {
    return Json{{"value", std::isnan(v) ? Json(nullptr) : Json(v)}, {"count", n}};
  };
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
            {"diff_pct", std::isnan(r.diff_pct) ? Json(nullptr) : Json(r.diff_pct)},
            {"p", r.test ? Json(r.test->p) : Json(nullptr)},
            {"test_method", r.test ? Json(r.test->method) : Json(nullptr)},
            {"significant", r.significant},
            {"verdict", r.verdict}};
  return j;
}

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

  std::vector<const CompareRow*> shown;
  for (const auto& r : cmp->rows) shown.push_back(&r);

  if (o.format == "json") {
    Json rows = Json::array(), regs = Json::array();
    for (const auto* r : shown) rows.push_back(RowJson(*table, *r));
    for (const auto* r : regressions) regs.push_back(RowJson(*table, *r));
    Json j = {{"schema", "hetbench-compare"},
              {"schema_version", 1},
              {"base", o.base},
              {"target", o.target},
              {"aggregate", co.aggregate.name},
              {"alpha", co.alpha},
              {"min_samples", co.min_samples},
              {"fail_on_regression_pct", o.fail_on_regression >= 0 ? Json(o.fail_on_regression) : Json(nullptr)},
              {"rows", rows},
              {"regressions", regs}};
    std::printf("%s\n", JsonText(j, 2).c_str());
  } else if (o.format == "csv") {
    std::printf("test,case,system,partition,environ,variable,unit,base,base_count,target,target_count,diff_pct,p,"
                "significant,verdict\n");
    for (const auto* r : shown) {
      const PerfSeriesKey& k = table->series[r->series];
      std::vector<std::string> f = {k.name, CaseLabel(k), k.system, k.partition, k.environ, k.var, k.unit,
                                    std::isnan(r->base_value) ? "" : FormatNumber(r->base_value),
                                    std::to_string(r->base.size()),
                                    std::isnan(r->target_value) ? "" : FormatNumber(r->target_value),
                                    std::to_string(r->target.size()),
                                    std::isnan(r->diff_pct) ? "" : FormatNumber(r->diff_pct),
                                    r->test ? FormatNumber(r->test->p) : "", r->significant ? "true" : "false",
                                    r->verdict};
      for (auto& x : f) x = CsvField(x);
      std::printf("%s\n", Join(f, ",").c_str());
    }
  } else {
    std::printf("Comparing %s (base) with %s (target): %s of each side; Mann-Whitney U, p < %g, with at least %d "
                "values a side\n\n",
                o.base.c_str(), o.target.c_str(), co.aggregate.name.c_str(), co.alpha, co.min_samples);
    std::vector<std::vector<std::string>> rows = {
        {"CASE", "SYSTEM", "ENVIRON", "VARIABLE", "BASE", "TARGET", "DIFF", "N", "P", "VERDICT"}};
    std::map<std::string, int> counts;
    for (const auto* r : shown) {
      const PerfSeriesKey& k = table->series[r->series];
      ++counts[r->verdict];
      rows.push_back({CaseLabel(k), k.system + ":" + k.partition, k.environ,
                      k.var + (r->lower_is_better ? " (lower is better)" : ""), Num(r->base_value, k.unit),
                      Num(r->target_value, k.unit), Pct(r->diff_pct),
                      std::to_string(r->base.size()) + "/" + std::to_string(r->target.size()), PValue(*r),
                      r->verdict});
    }
    if (rows.size() > 1)
      std::printf("%s\n", TextTable(rows, {false, false, false, false, true, true, true, true, true, false}).c_str());
    std::vector<std::string> parts;
    for (const char* v : {"worse", "better", "same", "untested", "new", "gone"})
      if (counts.count(v)) parts.push_back(std::to_string(counts[v]) + " " + v);
    std::printf("%zu value series compared%s%s\n", shown.size(), parts.empty() ? "" : ": ", Join(parts, ", ").c_str());
    if (shown.empty())
      std::printf("No performance values in both selections; check the filters (hetbench results cases) and the "
                  "selections.\n");
    for (const auto* r : regressions) {
      const PerfSeriesKey& k = table->series[r->series];
      std::printf("REGRESSION: %s on %s:%s (%s) %s: %s -> %s (%s, p = %s) exceeds %g%%\n", CaseLabel(k).c_str(),
                  k.system.c_str(), k.partition.c_str(), k.environ.c_str(), k.var.c_str(),
                  Num(r->base_value, k.unit).c_str(), Num(r->target_value, k.unit).c_str(), Pct(r->diff_pct).c_str(),
                  PValue(*r).c_str(), o.fail_on_regression);
    }
  }
  return regressions.empty() ? 0 : 1;
}

}  // namespace hb
