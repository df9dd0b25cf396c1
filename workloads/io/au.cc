#include "io/au.h"

#include <algorithm>
#include <numeric>

namespace hbw::io {

double AcceleratorUtilization(const EpochTimes& e, size_t exclude_start, size_t exclude_end) {
  const size_t steps = std::min(e.compute.size(), e.proc.size());
  // DLIO: metric_start_step .. metric_end_step = steps - 1 - exclude_end.
  size_t first = std::min(exclude_start, steps);
  size_t last = steps > exclude_end ? steps - exclude_end : 0;  // one past
  if (last < first) last = first;
  double compute = std::accumulate(e.compute.begin() + first, e.compute.begin() + last, 0.0);
  if (compute == 0) return 0;
  double total = e.seconds - std::accumulate(e.proc.begin(), e.proc.begin() + first, 0.0) -
                 std::accumulate(e.proc.begin() + last, e.proc.begin() + steps, 0.0);
  return total > 0 ? 100.0 * compute / total : 0;
}

double Mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace hbw::io
