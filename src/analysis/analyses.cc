#include "analysis/analyses.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/stats.h"
#include "util/json_field.h"

namespace hb {

namespace {

bool IsScalingParameter(const std::string& name) {
  static const std::regex kRe("^(num_)?(nodes|tasks|ranks|procs|gpus|devices|workers|threads|np)$", std::regex::icase);
  return std::regex_match(name, kRe);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return QuantileSorted(v, 0.5);
}

}  // namespace

std::vector<ScalingCurve> ScalingCurves(
    const PerfTable& t, const std::function<bool(const std::string&, const std::string&)>& lower_is_better) {
  // Per series: its family key (everything but the scaling parameter),
  // the parameter's name and the scale.
  struct Member {
    std::string key, parameter, label;
    double scale = 0;
  };
  // Only figures of merit are scaled (a loss or a part of a step has no
  // meaningful speedup).
  auto scaled = [](const PerfSeriesKey& k) { return k.figure_of_merit; };
  std::vector<Member> members(t.series.size());
  for (size_t s = 0; s < t.series.size(); ++s) {
    const PerfSeriesKey& k = t.series[s];
    if (!scaled(k)) continue;  // no parameter: a family of its own, left out below
    nlohmann::json params = nlohmann::json::parse(k.parameters, nullptr, false);
    Member m;
    std::string rest, label = k.name;
    if (params.is_object()) {
      for (auto it = params.begin(); it != params.end(); ++it) {
        std::string v = JsonStringOrDump(it.value());
        char* end = nullptr;
        double scale = std::strtod(v.c_str(), &end);
        // The test's scaling_axes when it declares them, else by name.
        bool axis = k.scaling_axes.empty()
                        ? IsScalingParameter(it.key())
                        : std::find(k.scaling_axes.begin(), k.scaling_axes.end(), it.key()) != k.scaling_axes.end();
        if (m.parameter.empty() && axis && end && *end == '\0' && scale > 0) {
          m.parameter = it.key();
          m.scale = scale;
        } else {
          rest += it.key() + "=" + v + "\x1f";
          label += " %" + it.key() + "=" + v;
        }
      }
    }
    bool tasks_axis = k.scaling_axes.empty() ||
                      std::find(k.scaling_axes.begin(), k.scaling_axes.end(), "num_tasks") != k.scaling_axes.end();
    if (m.parameter.empty() && !tasks_axis) continue;  // declared axes, none of them here
    m.key = k.name + "\x1f" + k.system + "\x1f" + k.partition + "\x1f" + k.environ + "\x1f" + k.var + "\x1f" + k.unit +
            "\x1f" + rest + m.parameter;
    m.label = label;
    members[s] = m;
  }
  // Values per series and scale (num_tasks when there is no parameter);
  // families found by their key once per series, not once per value.
  std::map<std::string, int> family_of_key;
  std::vector<int> family(t.series.size());
  for (size_t s = 0; s < t.series.size(); ++s)
    family[s] = family_of_key.try_emplace(members[s].key, static_cast<int>(family_of_key.size())).first->second;
  std::vector<std::map<double, std::vector<double>>> by_family(family_of_key.size());
  std::vector<int> family_series(family_of_key.size(), -1);
  for (const auto& p : t.points) {
    const Member& m = members[p.series];
    if (m.key.empty()) continue;  // not scaled
    double scale = m.parameter.empty() ? p.num_tasks : m.scale;
    if (scale <= 0) continue;
    by_family[family[p.series]][scale].push_back(p.value);
    if (family_series[family[p.series]] < 0) family_series[family[p.series]] = p.series;
  }
  std::map<std::string, std::map<double, std::vector<double>>> families;
  std::map<std::string, int> first_series;
  for (const auto& [key, f] : family_of_key) {
    if (by_family[f].size() < 2) continue;
    families[key] = std::move(by_family[f]);
    first_series[key] = family_series[f];
  }
  std::vector<ScalingCurve> out;
  for (auto& [key, by_scale] : families) {
    if (by_scale.size() < 2) continue;
    int s = first_series[key];
    const PerfSeriesKey& k = t.series[s];
    ScalingCurve c;
    c.test = k.name;
    c.label = members[s].label;
    c.system = k.system;
    c.partition = k.partition;
    c.environ = k.environ;
    c.var = k.var;
    c.unit = k.unit;
    c.parameter = members[s].parameter.empty() ? "num_tasks" : members[s].parameter;
    // What the test declares (`better:`) wins over the unit rule.
    c.lower_is_better = k.better == "lower" || (k.better != "higher" && lower_is_better(k.var, k.unit));
    double n0 = by_scale.begin()->first, v0 = Median(by_scale.begin()->second);
    for (auto& [scale, values] : by_scale) {
      ScalingPoint p;
      p.scale = scale;
      p.value = Median(values);
      p.count = static_cast<int>(values.size());
      p.ideal = scale / n0;
      if (v0 != 0 && p.value != 0) p.speedup = c.lower_is_better ? v0 / p.value : p.value / v0;
      p.efficiency = p.speedup / p.ideal;
      c.points.push_back(p);
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Variability> RepetitionVariability(const PerfTable& t) {
  // (series, session, value), grouped by sorting: a million points make a
  // million groups of one in a typical store, so no map of vectors.
  struct Item {
    int series, session;
    double value;
  };
  std::vector<Item> items;
  items.reserve(t.points.size());
  for (const auto& p : t.points) items.push_back({p.series, p.session, p.value});
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return a.series != b.series ? a.series < b.series : a.session < b.session;
  });
  std::vector<Variability> out;
  std::vector<double> values;
  for (size_t i = 0; i < items.size();) {
    size_t e = i;
    while (e < items.size() && items[e].series == items[i].series && items[e].session == items[i].session) ++e;
    if (e - i >= 2) {
      values.clear();
      for (size_t k = i; k < e; ++k) values.push_back(items[k].value);
      Summary s = Summarize(values);
      out.push_back({items[i].series, items[i].session, s.count, s.mean, s.cv});
    }
    i = e;
  }
  return out;
}

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && digit(a[ie])) ++ie;
      while (je < b.size() && digit(b[je])) ++je;
      std::string x = a.substr(i, ie - i), y = b.substr(j, je - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::vector<Breakdown> TimeBreakdowns(const PerfTable& t) {
  const auto& parts = StepParts();
  auto part_index = [&](const std::string& var) {
    for (size_t i = 0; i < parts.size(); ++i)
      if (parts[i].first == var) return static_cast<int>(i);
    return -1;
  };
  // case key -> session -> part -> values
  std::map<std::string, std::map<int, std::map<int, std::vector<double>>>> cases;
  std::map<std::string, int> any_series;
  for (const auto& p : t.points) {
    const PerfSeriesKey& k = t.series[p.series];
    int i = part_index(k.var);
    if (i < 0) continue;
    std::string key = k.name + "\x1f" + k.display_name + "\x1f" + k.system + "\x1f" + k.partition + "\x1f" + k.environ;
    cases[key][p.session][i].push_back(p.value);
    any_series.try_emplace(key, p.series);
  }
  std::vector<Breakdown> out;
  for (auto& [key, sessions] : cases) {
    auto& [session, by_part] = *sessions.rbegin();  // the latest session
    const PerfSeriesKey& k = t.series[any_series[key]];
    Breakdown b{
        k.name, k.display_name.empty() ? k.name : k.display_name, k.system, k.partition, k.environ, session, {}, {}, 0};
    std::vector<std::pair<std::string, double>> seconds;
    for (auto& [i, values] : by_part) {
      double v = Median(values);
      b.parts.push_back({parts[i].first, parts[i].second, v});
      seconds.emplace_back(parts[i].first, v);
    }
    b.groups = GroupStep(seconds, &b.total);
    out.push_back(std::move(b));
  }
  std::stable_sort(out.begin(), out.end(), [](const Breakdown& x, const Breakdown& y) {
    if (x.test != y.test) return x.test < y.test;
    if (x.label != y.label) return NaturalLess(x.label, y.label);
    return std::tie(x.system, x.partition, x.environ) < std::tie(y.system, y.partition, y.environ);
  });
  return out;
}

}  // namespace hb
