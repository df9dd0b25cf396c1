// The scheduler registry: every backend hetbench knows, by its canonical
// name and its aliases, with its SchedulerTraits and how to make it.
//
// Built in (registered here): `local`, `slurm`, `squeue` (Slurm without
// accounting), `pbs` (alias `pbspro`), `torque`, `sge`, `ssh`, `lsf`,
// `oar` and `flux` -- ReFrame's names. Backends that live above src/sched register themselves from their
// own folder at start-up: src/k8s registers `k8s` (alias `kubernetes`).
// Nothing above src/sched and src/k8s names a backend: the configuration
// loader normalises aliases (CanonicalSchedulerName), the executor asks for
// instances by InstanceKey and the launchers read the traits.
//
// Registration happens during static initialisation, before main; after
// that the registry is read only and thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/scheduler.h"
#include "util/clock.h"
#include "util/json_field.h"
#include "util/status.h"

namespace hb {

// What the command line adds to every backend's options.
struct SchedulerFlags {
  double kill_grace_s = 2;        // local: SIGTERM -> SIGKILL grace
  bool dry_run = false;           // --dry-run: nothing is ever sent
  bool keep_failed_jobs = false;  // --keep-failed-jobs (Kubernetes)
  std::string kubeconfig;         // --kubeconfig (Kubernetes)
  // The clock the batch and Kubernetes backends read and wait with (the
  // executor's; a FakeClock in its in-process tests). The local backend
  // follows real processes and always uses the real clock.
  Clock* clock = &Clock::Real();
};

// One backend.
struct SchedulerBackend {
  std::string name;                  // canonical ("pbs")
  std::vector<std::string> aliases;  // accepted too, normalised to `name` ("pbspro")
  SchedulerTraits traits;
  // Which instance serves a job of a partition with these sched_options
  // and a test with this backend block (Job::backend_spec): jobs with equal
  // keys share one instance, and so one batched query per poll (a Slurm
  // cluster; a Kubernetes API server and credentials). Checks the options
  // it reads. Null: one instance per distinct sched_options.
  std::function<Result<std::string>(const nlohmann::json& sched_options, const nlohmann::json& backend_spec,
                                    const SchedulerFlags& flags)>
      instance_key;
  // Checks a test's backend block against a partition's sched_options when
  // the tests load (`list` too), offline: only what can be checked without
  // the cluster (a Kubernetes context the test names must exist in the
  // kubeconfig, when there is one). Null: nothing to check.
  std::function<Status(const nlohmann::json& sched_options, const nlohmann::json& backend_spec,
                       const SchedulerFlags& flags)>
      check_test_block;
  // Checks a partition's sched_options when the configuration loads
  // (`list` too), offline, with each value's file:line:column. Null:
  // nothing to check.
  std::function<Status(const JsonField& sched_options)> check_options;
  // Makes an instance for the first job with a given key.
  std::function<Result<std::unique_ptr<Scheduler>>(const nlohmann::json& sched_options,
                                                   const nlohmann::json& backend_spec, const SchedulerFlags& flags)>
      make;
};

// Adds a backend; a later registration of the same name replaces it.
// Returns true (for `static const bool kRegistered = RegisterSchedulerBackend(...)`).
bool RegisterSchedulerBackend(SchedulerBackend backend);

// The backend a name or alias stands for; an unknown name is an error that
// lists the known ones, with a did-you-mean.
Result<const SchedulerBackend*> FindSchedulerBackend(const std::string& name);

// The canonical name of a name or alias ("kubernetes" -> "k8s"); an
// unknown name is returned as written (FindSchedulerBackend reports it).
std::string CanonicalSchedulerName(const std::string& name);

// Every name and alias hetbench knows, canonical names first.
std::vector<std::string> SchedulerNames();

// The key of FindSchedulerBackend(name)->instance_key, prefixed with the
// canonical name, so that keys of different backends never collide.
Result<std::string> SchedulerInstanceKey(const std::string& name, const nlohmann::json& sched_options,
                                         const nlohmann::json& backend_spec, const SchedulerFlags& flags);

// Makes a backend's scheduler. sched_options are the partition's (see
// BatchOptions for batch backends).
Result<std::unique_ptr<Scheduler>> MakeScheduler(const std::string& name,
                                                 const nlohmann::json& sched_options = nlohmann::json::object(),
                                                 const SchedulerFlags& flags = {},
                                                 const nlohmann::json& backend_spec = nlohmann::json::object());

}  // namespace hb
