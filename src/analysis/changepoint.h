// Change points in a series of performance values: where did a value move
// to a new level, and is the move real? The method is the one of Apache
// Otava (formerly Hunter, DataStax): split, then merge.
//
//  1. Split. In a segment, the candidate is the index tau that maximises
//     the E-divisive statistic (Matteson & James 2014, alpha = 1)
//         Q(tau) = n1 n2 / (n1 + n2) * (2/(n1 n2) sum |x_i - y_j|
//                  - 1/C(n1,2) sum |x_i - x_k| - 1/C(n2,2) sum |y_j - y_l|)
//     with x = segment[..tau), y = segment[tau..), each side at least
//     `min_segment` values. The candidate is kept when Welch's t-test of
//     the two sides, Bonferroni-corrected for the number of places the
//     candidate was chosen from, gives p < max_pvalue and the relative
//     change of the mean is at least min_magnitude; both sides are then
//     split again.
//  2. Merge. While some change point, tested against the segments between
//     its neighbours, has p >= max_pvalue or a change below min_magnitude,
//     the weakest of them (largest p) is removed.
//
// Sums of distances are kept in Fenwick trees over the values' ranks, so
// scanning one segment of n values costs O(n log n).
#pragma once

#include <vector>

namespace hb {

struct ChangePointOptions {
  int min_segment = 3;        // values on each side of a change, at least
  double max_pvalue = 0.001;  // Otava's default
  double min_magnitude = 0;   // |mean_after - mean_before| / |mean_before|
};

struct ChangePoint {
  int index = 0;                           // the first value of the new level
  double mean_before = 0, mean_after = 0;  // of the segments either side
  double rel_change = 0;                   // (after - before) / |before|
  double pvalue = 1;                       // Welch's p times the number of candidate places (at most 1)
};

// In increasing order of index.
std::vector<ChangePoint> DetectChangePoints(const std::vector<double>& series, const ChangePointOptions& opts = {});

// The E-divisive statistic Q(tau) for every tau in [begin + m, end - m]
// of series[begin, end), m = min_segment: element i is Q(begin + m + i).
// Exposed for its test (against the O(n^2) definition).
std::vector<double> EDivisiveStatistics(const std::vector<double>& series, int begin, int end, int min_segment);

}  // namespace hb
