#include "sched/local_scheduler.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <memory>

#include <gtest/gtest.h>

#include "sched/proc_tree.h"
#include "sched/sched_test_util.h"
#include "util/fs.h"
#include "util/signals.h"

namespace hb {
namespace {

using testing::PidFromFile;
using testing::ProcessGone;
using testing::Seconds;
using testing::TempDir;
using Kind = JobState::Kind;

// Real processes, waited for the way the executor does: EventWaiter (SIGCHLD
// through a signalfd) with NextPollDelay() as the timeout, then Poll().
class LocalSchedulerTest : public ::testing::Test {
 protected:
  // Writes `script` and returns a job that runs it in its own folder.
  Job MakeJob(const std::string& name, const std::string& script, double limit_s = 0) {
    std::string work = dir_ / name;
    EXPECT_TRUE(MakeDirs(work).ok());
    EXPECT_TRUE(WriteFile(JoinPath(work, "job.sh"), script + "\n").ok());
    Job job;
    job.name = name;
    job.workdir = work;
    job.script_path = JoinPath(work, "job.sh");
    job.stdout_path = JoinPath(work, "out");
    job.stderr_path = JoinPath(work, "err");
    job.time_limit_s = limit_s;
    return job;
  }

  // One turn of the executor's loop, waiting at most max_wait_s.
  void Step(LocalScheduler& s, const std::vector<Job*>& jobs, double max_wait_s = 0.05) {
    waiter_.Wait(std::min(s.NextPollDelay(), max_wait_s));
    s.Poll(jobs);
  }

  bool WaitTerminal(LocalScheduler& s, std::vector<Job*> jobs, double timeout_s) {
    auto done = [&] { return std::all_of(jobs.begin(), jobs.end(), [](Job* j) { return j->state.terminal(); }); };
    return testing::WaitFor(
        done, [&] { Step(s, jobs, timeout_s); }, timeout_s);
  }

  bool WaitGone(LocalScheduler& s, pid_t pid, double timeout_s) {
    return testing::WaitFor([&] { return ProcessGone(pid); }, [&] { Step(s, {}); }, timeout_s);
  }

  pid_t WaitPidFile(LocalScheduler& s, const std::string& path, double timeout_s = 5) {
    testing::WaitFor([&] { return PidFromFile(path) != 0; }, [&] { Step(s, {}, 0.01); }, timeout_s);
    return PidFromFile(path);
  }

  EventWaiter waiter_;  // first: SIGCHLD is blocked before any child starts
  TempDir dir_;
};

TEST_F(LocalSchedulerTest, RunsTheScriptAndReportsExitCodes) {
  LocalScheduler s;
  Job ok = MakeJob("ok", "echo \"$GREETING from $(pwd)\"; echo \"mark=$HETBENCH_JOB_MARK\"; echo warn >&2");
  ok.env = {{"GREETING", "hello"}};
  Job three = MakeJob("three", "exit 3");
  ASSERT_TRUE(s.Submit(&ok).ok());
  ASSERT_TRUE(s.Submit(&three).ok());
  EXPECT_EQ(ok.state.kind, Kind::kRunning);
  EXPECT_EQ(ok.id, std::to_string(std::stoi(ok.id)));
  ASSERT_EQ(ok.nodelist.size(), 1u);
  EXPECT_FALSE(ok.nodelist[0].empty());
  EXPECT_GT(ok.submit_time, 0);

  ASSERT_TRUE(WaitTerminal(s, {&ok, &three}, 10));
  EXPECT_EQ(ok.state.kind, Kind::kCompleted);
  EXPECT_EQ(ok.state.exit_code, 0);
  EXPECT_EQ(three.state.kind, Kind::kCompleted);
  EXPECT_EQ(three.state.exit_code, 3);
  EXPECT_EQ(three.state.str(), "completed(exit 3)");
  EXPECT_GE(ok.end_time, ok.start_time);
  std::string out = *ReadFile(ok.stdout_path);
  EXPECT_EQ(out.substr(0, out.find('\n')), "hello from " + ok.workdir);
  EXPECT_NE(out.find("mark=" + std::to_string(::getpid()) + "."), std::string::npos) << out;
  EXPECT_EQ(*ReadFile(ok.stderr_path), "warn\n");
}

TEST_F(LocalSchedulerTest, DeathBySignalIsAFailure) {
  LocalScheduler s;
  Job job = MakeJob("killed", "kill -9 $$");
  ASSERT_TRUE(s.Submit(&job).ok());
  ASSERT_TRUE(WaitTerminal(s, {&job}, 10));
  EXPECT_EQ(job.state.kind, Kind::kFailed);
  EXPECT_EQ(job.state.reason, "killed by signal 9 (SIGKILL)");
  EXPECT_EQ(job.state.exit_code, 137);
}

TEST_F(LocalSchedulerTest, TimeLimitEndsTheJobWithSigterm) {
  LocalScheduler s;
  Job job = MakeJob("slow", "sleep 30", 1);
  double start = Seconds();
  ASSERT_TRUE(s.Submit(&job).ok());
  EXPECT_NEAR(s.NextPollDelay(), 1.0, 0.1);
  ASSERT_TRUE(WaitTerminal(s, {&job}, 10));
  double took = Seconds() - start;
  EXPECT_EQ(job.state.kind, Kind::kTimeout);
  EXPECT_EQ(job.state.reason, "time limit of 1s exceeded");
  EXPECT_GE(took, 1.0);
  EXPECT_LT(took, 2.5);  // SIGTERM was enough: no grace period spent
}

TEST_F(LocalSchedulerTest, TimeLimitKillsAJobThatIgnoresSigterm) {
  LocalScheduler s(LocalScheduler::Options{.kill_grace_s = 1});
  Job job = MakeJob("stubborn", "trap '' TERM\nsleep 30\necho survived", 1);
  double start = Seconds();
  ASSERT_TRUE(s.Submit(&job).ok());
  ASSERT_TRUE(WaitTerminal(s, {&job}, 10));
  double took = Seconds() - start;
  EXPECT_EQ(job.state.kind, Kind::kTimeout);
  EXPECT_EQ(job.state.exit_code, 128 + SIGKILL);
  EXPECT_GE(took, 2.0);  // limit + grace
  EXPECT_LT(took, 3.5);
  EXPECT_EQ(*ReadFile(job.stdout_path), "");
}

TEST_F(LocalSchedulerTest, CancelKillsTheWholeGroup) {
  LocalScheduler s;
  Job job = MakeJob("cancel", "sleep 300 &\necho $! > grandchild.pid\nwait");
  ASSERT_TRUE(s.Submit(&job).ok());
  pid_t grandchild = WaitPidFile(s, JoinPath(job.workdir, "grandchild.pid"));
  ASSERT_GT(grandchild, 0);
  EXPECT_EQ(::getpgid(grandchild), std::stoi(job.id));
  s.Cancel(&job);
  EXPECT_LE(s.NextPollDelay(), 2.0);
  ASSERT_TRUE(WaitTerminal(s, {&job}, 10));
  EXPECT_EQ(job.state.kind, Kind::kCancelled);
  EXPECT_TRUE(WaitGone(s, grandchild, 5));
}

TEST_F(LocalSchedulerTest, KillsAnEscapedGrandchildOnceItsJobEnds) {
  LocalScheduler s;
  // The escapee starts its own session, then a child of its own, and the
  // job lingers until both are there so that the escape really happened.
  Job job = MakeJob("escape",
                    "setsid sh -c 'sleep 300 & echo $! > inner.pid; echo $$ > escapee.pid; wait' &\n"
                    "while [ ! -s escapee.pid ] || [ ! -s inner.pid ]; do sleep 0.01; done\n"
                    "sleep 0.3");
  ASSERT_TRUE(s.Submit(&job).ok());
  pid_t escapee = WaitPidFile(s, JoinPath(job.workdir, "escapee.pid"));
  pid_t inner = WaitPidFile(s, JoinPath(job.workdir, "inner.pid"));
  ASSERT_GT(escapee, 0);
  ASSERT_GT(inner, 0);
  EXPECT_EQ(::getsid(escapee), escapee);  // out of the job's session and group
  EXPECT_NE(::getpgid(escapee), std::stoi(job.id));

  ASSERT_TRUE(WaitTerminal(s, {&job}, 10));
  EXPECT_EQ(job.state.kind, Kind::kCompleted);
  EXPECT_TRUE(WaitGone(s, escapee, 5));
  EXPECT_TRUE(WaitGone(s, inner, 5));
}

TEST_F(LocalSchedulerTest, LeavesAnEscapeeAloneWhileItsJobRuns) {
  LocalScheduler s;
  Job job = MakeJob("daemon", "setsid sh -c 'echo $$ > escapee.pid; exec sleep 300' &\nsleep 300");
  Job quick = MakeJob("quick", "exit 0");  // its end triggers a scan for strays
  ASSERT_TRUE(s.Submit(&job).ok());
  pid_t escapee = WaitPidFile(s, JoinPath(job.workdir, "escapee.pid"));
  ASSERT_GT(escapee, 0);
  ASSERT_TRUE(s.Submit(&quick).ok());
  ASSERT_TRUE(WaitTerminal(s, {&quick}, 10));
  for (int i = 0; i < 5; ++i) Step(s, {&job}, 0.05);
  EXPECT_EQ(::kill(escapee, 0), 0);
  s.Cancel(&job);
  ASSERT_TRUE(WaitTerminal(s, {&job}, 10));
  EXPECT_TRUE(WaitGone(s, escapee, 5));
}

TEST_F(LocalSchedulerTest, ShutdownLeavesNoChildrenAndNoZombies) {
  std::vector<pid_t> escapees;
  Job a = MakeJob("a", "sleep 300");
  Job b = MakeJob("b", "trap '' TERM\nsleep 300");
  Job c = MakeJob("c", "setsid sh -c 'echo $$ > escapee.pid; exec sleep 300' &\nsleep 300");
  Job d = MakeJob("d", "exit 0");
  {
    LocalScheduler s(LocalScheduler::Options{.kill_grace_s = 0.5});
    for (Job* j : {&a, &b, &c, &d}) ASSERT_TRUE(s.Submit(j).ok());
    ASSERT_TRUE(WaitTerminal(s, {&d}, 10));
    pid_t escapee = WaitPidFile(s, JoinPath(c.workdir, "escapee.pid"));
    ASSERT_GT(escapee, 0);
    escapees.push_back(escapee);
    double start = Seconds();
    s.Shutdown();
    EXPECT_LT(Seconds() - start, 3.0);
    s.Poll({&a, &b, &c, &d});
    EXPECT_EQ(a.state.kind, Kind::kCancelled);
    EXPECT_EQ(b.state.kind, Kind::kCancelled);
    EXPECT_EQ(c.state.kind, Kind::kCancelled);
    EXPECT_EQ(d.state.kind, Kind::kCompleted);
    EXPECT_TRUE(std::isinf(s.NextPollDelay()));
  }
  EXPECT_TRUE(ListChildren(::getpid()).empty());  // zombies would be listed too
  for (pid_t p : escapees) EXPECT_TRUE(ProcessGone(p));
}

TEST_F(LocalSchedulerTest, NextPollDelayIsInfiniteWithoutDeadlines) {
  LocalScheduler s;
  EXPECT_TRUE(std::isinf(s.NextPollDelay()));
  Job job = MakeJob("nolimit", "sleep 300");
  ASSERT_TRUE(s.Submit(&job).ok());
  s.Poll({&job});
  EXPECT_TRUE(std::isinf(s.NextPollDelay()));
  Job limited = MakeJob("limited", "sleep 300", 100);
  ASSERT_TRUE(s.Submit(&limited).ok());
  EXPECT_NEAR(s.NextPollDelay(), 100, 1);
  s.Cancel(&job);
  s.Cancel(&limited);
  EXPECT_NEAR(s.NextPollDelay(), 2, 0.1);  // the kill grace period
  ASSERT_TRUE(WaitTerminal(s, {&job, &limited}, 10));
  // What is left is at most a (rate-limited) scan for strays, soon; once
  // it has run, nothing is due (on a loaded machine, allow a few rounds).
  EXPECT_TRUE(s.NextPollDelay() <= 0.1 || std::isinf(s.NextPollDelay())) << s.NextPollDelay();
  for (int i = 0; i < 20 && !std::isinf(s.NextPollDelay()); ++i) Step(s, {}, 0.2);
  EXPECT_TRUE(std::isinf(s.NextPollDelay())) << s.NextPollDelay();
}

TEST_F(LocalSchedulerTest, SubmitReportsAMissingWorkdir) {
  LocalScheduler s;
  Job job = MakeJob("nowhere", "exit 0");
  job.workdir = dir_ / "does/not/exist";
  Status st = s.Submit(&job);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("nowhere"), std::string::npos) << st.str();
  EXPECT_NE(st.message().find("does/not/exist"), std::string::npos) << st.str();
}

TEST_F(LocalSchedulerTest, ManyTrivialJobsAreCheap) {
  LocalScheduler s;
  const int kJobs = 500, kMaxInFlight = 8;
  std::vector<std::unique_ptr<Job>> jobs;
  for (int i = 0; i < kJobs; ++i) {
    std::string name = "trivial";  // (not "t" + ...: GCC 12 warns falsely, -Wrestrict)
    name += std::to_string(i);
    jobs.push_back(std::make_unique<Job>(MakeJob(name, "echo $$")));
  }
  double start = Seconds();
  size_t next = 0;
  std::vector<Job*> flight;
  int done = 0;
  while (done < kJobs) {
    while (next < jobs.size() && flight.size() < kMaxInFlight) {
      ASSERT_TRUE(s.Submit(jobs[next].get()).ok());
      flight.push_back(jobs[next++].get());
    }
    waiter_.Wait(std::min(s.NextPollDelay(), 1.0));
    s.Poll(flight);
    for (auto it = flight.begin(); it != flight.end();) {
      if (!(*it)->state.terminal()) {
        ++it;
        continue;
      }
      EXPECT_EQ((*it)->state.kind, Kind::kCompleted);
      ++done;
      it = flight.erase(it);
    }
  }
  double took = Seconds() - start;
  rusage self{};
  ASSERT_EQ(::getrusage(RUSAGE_SELF, &self), 0);
  double cpu = self.ru_utime.tv_sec + self.ru_stime.tv_sec + 1e-6 * (self.ru_utime.tv_usec + self.ru_stime.tv_usec);
  std::printf("%d trivial jobs took %.2f s; this test process used %.2f s of CPU in all\n", kJobs, took, cpu);
  EXPECT_LT(took, 20.0);  // bash alone needs ~1-10 s for 500 runs on a busy 2-core host
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

// Two instances in one process (the ssh backend has its own): whichever
// reaps a child hands its status to the instance that started it, and a
// live job of one is never taken for a stray by the other.
TEST(LocalSchedulerInstances, EachGetsItsOwnJobsStatus) {
  hb::TempDir dir;
  auto make = [&](const std::string& name, const std::string& script) {
    Job job;
    job.name = name;
    job.workdir = dir.path();
    job.script_path = dir / (name + ".sh");
    job.stdout_path = dir / (name + ".out");
    job.stderr_path = dir / (name + ".err");
    EXPECT_TRUE(WriteFile(job.script_path, script + "\n").ok());
    return job;
  };
  LocalScheduler a, b;
  Job fast = make("fast", "exit 3"), slow = make("slow", "sleep 0.5 & wait; exit 4");
  ASSERT_TRUE(b.Submit(&fast).ok());
  ASSERT_TRUE(a.Submit(&slow).ok());
  usleep(200 * 1000);
  a.Poll({&slow});  // reaps b's job too, and must not kill b's or its own
  EXPECT_EQ(slow.state.kind, Kind::kRunning);
  b.Poll({&fast});
  EXPECT_EQ(fast.state.kind, Kind::kCompleted);
  EXPECT_EQ(fast.state.exit_code, 3);
  for (int i = 0; i < 100 && !slow.state.terminal(); ++i) {
    usleep(20 * 1000);
    b.Poll({});  // b reaps a's job
    a.Poll({&slow});
  }
  EXPECT_EQ(slow.state.kind, Kind::kCompleted);
  EXPECT_EQ(slow.state.exit_code, 4);
}

}  // namespace
}  // namespace hb
