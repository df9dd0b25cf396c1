// LocalScheduler: the `local` backend. It runs each job as `/bin/bash
// <script_path>` on this host, in the job's workdir, in a process group of
// its own (pgid == pid, job.id is that pid), with the job's env plus a job
// mark, HETBENCH_JOB_MARK. Relative script and output paths are taken
// from workdir.
//
// It is event-driven: the executor waits on hb::EventWaiter (SIGCHLD through
// a signalfd) and then calls Poll(), which reaps every exited child with
// waitpid(-1, WNOHANG). hetbench is a child subreaper (set up by the
// constructor), so processes that escaped a job are reparented to it; Poll
// reaps them too and discards their statuses. NextPollDelay() is the time to
// the nearest deadline of its own (a time limit, the end of a kill grace
// period, a pending scan for strays), infinity when there is none.
//
// Ending a job, as ReFrame's local scheduler does (reframe/core/schedulers/
// local.py: SIGTERM to the group, SIGKILL after cancel_grace_period = 2 s):
//  - at the time limit or on Cancel(): SIGTERM to the job's process group,
//    SIGKILL to the group after the grace period; the state becomes
//    kTimeout ("time limit of 2s exceeded") or kCancelled;
//  - exit(n) is kCompleted with exit_code n; death by signal s is kFailed
//    ("killed by signal 9 (SIGKILL)") with exit_code 128+s.
//
// No strays: when a job's leader has been reaped, its group gets SIGKILL,
// and every child of hetbench that is not a live job's leader and carries
// the mark of a job that has ended gets SIGKILL (its own children, orphaned
// in turn, are found on the next Poll after it dies). Marks accumulate: a
// job started from within a job (a nested hetbench) carries both marks,
// "outer,inner". A process that clears its environment escapes this.
// Shutdown() cancels what is left, kills every marked child and reaps.
//
// Owned by the executor and used from its single thread only. Poll reaps
// *every* child of the process: other code must not wait for its own
// children while Poll may run (it would find them gone). Several instances
// may live in one process (the ssh backend runs its copy-and-exec wrapper
// through its own): a child one of them reaps is handed to the instance
// that started it, and a process counts as a stray only when no instance
// has a live job of its mark.
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sched/scheduler.h"

namespace hb {

class LocalScheduler : public Scheduler {
 public:
  struct Options {
    double kill_grace_s = 2.0;  // from SIGTERM to SIGKILL
  };

  LocalScheduler() : LocalScheduler(Options{}) {}
  explicit LocalScheduler(Options opts);
  ~LocalScheduler() override;  // calls Shutdown()
  LocalScheduler(const LocalScheduler&) = delete;
  LocalScheduler& operator=(const LocalScheduler&) = delete;

  std::string name() const override { return "local"; }
  std::vector<std::string> Directives(const Job&) const override { return {}; }
  Status Submit(Job* job) override;
  void Poll(const std::vector<Job*>& jobs) override;
  void Cancel(Job* job) override;
  double NextPollDelay() const override;
  void Shutdown() override;
  // This host, whatever the state (a local job always has it).
  Result<std::vector<std::string>> ListNodes(const std::vector<std::string>&, const std::string&) override {
    return std::vector<std::string>{hostname_};
  }

  // The name of the job-mark environment variable.
  static constexpr const char* kMarkVar = "HETBENCH_JOB_MARK";

 private:
  enum class Stop { kNone, kTimeLimit, kCancel };
  struct Entry {
    long seq = 0;             // this job's mark is "<our pid>.<seq>"
    double time_limit_s = 0;  // as submitted, for the message
    double deadline = 0;      // monotonic; infinity when no limit
    double kill_at = 0;       // monotonic; when SIGKILL is due; infinity when none
    Stop stop = Stop::kNone;
    bool ended = false;  // the leader has been reaped
    JobState state;
    double end_time = 0;
  };

  Entry* Find(const Job& job);
  void Reap();
  void Finish(pid_t pid, Entry* e, int status);
  void BeginStop(pid_t pid, Entry* e, Stop why, double now);
  void EnforceDeadlines(double now);
  int ScanForStrays(bool every_mark);
  bool IsOurEndedMark(const std::string& value, bool every_mark) const;
  int LiveJobs() const;

  Options opts_;
  Status init_;  // BecomeSubreaper's result; Submit reports it
  std::string hostname_;
  std::string mark_prefix_;  // "<our pid>."
  long submitted_ = 0;
  std::set<long> own_seqs_;  // the marks of the jobs this instance ran
  static std::set<LocalScheduler*>& Instances();
  std::map<pid_t, Entry> entries_;  // by leader pid, until delivered terminal
  bool scan_pending_ = false;
  double next_scan_at_ = 0;  // monotonic; scans are rate-limited
};

}  // namespace hb
