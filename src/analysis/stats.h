// Statistics for comparing performance values: the aggregates of
// `hetbench compare` and the two tests the analyses use (Mann-Whitney U for
// two samples, Welch's t-test for change points). Pure functions on
// vectors of doubles; no I/O.
//
// Exact definitions (docs/results.md repeats them for users):
//   median, pNN   linear interpolation between order statistics
//                 (Hyndman & Fan type 7, numpy's default): p-quantile of
//                 sorted x[0..n-1] is x[h] + (h - floor h)(x[h+1] - x[h])
//                 with h = (n - 1) p
//   std           sample standard deviation (divisor n - 1); 0 when n < 2
//   cv            std / |mean|; 0 when the mean is 0
//   Mann-Whitney  two-sided; U of the first sample counts pairs (a, b)
//                 with a > b plus half the ties. Exact p from the
//                 distribution of U when both samples have at most 8
//                 values and there are no ties, else the normal
//                 approximation with tie correction and continuity
//                 correction (scipy.stats.mannwhitneyu, method "auto")
//   Hodges-      the shift of a against b: the median of the n_a n_b
//   Lehmann      differences a_i - b_j; its distribution-free interval at
//                confidence c is [d(k), d(N-k+1)] of the sorted
//                differences, k the largest with P(U <= k-1) <= (1-c)/2
//                under U's null distribution (exact up to 20 values a
//                side, else the normal approximation); no interval when
//                k < 1 (too few values)
//   Welch t       two-sided p of t = (mean_a - mean_b) /
//                 sqrt(var_a/n_a + var_b/n_b) with Welch-Satterthwaite
//                 degrees of freedom
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "util/status.h"

namespace hb {

// The p-quantile (0 <= p <= 1) of `sorted` (ascending, non-empty).
double QuantileSorted(const std::vector<double>& sorted, double p);

struct Summary {
  int count = 0;
  double mean = 0, median = 0, min = 0, max = 0, std = 0, cv = 0;
};
Summary Summarize(std::vector<double> values);

// An aggregate by name: median, mean, min, max, std, cv, count, or pNN
// (p0..p100, e.g. p90, p99.9).
struct Aggregate {
  enum class Kind { kMedian, kMean, kMin, kMax, kStd, kCv, kCount, kQuantile };
  Kind kind = Kind::kMedian;
  double q = 0.5;  // for kQuantile, in [0, 1]
  std::string name = "median";
};
// Errors list the allowed names.
Result<Aggregate> ParseAggregate(const std::string& name);
// The aggregate of `values` (non-empty).
double Apply(const Aggregate& a, std::vector<double> values);

struct TestResult {
  double statistic = 0;  // U of the first sample, or Welch's t
  double p = 1;          // two-sided
  std::string method;    // "exact", "asymptotic", "welch"
};
// Both samples non-empty.
TestResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);
// Both samples with at least 2 values; p = 1 when both have no variance and
// equal means, 0 when neither varies but the means differ.
TestResult WelchTTest(const std::vector<double>& a, const std::vector<double>& b);

// The smallest two-sided p MannWhitneyU gives for samples of these sizes
// (every value of one above every value of the other): when it is not
// below alpha, no difference can be significant.
double MannWhitneyMinP(size_t n1, size_t n2);

// The Hodges-Lehmann estimate of the shift of `a` against `b`, with its
// distribution-free confidence interval (the definition above). low and
// high are NaN when the samples are too small for the interval, and
// `confidence` is the interval's exact coverage (>= the one asked for,
// exact method) or the one asked for (asymptotic).
struct ShiftEstimate {
  double shift = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN(), high = std::numeric_limits<double>::quiet_NaN();
  double confidence = std::numeric_limits<double>::quiet_NaN();
  std::string method;  // "exact" or "asymptotic"
};
ShiftEstimate HodgesLehmann(const std::vector<double>& a, const std::vector<double>& b, double confidence = 0.95);

// Distribution functions used above (Boost.Math's), exposed for their
// tests. NaN for arguments outside their domain.
double NormalSf(double z);                      // P(Z > z)
double NormalIsf(double p);                     // z with P(Z > z) = p
double StudentTTwoSidedP(double t, double df);  // P(|T| > |t|), T ~ Student's t with df degrees of freedom

}  // namespace hb
