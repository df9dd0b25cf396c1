#include "analysis/stats.h"

#include <gtest/gtest.h>

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

TEST(MannWhitney, AsymptoticWithTiesAndLargeSamples) {
  // A tie forces the normal approximation.
  TestResult r = MannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12, 19});
  EXPECT_EQ(r.method, "asymptotic");
  // U1 = 4 (19>11,12,17 + 22>.. ) computed by hand: pairs a>b plus half ties.
  double u1 = 0;
  for (double a : {19, 22, 16, 29, 24})
    for (double b : {20, 11, 17, 12, 19}) u1 += a > b ? 1 : (a == b ? 0.5 : 0);
  EXPECT_DOUBLE_EQ(r.statistic, u1);
  EXPECT_GT(r.p, 0.05);
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(100 + i % 7);
    b.push_back(90 + i % 7);
  }
  r = MannWhitneyU(a, b);
  EXPECT_EQ(r.method, "asymptotic");
  EXPECT_LT(r.p, 1e-6);
  EXPECT_DOUBLE_EQ(MannWhitneyU(a, a).p, 1);
}

TEST(Distributions, KnownValues) {
  EXPECT_NEAR(NormalSf(1.959964), 0.025, 1e-6);
  EXPECT_NEAR(StudentTTwoSidedP(2.228139, 10), 0.05, 1e-6);  // t(0.975, 10)
  EXPECT_NEAR(StudentTTwoSidedP(12.7062, 1), 0.05, 1e-5);
  EXPECT_NEAR(RegularizedIncompleteBeta(2, 3, 0.4), 0.5248, 1e-4);
}

TEST(Welch, MatchesHandComputation) {
  // means 3 and 6, variances 2.5 and 10: t = -3 / sqrt(2.5) = -1.897,
  // df = 2.5^2 / (0.5^2/4 + 2^2/4) = 5.882.
  TestResult r = WelchTTest({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10});
  EXPECT_NEAR(r.statistic, -1.897367, 1e-6);
  EXPECT_NEAR(r.p, 0.107531, 1e-6);  // P(|T_5.882| > 1.897)
  EXPECT_GT(r.p, 0.1);
  EXPECT_LT(r.p, 0.11);
  EXPECT_DOUBLE_EQ(WelchTTest({1, 1}, {1, 1}).p, 1);
  EXPECT_DOUBLE_EQ(WelchTTest({1, 1}, {2, 2}).p, 0);
}

}  // namespace
}  // namespace hb
