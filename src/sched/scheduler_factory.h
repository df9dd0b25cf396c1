// MakeScheduler: the Scheduler a partition names: `local`, `slurm`,
// `squeue`, `pbs`, `pbspro`, `torque` and `sge` (ReFrame's names). `k8s`
// answers "not available in this build yet" until its files land here.
// Stateless; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/scheduler.h"
#include "util/status.h"

namespace hb {

// An unknown name is an error that lists the known ones, with a did-you-mean.
// sched_options are the partition's (see BatchOptions for batch backends).
Result<std::unique_ptr<Scheduler>> MakeScheduler(const std::string& name,
                                                 const nlohmann::json& sched_options = nlohmann::json::object());

// Every scheduler name hetbench knows, available or not.
const std::vector<std::string>& SchedulerNames();

}  // namespace hb
