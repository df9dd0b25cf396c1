// How often `hetbench results changes` (analysis/changes.h) finds a
// regression in the last sessions of a history, and how often it reports a
// change in a history without one, on synthetic series (issue 17): 30
// nightly per-session values from a normal distribution with the given
// CV, the last 5 of them (or the second half) lower by the given percent
// (a throughput). "change points" is Otava's split and merge alone (what
// the report used before); "+ recent shift" adds the test of the last 5
// sessions against the ones before, as built. A regression counts as found
// when one is reported at or after session 20 (last-5 rows) or within 2
// of session 15 (second-half rows); the 0 % rows count any change at all
// (false alarms).
//
// Usage: changes_power [--trials N] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "analysis/changes.h"

namespace {

struct Found {
  double points = 0, both = 0;
};

bool Hit(const std::vector<hb::SeriesChange>& changes, bool none, int from, int to) {
  for (const auto& c : changes) {
    if (none) return true;
    if (c.regression && c.index >= from && c.index <= to) return true;
  }
  return false;
}

Found Measure(double cv, double pct, int shifted, int trials, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0, cv / 100);
  hb::ChangeOptions only_points;
  only_points.recent = 0;  // off
  hb::ChangeOptions both;
  const int n = 30;
  const bool none = pct == 0;
  int from = shifted == 5 ? 20 : 13, to = shifted == 5 ? 29 : 17;
  int a = 0, b = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i) v.push_back(100 * (i >= n - shifted ? 1 + pct / 100 : 1) * (1 + noise(rng)));
    a += Hit(hb::FindChanges(v, false, only_points), none, from, to);
    b += Hit(hb::FindChanges(v, false, both), none, from, to);
  }
  return {100.0 * a / trials, 100.0 * b / trials};
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 1000;
  unsigned long long seed = 17;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials"))
      trials = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: changes_power [--trials N] [--seed S]\n");
      return 2;
    }
  }
  std::mt19937_64 rng(seed);
  std::printf("30 sessions, %d trials per row: percent of series in which a regression is found\n\n", trials);
  std::printf("| changed sessions | CV | change | change points | + recent shift |\n|---|---|---|---|---|\n");
  for (int shifted : {5, 15})
    for (double cv : {1.0, 2.0, 5.0})
      for (double pct : {0.0, -3.0, -5.0, -7.0, -10.0}) {
        if (shifted == 15 && pct == 0) continue;  // the same as the last-5 row
        Found f = Measure(cv, pct, shifted, trials, rng);
        std::printf("| %s | %g %% | %+g %% | %.1f %% | %.1f %% |\n",
                    pct == 0       ? "none"
                    : shifted == 5 ? "last 5"
                                   : "last 15",
                    cv, pct, f.points, f.both);
      }
  return 0;
}
