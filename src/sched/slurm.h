// SlurmScheduler: the Slurm backends, under ReFrame's names.
//  - `squeue`: states from one `squeue` per poll for the jobs in the queue,
//    plus one `scontrol -o show job` for jobs that have left it (Slurm keeps
//    finished jobs for MinJobAge); needs no accounting.
//  - `slurm`: states from one `sacct` per poll. If accounting is off (sacct
//    says so), hetbench falls back to the squeue way and says so once; it
//    also falls back after max_sacct_failures consecutive sacct failures.
// Job scripts carry #SBATCH lines for the job's resources, the partition's
// access options, its resources templates and -J options.
// See BatchScheduler for polling, faults and pending-time handling.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/batch_scheduler.h"

namespace hb {

class SlurmScheduler : public BatchScheduler {
 public:
  // name: "slurm" or "squeue".
  SlurmScheduler(std::string name, std::unique_ptr<CommandRunner> runner, BatchOptions opts);

  std::string name() const override { return name_; }
  std::vector<std::string> Directives(const Job& job) const override;
  bool using_sacct() const { return use_sacct_; }
  // One `scontrol -a show -o node` (plus `scontrol -a show -o reservation`
  // when the options name a reservation), filtered as SelectSlurmNodes says.
  Result<std::vector<std::string>> ListNodes(const std::vector<std::string>& options,
                                             const std::string& state) override;

 protected:
  std::vector<std::string> RequiredCommands() const override;
  std::vector<std::string> SubmitCommand(const Job& job) const override;
  Result<std::string> ParseSubmitOutput(const CommandResult& r) const override;
  Result<Observations> Query(const std::vector<std::string>& ids) override;
  std::vector<std::string> CancelCommand(const std::vector<std::string>& ids) const override;
  std::vector<std::string> DefaultCancelReasons() const override;

 private:
  Result<Observations> QuerySacct(const std::vector<std::string>& ids, bool* fall_back);
  Result<Observations> QuerySqueue(const std::vector<std::string>& ids);
  Observations ScontrolJobs(const std::vector<std::string>& ids);

  std::string name_;
  bool use_sacct_;
  int sacct_failures_ = 0;
};

// ---- Pure functions, tested against real Slurm output.

// Maps a Slurm job state (squeue %T, scontrol JobState, sacct State such as
// "CANCELLED by 0") with its reason and "exit:signal" code to a JobState.
JobState SlurmJobState(const std::string& state, const std::string& reason, const std::string& exit_code);
// `squeue -h -o '%i|%T|%r|%N'` lines.
Observations ParseSqueue(const std::string& out);
// `scontrol -o show job` (one line per job of Key=Value words).
Observations ParseScontrolJobs(const std::string& out);
// `sacct -P -n -X -o jobid,state,exitcode,reason,nodelist,start,end`.
Observations ParseSacct(const std::string& out);
// "nid[001-003,007],login1" -> nid001 nid002 nid003 nid007 login1.
std::vector<std::string> ExpandSlurmNodelist(const std::string& list);
// One node of `scontrol -a show -o node`.
struct SlurmNode {
  std::string name;
  std::vector<std::string> states;  // "IDLE+DRAIN" -> IDLE, DRAIN ('*' of a non-responding node -> NOT_RESPONDING)
  std::vector<std::string> partitions;
  std::vector<std::string> features;  // ActiveFeatures
};
std::vector<SlurmNode> ParseSlurmNodes(const std::string& out);
// The nodes a job with these sbatch options could use (-p/--partition,
// -C/--constraint with '&' or ',' between features, -w/--nodelist,
// -x/--exclude; a reservation's nodes given separately), in `state` (see
// Scheduler::ListNodes). Without a partition option, every node counts.
std::vector<std::string> SelectSlurmNodes(const std::vector<SlurmNode>& nodes, const std::vector<std::string>& options,
                                          const std::string& state,
                                          const std::vector<std::string>& reservation_nodes = {});
// "2026-11-30T08:40:01" (local time) -> epoch seconds; 0 for Unknown/None.
double ParseSlurmTime(const std::string& text);

// For a launcher that runs once per node (SchedulerTraits::node_spawn):
// srun with one task per node; the step gets the CPUs of the node's tasks
// (srun of Slurm >= 22.05 does not inherit --cpus-per-task, and a step of
// one task would otherwise be confined to one CPU).
NodeSpawn SlurmNodeSpawn(const Job& job, int nnodes, int cpus_per_node);

}  // namespace hb
