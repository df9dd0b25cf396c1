#include "analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

namespace hb {

double QuantileSorted(const std::vector<double>& sorted, double p) {
  if (sorted.size() == 1) return sorted[0];
  double h = (static_cast<double>(sorted.size()) - 1) * std::clamp(p, 0.0, 1.0);
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

namespace {

double Mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

double Variance(const std::vector<double>& v, double mean) {
  if (v.size() < 2) return 0;
  double s = 0;
  for (double x : v) s += (x - mean) * (x - mean);
  return s / (v.size() - 1);
}

}  // namespace

Summary Summarize(std::vector<double> values) {
  Summary s;
  s.count = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.mean = Mean(values);
  s.median = QuantileSorted(values, 0.5);
  s.min = values.front();
  s.max = values.back();
  s.std = std::sqrt(Variance(values, s.mean));
  s.cv = s.mean != 0 ? s.std / std::fabs(s.mean) : 0;
  return s;
}

Result<Aggregate> ParseAggregate(const std::string& name) {
  using K = Aggregate::Kind;
  static const std::vector<std::pair<std::string, K>> kNamed = {
      {"median", K::kMedian}, {"mean", K::kMean}, {"min", K::kMin},    {"max", K::kMax},
      {"std", K::kStd},       {"cv", K::kCv},     {"count", K::kCount}};
  for (const auto& [n, k] : kNamed)
    if (name == n) return Aggregate{k, 0.5, n};
  if (name.size() > 1 && name[0] == 'p') {
    char* end = nullptr;
    double pct = std::strtod(name.c_str() + 1, &end);
    if (end && *end == '\0' && std::isdigit(static_cast<unsigned char>(name[1])) && pct >= 0 && pct <= 100)
      return Aggregate{K::kQuantile, pct / 100, name};
  }
  return Status::Error("unknown aggregate '" + name +
                       "': expected median, mean, min, max, std, cv, count or pNN (a percentile such as p90)");
}

double Apply(const Aggregate& a, std::vector<double> values) {
  using K = Aggregate::Kind;
  if (a.kind == K::kCount) return static_cast<double>(values.size());
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (a.kind == K::kQuantile) {
    std::sort(values.begin(), values.end());
    return QuantileSorted(values, a.q);
  }
  Summary s = Summarize(std::move(values));
  switch (a.kind) {
    case K::kMedian:
      return s.median;
    case K::kMean:
      return s.mean;
    case K::kMin:
      return s.min;
    case K::kMax:
      return s.max;
    case K::kStd:
      return s.std;
    case K::kCv:
      return s.cv;
    default:
      return s.median;
  }
}

namespace {

// Boost.Math's distributions, answering NaN instead of throwing for
// arguments outside their domain (a t statistic of NaN, df <= 0).
using Policy =
    boost::math::policies::policy<boost::math::policies::domain_error<boost::math::policies::ignore_error>,
                                  boost::math::policies::overflow_error<boost::math::policies::ignore_error>>;
using Normal = boost::math::normal_distribution<double, Policy>;
using StudentT = boost::math::students_t_distribution<double, Policy>;

}  // namespace

double NormalSf(double z) { return boost::math::cdf(boost::math::complement(Normal(), z)); }

double NormalIsf(double p) { return boost::math::quantile(boost::math::complement(Normal(), p)); }

double StudentTTwoSidedP(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (!std::isfinite(t)) return 0;
  return 2 * boost::math::cdf(boost::math::complement(StudentT(df), std::fabs(t)));
}

namespace {

// The null distribution of Mann-Whitney's U for samples of n1 and n2
// values without ties: element u counts the arrangements with U = u.
// g(i, m, u) = g(i-1, m, u-m) + g(i, m-1, u), i values of the first sample
// and m of the second.
std::vector<double> UNullCounts(size_t n1, size_t n2) {
  const int max_u = static_cast<int>(n1 * n2);
  std::vector<std::vector<std::vector<double>>> g(
      n1 + 1, std::vector<std::vector<double>>(n2 + 1, std::vector<double>(max_u + 1, 0)));
  for (size_t m = 0; m <= n2; ++m) g[0][m][0] = 1;
  for (size_t i = 1; i <= n1; ++i) {
    g[i][0][0] = 1;
    for (size_t m = 1; m <= n2; ++m)
      for (int v = 0; v <= max_u; ++v)
        g[i][m][v] = (v >= static_cast<int>(m) ? g[i - 1][m][v - m] : 0) + g[i][m - 1][v];
  }
  return g[n1][n2];
}

}  // namespace

TestResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  // Ranks of the pooled sample, ties given their average rank.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(n);
  for (double x : a) pooled.emplace_back(x, 0);
  for (double x : b) pooled.emplace_back(x, 1);
  std::sort(pooled.begin(), pooled.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    double t = static_cast<double>(j - i), avg = (i + 1 + j) / 2.0;
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second == 0) rank_sum_a += avg;
    i = j;
  }
  TestResult r;
  double u1 = rank_sum_a - n1 * (n1 + 1) / 2.0;
  r.statistic = u1;
  double u = std::max(u1, n1 * n2 - u1);
  if (!ties && n1 <= 8 && n2 <= 8) {
    const int max_u = static_cast<int>(n1 * n2);
    const std::vector<double> dist = UNullCounts(n1, n2);
    double total = std::accumulate(dist.begin(), dist.end(), 0.0), upper = 0;
    for (int v = static_cast<int>(std::lround(u)); v <= max_u; ++v) upper += dist[v];
    r.p = std::min(1.0, 2 * upper / total);
    r.method = "exact";
    return r;
  }
  double mu = n1 * n2 / 2.0;
  double sigma = std::sqrt(n1 * n2 / 12.0 * ((n + 1) - tie_term / (static_cast<double>(n) * (n - 1))));
  r.method = "asymptotic";
  if (sigma == 0) {
    r.p = 1;
    return r;
  }
  double z = (u - mu - 0.5) / sigma;
  r.p = std::min(1.0, 2 * NormalSf(z));
  return r;
}

TestResult WelchTTest(const std::vector<double>& a, const std::vector<double>& b) {
  TestResult r;
  r.method = "welch";
  double ma = Mean(a), mb = Mean(b);
  double va = Variance(a, ma) / a.size(), vb = Variance(b, mb) / b.size();
  double se2 = va + vb;
  if (se2 <= 0) {
    r.statistic = ma == mb ? 0 : std::copysign(std::numeric_limits<double>::infinity(), ma - mb);
    r.p = ma == mb ? 1 : 0;
    return r;
  }
  r.statistic = (ma - mb) / std::sqrt(se2);
  double df =
      se2 * se2 / ((a.size() > 1 ? va * va / (a.size() - 1) : 0) + (b.size() > 1 ? vb * vb / (b.size() - 1) : 0));
  r.p = StudentTTwoSidedP(r.statistic, df);
  return r;
}

double MannWhitneyMinP(size_t n1, size_t n2) {
  if (n1 == 0 || n2 == 0) return 1;
  std::vector<double> a(n1), b(n2);
  for (size_t i = 0; i < n2; ++i) b[i] = static_cast<double>(i);
  for (size_t i = 0; i < n1; ++i) a[i] = static_cast<double>(n2 + i);
  return MannWhitneyU(a, b).p;
}

ShiftEstimate HodgesLehmann(const std::vector<double>& a, const std::vector<double>& b, double confidence) {
  ShiftEstimate e;
  const size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return e;
  std::vector<double> d;
  d.reserve(n1 * n2);
  for (double x : a)
    for (double y : b) d.push_back(x - y);
  std::sort(d.begin(), d.end());
  e.shift = QuantileSorted(d, 0.5);
  // The interval [d(k), d(N-k+1)] (1-based, N = n1 n2) covers the shift
  // with probability 1 - 2 P(U <= k-1) under the null distribution of U:
  // the largest k whose tail P(U <= k-1) is at most (1 - confidence) / 2.
  const double tail = (1 - confidence) / 2;
  const double N = static_cast<double>(n1 * n2);
  long k = 0;
  if (n1 <= 20 && n2 <= 20) {
    e.method = "exact";
    std::vector<double> dist = UNullCounts(n1, n2);
    double total = std::accumulate(dist.begin(), dist.end(), 0.0), cum = 0;
    for (size_t u = 0; u < dist.size(); ++u) {
      if ((cum + dist[u]) / total > tail + 1e-12) break;  // 1e-12: (1 - 0.9) / 2 is not 0.05 in binary
      cum += dist[u];
      k = static_cast<long>(u) + 1;
    }
    e.confidence = 1 - 2 * cum / total;
  } else {
    e.method = "asymptotic";
    // z of the two-sided interval.
    double z = NormalIsf(tail);
    k = static_cast<long>(std::floor(N / 2 - z * std::sqrt(N * (n1 + n2 + 1) / 12.0)));
    e.confidence = confidence;
  }
  if (k < 1) {  // too few values for an interval at this confidence
    e.confidence = std::numeric_limits<double>::quiet_NaN();
    return e;
  }
  e.low = d[static_cast<size_t>(k - 1)];
  e.high = d[d.size() - static_cast<size_t>(k)];
  return e;
}

}  // namespace hb
