// The analyses the ML studies need, over the values of a PerfTable:
//
// Scaling. Of each test, its figure of merit (the variable it marks
// `figure_of_merit: true`) only. Series that differ only in a scaling parameter (a parameter
// named nodes, num_nodes, tasks, num_tasks, ranks, procs, gpus, num_gpus,
// devices, workers, threads or np; else the case's num_tasks when the
// parameters are equal; or, when the test declares `scaling_axes`, only
// those parameters, and num_tasks only if listed) form a curve. At each scale the value is the median of the
// values in the table. Against the smallest scale N0:
//   speedup(N)    = v(N) / v(N0) for higher-is-better variables
//                   (throughputs), v(N0) / v(N) for lower-is-better ones
//                   (times)
//   efficiency(N) = speedup(N) / (N / N0); ideal speedup = N / N0.
//
// Variability. For a series, each session with two or more values
// (repetitions, --repeat) gives the coefficient of variation
// std / |mean| (sample std) of those values.
//
// Breakdown. For a case that reports the per-step parts of
// hetbench-train (data_wait, h2d_copy, forward, backward, allreduce,
// optimizer, in seconds), the median of each part in the latest session
// that has them, grouped as results/step_breakdown.h says. Cases are sorted by test, then by their parameters
// with numbers in numeric order (ranks=2 before ranks=16), so that the
// ranks and formats of one model stand together.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "results/step_breakdown.h"
#include "results/store.h"

namespace hb {

struct ScalingPoint {
  double scale = 0;
  double value = 0;
  double speedup = 1, efficiency = 1, ideal = 1;
  int count = 0;  // values at this scale
};
struct ScalingCurve {
  std::string test, label;  // label: the case without its scaling parameter
  std::string system, partition, environ, var, unit;
  std::string parameter;  // the scaling parameter, or "num_tasks"
  bool lower_is_better = false;
  std::vector<ScalingPoint> points;  // by scale
};
// `lower_is_better(var, unit)` says the direction of a variable.
std::vector<ScalingCurve> ScalingCurves(
    const PerfTable& t, const std::function<bool(const std::string& var, const std::string& unit)>& lower_is_better);

struct Variability {
  int series = 0, session = 0;
  int count = 0;
  double mean = 0, cv = 0;
};
// One entry per series and session with at least two values.
std::vector<Variability> RepetitionVariability(const PerfTable& t);

struct BreakdownPart {
  std::string var, group;  // group: one of BreakdownGroups()
  double seconds = 0;
};
struct Breakdown {
  std::string test, label, system, partition, environ;
  int session = 0;
  std::vector<BreakdownPart> parts;  // in step order
  std::vector<StepShare> groups;     // every group of StepGroups() (results/step_breakdown.h)
  double total = 0;                  // the step: the sum of the parts
};
std::vector<Breakdown> TimeBreakdowns(const PerfTable& t);

// a < b with the digit runs compared as numbers ("ranks=2" < "ranks=16").
bool NaturalLess(const std::string& a, const std::string& b);

}  // namespace hb
