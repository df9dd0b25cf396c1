// BatchScheduler: what every batch-scheduler backend (Slurm, PBS, Grid
// Engine) shares, so that each backend only says how to speak to its
// scheduler (which commands, how to read their output):
//
//  - submission with a time limit, resubmitted on transient errors that
//    match `resubmit_on_errors` (as ReFrame's option);
//  - batched polling: one Query() for all jobs in flight, whatever their
//    number; the interval adapts: short right after a submission or a job
//    ending, growing by `poll_backoff` while nothing changes, between
//    `min_poll_interval` and `max_poll_interval`;
//  - faults: a failed query is retried at the next poll (the job states
//    stay as they were, the user hears once); a job that no query can find
//    for `lost_after` seconds is lost, with the reason; queries that keep
//    failing for `max_query_failure_time` seconds lose the jobs too, so a
//    run never hangs;
//  - max_pending_time per job, and cancellation of jobs pending for a
//    reason that means they will never run (`cancel_pending_reasons`).
//
// Used from the executor's thread only. The CommandRunner is the seam that
// tests replace.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/command_runner.h"
#include "sched/scheduler.h"
#include "util/clock.h"
#include "util/json_field.h"
#include "util/regex.h"

namespace hb {

// What one query says about one job.
struct JobObservation {
  JobState state;
  std::vector<std::string> nodes;
  double start_time = 0, end_time = 0;  // epoch seconds, 0 = unknown
};
using Observations = std::map<std::string, JobObservation>;  // by job id

// sched_options of a partition, with ReFrame's names where ReFrame has them.
struct BatchOptions {
  double job_submit_timeout = 60;               // ReFrame: job_submit_timeout
  std::vector<std::string> resubmit_on_errors;  // ReFrame: resubmit_on_errors (regexes)
  int max_resubmits = 3;
  bool ignore_reqnodenotavail = false;  // ReFrame: ignore_reqnodenotavail
  bool use_nodes_option = false;        // ReFrame: use_nodes_option
  int max_sacct_failures = 3;           // ReFrame: then fall back to squeue
  double min_poll_interval = 0.25;
  double max_poll_interval = 10;
  double poll_backoff = 1.5;
  double query_timeout = 30;
  double lost_after = 60;
  double max_query_failure_time = 600;
  std::vector<std::string>
      cancel_pending_reasons;           // empty = the backend's default list; ReFrame: slurm_job_cancel_reasons
  bool sched_access_in_submit = false;  // ReFrame: access on the submission command line
};

// Reads sched_options; an unknown option or a wrong type is an error.
// `backend_keys` are the backend's own keys (Grid Engine's `pe`, ssh's
// `ssh_hosts`), read by the backend and accepted here.
Result<BatchOptions> ParseBatchOptions(const nlohmann::json& sched_options,
                                       const std::vector<std::string>& backend_keys = {});
// The same, with the place of each value in errors when `sched_options`
// has marks (the configuration loader's check).
Result<BatchOptions> ReadBatchOptions(const JsonField& sched_options,
                                      const std::vector<std::string>& backend_keys = {});

// The most job ids one query command names; more are split into several
// commands, so that no argument list grows without bound.
constexpr size_t kMaxIdsPerCommand = 500;
// ids in slices of at most kMaxIdsPerCommand, in order.
std::vector<std::vector<std::string>> IdChunks(const std::vector<std::string>& ids,
                                               size_t per_command = kMaxIdsPerCommand);

// The options that belong to the scheduler endpoint rather than to one
// partition (polling and fault handling), as JSON: partitions whose
// values are equal share one BatchScheduler, and so one query per poll.
// Submission, resubmission, pending-reason and directive options are the
// partition's own, read per job (Job::sched_options).
nlohmann::json BatchPollingOptions(const BatchOptions& o);

class BatchScheduler : public Scheduler {
 public:
  BatchScheduler(std::unique_ptr<CommandRunner> runner, BatchOptions opts);

  Status Submit(Job* job) override;
  void Poll(const std::vector<Job*>& jobs) override;
  void Cancel(Job* job) override;
  double NextPollDelay() const override;
  void Shutdown() override;
  Status Check() override;
  std::vector<std::string> TakeNotices() override;

  CommandRunner& runner() { return *runner_; }
  // The clock the backend reads and waits with (util/clock.h); the real
  // one unless a test gives a FakeClock, before the first Submit.
  void set_clock(Clock* clock) { clock_ = clock; }

 protected:
  // The commands this backend needs (checked before anything is submitted).
  virtual std::vector<std::string> RequiredCommands() const = 0;
  // The submission command for a job whose script is written.
  virtual std::vector<std::string> SubmitCommand(const Job& job) const = 0;
  // The file the submission command reads on stdin ("" = none): LSF's
  // `bsub < script`.
  virtual std::string SubmitStdin(const Job&) const { return ""; }
  // The job id from a successful submission's output.
  virtual Result<std::string> ParseSubmitOutput(const CommandResult& r) const = 0;
  // Asks the scheduler about these jobs, with as few commands as it can
  // (at most one of each kind). Jobs it does not mention are "not found".
  // An error means the query failed (the scheduler did not answer).
  virtual Result<Observations> Query(const std::vector<std::string>& ids) = 0;
  virtual std::vector<std::string> CancelCommand(const std::vector<std::string>& ids) const = 0;
  // The backend's own sched_options keys (ParseBatchOptions' backend_keys).
  virtual std::vector<std::string> BackendKeys() const { return {}; }
  // Pending reasons that mean the job will never start, by default.
  virtual std::vector<std::string> DefaultCancelReasons() const { return {}; }

  void Notice(const std::string& text) const;  // const: options parsed on first use may warn
  // The instance's options: polling, queries and faults.
  const BatchOptions& options() const { return opts_; }
  // The options of one job's partition (Job::sched_options, parsed once
  // per distinct value; the instance's own when null or unreadable).
  const BatchOptions& JobOptions(const Job& job) const;
  // Runs `query` on each slice of at most kMaxIdsPerCommand ids and merges
  // what they say; the first failure is the result.
  static Result<Observations> QueryInChunks(
      const std::vector<std::string>& ids,
      const std::function<Result<Observations>(const std::vector<std::string>&)>& query);
  // `head` followed by the ids: the cancel commands (scancel, qdel, bkill...).
  static std::vector<std::string> WithIds(std::vector<std::string> head, const std::vector<std::string>& ids);
  // The options a job script carries: the partition's access options
  // (unless its sched_access_in_submit is true), then Job::options.
  std::vector<std::string> ScriptOptions(const Job& job) const;
  // The access options for the submission command line: the partition's
  // access with sched_access_in_submit, else none (ReFrame's).
  std::vector<std::string> SubmitAccess(const Job& job) const;
  double Now() const { return clock_->Monotonic(); }  // intervals, deadlines
  double WallNow() const { return clock_->Wall(); }   // recorded job times

 private:
  struct Tracked {
    double submitted = 0;      // monotonic
    double pending_since = 0;  // monotonic; 0 = not pending
    double missing_since = 0;  // monotonic; 0 = seen at the last query
    bool cancel_requested = false;
    std::string pending_reason;
  };

  void Apply(Job* job, Tracked* t, const JobObservation& o, double now);
  void CheckPending(Job* job, Tracked* t, double now);
  void SetTerminal(Job* job, JobState::Kind kind, const std::string& reason);
  void Backoff(bool changed);

  // One partition's options with its resubmit_on_errors compiled.
  struct PartitionOptions {
    BatchOptions opts;
    std::vector<std::shared_ptr<const Regex>> resubmit_res;  // PCRE2, as every pattern a user writes
  };
  const PartitionOptions& PartitionOf(const Job& job) const;
  PartitionOptions Compile(BatchOptions o) const;

  std::unique_ptr<CommandRunner> runner_;
  Clock* clock_ = &Clock::Real();
  BatchOptions opts_;
  PartitionOptions own_;
  mutable std::map<std::string, PartitionOptions> partitions_;  // by Job::sched_options text
  std::map<std::string, Tracked> tracked_;                      // by job id, until terminal
  std::set<std::string> active_;                                // ids not yet terminal
  mutable std::vector<std::string> notices_;
  mutable std::set<std::string> said_;  // notices already given
  double interval_ = 0.25;
  double next_poll_ = 0;      // monotonic
  double failing_since_ = 0;  // monotonic; 0 = last query worked
};

}  // namespace hb
