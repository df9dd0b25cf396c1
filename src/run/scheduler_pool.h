// SchedulerPool: the scheduler instances of one run, one per instance key
// (sched/scheduler_factory.h), so that partitions on one endpoint (a Slurm
// cluster with the same options; a Kubernetes API server and context)
// share one instance and one batched query per poll, while partitions
// configured differently get their own. The local scheduler is one for
// all: it reaps this process's children, and two would take each other's.
//
// The executor and remote detection (run/remote_detect.h) both get their
// schedulers here. Owned and used by one thread.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/site_config.h"
#include "sched/scheduler.h"
#include "sched/scheduler_factory.h"
#include "util/status.h"

namespace hb {

class SchedulerPool {
 public:
  explicit SchedulerPool(SchedulerFlags flags) : flags_(std::move(flags)) {}

  // The instance that serves a job of `part` with the test's backend block
  // (Job::backend_spec), made on first use. The first partition an
  // instance serves is what Check's errors name.
  Result<Scheduler*> For(const Partition& part, const nlohmann::json& backend_spec);

  // Runs an instance's Check() the first time it is asked and gives the
  // same answer after that.
  Status Check(Scheduler* sched);
  // Check() of every instance made so far; the first error names the
  // first partition its instance serves ("partition 'SYS:PART': ...").
  Status CheckAll(const std::string& system_name);

  // The earliest NextPollDelay() of all instances (infinity if none).
  double NextPollDelay() const;
  // Polls every instance once for its jobs among `jobs` (one batched
  // query per instance), each job with its instance.
  void Poll(const std::vector<std::pair<Scheduler*, Job*>>& jobs);
  // Every instance's notices, prefixed with its name ("slurm: ...").
  std::vector<std::string> TakeNotices();
  void Shutdown();

  const SchedulerFlags& flags() const { return flags_; }
  SchedulerFlags* mutable_flags() { return &flags_; }

 private:
  SchedulerFlags flags_;
  std::map<std::string, std::unique_ptr<Scheduler>> made_;  // by instance key
  std::map<std::string, std::string> first_partition_;      // instance key -> partition name
  std::map<const Scheduler*, Status> checked_;
};

}  // namespace hb
