// MakeScheduler: the Scheduler a partition names: `local`, `slurm`,
// `squeue`, `pbs`, `pbspro`, `torque` and `sge` (ReFrame's names), and
// those a higher layer registers (`k8s` and `kubernetes`, from src/k8s,
// registered by the run layer with the command line's Kubernetes flags).
// Registration happens once at start-up, before any MakeScheduler; after
// that, thread-safe.
#pragma once

#include <functional>
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

// Every scheduler name hetbench knows (built in and registered).
std::vector<std::string> SchedulerNames();

// Makes the backends a layer above sched provides. A later registration of
// the same name replaces the earlier one.
using SchedulerMaker =
    std::function<Result<std::unique_ptr<Scheduler>>(const std::string& name, const nlohmann::json& sched_options)>;
void RegisterScheduler(const std::string& name, SchedulerMaker maker);

}  // namespace hb
