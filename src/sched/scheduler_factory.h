// MakeScheduler: the Scheduler a partition names. Knows `local` now; the
// other backends hetbench knows by ReFrame's names (slurm, squeue, pbs,
// pbspro, torque, sge) and k8s answer "not available in this build yet"
// until their files land here. Stateless; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/scheduler.h"
#include "util/status.h"

namespace hb {

// An unknown name is an error that lists the known ones, with a did-you-mean.
Result<std::unique_ptr<Scheduler>> MakeScheduler(const std::string& name);

// Every scheduler name hetbench knows, available or not.
const std::vector<std::string>& SchedulerNames();

}  // namespace hb
