#include "analysis/changes.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace hb {
namespace {

// n values around `level` with a CV of 2 %, the last `shifted` of them
// `pct` percent away.
std::vector<double> Series(int n, int shifted, double pct, unsigned seed, double level = 100) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(level * (i >= n - shifted ? 1 + pct / 100 : 1) * (1 + noise(rng)));
  return v;
}

TEST(Changes, ARecentShiftOfTheLastFiveIsFound) {
  // 30 nights, the last 5 of a throughput 7 % lower.
  int found = 0;
  for (unsigned seed = 1; seed <= 10; ++seed) {
    auto changes = FindChanges(Series(30, 5, -7, seed), /*lower_is_better=*/false, {});
    for (const auto& c : changes) {
      if (c.index < 24 || !c.regression) continue;
      ++found;
      EXPECT_NEAR(c.change_pct, -7, 2.5);
      EXPECT_LT(c.p, 0.001);
      break;
    }
  }
  EXPECT_GE(found, 9) << "of 10 series";
}

TEST(Changes, TheRecentTestIsExactAboutItsWindow) {
  std::vector<double> v(30, 100);
  for (int i = 0; i < 30; ++i) v[i] += (i % 3) * 0.5;  // distinct enough, no trend
  for (int i = 25; i < 30; ++i) v[i] = 80 + (i % 2) * 0.5;
  ChangeOptions o;
  o.points.max_pvalue = 1e-300;  // change points off: only the recent test can find it
  auto changes = FindChanges(v, false, o);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].method, "recent shift");
  EXPECT_EQ(changes[0].index, 25);
  EXPECT_TRUE(changes[0].regression);
  EXPECT_DOUBLE_EQ(changes[0].after, (2 * 80.0 + 3 * 80.5) / 5);  // i = 25..29: 80.5, 80, 80.5, 80, 80.5
  // Too little history for the test: nothing.
  std::vector<double> short_history(v.begin() + 16, v.end());  // 9 before the last 5
  EXPECT_TRUE(FindChanges(short_history, false, o).empty());
}

TEST(Changes, AChangeInTheMiddleIsAChangePointNotARecentShift) {
  std::vector<double> v = Series(30, 15, 10, 3, 2.0);  // a step time 10 % higher from index 15
  auto changes = FindChanges(v, /*lower_is_better=*/true, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].method, "change point");
  EXPECT_NEAR(changes[0].index, 15, 1);
  EXPECT_TRUE(changes[0].regression);  // a time went up
  EXPECT_FALSE(FindChanges(v, /*lower_is_better=*/false, {})[0].regression);
}

TEST(Changes, NoiseAloneIsRarelyAChange) {
  int alarms = 0;
  for (unsigned seed = 100; seed < 200; ++seed) alarms += !FindChanges(Series(30, 0, 0, seed), false, {}).empty();
  EXPECT_LE(alarms, 3) << "of 100 unchanged series";
}

TEST(Changes, PerSessionMediansAndTheTableForm) {
  PerfTable t;
  t.series.push_back({"t", "t", "sys", "part", "env", "bw", "GB/s", "{}"});
  for (int s = 0; s < 20; ++s) {
    t.sessions.push_back({"s" + std::to_string(s), "sys", "host", 100.0 * s});
    for (int r = 0; r < 3; ++r) {  // three repetitions: 1, 2, 3 around the level
      PerfPoint p;
      p.session = s;
      p.time = 100.0 * s + r;
      p.value = (s < 10 ? 100 : 80) + r;
      t.points.push_back(p);
    }
  }
  auto per = PerSessionMedians(t);
  ASSERT_EQ(per[0].values.size(), 20u);
  EXPECT_DOUBLE_EQ(per[0].values[0], 101);
  EXPECT_EQ(per[0].sessions[19], 19);
  auto changes = FindChanges(t, {});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 10);
  EXPECT_EQ(changes[0].session, 10);
  EXPECT_NEAR(changes[0].change_pct, (81.0 - 101) / 101 * 100, 1e-9);
  EXPECT_TRUE(changes[0].regression);
}

}  // namespace
}  // namespace hb
