// `hetbench results changes`: where the selected value series moved to a
// new level (analysis/changes.h: change points and a recent shift), as a
// table or as JSON, with a gate for CI (--fail-on-regression PCT).
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "analysis/changes.h"
#include "cli/commands.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v);
  return buf;
}

std::string PText(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, p < 0.001 ? "%.1e" : "%.3f", p);
  return buf;
}

}  // namespace

int ResultsChanges(Store& store, const StoreQuery& q, const ResultsCommandOptions& o) {
  if (o.recent < 2) {
    std::fprintf(stderr, "hetbench: error: --recent must be at least 2 sessions\n");
    return 2;
  }
  auto table = store.Perf(q);
  if (!table.ok()) {
    std::fprintf(stderr, "hetbench: error: %s\n", table.status().str().c_str());
    return 2;
  }
  ChangeOptions co;
  co.recent = o.recent;
  std::vector<SeriesChange> changes = FindChanges(*table, co);
  const PerfTable& t = *table;
  auto gated = [&](const SeriesChange& c) {
    return o.fail_on_regression >= 0 && c.regression && std::fabs(c.change_pct) >= o.fail_on_regression;
  };
  int failing = 0;
  for (const auto& c : changes) failing += gated(c);

  if (o.format == "json") {
    Json list = Json::array();
    for (const auto& c : changes) {
      const PerfSeriesKey& k = t.series[c.series];
      list.push_back({{"test", k.name},
                      {"case", k.display_name.empty() ? k.name : k.display_name},
                      {"system", k.system},
                      {"partition", k.partition},
                      {"environ", k.environ},
                      {"variable", k.var},
                      {"unit", k.unit},
                      {"session", t.sessions[c.session].session_id},
                      {"index", c.index},
                      {"before", c.before},
                      {"after", c.after},
                      {"change_pct", c.change_pct},
                      {"p", c.p},
                      {"verdict", c.regression ? "regression" : "improvement"},
                      {"method", c.method},
                      {"fails_gate", gated(c)}});
    }
    Json j = {{"schema", "hetbench-changes"},
              {"schema_version", 1},
              {"recent", co.recent},
              {"fail_on_regression_pct", o.fail_on_regression >= 0 ? Json(o.fail_on_regression) : Json(nullptr)},
              {"changes", list}};
    std::printf("%s\n", JsonText(j, 2).c_str());
  } else {
    std::vector<std::vector<std::string>> rows = {{"CASE", "SYSTEM", "ENVIRON", "VARIABLE", "FROM SESSION", "#",
                                                   "BEFORE", "AFTER", "CHANGE", "P", "VERDICT", "FOUND BY"}};
    for (const auto& c : changes) {
      const PerfSeriesKey& k = t.series[c.series];
      std::string unit = k.unit.empty() ? "" : " " + k.unit;
      rows.push_back({k.display_name.empty() ? k.name : k.display_name, k.system + ":" + k.partition, k.environ, k.var,
                      t.sessions[c.session].session_id, std::to_string(c.index), FormatNumber(c.before, 4) + unit,
                      FormatNumber(c.after, 4) + unit, Pct(c.change_pct), PText(c.p),
                      c.regression ? "regression" : "improvement", c.method});
    }
    if (rows.size() > 1)
      std::printf(
          "%s\n",
          TextTable(rows, {false, false, false, false, false, true, true, true, true, true, false, false}).c_str());
    size_t regressions = 0;
    for (const auto& c : changes) regressions += c.regression;
    std::printf(
        "%zu change%s in %zu value series (%zu regression%s): change points of the per-session medians, "
        "and the last %d sessions against the ones before\n",
        changes.size(), changes.size() == 1 ? "" : "s", t.series.size(), regressions, regressions == 1 ? "" : "s",
        co.recent);
    for (const auto& c : changes) {
      if (!gated(c)) continue;
      const PerfSeriesKey& k = t.series[c.series];
      std::printf("REGRESSION: %s on %s:%s (%s) %s: %s since session %s (p = %s, %s)\n",
                  (k.display_name.empty() ? k.name : k.display_name).c_str(), k.system.c_str(), k.partition.c_str(),
                  k.environ.c_str(), k.var.c_str(), Pct(c.change_pct).c_str(), t.sessions[c.session].session_id.c_str(),
                  PText(c.p).c_str(), c.method.c_str());
    }
  }
  return failing ? 1 : 0;
}

}  // namespace hb
