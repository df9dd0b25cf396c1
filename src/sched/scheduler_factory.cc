#include "sched/scheduler_factory.h"

#include <algorithm>
#include <map>

#include "sched/flux.h"
#include "sched/local_scheduler.h"
#include "sched/lsf.h"
#include "sched/oar.h"
#include "sched/pbs.h"
#include "sched/sge.h"
#include "sched/slurm.h"
#include "sched/ssh.h"
#include "util/strings.h"

namespace hb {

namespace {

// Batch partitions share one instance (one query per poll) unless their
// polling options differ; each job brings its partition's other options
// (Job::sched_options). Checks them all first.
Result<std::string> BatchKey(const nlohmann::json& sched_options, const nlohmann::json&, const SchedulerFlags&) {
  auto opts = ParseBatchOptions(sched_options);
  if (!opts.ok()) return opts.status();
  return BatchPollingOptions(*opts).dump();
}

SchedulerBackend Local() {
  SchedulerBackend b;
  b.name = "local";
  b.traits.on_this_host = true;
  b.instance_key = [](const nlohmann::json&, const nlohmann::json&, const SchedulerFlags&) -> Result<std::string> {
    return std::string();  // one for all: it reaps this process's children
  };
  b.make = [](const nlohmann::json&, const nlohmann::json&,
              const SchedulerFlags& f) -> Result<std::unique_ptr<Scheduler>> {
    return std::unique_ptr<Scheduler>(std::make_unique<LocalScheduler>(LocalScheduler::Options{f.kill_grace_s}));
  };
  return b;
}

// Slurm (slurm, squeue), PBS (pbs, torque), LSF, OAR and Flux: the backend's class made
// with its name, the system's commands and the parsed options.
template <typename Backend>
SchedulerBackend Batch(const std::string& name, std::vector<std::string> aliases,
                       NodeSpawn (*spawn)(const Job&, int, int)) {
  SchedulerBackend b;
  b.name = name;
  b.aliases = std::move(aliases);
  b.traits.node_spawn = spawn;
  b.instance_key = BatchKey;
  b.check_options = [](const JsonField& so) { return ReadBatchOptions(so).status(); };
  b.make = [name](const nlohmann::json& so, const nlohmann::json&,
                  const SchedulerFlags& f) -> Result<std::unique_ptr<Scheduler>> {
    auto opts = ParseBatchOptions(so);
    if (!opts.ok()) return opts.status();
    auto sched = std::make_unique<Backend>(name, MakeSystemCommandRunner(), std::move(opts.value()));
    sched->set_clock(f.clock);
    return std::unique_ptr<Scheduler>(std::move(sched));
  };
  return b;
}

SchedulerBackend Sge() {
  SchedulerBackend b;
  b.name = "sge";
  b.traits.node_spawn = SgeNodeSpawn;
  b.instance_key = [](const nlohmann::json& so, const nlohmann::json& spec,
                      const SchedulerFlags& f) -> Result<std::string> {
    auto pe = ParseSgeParallelEnv(so);
    if (!pe.ok()) return pe.status();
    auto opts = ParseBatchOptions(so, {"pe"});
    if (!opts.ok()) return opts.status();
    return BatchPollingOptions(*opts).dump();
  };
  b.check_options = [](const JsonField& so) {
    Status st = ReadSgeParallelEnv(so).status();
    return st.ok() ? ReadBatchOptions(so, {"pe"}).status() : st;
  };
  b.make = [](const nlohmann::json& so, const nlohmann::json&,
              const SchedulerFlags& f) -> Result<std::unique_ptr<Scheduler>> {
    auto opts = ParseBatchOptions(so, {"pe"});
    if (!opts.ok()) return opts.status();
    auto pe = ParseSgeParallelEnv(so);
    if (!pe.ok()) return pe.status();
    auto sched = std::make_unique<SgeScheduler>(MakeSystemCommandRunner(), std::move(opts.value()), *pe);
    sched->set_clock(f.clock);
    return std::unique_ptr<Scheduler>(std::move(sched));
  };
  return b;
}

// ssh (ReFrame's): jobs on remote hosts over ssh; one instance per host list.
SchedulerBackend Ssh() {
  SchedulerBackend b;
  b.name = "ssh";
  b.check_options = [](const JsonField& so) { return ReadSshOptions(so).status(); };
  b.make = [](const nlohmann::json& so, const nlohmann::json&,
              const SchedulerFlags& f) -> Result<std::unique_ptr<Scheduler>> {
    auto opts = ReadSshOptions(JsonField(so));
    if (!opts.ok()) return opts.status();
    return std::unique_ptr<Scheduler>(
        std::make_unique<SshScheduler>(std::move(opts.value()), LocalScheduler::Options{f.kill_grace_s}));
  };
  return b;
}

// In registration order; the built-in backends first.
std::vector<SchedulerBackend>& Backends() {
  static std::vector<SchedulerBackend> backends = [] {
    std::vector<SchedulerBackend> v;
    v.push_back(Local());
    v.push_back(Batch<SlurmScheduler>("slurm", {}, SlurmNodeSpawn));
    v.push_back(Batch<SlurmScheduler>("squeue", {}, SlurmNodeSpawn));  // without accounting: squeue, scontrol
    v.push_back(Batch<PbsScheduler>("pbs", {"pbspro"}, PbsNodeSpawn));
    v.push_back(Batch<PbsScheduler>("torque", {}, PbsNodeSpawn));  // TORQUE's qstat and states differ from PBS Pro's
    v.push_back(Sge());
    v.push_back(Ssh());
    // Format-level backends (their schedulers are not in Debian): one node
    // per job for launchers that start once per node.
    v.push_back(Batch<LsfScheduler>("lsf", {}, nullptr));
    v.push_back(Batch<OarScheduler>("oar", {}, nullptr));
    v.push_back(Batch<FluxScheduler>("flux", {}, nullptr));
    return v;
  }();
  return backends;
}

const SchedulerBackend* Find(const std::string& name) {
  for (const auto& b : Backends())
    if (b.name == name || std::find(b.aliases.begin(), b.aliases.end(), name) != b.aliases.end()) return &b;
  return nullptr;
}

}  // namespace

bool RegisterSchedulerBackend(SchedulerBackend backend) {
  auto& all = Backends();
  auto it = std::find_if(all.begin(), all.end(), [&](const SchedulerBackend& b) { return b.name == backend.name; });
  if (it != all.end())
    *it = std::move(backend);
  else
    all.push_back(std::move(backend));
  return true;
}

std::vector<std::string> SchedulerNames() {
  std::vector<std::string> names;
  for (const auto& b : Backends()) names.push_back(b.name);
  for (const auto& b : Backends()) names.insert(names.end(), b.aliases.begin(), b.aliases.end());
  return names;
}

Result<const SchedulerBackend*> FindSchedulerBackend(const std::string& name) {
  if (const SchedulerBackend* b = Find(name)) return b;
  return Status::Error("unknown scheduler '" + name + "'" + DidYouMean(name, SchedulerNames()) +
                       " (known: " + Join(SchedulerNames(), ", ") + ")");
}

std::string CanonicalSchedulerName(const std::string& name) {
  const SchedulerBackend* b = Find(name);
  return b ? b->name : name;
}

Result<std::string> SchedulerInstanceKey(const std::string& name, const nlohmann::json& sched_options,
                                         const nlohmann::json& backend_spec, const SchedulerFlags& flags) {
  auto b = FindSchedulerBackend(name);
  if (!b.ok()) return b.status();
  if (!(*b)->instance_key) return (*b)->name + "|" + sched_options.dump();
  auto key = (*b)->instance_key(sched_options, backend_spec, flags);
  if (!key.ok()) return key.status();
  return (*b)->name + "|" + *key;
}

Result<std::unique_ptr<Scheduler>> MakeScheduler(const std::string& name, const nlohmann::json& sched_options,
                                                 const SchedulerFlags& flags, const nlohmann::json& backend_spec) {
  auto b = FindSchedulerBackend(name);
  if (!b.ok()) return b.status();
  return (*b)->make(sched_options, backend_spec, flags);
}

}  // namespace hb
