#include "analysis/changepoint.h"

#include <algorithm>
#include <cmath>

#include "analysis/stats.h"

namespace hb {

namespace {

// Counts and sums of the values in a set, indexed by rank, answering
// sum |x - s| over the set in O(log n).
class DistanceSet {
 public:
  explicit DistanceSet(const std::vector<double>* sorted)
      : sorted_(sorted), cnt_(sorted->size() + 1), sum_(sorted->size() + 1) {}
  void Add(int rank, int sign) {
    double v = (*sorted_)[rank] * sign;
    for (size_t i = rank + 1; i < cnt_.size(); i += i & (~i + 1)) {
      cnt_[i] += sign;
      sum_[i] += v;
    }
    total_cnt_ += sign;
    total_sum_ += v;
  }
  // sum over the set of |x - s|, x having rank `rank`.
  double Distance(int rank) const {
    double x = (*sorted_)[rank], c = 0, s = 0;
    for (size_t i = rank + 1; i > 0; i -= i & (~i + 1)) {
      c += cnt_[i];
      s += sum_[i];
    }
    return (x * c - s) + ((total_sum_ - s) - x * (total_cnt_ - c));
  }

 private:
  const std::vector<double>* sorted_;
  std::vector<double> cnt_, sum_;
  double total_cnt_ = 0, total_sum_ = 0;
};

std::vector<double> Slice(const std::vector<double>& x, int begin, int end) {
  return std::vector<double>(x.begin() + begin, x.begin() + end);
}

double Mean(const std::vector<double>& x, int begin, int end) {
  double s = 0;
  for (int i = begin; i < end; ++i) s += x[i];
  return s / (end - begin);
}

// Welch's test and the relative change between [a, b) and [b, c). The
// change point is the best of the c - a - 2m + 1 places it could be, so p
// is multiplied by their number (Bonferroni): without that, the best split
// of pure noise looks significant far more often than max_pvalue says.
ChangePoint Test(const std::vector<double>& x, int a, int b, int c, int m) {
  ChangePoint cp;
  cp.index = b;
  cp.mean_before = Mean(x, a, b);
  cp.mean_after = Mean(x, b, c);
  cp.rel_change = cp.mean_before != 0 ? (cp.mean_after - cp.mean_before) / std::fabs(cp.mean_before)
                                      : (cp.mean_after == 0 ? 0 : INFINITY);
  double places = std::max(1, c - a - 2 * m + 1);
  cp.pvalue = std::min(1.0, WelchTTest(Slice(x, a, b), Slice(x, b, c)).p * places);
  return cp;
}

bool Significant(const ChangePoint& cp, const ChangePointOptions& o) {
  return cp.pvalue < o.max_pvalue && std::fabs(cp.rel_change) >= o.min_magnitude;
}

void Split(const std::vector<double>& x, int begin, int end, const ChangePointOptions& o, std::vector<int>* out) {
  int m = std::max(2, o.min_segment);
  if (end - begin < 2 * m) return;
  std::vector<double> q = EDivisiveStatistics(x, begin, end, m);
  int best = static_cast<int>(std::max_element(q.begin(), q.end()) - q.begin()) + begin + m;
  if (!Significant(Test(x, begin, best, end, m), o)) return;
  out->push_back(best);
  Split(x, begin, best, o, out);
  Split(x, best, end, o, out);
}

}  // namespace

std::vector<double> EDivisiveStatistics(const std::vector<double>& x, int begin, int end, int min_segment) {
  const int n = end - begin, m = std::max(1, min_segment);
  std::vector<double> out;
  if (n < 2 * m) return out;
  std::vector<double> sorted = Slice(x, begin, end);
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> rank(n);
  for (int i = 0; i < n; ++i)
    rank[i] = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), x[begin + i]) - sorted.begin());
  DistanceSet left(&sorted), right(&sorted);
  double within_right = 0;
  for (int i = 0; i < n; ++i) within_right += sorted[i] * (2.0 * i - n + 1);
  for (int i = 0; i < n; ++i) right.Add(rank[i], 1);
  double within_left = 0, between = 0;
  for (int tau = 1; tau <= n - m; ++tau) {
    int r = rank[tau - 1];
    right.Add(r, -1);
    double dr = right.Distance(r), dl = left.Distance(r);
    left.Add(r, 1);
    within_right -= dr;
    within_left += dl;
    between += dr - dl;
    if (tau < m) continue;
    double n1 = tau, n2 = n - tau;
    double e = 2 * between / (n1 * n2) - (n1 > 1 ? within_left / (n1 * (n1 - 1) / 2) : 0) -
               (n2 > 1 ? within_right / (n2 * (n2 - 1) / 2) : 0);
    out.push_back(n1 * n2 / (n1 + n2) * e);
  }
  return out;
}

std::vector<ChangePoint> DetectChangePoints(const std::vector<double>& x, const ChangePointOptions& o) {
  const int m = std::max(2, o.min_segment);
  std::vector<int> idx;
  Split(x, 0, static_cast<int>(x.size()), o, &idx);
  std::sort(idx.begin(), idx.end());
  const int n = static_cast<int>(x.size());
  auto test_all = [&] {
    std::vector<ChangePoint> cps;
    for (size_t k = 0; k < idx.size(); ++k)
      cps.push_back(Test(x, k == 0 ? 0 : idx[k - 1], idx[k], k + 1 < idx.size() ? idx[k + 1] : n, m));
    return cps;
  };
  for (;;) {
    std::vector<ChangePoint> cps = test_all();
    int weakest = -1;
    for (size_t k = 0; k < cps.size(); ++k)
      if (!Significant(cps[k], o) && (weakest < 0 || cps[k].pvalue > cps[weakest].pvalue))
        weakest = static_cast<int>(k);
    if (weakest < 0) return cps;
    idx.erase(idx.begin() + weakest);
  }
}

}  // namespace hb
