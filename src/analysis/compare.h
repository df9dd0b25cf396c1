// `hetbench compare`: performance values of two selections of runs, side
// by side, per series (a test case's performance variable on one system,
// partition and environment).
//
// A selection (docs/results.md, "Comparing runs") is one of
//   SESSION[,SESSION...]   sessions by id or unique prefix
//   FROM..TO               cases that started in [FROM, TO): dates, times,
//                          "now" or ages such as 7d, 24h (ParseTimeSpec)
//   last:N                 each series' N most recent runs
//   runs:A-B               each series' A-th to B-th most recent runs
//                          (1 = the latest; runs:6-10 = the five before
//                          the latest five)
// A run of a series is a session that has values of it.
//
// Each side is reduced to one number by the aggregate (median by default)
// and the difference is (target - base) / |base| in percent. With at least
// `min_samples` values on each side a two-sided Mann-Whitney U test says
// whether the difference is significant (p < alpha), and the
// Hodges-Lehmann shift gives the change with a 95 % confidence interval. Whether higher or
// lower is better follows the unit: a unit of time (s, sec, ms, us, ns,
// min, h, ...) is lower-is-better, anything else (GB/s, samples/s, FLOP/s,
// ...) higher-is-better, unless the test declares `better: lower|higher`
// for the variable or a --lower-is-better or --higher-is-better pattern
// matches its name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/stats.h"
#include "results/store.h"
#include "util/status.h"

namespace hb {

struct Selection {
  enum class Kind { kSessions, kTimeRange, kRuns };
  Kind kind = Kind::kSessions;
  std::vector<std::string> sessions;  // full ids after ResolveSelection
  double since = 0, until = 0;        // kTimeRange
  int first = 1, last = 1;            // kRuns, 1-based from the latest
  std::string text;                   // as the user wrote it
};
// Errors name the selection and show the accepted forms.
Result<Selection> ParseSelection(const std::string& text, double now);

struct CompareOptions {
  Aggregate aggregate;
  double alpha = 0.05;
  int min_samples = 5;
  std::vector<std::string> lower_is_better, higher_is_better;  // regexes on variable names
};

// True when smaller values of this variable are better.
bool LowerIsBetter(const std::string& var, const std::string& unit, const CompareOptions& o);
// The same for a series: the patterns of `o`, else what the test declared
// (`better: lower|higher`), else the unit.
bool LowerIsBetter(const PerfSeriesKey& k, const CompareOptions& o);

struct CompareRow {
  int series = 0;  // index into the table's series
  std::vector<double> base, target;
  double base_value = 0, target_value = 0;  // the aggregate; NaN for an empty side
  double diff_pct = 0;                      // NaN when either side is empty or base is 0
  bool lower_is_better = false;
  std::optional<TestResult> test;  // when both sides have min_samples values
  bool significant = false;
  // The Hodges-Lehmann shift of target against base with its 95 %
  // distribution-free interval (stats.h), and both in percent of
  // |base_value|; NaN when a side is empty or the interval needs more
  // values.
  ShiftEstimate shift;
  double shift_pct = 0, ci_low_pct = 0, ci_high_pct = 0;
  // Coefficient of variation of each side, in percent (std / |mean|);
  // NaN for fewer than 2 values.
  double cv_base_pct = 0, cv_target_pct = 0;
  // better / worse (significant), not significant (tested), untested (too
  // few values), new (no base), gone (no target)
  std::string verdict;
};

struct RunComparison {
  std::vector<CompareRow> rows;  // in the table's series order
  // One line for each pair of sample sizes (base, target) among the tested
  // rows with which no p can be below alpha: "with 5 and 1 values a side
  // the smallest possible p is 0.333, so --alpha 0.05 can never ...".
  std::vector<std::string> warnings;
};

// The indices into table.points that the selection picks.
std::vector<size_t> SelectPoints(const PerfTable& table, const Selection& sel);

Result<RunComparison> Compare(const PerfTable& table, const Selection& base, const Selection& target,
                              const CompareOptions& opts);

// The gate of --fail-on-regression PCT: the rows whose target is
// significantly worse (p < alpha) and whose 95 % interval of the change
// reaches a slowdown of PCT percent (ci_high_pct >= PCT for a
// lower-is-better variable, ci_low_pct <= -PCT otherwise): "worse, and a
// slowdown of PCT or more is among the changes the data allow". When the
// interval needs more values than there are, the observed difference
// must exceed PCT. bench/power.sh compare measures how often this catches
// a true slowdown, and how often it fires on no change (docs/results.md).
bool IsRegression(const CompareRow& r, double pct);
std::vector<const CompareRow*> Regressions(const RunComparison& c, double pct);
// Rows that are worse, but that IsRegression does not count (for a note).
std::vector<const CompareRow*> WorseBelowThreshold(const RunComparison& c, double pct);

}  // namespace hb
