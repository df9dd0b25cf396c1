// How often `hetbench compare --fail-on-regression PCT` fires, measured on
// synthetic series (issue 17): the gate's power against a true slowdown
// and its false-alarm rate on no change, for sample sizes, noise levels
// and alphas. Each trial is one series of 2n sessions: n base values and n
// target values drawn from normal distributions with the given CV, the
// target slower by the given percent (a lower-is-better time in seconds),
// compared with Compare(runs:n+1-2n, last:n) exactly as the command does.
//
// Columns: "gate" is --fail-on-regression PCT as built (worse, and the 95 %
// interval of the change reaches PCT); "median > PCT" is the rule before
// issue 17 (worse, and the observed median difference exceeds PCT);
// "worse" is the verdict alone.
//
// Usage: compare_power [--trials N] [--pct PCT] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/compare.h"

namespace {

hb::PerfTable Series(const std::vector<double>& values) {
  hb::PerfTable t;
  t.series.push_back({"t", "t", "sys", "part", "env", "step_time", "s", "{}"});
  for (size_t i = 0; i < values.size(); ++i) {
    double time = 86400.0 * static_cast<double>(i + 1);
    t.sessions.push_back({"s" + std::to_string(i), "sys", "host", time});
    hb::PerfPoint p;
    p.session = static_cast<int>(i);
    p.time = time;
    p.value = values[i];
    t.points.push_back(p);
  }
  return t;
}

struct Rates {
  double gate = 0, median_rule = 0, worse = 0;
};

Rates Measure(int n, double cv_pct, double change_pct, double alpha, double pct, int trials, std::mt19937_64& rng) {
  hb::CompareOptions o;
  o.alpha = alpha;
  o.min_samples = n;
  auto base = *hb::ParseSelection("runs:" + std::to_string(n + 1) + "-" + std::to_string(2 * n), 0);
  auto target = *hb::ParseSelection("last:" + std::to_string(n), 0);
  std::normal_distribution<double> noise(0, 1);
  int gate = 0, median_rule = 0, worse = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v;
    for (int i = 0; i < 2 * n; ++i) {
      double mean = i < n ? 10.0 : 10.0 * (1 + change_pct / 100);
      v.push_back(mean * (1 + cv_pct / 100 * noise(rng)));
    }
    auto c = hb::Compare(Series(v), base, target, o);
    if (!c.ok() || c->rows.size() != 1) {
      std::fprintf(stderr, "compare_power: compare failed\n");
      std::exit(1);
    }
    const hb::CompareRow& r = c->rows[0];
    gate += hb::IsRegression(r, pct);
    median_rule += r.verdict == "worse" && r.diff_pct > pct;
    worse += r.verdict == "worse";
  }
  return {100.0 * gate / trials, 100.0 * median_rule / trials, 100.0 * worse / trials};
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 2000;
  double pct = 5;
  unsigned long long seed = 17;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials"))
      trials = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--pct"))
      pct = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: compare_power [--trials N] [--pct PCT] [--seed S]\n");
      return 2;
    }
  }
  std::mt19937_64 rng(seed);
  std::printf("--fail-on-regression %g, %d trials per row: percent of trials in which each rule fires\n\n", pct,
              trials);
  std::printf("| runs a side | CV | alpha | true change | gate | median > PCT | worse |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int n : {3, 5, 8, 10})
    for (double cv : {1.0, 2.0, 5.0})
      for (double alpha : {0.05, 0.10})
        for (double change : {0.0, 2.0, 5.0, 10.0}) {
          Rates r = Measure(n, cv, change, alpha, pct, trials, rng);
          std::printf("| %d | %g %% | %.2f | %+g %% | %.1f %% | %.1f %% | %.1f %% |\n", n, cv, alpha, change, r.gate,
                      r.median_rule, r.worse);
        }
  return 0;
}
