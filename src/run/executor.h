// The executor: runs every TestCase of a Session through the pipeline
//   setup -> build -> run -> sanity -> performance -> cleanup
// in one visible main loop (Executor::Run), like ninja's Builder::Build:
// start as many jobs as the limits allow, wait for an event (a child
// exiting, a signal, a scheduler's poll timer), poll the schedulers, move
// each finished job's case on, report.
//
// Limits: at most a partition's max_jobs cases in flight on it (async
// policy) or one case at a time (serial), and at most max_local_jobs local
// processes (builds and local runs). SIGINT/SIGTERM cancel every running
// job; what is known so far is returned and `interrupted` is set.
// Case-to-job translation lives in run/case_job.h, the scheduler
// instances in run/scheduler_pool.h. The clock and what the loop waits on
// are seams (ExecSeams): in-process tests drive the loop with a FakeClock
// and fake schedulers (executor_test.cc). Owned and used by one thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "results/case_result.h"
#include "run/case_job.h"
#include "run/console.h"
#include "run/scheduler_pool.h"
#include "run/session.h"
#include "sched/scheduler.h"
#include "sched/scheduler_factory.h"
#include "util/clock.h"
#include "util/signals.h"

namespace hb {

struct ExecOptions {
  bool serial = false;     // --exec-policy serial
  int max_retries = 0;     // --max-retries
  int maxfail = 0;         // --maxfail (0 = no limit)
  int repeat = 1;          // --repeat
  int max_local_jobs = 0;  // 0 = number of CPUs
  bool dry_run = false;    // write scripts, run nothing
  bool keep_stage_files = false;
  bool skip_sanity = false;              // --skip-sanity-check
  bool skip_performance = false;         // --skip-performance-check: no performance stage
  std::vector<std::string> job_options;  // -J
  // What the command line adds to the backends' options (--dry-run is
  // copied in; --kubeconfig, --keep-failed-jobs, the local kill grace).
  SchedulerFlags sched;
};

// The loop's time and events. Null members are the real ones: the
// process's clock, and an EventWaiter (signals, children) made by Run().
// The clock is also the schedulers' (SchedulerFlags::clock).
struct ExecSeams {
  Clock* clock = nullptr;
  EventSource* events = nullptr;
};

class Executor {
 public:
  Executor(const Session& session, const ExecOptions& opts, Console* console, ExecSeams seams = {});
  ~Executor();

  // Makes the scheduler of every partition the cases use and checks that it
  // can work here (its commands exist, its sched_options are valid): one
  // clear error before anything is submitted. Run() calls it if needed.
  Status Prepare();

  // Runs everything; returns one result per case and repetition, in case order.
  std::vector<CaseResult> Run();
  bool interrupted() const { return interrupted_ != 0; }

  // Called once for every case as soon as its final result is known (after
  // retries), e.g. to append its perflog record.
  std::function<void(const CaseResult&)> on_case_end;
  int interrupt_signal() const { return interrupted_; }

  // The stage and output folders of a case, made with SafePath
  // (util/fs.h) from the session id and the case's names, so that no name
  // can lead outside the roots.
  Result<std::string> StageDir(const TestCase& c, int repetition) const;
  Result<std::string> OutputDir(const TestCase& c, int repetition) const;
  std::string StageRoot() const;
  std::string OutputRoot() const;

 private:
  struct Task;

  void MakeTasks();
  std::vector<std::string> FilesChecksRead(const Task& t) const;
  void StartReadyTasks();
  bool CanStart(const Task& t) const;
  bool DepsDone(const Task& t, std::string* failed_dep) const;
  void Start(Task* t);
  Status Setup(Task* t);
  Status SubmitBuild(Task* t);
  Status SubmitRun(Task* t);
  CaseJobInput JobInput(const Task& t) const;
  void OnJobDone(Task* t);
  void CheckRun(Task* t);
  void Finish(Task* t, const std::string& result, const std::string& stage, const std::string& reason);
  // A signal arrived while the case's output was searched: the case is
  // cancelled and the run interrupted as by the main loop.
  void CancelCheck(Task* t, const std::string& stage);
  void CheckOutputSizes();
  std::string CutOversizedOutput(Task* t);
  void Cleanup(Task* t);
  void ReleaseDependencies(const Task& t);
  // Removes a passed case's stage folder; a failure is a note, not an error.
  void RemoveStage(const std::string& dir);
  void PollAll();
  double NextTimeout() const;
  void Interrupt(int signo);
  void CancelPending(const std::string& why);
  // The partition's backend (known: Prepare checked it).
  const SchedulerTraits& TraitsOf(const Partition& part) const;
  void PrintNotices();
  // Writes a job's script, keeping the error.
  Status WriteScript(const JobPlan& plan);
  Status BindRun(Task* t);
  static void FillIdentity(const Task& t, CaseResult* r);

  const Session& session_;
  ExecOptions opts_;
  Console* console_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::vector<Task*> in_flight_;
  Clock* clock_;
  EventSource* events_;  // the seam's, else Run()'s EventWaiter while it runs
  EventSource* given_events_;
  SchedulerPool pool_;
  std::map<std::string, int> partition_load_;  // "sys:part" -> cases in flight
  int local_load_ = 0;
  int failures_ = 0;
  size_t done_ = 0;
  int interrupted_ = 0;
  bool aborted_ = false;  // --maxfail reached
  bool prepared_ = false;
  double interrupted_at_ = 0;  // monotonic
};

}  // namespace hb
