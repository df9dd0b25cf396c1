// The executor's main loop in process: a fake backend ("hbfake") whose
// jobs live in fake time, a FakeClock, and an EventSource that moves the
// clock instead of sleeping. Nothing is spawned and nothing sleeps, so
// every test is deterministic and instant; the stage folders are real
// (a TempDir), as the checks read the jobs' output files from them.
#include "run/executor.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <deque>
#include <map>
#include <set>

#include "run/run_test_util.h"
#include "sched/scheduler_factory.h"
#include "util/fs.h"

namespace hb {
namespace {

// How one job of a test goes, in fake seconds.
struct Fate {
  double queue_s = 0;  // queued before it runs
  double run_s = 1;    // then runs this long
  int exit_code = 0;
  std::string out = "ok\n";    // its stdout, written when it ends
  bool ignore_cancel = false;  // a scheduler that never confirms a cancellation
};

// What the fake backend's jobs do and what the executor asked of it.
struct World {
  std::map<std::string, std::deque<Fate>> fates;  // by job name; the last one repeats
  double poll_interval = 2;
  struct Submission {
    std::string name;
    double at;
    double time_limit_s;
    std::vector<std::string> options;
  };
  std::vector<Submission> submitted;
  std::vector<double> polls;  // monotonic times of the Poll calls
  std::vector<std::string> cancelled;
  int running = 0, most_running = 0;  // jobs submitted and not yet ended
  std::set<std::string> finished;     // job names, in the order they ended
  std::vector<std::string> end_order;
};
World* g_world = nullptr;

class FakeScheduler : public Scheduler {
 public:
  explicit FakeScheduler(Clock* clock) : clock_(clock) {}
  std::string name() const override { return "hbfake"; }
  std::vector<std::string> Directives(const Job& job) const override { return {"#FAKE " + job.name}; }

  Status Submit(Job* job) override {
    std::deque<Fate>& q = g_world->fates[job->name];
    Fate f = q.empty() ? Fate() : q.front();
    if (q.size() > 1) q.pop_front();
    job->id = std::to_string(++next_id_);
    job->submit_time = clock_->Wall();
    job->state.kind = JobState::Kind::kQueued;
    jobs_[job->id] = {f, clock_->Monotonic(), false};
    g_world->submitted.push_back({job->name, clock_->Monotonic(), job->time_limit_s, job->options});
    g_world->most_running = std::max(g_world->most_running, ++g_world->running);
    return Status::OK();
  }

  void Poll(const std::vector<Job*>& jobs) override {
    double now = clock_->Monotonic();
    g_world->polls.push_back(now);
    for (Job* job : jobs) {
      Entry& e = jobs_.at(job->id);
      if (job->state.terminal()) continue;
      double start = e.submitted + e.fate.queue_s, end = start + e.fate.run_s;
      bool over = job->time_limit_s > 0 && e.fate.run_s > job->time_limit_s;
      if (over) end = start + job->time_limit_s;
      if (e.cancel && !e.fate.ignore_cancel) {
        End(job, JobState::Kind::kCancelled, -1);
      } else if (now >= end) {
        (void)WriteFile(job->stdout_path, e.fate.out);
        (void)WriteFile(job->stderr_path, "");
        End(job, over ? JobState::Kind::kTimeout : JobState::Kind::kCompleted, over ? -1 : e.fate.exit_code);
      } else if (now >= start) {
        job->state.kind = JobState::Kind::kRunning;
      }
    }
  }

  void Cancel(Job* job) override {
    jobs_.at(job->id).cancel = true;
    g_world->cancelled.push_back(job->name);
  }
  double NextPollDelay() const override { return g_world->poll_interval; }

 private:
  struct Entry {
    Fate fate;
    double submitted;
    bool cancel;
  };
  void End(Job* job, JobState::Kind kind, int exit_code) {
    job->state.kind = kind;
    job->state.exit_code = exit_code;
    job->end_time = clock_->Wall();
    --g_world->running;
    g_world->end_order.push_back(job->name);
  }
  Clock* clock_;
  int next_id_ = 0;
  std::map<std::string, Entry> jobs_;
};

const bool kRegistered = [] {
  SchedulerBackend b;
  b.name = "hbfake";
  b.instance_key = [](const nlohmann::json&, const nlohmann::json&, const SchedulerFlags&) -> Result<std::string> {
    return std::string();
  };
  b.make = [](const nlohmann::json&, const nlohmann::json&,
              const SchedulerFlags& f) -> Result<std::unique_ptr<Scheduler>> {
    return std::unique_ptr<Scheduler>(std::make_unique<FakeScheduler>(f.clock));
  };
  return RegisterSchedulerBackend(std::move(b));
}();

// Waits by moving the clock; delivers a signal at a chosen time. A wait
// without end (nothing would ever wake the loop) or a loop that keeps
// asking to wait 0 s counts as a hang and interrupts the run.
class FakeEvents : public EventSource {
 public:
  explicit FakeEvents(FakeClock* clock) : clock_(clock) {}
  Events Wait(double timeout_s) override {
    waits.push_back(timeout_s);
    Events ev;
    double now = clock_->Monotonic();
    if (interrupt_at >= 0 && now + timeout_s >= interrupt_at) {
      clock_->Advance(std::max(0.0, interrupt_at - now));
      interrupt_at = -1;
      ev.interrupt = SIGINT;
      return ev;
    }
    if (!std::isfinite(timeout_s) || timeout_s < 0 || waits.size() > 100000) {
      // Interrupt once, then let a second of fake time pass at each call,
      // so that a loop that would spin or block ends and the test fails.
      if (!hung) ev.interrupt = SIGTERM;
      hung = true;
      clock_->Advance(1);
      return ev;
    }
    clock_->Advance(timeout_s);
    ev.timed_out = true;
    return ev;
  }
  bool Interrupting() const override { return false; }

  std::vector<double> waits;
  double interrupt_at = -1;  // monotonic; -1: never
  bool hung = false;

 private:
  FakeClock* clock_;
};

constexpr char kSite[] = R"(
systems:
  - name: fakesite
    hostnames: ['.*']
    partitions:
      - name: p
        scheduler: hbfake
        launcher: local
        access: ['--account=a1']
        environs: [builtin]
        max_jobs: 2
        time_limit: 5m
        processor: {num_cpus: 4}
environments:
  - name: builtin
)";

// One run of the executor: set `world.fates` and `events`, then Go().
struct LoopRun {
  TempDir dir;
  World world;
  FakeClock clock;
  FakeEvents events{&clock};
  std::unique_ptr<Session> session;
  std::vector<CaseResult> results;
  std::string console;
  bool interrupted = false;

  void Go(const std::string& tests, const ExecOptions& opts = {}) {
    g_world = &world;
    session = OpenTestSession(dir, kSite, tests);
    if (!session) return;
    char* buf = nullptr;
    size_t len = 0;
    FILE* out = open_memstream(&buf, &len);
    {
      Console con(out, false);
      Executor ex(*session, opts, &con, ExecSeams{&clock, &events});
      results = ex.Run();
      interrupted = ex.interrupted();
    }
    fclose(out);
    console.assign(buf, len);
    free(buf);
    EXPECT_FALSE(events.hung) << "the loop waited without end, or without moving on";
    g_world = nullptr;
  }
  const CaseResult& Result(const std::string& display_name, int rep = 0) const {
    for (const auto& r : results)
      if (r.display_name == display_name && r.repetition == rep) return r;
    static CaseResult none;
    ADD_FAILURE() << "no result for " << display_name;
    return none;
  }
  double elapsed() const { return clock.Monotonic() - FakeClock().Monotonic(); }
  std::vector<std::string> Submitted() const {
    std::vector<std::string> names;
    for (const auto& s : world.submitted) names.push_back(s.name);
    return names;
  }
};

// `n` tests t0, t1... that pass when their output says "ok".
std::string Tests(int n, const std::string& extra = "") {
  std::string text;
  for (int i = 0; i < n; ++i)
    text += (i ? "---\n" : "") + std::string("name: t") + std::to_string(i) +
            "\nexecutable: 'true'\nsanity:\n  - {pattern: ok}\n" + extra;
  return text;
}

TEST(ExecutorLoop, PartitionMaxJobsBoundsWhatIsInFlight) {
  LoopRun run;
  run.Go(Tests(5));
  ASSERT_EQ(run.results.size(), 5u);
  for (const auto& r : run.results) EXPECT_EQ(r.result, "pass") << r.display_name << ": " << r.fail_reason;
  EXPECT_EQ(run.world.submitted.size(), 5u);
  EXPECT_EQ(run.world.most_running, 2);  // max_jobs: 2
  // Each job runs 1 s and the loop looks every 0.5 s (the output-size
  // check), so the three waves of at most two end at 1, 2 and 3 s.
  EXPECT_DOUBLE_EQ(run.elapsed(), 3);
  EXPECT_EQ(run.world.submitted[2].at - run.world.submitted[0].at, 1);
}

TEST(ExecutorLoop, SerialRunsOneCaseAtATime) {
  ExecOptions opts;
  opts.serial = true;
  LoopRun run;
  run.Go(Tests(3), opts);
  EXPECT_EQ(run.world.most_running, 1);
  EXPECT_EQ(run.world.end_order, (std::vector<std::string>{"hb_t0", "hb_t1", "hb_t2"}));
}

TEST(ExecutorLoop, WakesAtTheEarlierOfTheSchedulersDelayAndTheOutputCheck) {
  LoopRun slow;
  slow.world.fates["hb_t0"] = {Fate{0, 10}};
  slow.Go(Tests(1));
  EXPECT_EQ(slow.Result("t0").result, "pass");
  ASSERT_FALSE(slow.events.waits.empty());
  for (double w : slow.events.waits) EXPECT_DOUBLE_EQ(w, 0.5);  // the output-size check; the scheduler asks 2 s
  EXPECT_EQ(slow.events.waits.size(), 20u);                     // 10 s in steps of 0.5 s, no more
  EXPECT_EQ(slow.world.polls.size(), 20u);                      // one Poll per wake-up

  LoopRun eager;
  eager.world.poll_interval = 0.125;
  eager.world.fates["hb_t0"] = {Fate{0, 1}};
  eager.Go(Tests(1));
  for (double w : eager.events.waits) EXPECT_DOUBLE_EQ(w, 0.125);
  EXPECT_EQ(eager.events.waits.size(), 8u);
}

TEST(ExecutorLoop, RetriesAFailedCaseUpToMaxRetries) {
  ExecOptions opts;
  opts.max_retries = 2;
  LoopRun run;
  run.world.fates["hb_t0"] = {Fate{0, 1, 0, "wrong\n"}, Fate{0, 1, 0, "wrong again\n"}, Fate{}};
  run.world.fates["hb_t1"] = {Fate{0, 1, 0, "never\n"}};
  run.Go(Tests(2), opts);
  const CaseResult& flaky = run.Result("t0");
  EXPECT_EQ(flaky.result, "pass");
  EXPECT_EQ(flaky.attempt, 2);
  const CaseResult& bad = run.Result("t1");
  EXPECT_EQ(bad.result, "fail");
  EXPECT_EQ(bad.fail_stage, "sanity");
  EXPECT_EQ(bad.attempt, 2);
  EXPECT_EQ(run.world.submitted.size(), 6u);  // three tries each
  EXPECT_NE(run.console.find("retry"), std::string::npos) << run.console;
}

TEST(ExecutorLoop, ATestsOwnMaxRetriesWins) {
  ExecOptions opts;
  opts.max_retries = 3;
  LoopRun run;
  run.world.fates["hb_t0"] = {Fate{0, 1, 0, "wrong\n"}};
  run.Go(Tests(1, "max_retries: 0\n"), opts);
  EXPECT_EQ(run.Result("t0").result, "fail");
  EXPECT_EQ(run.world.submitted.size(), 1u);
}

TEST(ExecutorLoop, RepeatRunsEveryCaseAgainInItsOwnFolders) {
  ExecOptions opts;
  opts.repeat = 3;
  LoopRun run;
  run.Go(Tests(2), opts);
  ASSERT_EQ(run.results.size(), 6u);
  // Repetition-major: every case once, then every case again.
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(run.results[i].repetition, static_cast<int>(i / 2));
    EXPECT_EQ(run.results[i].result, "pass");
  }
  std::set<std::string> stages;
  for (const auto& r : run.results) stages.insert(r.stagedir);
  EXPECT_EQ(stages.size(), 6u);
  EXPECT_NE(run.results[5].outputdir.find("/rep2"), std::string::npos) << run.results[5].outputdir;
}

constexpr char kChain[] = R"(name: first
executable: 'true'
sanity:
  - {pattern: ok}
---
name: second
depends_on: [first]
executable: 'true'
sanity: [{exit_code: 0}]
---
name: third
depends_on: [second]
executable: 'true'
sanity: [{exit_code: 0}]
)";

TEST(ExecutorLoop, ADependentStartsOnlyAfterItsDependencyPassed) {
  LoopRun run;
  run.Go(kChain);
  EXPECT_EQ(run.Submitted(), (std::vector<std::string>{"hb_first", "hb_second", "hb_third"}));
  // Each is submitted once the one before has been seen ending.
  EXPECT_LT(run.world.submitted[0].at, run.world.submitted[1].at);
  EXPECT_LT(run.world.submitted[1].at, run.world.submitted[2].at);
  EXPECT_EQ(run.Result("third").result, "pass");
}

TEST(ExecutorLoop, ADependentOfAFailureIsSkippedAndNeverSubmitted) {
  LoopRun run;
  run.world.fates["hb_first"] = {Fate{0, 1, 0, "no\n"}};
  run.Go(kChain);
  EXPECT_EQ(run.Submitted(), (std::vector<std::string>{"hb_first"}));
  EXPECT_EQ(run.Result("first").result, "fail");
  EXPECT_EQ(run.Result("second").result, "skip");
  EXPECT_EQ(run.Result("second").fail_reason, "dependency 'first' did not pass");
  EXPECT_EQ(run.Result("third").fail_reason, "dependency 'second' did not pass");
}

TEST(ExecutorLoop, AnInterruptCancelsRunningJobsAndWhatHasNotStarted) {
  LoopRun run;
  for (const char* n : {"hb_t0", "hb_t1", "hb_t2"}) run.world.fates[n] = {Fate{0, 100}};
  run.events.interrupt_at = FakeClock().Monotonic() + 5;
  run.Go(Tests(3));
  EXPECT_TRUE(run.interrupted);
  EXPECT_EQ(run.world.cancelled, (std::vector<std::string>{"hb_t0", "hb_t1"}));
  EXPECT_EQ(run.Result("t0").result, "cancelled");
  EXPECT_EQ(run.Result("t0").fail_reason, "cancelled (interrupted)");
  EXPECT_EQ(run.Result("t2").result, "cancelled");
  EXPECT_EQ(run.Result("t2").fail_reason, "interrupted before it started");
  EXPECT_LT(run.elapsed(), 6);  // the cancellations were confirmed at the next poll
}

TEST(ExecutorLoop, AnUnconfirmedCancellationIsGivenUpAfterTheGrace) {
  LoopRun run;
  run.world.fates["hb_t0"] = {Fate{0, 1000, 0, "ok\n", /*ignore_cancel=*/true}};
  run.events.interrupt_at = FakeClock().Monotonic() + 1;
  run.Go(Tests(1));
  EXPECT_EQ(run.Result("t0").result, "cancelled");
  EXPECT_EQ(run.Result("t0").fail_reason, "cancelled (interrupted; the scheduler did not confirm in time)");
  // 1 s before the interrupt, then 30 s of grace (in fake time).
  EXPECT_DOUBLE_EQ(run.elapsed(), 31);
}

TEST(ExecutorLoop, TimeLimitsReachTheJobAndATimeoutFailsTheCase) {
  LoopRun run;
  run.world.fates["hb_limited"] = {Fate{0, 60}};
  run.Go(
      "name: limited\nexecutable: 'true'\ntime_limit: 10s\nsanity: [{exit_code: 0}]\n---\n"
      "name: default\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n");
  ASSERT_EQ(run.world.submitted.size(), 2u);
  for (const auto& s : run.world.submitted)
    EXPECT_EQ(s.time_limit_s, s.name == "hb_limited" ? 10 : 300) << s.name;  // the test's, else the partition's 5m
  const CaseResult& r = run.Result("limited");
  EXPECT_EQ(r.result, "fail");
  EXPECT_EQ(r.fail_stage, "run");
  EXPECT_EQ(r.fail_reason, "time limit exceeded");
  EXPECT_EQ(r.job_state, "timeout");
}

TEST(ExecutorLoop, MaxfailStopsStartingCases) {
  ExecOptions opts;
  opts.serial = true;
  opts.maxfail = 1;
  LoopRun run;
  run.world.fates["hb_t0"] = {Fate{0, 1, 3}};
  run.Go(Tests(3), opts);
  EXPECT_EQ(run.Result("t0").result, "fail");
  EXPECT_EQ(run.Result("t0").fail_reason.rfind("exit code 3", 0), 0u) << run.Result("t0").fail_reason;
  EXPECT_EQ(run.Result("t1").fail_reason, "not run: --maxfail reached");
  EXPECT_EQ(run.world.submitted.size(), 1u);
}

TEST(ExecutorLoop, JobOptionsInReFrameOrder) {
  ExecOptions opts;
  opts.job_options = {"--qos=cli"};
  LoopRun run;
  run.Go("name: t\nexecutable: 'true'\njob_options: ['--mem=1G']\nsanity: [{exit_code: 0}]\n", opts);
  ASSERT_EQ(run.world.submitted.size(), 1u);
  EXPECT_EQ(run.world.submitted[0].options, (std::vector<std::string>{"--mem=1G", "--qos=cli"}));
  auto script = ReadFile(JoinPath(run.Result("t").outputdir, "hb_job.sh"));
  ASSERT_TRUE(script.ok()) << script.status().str();
  EXPECT_NE(script->find("#FAKE hb_t"), std::string::npos) << *script;  // the scheduler's directives head it
}

TEST(ExecutorLoop, SameInputSameRun) {
  auto once = [] {
    LoopRun run;
    run.world.fates["hb_t1"] = {Fate{2, 3, 0, "wrong\n"}, Fate{0, 1}};
    ExecOptions opts;
    opts.max_retries = 1;
    run.Go(Tests(4), opts);
    std::vector<std::string> trace;
    for (const auto& s : run.world.submitted) trace.push_back(s.name + "@" + std::to_string(s.at));
    for (const auto& r : run.results)
      trace.push_back(r.display_name + "=" + r.result + "/" + std::to_string(r.end_time));
    return trace;
  };
  EXPECT_EQ(once(), once());
}

}  // namespace
}  // namespace hb
