#include "analysis/compare.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hb {
namespace {

// Sessions s0..s(n-1) a day apart; one value per session of `bw` (GB/s)
// and `time` (s) of test "t", with a repetition each.
PerfTable Table(const std::vector<double>& bw, const std::vector<double>& secs) {
  PerfTable t;
  t.series.push_back({"t", "t", "sys", "part", "env", "bw", "GB/s", "{}"});
  t.series.push_back({"t", "t", "sys", "part", "env", "time", "s", "{}"});
  for (size_t i = 0; i < bw.size(); ++i) {
    double day = 86400.0 * (i + 1);
    t.sessions.push_back({"s" + std::to_string(i), "sys", "host", day});
    PerfPoint a;
    a.series = 0;
    a.session = static_cast<int>(i);
    a.time = day;
    a.value = bw[i];
    t.points.push_back(a);
    PerfPoint b = a;
    b.series = 1;
    b.value = secs[i];
    t.points.push_back(b);
  }
  return t;
}

Selection Sel(const std::string& text, double now = 86400.0 * 100) {
  auto s = ParseSelection(text, now);
  EXPECT_TRUE(s.ok()) << s.status().str();
  return s.ok() ? *s : Selection{};
}

TEST(Selection, ParsesEveryForm) {
  Selection s = Sel("abc,def");
  EXPECT_EQ(s.kind, Selection::Kind::kSessions);
  EXPECT_EQ(s.sessions, (std::vector<std::string>{"abc", "def"}));
  s = Sel("last:5");
  EXPECT_EQ(s.kind, Selection::Kind::kRuns);
  EXPECT_EQ(s.first, 1);
  EXPECT_EQ(s.last, 5);
  s = Sel("runs:6-10");
  EXPECT_EQ(s.first, 6);
  EXPECT_EQ(s.last, 10);
  s = Sel("14d..7d", 86400.0 * 100);
  EXPECT_EQ(s.kind, Selection::Kind::kTimeRange);
  EXPECT_DOUBLE_EQ(s.since, 86400.0 * 86);
  EXPECT_DOUBLE_EQ(s.until, 86400.0 * 93);
  s = Sel("2026-11-01T00:00Z..now", 1.8e9);
  EXPECT_DOUBLE_EQ(s.until, 1.8e9);
}

TEST(Selection, BadFormsSayWhatIsAccepted) {
  for (const char* bad : {"last:0", "last:x", "runs:5-2", "7d..14d", "yesterday..now", "a,,b"}) {
    auto s = ParseSelection(bad, 1e9);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find(std::string("'") + bad + "'"), std::string::npos) << s.status().message();
  }
  EXPECT_FALSE(ParseSelection("", 0).ok());
  EXPECT_NE(ParseSelection("last:x", 0).status().message().find("expected SESSION[,SESSION...]"), std::string::npos);
}

TEST(Compare, SignificantSlowdownOfAThroughputIsARegression) {
  // 10 runs at ~100 GB/s / 10 s, then 10 at ~90 GB/s / 11 s.
  std::vector<double> bw, secs;
  for (int i = 0; i < 20; ++i) {
    bw.push_back((i < 10 ? 100 : 90) + (i % 3) * 0.5);
    secs.push_back((i < 10 ? 10 : 11) + (i % 2) * 0.05);
  }
  PerfTable t = Table(bw, secs);
  CompareOptions o;
  auto c = Compare(t, Sel("runs:11-20"), Sel("last:10"), o);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->rows.size(), 2u);
  const CompareRow& b = c->rows[0];
  EXPECT_EQ(b.base.size(), 10u);
  EXPECT_DOUBLE_EQ(b.base_value, 100.5);  // median of 100, 100.5, 101 pattern
  EXPECT_NEAR(b.diff_pct, (90.5 - 100.5) / 100.5 * 100, 1e-9);
  ASSERT_TRUE(b.test.has_value());
  EXPECT_LT(b.test->p, 0.001);
  EXPECT_EQ(b.verdict, "worse");
  const CompareRow& s = c->rows[1];
  EXPECT_TRUE(s.lower_is_better);  // unit s
  EXPECT_EQ(s.verdict, "worse");   // 10 s -> 11 s
  // The change with its interval: the median of the 100 differences
  // target - base is -10 GB/s, -9.95 % of the base median 100.5.
  EXPECT_DOUBLE_EQ(b.shift.shift, -10);
  EXPECT_NEAR(b.shift_pct, -10 / 100.5 * 100, 1e-9);
  EXPECT_LT(b.ci_low_pct, b.shift_pct);
  EXPECT_GT(b.ci_high_pct, b.shift_pct);
  EXPECT_GE(b.ci_low_pct, -11 / 100.5 * 100);  // within the extreme differences
  EXPECT_LE(b.ci_high_pct, -9 / 100.5 * 100);
  EXPECT_NEAR(b.cv_base_pct, 0.4358, 1e-3);  // std sqrt(1.725 / 9) = 0.4378 of mean 100.45
  EXPECT_EQ(Regressions(*c, 5).size(), 2u);
  // The gate counts a threshold the interval reaches, not one beyond it.
  EXPECT_TRUE(IsRegression(b, -b.ci_low_pct - 0.01));
  EXPECT_FALSE(IsRegression(b, -b.ci_low_pct + 0.01));
  EXPECT_TRUE(IsRegression(s, s.ci_high_pct - 0.01));
  EXPECT_FALSE(IsRegression(s, s.ci_high_pct + 0.01));
  EXPECT_EQ(Regressions(*c, 20).size(), 0u);
  EXPECT_EQ(WorseBelowThreshold(*c, 20).size(), 2u);
  EXPECT_TRUE(c->warnings.empty());
  // A pattern turns the direction around: a bigger `bw` is worse now.
  o.lower_is_better = {"^bw$"};
  c = Compare(t, Sel("runs:11-20"), Sel("last:10"), o);
  EXPECT_EQ(c->rows[0].verdict, "better");
}

TEST(Compare, FewSamplesAreNotTestedAndNoiseIsSame) {
  std::vector<double> bw, secs;
  for (int i = 0; i < 12; ++i) {
    bw.push_back(100 + (i % 4));
    secs.push_back(5);
  }
  PerfTable t = Table(bw, secs);
  auto c = Compare(t, Sel("s0,s1,s2"), Sel("s9,s10,s11"), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->rows[0].verdict, "untested");
  EXPECT_FALSE(c->rows[0].test.has_value());
  EXPECT_TRUE(Regressions(*c, 0).empty());
  // 3 and 3 values: the smallest possible p is 2 / C(6, 3) = 0.1.
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0],
            "2 series were not tested: 3 base and 3 target values, fewer than --min-samples 5; "
            "with so few values the smallest possible p is 0.1, so select more runs rather than "
            "lower --min-samples");
  CompareOptions three;
  three.min_samples = 3;
  c = Compare(t, Sel("s0,s1,s2"), Sel("s9,s10,s11"), three);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_NE(c->warnings[0].find("with 3 base and 3 target values the smallest possible p is 0.1, so no change can "
                                "be significant at alpha 0.05"),
            std::string::npos)
      << c->warnings[0];
  c = Compare(t, Sel("runs:7-12"), Sel("last:6"), {});
  EXPECT_EQ(c->rows[0].verdict, "not significant");
  EXPECT_EQ(c->rows[1].verdict, "not significant");  // identical values
  EXPECT_TRUE(c->warnings.empty());
  EXPECT_DOUBLE_EQ(c->rows[1].diff_pct, 0);
}

TEST(Compare, NewAndGoneSeriesAndAggregates) {
  PerfTable t = Table({1, 2, 3, 4}, {1, 1, 1, 1});
  t.points.erase(t.points.begin() + 6, t.points.end());  // the last session loses both values...
  PerfPoint p;
  p.series = 1;
  p.session = 3;
  p.value = 2;
  t.points.push_back(p);  // ...but `time` comes back
  CompareOptions o;
  o.aggregate = *ParseAggregate("max");
  auto c = Compare(t, Sel("s0,s1,s2"), Sel("s3"), o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->rows[0].verdict, "gone");
  EXPECT_DOUBLE_EQ(c->rows[0].base_value, 3);
  EXPECT_TRUE(std::isnan(c->rows[0].diff_pct));
  EXPECT_DOUBLE_EQ(c->rows[1].diff_pct, 100);
  c = Compare(t, Sel("s3"), Sel("s0"), o);
  EXPECT_EQ(c->rows[0].verdict, "new");
}

TEST(Compare, UnitsDecideTheDirection) {
  CompareOptions o;
  EXPECT_TRUE(LowerIsBetter("latency", "us", o));
  EXPECT_TRUE(LowerIsBetter("step_time", "s", o));
  EXPECT_FALSE(LowerIsBetter("throughput", "samples/s", o));
  EXPECT_FALSE(LowerIsBetter("busbw", "GB/s", o));
  o.higher_is_better = {"lat"};
  EXPECT_FALSE(LowerIsBetter("latency", "us", o));
  // What the test declares (`better:`) wins over the unit; the command
  // line's patterns win over both.
  PerfSeriesKey loss{"t", "t", "sys", "part", "env", "loss", "", "{}"};
  EXPECT_FALSE(LowerIsBetter(loss, {}));
  loss.better = "lower";
  EXPECT_TRUE(LowerIsBetter(loss, {}));
  PerfSeriesKey time{"t", "t", "sys", "part", "env", "time", "s", "{}"};
  time.better = "higher";
  EXPECT_FALSE(LowerIsBetter(time, {}));
  CompareOptions patterns;
  patterns.lower_is_better = {"^time$"};
  EXPECT_TRUE(LowerIsBetter(time, patterns));
}

}  // namespace
}  // namespace hb
