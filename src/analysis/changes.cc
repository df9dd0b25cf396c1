#include "analysis/changes.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/stats.h"

namespace hb {

namespace {

double MeanOf(const std::vector<double>& v, size_t begin, size_t end) {
  if (end <= begin) return 0;
  return std::accumulate(v.begin() + static_cast<long>(begin), v.begin() + static_cast<long>(end), 0.0) /
         static_cast<double>(end - begin);
}

double Pct(double before, double after) { return before == 0 ? 0 : (after - before) / std::fabs(before) * 100; }

}  // namespace

std::vector<SessionSeries> PerSessionMedians(const PerfTable& t) {
  std::vector<std::vector<const PerfPoint*>> by_series(t.series.size());
  for (const auto& p : t.points) by_series[p.series].push_back(&p);
  std::vector<SessionSeries> out(t.series.size());
  std::vector<double> vals;
  for (size_t s = 0; s < t.series.size(); ++s) {
    const auto& pts = by_series[s];
    for (size_t i = 0; i < pts.size();) {
      size_t e = i;
      vals.clear();
      while (e < pts.size() && pts[e]->session == pts[i]->session) vals.push_back(pts[e++]->value);
      std::sort(vals.begin(), vals.end());
      out[s].values.push_back(QuantileSorted(vals, 0.5));
      out[s].sessions.push_back(pts[i]->session);
      out[s].times.push_back(pts[i]->time);
      i = e;
    }
  }
  return out;
}

std::vector<SeriesChange> FindChanges(const std::vector<double>& v, bool lower_is_better, const ChangeOptions& o) {
  std::vector<SeriesChange> out;
  auto worse = [&](double before, double after) { return lower_is_better ? after > before : after < before; };
  for (const auto& cp : DetectChangePoints(v, o.points)) {
    SeriesChange c;
    c.index = cp.index;
    c.before = cp.mean_before;
    c.after = cp.mean_after;
    c.change_pct = cp.rel_change * 100;
    c.p = cp.pvalue;
    c.regression = worse(cp.mean_before, cp.mean_after);
    c.method = "change point";
    out.push_back(c);
  }
  const int n = static_cast<int>(v.size());
  if (o.recent < 1 || n < o.recent + o.min_history) return out;
  const int start = n - o.recent;
  for (const auto& c : out)
    if (c.index >= n - 2 * o.recent) return out;  // the change points have it
  std::vector<double> history(v.begin(), v.begin() + start), recent(v.begin() + start, v.end());
  TestResult test = MannWhitneyU(recent, history);
  if (!(test.p < o.recent_max_p)) return out;
  SeriesChange c;
  c.index = start;
  c.before = MeanOf(v, 0, static_cast<size_t>(start));
  c.after = MeanOf(v, static_cast<size_t>(start), v.size());
  c.change_pct = Pct(c.before, c.after);
  c.p = test.p;
  c.regression = worse(c.before, c.after);
  c.method = "recent shift";
  out.push_back(c);
  return out;
}

std::vector<SeriesChange> FindChanges(const PerfTable& t, const ChangeOptions& o) {
  std::vector<SeriesChange> out;
  std::vector<SessionSeries> per = PerSessionMedians(t);
  for (size_t s = 0; s < t.series.size(); ++s) {
    bool lower = LowerIsBetter(t.series[s], o.direction);
    for (SeriesChange c : FindChanges(per[s].values, lower, o)) {
      c.series = static_cast<int>(s);
      c.session = per[s].sessions[static_cast<size_t>(c.index)];
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace hb
