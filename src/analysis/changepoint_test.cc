#include "analysis/changepoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace hb {
namespace {

// Q(tau) straight from its definition, O(n^2) per tau.
double NaiveQ(const std::vector<double>& x, int b, int tau, int e) {
  double between = 0, wl = 0, wr = 0;
  for (int i = b; i < tau; ++i)
    for (int j = tau; j < e; ++j) between += std::fabs(x[i] - x[j]);
  for (int i = b; i < tau; ++i)
    for (int k = i + 1; k < tau; ++k) wl += std::fabs(x[i] - x[k]);
  for (int j = tau; j < e; ++j)
    for (int l = j + 1; l < e; ++l) wr += std::fabs(x[j] - x[l]);
  double n1 = tau - b, n2 = e - tau;
  return n1 * n2 / (n1 + n2) * (2 * between / (n1 * n2) - wl / (n1 * (n1 - 1) / 2) - wr / (n2 * (n2 - 1) / 2));
}

TEST(EDivisive, FenwickSumsEqualTheDefinition) {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 1);
  std::vector<double> x;
  for (int i = 0; i < 40; ++i) x.push_back(std::round(noise(rng) * 4) / 4 + (i >= 25 ? 3 : 0));  // with ties
  std::vector<double> q = EDivisiveStatistics(x, 5, 37, 3);
  ASSERT_EQ(q.size(), 32u - 6 + 1);
  for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], NaiveQ(x, 5, 5 + 3 + static_cast<int>(i), 37), 1e-9) << i;
}

std::vector<double> Noisy(const std::vector<std::pair<int, double>>& levels, double sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, sd);
  std::vector<double> x;
  for (auto [n, level] : levels)
    for (int i = 0; i < n; ++i) x.push_back(level + noise(rng));
  return x;
}

TEST(ChangePoints, FindsStepsAndTheirSize) {
  // 100 -> 80 (a 20% slowdown of a throughput) -> 95.
  std::vector<double> x = Noisy({{30, 100}, {25, 80}, {20, 95}}, 1.5, 1);
  std::vector<ChangePoint> cps = DetectChangePoints(x);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 30);
  EXPECT_NEAR(cps[0].rel_change, -0.2, 0.02);
  EXPECT_LT(cps[0].pvalue, 0.001);
  EXPECT_EQ(cps[1].index, 55);
  EXPECT_NEAR(cps[1].mean_after, 95, 1);
}

TEST(ChangePoints, NoneInNoiseOrConstantSeries) {
  EXPECT_TRUE(DetectChangePoints(Noisy({{200, 50}}, 5, 2)).empty());
  EXPECT_TRUE(DetectChangePoints(std::vector<double>(20, 3.0)).empty());
  EXPECT_TRUE(DetectChangePoints({}).empty());
  EXPECT_TRUE(DetectChangePoints({1, 2, 3, 4, 5}).empty());  // shorter than two segments
}

TEST(ChangePoints, NoFalseAlarmsInManyNoisySeries) {
  // The best split of pure noise is not significant once corrected for
  // the places it was chosen from.
  int found = 0;
  for (unsigned seed = 10; seed < 50; ++seed) found += DetectChangePoints(Noisy({{500, 100}}, 1, seed)).size();
  EXPECT_EQ(found, 0);
}

TEST(ChangePoints, MinimumSegmentLengthHolds) {
  // A level of 3 values at the end is a change; 2 are not enough.
  std::vector<double> x(12, 10.0);
  for (int i = 0; i < 12; ++i) x[i] += (i % 3) * 0.01;
  std::vector<double> three = x;
  three.insert(three.end(), {20, 20.01, 20.02});
  auto cps = DetectChangePoints(three);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 12);
  std::vector<double> two = x;
  two.insert(two.end(), {20, 20.01});
  for (const auto& cp : DetectChangePoints(two)) {
    EXPECT_GE(cp.index, 3);
    EXPECT_LE(cp.index, static_cast<int>(two.size()) - 3);
  }
}

TEST(ChangePoints, MinMagnitudeDropsSmallMoves) {
  std::vector<double> x = Noisy({{30, 100}, {30, 101}}, 0.1, 3);  // a significant 1% move
  EXPECT_EQ(DetectChangePoints(x).size(), 1u);
  ChangePointOptions o;
  o.min_magnitude = 0.05;
  EXPECT_TRUE(DetectChangePoints(x, o).empty());
}

}  // namespace
}  // namespace hb
