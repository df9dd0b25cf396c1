// SgeScheduler: the Grid Engine backend (`sge`: Son of Grid Engine, Open
// Grid Scheduler and their Univa/Altair descendants), after ReFrame's
// SgeJobScheduler (reframe/core/schedulers/sge.py).
//
//  - Submission: `qsub -terse <script>`; its stdout is the job id ("4", or
//    "6.1-3:1" for an array, which is job 6). A rejection fails the case
//    with qsub's own message ("Unable to run job: job rejected: ...").
//  - Job scripts carry #$ lines as ReFrame writes them (-N, -o, -e, -wd,
//    -l h_rt=H:M:S, then the options), plus `-S /bin/bash` and, when the
//    partition names a parallel environment (sched_options `pe`), `-pe <pe>
//    <slots>`. ReFrame requests no slots at all.
//  - Polling, per poll for all the jobs in flight:
//    one `qstat -xml -u <user>` for the jobs Grid Engine still holds;
//    one `qstat -j <ids>` when jobs are in an error state (their error
//    reason) or queued without fresh scheduling info (refreshed every 30 s);
//    one `qacct -o <user> -E -b <time> -j` for the jobs that have left
//    qstat (every record that ended since the earliest of them was last
//    seen: qacct takes a single job id, or a pattern of job names). The
//    record appears a moment after the job leaves qstat (at once with
//    accounting_flush_time 0, up to flush_time otherwise); until then the
//    job keeps its last state. A job still without a record after a sixth
//    of lost_after (a record without an end time, or clocks apart) is asked
//    for with `qacct -j <id>`, one command per such job and poll: bounded
//    by the jobs finishing. Every qacct reads the whole accounting file.
//  - States: qw/hqw/Rq... queued (with the scheduling info), t starting,
//    r/Rr/hr running, dr/dt running (being deleted), s/S/T suspended (queued),
//    E (Eqw) failed with qstat's error reason and deleted with qdel. From
//    qacct: failed 0 -> completed(exit_status), failed 37 (h_rt) -> timeout,
//    failed 100 with exit_status 137 (qdel), or a record without usage
//    (qdel -f) -> cancelled, failed 24/25 (migrating, rescheduled: the job
//    runs again) -> not final, any other failed code -> failed with qacct's
//    text.
//  - Cancel: `qdel <ids...>`.
// See BatchScheduler for retries, lost jobs and pending-time handling.
// Used from the executor's thread only.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/batch_scheduler.h"

namespace hb {

struct SgeQueuedJob;

class SgeScheduler : public BatchScheduler {
 public:
  // pe: the parallel environment that slots are requested from ("" = none).
  SgeScheduler(std::unique_ptr<CommandRunner> runner, BatchOptions opts, std::string pe = "");

  std::string name() const override { return "sge"; }
  std::vector<std::string> Directives(const Job& job) const override;
  Status Submit(Job* job) override;
  const std::string& user() const { return user_; }

 protected:
  std::vector<std::string> RequiredCommands() const override;
  std::vector<std::string> SubmitCommand(const Job& job) const override;
  Result<std::string> ParseSubmitOutput(const CommandResult& r) const override;
  Result<Observations> Query(const std::vector<std::string>& ids) override;
  std::vector<std::string> CancelCommand(const std::vector<std::string>& ids) const override;
  std::vector<std::string> BackendKeys() const override { return {"pe"}; }

 private:
  // What this backend remembers of a job in flight.
  struct Known {
    double seen = 0;           // epoch: submitted, then last seen in qstat
    double missing_since = 0;  // monotonic; 0 = in qstat at the last poll
    double info_at = 0;        // monotonic; when the scheduling info was read
    std::string info;          // the scheduling info of a queued job
  };

  void Observe(const SgeQueuedJob& j, Observations* obs, std::vector<std::string>* details,
               std::vector<std::string>* errored);
  Status AddDetails(const std::vector<std::string>& ids, const std::vector<std::string>& errored, Observations* obs);
  void AddAccounting(const std::vector<std::string>& ids, Observations* obs);

  // The parallel environment of the job's partition (its sched_options'
  // `pe`; the instance's when the job carries none).
  std::string PeOf(const Job& job) const;
  std::string pe_;
  std::string user_;
  bool sched_info_off_ = false;  // schedd_job_info is false on this cluster
  std::map<std::string, Known> known_;
};

// sched_options `pe` (a parallel environment name, or absent); other keys
// are BatchOptions'.
Result<std::string> ParseSgeParallelEnv(const nlohmann::json& sched_options);
Result<std::string> ReadSgeParallelEnv(const JsonField& sched_options);  // errors at the value's place

// ---- Pure functions, tested against what Grid Engine 8.1.9 prints.

// A job as `qstat -xml` lists it.
struct SgeQueuedJob {
  std::string id;
  std::string state;  // "qw", "r", "Eqw", ...
  std::string queue;  // "all.q@node1" ("" while pending)
  std::string start;  // JAT_start_time, "2026-11-30T08:49:15"
};

// Maps a qstat state (sge_status(5)) to a JobState; kNone for `z`
// (finished), which only qacct can tell about.
JobState SgeJobState(const std::string& state);
// `qstat -xml` output; an error for malformed or truncated XML.
Result<std::vector<SgeQueuedJob>> ParseQstatXml(const std::string& out);

// What `qstat -j <ids>` says about one job.
struct SgeJobDetails {
  std::string error_reason;     // "error: can't chdir to /x: No such file or directory"
  std::string scheduling_info;  // its lines joined with "; "
};
std::map<std::string, SgeJobDetails> ParseQstatDetails(const std::string& out);

// One record of `qacct -j` output.
struct SgeAccounting {
  std::string id, task, host;
  int failed = 0;
  std::string failed_text;  // "changing into working directory"
  int exit_status = 0;
  double start_time = 0, end_time = 0;  // epoch; 0 for "-/-"
  double wallclock = -1;                // ru_wallclock, seconds; -1 unknown
};
// Records cut short (without the keys after exit_status) are left out.
std::vector<SgeAccounting> ParseQacct(const std::string& out);
// kNone for records that are not final (failed 24/25: the job runs again).
// A record without usage (ru_wallclock 0 s) for a job that ran for seconds
// is the qmaster's for `qdel -f` (the execution host never reported): a
// cancellation, not a success.
JobState SgeAccountingState(const SgeAccounting& a);

// "2026-11-30T08:49:15" (qstat -xml) or "Mon Nov 30 08:49:15 2026" (qacct),
// local time, to epoch seconds; 0 for "-/-" or anything unreadable.
double ParseSgeTime(const std::string& text);
// Epoch seconds to qacct's [[CC]YY]MMDDhhmm[.SS] (local time).
std::string QacctTime(double epoch);

// For a launcher that runs once per node: Open MPI's mpirun --npernode 1,
// Grid Engine's tightly integrated MPI; the first host of $PE_HOSTFILE is
// the rendezvous host.
NodeSpawn SgeNodeSpawn(const Job& job, int nnodes, int cpus_per_node);

}  // namespace hb
