#include "sched/scheduler_factory.h"

#include <algorithm>

#include "sched/local_scheduler.h"
#include "sched/pbs.h"
#include "sched/sge.h"
#include "sched/slurm.h"
#include "util/strings.h"

namespace hb {

namespace {

// Backends hetbench knows by name but has not built yet.
const std::vector<std::string>& PlannedSchedulers() {
  static const std::vector<std::string> kPlanned = {"k8s", "kubernetes"};
  return kPlanned;
}

}  // namespace

const std::vector<std::string>& SchedulerNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {"local", "slurm", "squeue", "pbs", "pbspro", "torque", "sge"};
    names.insert(names.end(), PlannedSchedulers().begin(), PlannedSchedulers().end());
    return names;
  }();
  return kNames;
}

Result<std::unique_ptr<Scheduler>> MakeScheduler(const std::string& name, const nlohmann::json& sched_options) {
  if (name == "local") return std::unique_ptr<Scheduler>(std::make_unique<LocalScheduler>());
  if (name == "slurm" || name == "squeue" || name == "pbs" || name == "pbspro" || name == "torque" || name == "sge") {
    auto opts = ParseBatchOptions(sched_options);
    if (!opts.ok()) return opts.status();
    if (name == "sge") {
      auto pe = ParseSgeParallelEnv(sched_options);
      if (!pe.ok()) return pe.status();
      return std::unique_ptr<Scheduler>(
          std::make_unique<SgeScheduler>(MakeSystemCommandRunner(), std::move(opts.value()), *pe));
    }
    if (name == "slurm" || name == "squeue")
      return std::unique_ptr<Scheduler>(
          std::make_unique<SlurmScheduler>(name, MakeSystemCommandRunner(), std::move(opts.value())));
    return std::unique_ptr<Scheduler>(
        std::make_unique<PbsScheduler>(name, MakeSystemCommandRunner(), std::move(opts.value())));
  }
  const auto& planned = PlannedSchedulers();
  if (std::find(planned.begin(), planned.end(), name) != planned.end()) {
    return Status::Error("scheduler '" + name + "' is not available in this build yet");
  }
  return Status::Error("unknown scheduler '" + name + "'" + DidYouMean(name, SchedulerNames()) +
                       " (known: " + Join(SchedulerNames(), ", ") + ")");
}

}  // namespace hb
