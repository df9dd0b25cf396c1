// Changes in the history of each value series of a results store: where a
// test case's performance variable moved to a new level, found two ways.
//
//  1. Change points (changepoint.h, Apache Otava's split and merge) over
//     the series' per-session medians: any place in the history, with at
//     least `points.min_segment` sessions on each side.
//  2. A recent shift: the last `recent` sessions (default 5) against all
//     earlier ones (at least `min_history`, default 10), by a two-sided
//     Mann-Whitney U test of the per-session medians, p < recent_max_p
//     (default 0.001, as for change points). A change at the very end of a
//     history has few values after it, which the split's Bonferroni
//     correction penalises most; this test asks the nightly question
//     directly ("are the last runs unlike the ones before?"). Five is the
//     smallest window for which the test can reach p < 0.001 at all
//     against 25 earlier sessions (3 give at best p = 0.0057, 4 give
//     0.0017, 5 give 0.00056: normal approximation, fully separated
//     samples). A recent shift is not reported when a change point was
//     already found within the last 2 x recent sessions.
//
// Each change says whether it is a regression (a move in the worse
// direction: up for units of time, down for others; compare.h,
// LowerIsBetter) or an improvement.
#pragma once

#include <string>
#include <vector>

#include "analysis/changepoint.h"
#include "analysis/compare.h"
#include "results/store.h"

namespace hb {

struct ChangeOptions {
  ChangePointOptions points;
  int recent = 5;        // sessions at the end tested against the rest
  int min_history = 10;  // earlier sessions the recent test needs
  double recent_max_p = 0.001;
  CompareOptions direction;  // --lower-is-better / --higher-is-better
};

// One series' values, one per session: the median of its repetitions.
struct SessionSeries {
  std::vector<double> values;
  std::vector<int> sessions;  // index into PerfTable::sessions
  std::vector<double> times;  // the first value's time in that session
};
// For every series of the table (empty for a series without values).
std::vector<SessionSeries> PerSessionMedians(const PerfTable& t);

struct SeriesChange {
  int series = 0;                // index into PerfTable::series
  int index = 0;                 // 0-based position in the series' sessions of the first after the change
  int session = 0;               // index into PerfTable::sessions of that session
  double before = 0, after = 0;  // means of the per-session medians either side
  double change_pct = 0;         // (after - before) / |before| x 100; 0 when before is 0
  double p = 1;
  bool regression = false;
  std::string method;  // "change point" or "recent shift"
};

// Every change of every series, by series, then index.
std::vector<SeriesChange> FindChanges(const PerfTable& t, const ChangeOptions& o = {});
// The same for one series' per-session values (for the report and tests).
std::vector<SeriesChange> FindChanges(const std::vector<double>& values, bool lower_is_better, const ChangeOptions& o);

}  // namespace hb
