// Scheduler: the one seam through which the executor submits, follows and
// cancels jobs. One implementation per backend (local_scheduler.h, slurm.h,
// pbs.h, sge.h; k8s to come). Only src/sched knows how a
// scheduler is spoken to.
//
// A Scheduler is owned by the executor, used from its single thread, and
// never blocks for long: Submit and Poll return quickly, and the executor
// waits for events (a child exiting, a signal, a timer) between polls.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sched/job.h"
#include "util/status.h"

namespace hb {

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string name() const = 0;

  // Lines for the top of the job script (e.g. "#SBATCH --ntasks=4"); the
  // local scheduler returns none.
  virtual std::vector<std::string> Directives(const Job& job) const = 0;

  // Starts the job; fills job->id, submit_time and a first state.
  virtual Status Submit(Job* job) = 0;

  // Brings the state of the given jobs up to date (remote backends: one
  // batched query for all of them). Sets start/end times and exit codes.
  virtual void Poll(const std::vector<Job*>& jobs) = 0;

  // Asks the job to stop; the state becomes kCancelled once Poll sees it end.
  virtual void Cancel(Job* job) = 0;

  // Seconds until Poll should run again if no event arrives first.
  // Backends woken by events (local: SIGCHLD) return the time to their next
  // own deadline (a time limit, a kill grace period), or infinity.
  virtual double NextPollDelay() const { return std::numeric_limits<double>::infinity(); }

  // Called once before hetbench exits: kill or cancel whatever is left and
  // reap every stray process.
  virtual void Shutdown() {}

  // Checks, before anything is submitted, that the backend can work here
  // (e.g. its commands exist). One clear error instead of one per case.
  // Not called for --dry-run, which needs no scheduler.
  virtual Status Check() { return Status::OK(); }
  // --dry-run: writes into `dir` what Submit would send besides the job
  // script, without sending anything (Kubernetes: hb_k8s.yaml, every
  // object it would create). Batch backends have nothing to add.
  virtual Status WriteDryRun(const Job& job, const std::string& dir) { return Status::OK(); }

  // Things the user should hear about once (e.g. "accounting is off, using
  // squeue"); the executor prints and clears them after each Poll.
  virtual std::vector<std::string> TakeNotices() { return {}; }

  // The nodes a job with these options (the partition's access options and
  // -J options: --partition, --constraint, --nodelist...) could run on, that
  // are in `state`: "all", "avail" (up and usable: idle, mixed or
  // allocated, not drained, down, reserved or in maintenance), "idle" (idle
  // and usable) or any scheduler state name ("mixed", "drain"...). For
  // --distribute. Backends that cannot list nodes say so.
  virtual Result<std::vector<std::string>> ListNodes(const std::vector<std::string>& options,
                                                     const std::string& state) {
    return Status::Error("the '" + name() + "' scheduler cannot list nodes");
  }
};

}  // namespace hb
