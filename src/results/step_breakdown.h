// The parts of a training step that hetbench-train reports (data_wait,
// h2d_copy, forward, backward, rank_wait, allreduce, optimizer, each in
// seconds per step) and the groups they make, in one place for the console's line per
// training case and the report's breakdown (analysis/analyses.h):
//   I/O            = data_wait
//   host-to-device = h2d_copy
//   compute        = forward + backward + optimizer
//   wait           = rank_wait (waiting for the slowest rank before the
//                    gradient exchange ends)
//   communication  = allreduce (moving the gradients' bytes)
// The step is the sum of the parts, and a group's share is its seconds
// over the step, in percent.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hb {

// (variable, group) in step order.
const std::vector<std::pair<std::string, std::string>>& StepParts();
// "I/O", "host-to-device", "compute", "wait", "communication".
const std::vector<std::string>& StepGroups();
// The group of a variable, or "" when it is not a part.
std::string StepGroupOf(const std::string& var);

struct StepShare {
  std::string group;
  double seconds = 0, percent = 0;  // percent of the step; 0 when the step is 0
};
// Every group of StepGroups(), in its order, from the parts given as
// (variable, seconds); variables that are not parts are left out. `step`
// gets the sum of the parts.
std::vector<StepShare> GroupStep(const std::vector<std::pair<std::string, double>>& parts, double* step);

}  // namespace hb
