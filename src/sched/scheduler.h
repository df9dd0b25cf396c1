// Scheduler: the one seam through which the executor submits, follows and
// cancels jobs. One implementation per backend (local_scheduler.h, slurm.h,
// pbs.h, sge.h, and k8s/k8s_scheduler.h). Only src/sched and src/k8s know
// how a scheduler is spoken to; the layers above ask a backend's
// SchedulerTraits what they need to know, never its name.
//
// A Scheduler is owned by the executor, used from its single thread, and
// never blocks for long: Submit and Poll return quickly, and the executor
// waits for events (a child exiting, a signal, a timer) between polls.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sched/job.h"
#include "util/status.h"

namespace hb {

// How a launcher that runs once per node (torchrun) starts on every node of
// a job and finds its rendezvous, as shell text for the job script.
struct NodeSpawn {
  // Words that start one process per node ("srun --nodes=2 --ntasks=2
  // --ntasks-per-node=1 ..."); empty when every node runs the job script
  // itself (the pods of a Kubernetes Indexed Job).
  std::vector<std::string> spawner;
  std::string head;       // rank 0's host: "\"$(head -n1 \"$PBS_NODEFILE\")\""
  std::string job_id;     // an id every node shares: "\"$SLURM_JOB_ID\""
  std::string node_rank;  // this node's rank where each node runs the script ("" otherwise)
};

// What the layers above src/sched and src/k8s need to know of a backend.
// Registered with the backend (scheduler_factory.h); pure data.
struct SchedulerTraits {
  // Jobs are child processes of hetbench on this host (the local
  // scheduler): they count against --max-local-jobs, and one instance
  // serves every partition (it reaps this process's children).
  bool on_this_host = false;
  // Jobs run where hetbench's files are not (Kubernetes): the build runs
  // inside the job, a container_platform is the job's own image rather
  // than a wrapper, and `hetbench detect` cannot run there.
  bool remote_files = false;
  // The job's container runs the command itself, so the `k8s` launcher
  // (ReFrame's Kubernetes fork's) is valid.
  bool runs_in_container = false;
  // For a launcher that starts once per node: how, for a job of `nnodes`
  // nodes using `cpus_per_node` CPUs per node. Null: the backend runs a job
  // on one node (local).
  std::function<NodeSpawn(const Job& job, int nnodes, int cpus_per_node)> node_spawn;
};

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
