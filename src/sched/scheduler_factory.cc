#include "sched/scheduler_factory.h"

#include <algorithm>
#include <map>

#include "sched/local_scheduler.h"
#include "sched/pbs.h"
#include "sched/sge.h"
#include "sched/slurm.h"
#include "util/strings.h"

namespace hb {

namespace {

std::map<std::string, SchedulerMaker>& Registered() {
  static std::map<std::string, SchedulerMaker> makers;
  return makers;
}

}  // namespace

std::vector<std::string> SchedulerNames() {
  std::vector<std::string> names = {"local", "slurm", "squeue", "pbs", "pbspro", "torque", "sge"};
  for (const auto& [name, maker] : Registered())
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  return names;
}

void RegisterScheduler(const std::string& name, SchedulerMaker maker) { Registered()[name] = std::move(maker); }

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
  auto reg = Registered().find(name);
  if (reg != Registered().end()) return reg->second(name, sched_options);
  return Status::Error("unknown scheduler '" + name + "'" + DidYouMean(name, SchedulerNames()) +
                       " (known: " + Join(SchedulerNames(), ", ") + ")");
}

}  // namespace hb
