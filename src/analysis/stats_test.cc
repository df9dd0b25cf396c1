#include "analysis/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace hb {
namespace {

TEST(Quantile, LinearInterpolationAsNumpy) {
  std::vector<double> v = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(QuantileSorted(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(QuantileSorted(v, 0.9), 3.7);  // numpy.percentile([1,2,3,4], 90)
  EXPECT_DOUBLE_EQ(QuantileSorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(QuantileSorted(v, 1), 4);
  EXPECT_DOUBLE_EQ(QuantileSorted({7}, 0.3), 7);
}

TEST(Summarize, SampleStdAndCv) {
  Summary s = Summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_EQ(s.count, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.min, 2);
  EXPECT_DOUBLE_EQ(s.max, 9);
  EXPECT_NEAR(s.std, 2.13809, 1e-5);  // sqrt(32/7)
  EXPECT_NEAR(s.cv, 2.13809 / 5, 1e-5);
  EXPECT_DOUBLE_EQ(Summarize({3}).std, 0);
}

TEST(Aggregate, ParsesNamesAndPercentiles) {
  EXPECT_EQ(ParseAggregate("mean")->kind, Aggregate::Kind::kMean);
  auto p = ParseAggregate("p99.9");
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->q, 0.999);
  EXPECT_DOUBLE_EQ(Apply(*ParseAggregate("p90"), {4, 3, 2, 1}), 3.7);
  EXPECT_DOUBLE_EQ(Apply(*ParseAggregate("count"), {4, 3, 2}), 3);
  EXPECT_DOUBLE_EQ(Apply(*ParseAggregate("max"), {4, 3, 2}), 4);
  for (const char* bad : {"average", "p", "p101", "px", "-1"}) {
    auto r = ParseAggregate(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("expected median, mean"), std::string::npos);
  }
}

// Reference values from scipy.stats.mannwhitneyu's documentation
// (males vs females: U = 17, exact p = 0.1111, asymptotic p = 0.11135).
TEST(MannWhitney, MatchesScipy) {
  std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  TestResult r = MannWhitneyU(males, females);
  EXPECT_EQ(r.method, "exact");
  EXPECT_DOUBLE_EQ(r.statistic, 17);
  EXPECT_NEAR(r.p, 0.1111111, 1e-6);
  // Separated samples of 5: p = 2/C(10,5) = 2/252.
  r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.statistic, 0);
  EXPECT_NEAR(r.p, 2.0 / 252, 1e-12);
}

// Reference values from scipy 1.10.1 (Debian bookworm's python3-scipy),
// an independent implementation: scipy.stats.mannwhitneyu(x, y,
// alternative='two-sided') with its default continuity correction.
TEST(MannWhitney, AsymptoticWithTiesAndLargeSamples) {
  // A tie (19 in both) forces the normal approximation. U1 counts the
  // pairs x > y, ties half: 3.5 + 5 + 2 + 5 + 5 = 20.5.
  TestResult r = MannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12, 19});
  EXPECT_EQ(r.method, "asymptotic");
  EXPECT_DOUBLE_EQ(r.statistic, 20.5);
  EXPECT_NEAR(r.p, 0.11607394330990008, 1e-12);
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(100 + i % 7);
    b.push_back(90 + i % 7);
  }
  r = MannWhitneyU(a, b);
  EXPECT_EQ(r.method, "asymptotic");
  EXPECT_DOUBLE_EQ(r.statistic, 900);  // every a above every b
  EXPECT_NEAR(r.p, 2.6961093014390475e-11, 1e-16);
  EXPECT_DOUBLE_EQ(MannWhitneyU(a, a).p, 1);
}

// Published tables: the standard normal's and Student's t's critical
// values (e.g. NIST/SEMATECH e-Handbook of Statistical Methods, tables
// 1.3.6.7.1 and 1.3.6.7.2).
TEST(Distributions, KnownValues) {
  EXPECT_NEAR(NormalSf(1.959964), 0.025, 1e-6);
  EXPECT_NEAR(NormalSf(2.575829), 0.005, 1e-6);
  EXPECT_NEAR(NormalIsf(0.025), 1.959964, 1e-6);
  EXPECT_NEAR(NormalIsf(0.05), 1.644854, 1e-6);
  EXPECT_NEAR(StudentTTwoSidedP(2.228139, 10), 0.05, 1e-6);  // t(0.975, 10)
  EXPECT_NEAR(StudentTTwoSidedP(-2.228139, 10), 0.05, 1e-6);
  EXPECT_NEAR(StudentTTwoSidedP(12.7062, 1), 0.05, 1e-5);    // t(0.975, 1)
  EXPECT_NEAR(StudentTTwoSidedP(2.042272, 30), 0.05, 1e-6);  // t(0.975, 30)
  EXPECT_NEAR(StudentTTwoSidedP(3.169273, 10), 0.01, 1e-6);  // t(0.995, 10)
  EXPECT_DOUBLE_EQ(StudentTTwoSidedP(0, 5), 1);
  EXPECT_DOUBLE_EQ(StudentTTwoSidedP(INFINITY, 5), 0);
  EXPECT_TRUE(std::isnan(StudentTTwoSidedP(NAN, 5)));
  EXPECT_TRUE(std::isnan(StudentTTwoSidedP(1, 0)));
}

TEST(Welch, MatchesHandComputation) {
  // means 3 and 6, variances 2.5 and 10: t = -3 / sqrt(2.5) = -1.897,
  // df = 2.5^2 / (0.5^2/4 + 2^2/4) = 5.882. The p value is scipy 1.10.1's
  // scipy.stats.ttest_ind(a, b, equal_var=False): 0.10753119493062718.
  TestResult r = WelchTTest({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10});
  EXPECT_NEAR(r.statistic, -1.897367, 1e-6);
  EXPECT_NEAR(r.p, 0.10753119493062718, 1e-10);
  EXPECT_GT(r.p, 0.1);
  EXPECT_LT(r.p, 0.11);
  EXPECT_DOUBLE_EQ(WelchTTest({1, 1}, {1, 1}).p, 1);
  EXPECT_DOUBLE_EQ(WelchTTest({1, 1}, {2, 2}).p, 0);
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

// Worked by hand: the nine differences of {5, 6, 7} - {1, 2, 3} are
// 2 3 3 4 4 4 5 5 6. U's null distribution for 3 and 3 values is
// 1 1 2 3 3 3 3 2 1 1 (of 20), so P(U <= 0) = 0.05: a 90 % interval is
// [d(1), d(9)] and a 95 % one does not exist.
TEST(HodgesLehmann, SmallSamplesByHand) {
  ShiftEstimate e = HodgesLehmann({5, 6, 7}, {1, 2, 3}, 0.90);
  EXPECT_DOUBLE_EQ(e.shift, 4);
  EXPECT_DOUBLE_EQ(e.low, 2);
  EXPECT_DOUBLE_EQ(e.high, 6);
  EXPECT_NEAR(e.confidence, 0.90, 1e-12);
  EXPECT_EQ(e.method, "exact");
  ShiftEstimate none = HodgesLehmann({5, 6, 7}, {1, 2, 3}, 0.95);
  EXPECT_DOUBLE_EQ(none.shift, 4);
  EXPECT_TRUE(std::isnan(none.low) && std::isnan(none.high));
}

// 5 and 5 values: P(U <= 2) = 4/252, P(U <= 3) = 7/252 > 0.025, so the
// 95 % interval is [d(3), d(23)] with coverage 1 - 8/252 = 96.83 % (the
// "achieved confidence" R's wilcox.test reports for these sizes).
TEST(HodgesLehmann, FiveAndFiveUseTheThirdDifferenceFromEachEnd) {
  std::vector<double> a = {10, 11, 12, 13, 14}, b = {0, 1, 2, 3, 4};
  ShiftEstimate e = HodgesLehmann(a, b);
  std::vector<double> d;
  for (double x : a)
    for (double y : b) d.push_back(x - y);
  std::sort(d.begin(), d.end());
  EXPECT_DOUBLE_EQ(e.low, d[2]);
  EXPECT_DOUBLE_EQ(e.high, d[22]);
  EXPECT_DOUBLE_EQ(e.shift, 10);
  EXPECT_NEAR(e.confidence, 1 - 8.0 / 252, 1e-12);
}

// The interval's coverage, measured: normal samples with a known shift.
TEST(HodgesLehmann, CoversTheTrueShiftAsOftenAsItSays) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(100, 2);
  for (size_t n : {5u, 8u, 25u}) {
    int covered = 0, trials = 2000;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> a(n), b(n);
      for (auto& x : a) x = noise(rng) + 5;
      for (auto& x : b) x = noise(rng);
      ShiftEstimate e = HodgesLehmann(a, b);
      covered += e.low <= 5 && 5 <= e.high;
    }
    double rate = static_cast<double>(covered) / trials;
    EXPECT_GT(rate, 0.935) << n << " values a side";
    EXPECT_LT(rate, 0.985) << n << " values a side";
  }
}

TEST(MannWhitney, SmallestPossiblePIsTwoOverTheArrangements) {
  EXPECT_NEAR(MannWhitneyMinP(5, 5), 2.0 / 252, 1e-12);  // C(10, 5) = 252
  EXPECT_NEAR(MannWhitneyMinP(3, 3), 2.0 / 20, 1e-12);
  EXPECT_NEAR(MannWhitneyMinP(4, 1), 2.0 / 5, 1e-12);
  EXPECT_LT(MannWhitneyMinP(30, 30), 1e-6);
}

}  // namespace
}  // namespace hb
