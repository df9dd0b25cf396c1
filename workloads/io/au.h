// The metrics of hetbench-io, defined as DLIO defines them
// (argonne-lcf/dlio_benchmark, dlio_benchmark/utils/statscounter.py,
// StatsCounter.compute_metrics_train):
//
//   total_compute_time = np.sum(compute[metric_start_step:metric_end_step+1])
//   total_time = end_timestamp - start_timestamp
//                - np.sum(proc[:metric_start_step])
//                - np.sum(proc[metric_end_step+1:])
//   au = total_compute_time / total_time        (0 when no compute time)
//   output['au'] = au * 100
//
// where compute[i] is step i's (emulated) computation time, proc[i] its
// load + compute time, start/end the epoch's timestamps, and the start and
// end steps excluded by metric_exclude_start_steps (default 1) and
// metric_exclude_end_steps (default 0). The run's AU is the mean over epochs
// of the mean over ranks. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <vector>

namespace hbw::io {

// One epoch of one rank, as DLIO's StatsCounter records it.
struct EpochTimes {
  double seconds = 0;           // end_timestamp - start_timestamp
  std::vector<double> compute;  // per step: computation time
  std::vector<double> proc;     // per step: load + computation time
};

// DLIO's accelerator utilisation of one epoch, in percent.
double AcceleratorUtilization(const EpochTimes& epoch, size_t exclude_start, size_t exclude_end);

double Mean(const std::vector<double>& v);

}  // namespace hbw::io
