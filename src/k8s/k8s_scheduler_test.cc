#include "k8s/k8s_scheduler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>

#include "k8s/kube_api_fake.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

using json = nlohmann::json;
using Kind = JobState::Kind;

std::string Base64(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    for (int s : {18, 12, 6, 0}) out += kAlphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// A tar.gz of these files, made by the system's tar as the payload makes it.
std::string TarGz(const std::map<std::string, std::string>& files) {
  TempDir src, dst;
  std::string names;
  for (const auto& [name, content] : files) {
    src.Write(name, content);
    names += " " + name;
  }
  std::string out = dst / "a.tgz";
  std::string cmd = "tar -c -z -f " + out + " -C " + src.path() + names;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return ReadFile(out).value();
}

// A pod log as the payload writes it.
std::string PayloadLog(const std::string& out, const std::string& nonce, int status, const std::string& archive = "") {
  return out + "@@hetbench-files " + nonce + " begin@@\n" + Base64(archive) + "\n@@hetbench-files " + nonce +
         " end " + std::to_string(status) + "@@\n";
}

class K8sSchedulerTest : public ::testing::Test {
 protected:
  K8sOptions Options() {
    K8sOptions o;
    o.image = "busybox";
    o.waiting_grace_s = 5;
    o.batch.min_poll_interval = 1;
    o.batch.max_poll_interval = 8;
    o.batch.poll_backoff = 2;
    o.batch.lost_after = 30;
    o.batch.max_query_failure_time = 100;
    o.batch.job_submit_timeout = 20;
    return o;
  }
  void Start(K8sOptions o) {
    auto api = std::make_unique<FakeKubeApi>();
    api_ = api.get();
    sched_ = std::make_unique<K8sScheduler>("k8s", std::move(api), std::move(o), &clock_);
  }
  Job* NewJob(const std::string& name) {
    auto j = std::make_unique<Job>();
    std::string dir = tmp_ / (name + "_" + std::to_string(jobs_.size()));
    EXPECT_TRUE(MakeDirs(dir).ok());
    j->name = name;
    j->workdir = dir;
    j->script_path = JoinPath(dir, "hb_job.sh");
    EXPECT_TRUE(WriteFile(j->script_path, "#!/bin/bash\necho hello\n").ok());
    j->stdout_path = JoinPath(dir, "hb_job.out");
    j->stderr_path = JoinPath(dir, "hb_job.err");
    j->session_id = "sess-1";
    j->case_id = name;
    j->image = "busybox";
    jobs_.push_back(std::move(j));
    return jobs_.back().get();
  }
  Job* Submit(const std::string& name) {
    Job* j = NewJob(name);
    Status st = sched_->Submit(j);
    EXPECT_TRUE(st.ok()) << st.str();
    return j;
  }
  std::vector<Job*> InFlight() {
    std::vector<Job*> out;
    for (auto& j : jobs_)
      if (!j->id.empty() && !j->state.terminal()) out.push_back(j.get());
    return out;
  }
  // Moves the clock to the scheduler's next poll and polls.
  void Poll() {
    double d = sched_->NextPollDelay();
    if (std::isfinite(d)) clock_.Advance(d);
    sched_->Poll(InFlight());
  }
  static std::string Name(const Job* j) { return j->id.substr(j->id.find('/') + 1); }
  std::string Nonce(const Job* j) {
    std::smatch m;
    std::string text = api_->Get("jobs", Name(j)).dump();
    EXPECT_TRUE(std::regex_search(text, m, std::regex("hb_nonce=([0-9a-f]+)")));
    return m[1];
  }
  std::vector<std::string> Notices() {
    auto n = sched_->TakeNotices();
    all_notices_.insert(all_notices_.end(), n.begin(), n.end());
    return n;
  }
  bool Noticed(const std::string& text) {
    Notices();
    return std::any_of(all_notices_.begin(), all_notices_.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  }
  // A Job admitted and running on node-1, with its pod.
  std::string Running(Job* j, const std::string& node = "node-1") {
    std::string pod = api_->AddPod(Name(j));
    api_->PodRunning(pod, node);
    Poll();
    EXPECT_EQ(j->state.kind, Kind::kRunning) << j->state.str();
    return pod;
  }

  TempDir tmp_;
  FakeClock clock_;
  FakeKubeApi* api_ = nullptr;  // owned by sched_
  std::unique_ptr<K8sScheduler> sched_;
  std::vector<std::unique_ptr<Job>> jobs_;
  std::vector<std::string> all_notices_;
};

// ---------------------------------------------------------------------------
// Submission.

TEST_F(K8sSchedulerTest, SubmitCreatesTheJobAndNamesItByNamespaceAndName) {
  Start(Options());
  Job* j = Submit("hb_first");
  EXPECT_EQ(api_->CountOf("POST jobs"), 1);
  EXPECT_TRUE(StartsWith(api_->calls[0], "POST /apis/batch/v1/namespaces/hb/jobs")) << api_->calls[0];
  EXPECT_TRUE(StartsWith(j->id, "hb/hb-first-")) << j->id;
  ASSERT_NE(api_->Find("jobs", Name(j)), nullptr);
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  EXPECT_GT(j->submit_time, 0);
  EXPECT_DOUBLE_EQ(sched_->NextPollDelay(), 1);
}

TEST_F(K8sSchedulerTest, ServiceIsCreatedBeforeTheJobOfAMultiPodCase) {
  Start(Options());
  Job* j = NewJob("hb_mpi");
  j->num_tasks = 2;
  j->num_tasks_per_node = 1;
  ASSERT_TRUE(sched_->Submit(j).ok());
  ASSERT_EQ(api_->calls.size(), 2u);
  EXPECT_TRUE(StartsWith(api_->calls[0], "POST /api/v1/namespaces/hb/services")) << api_->calls[0];
  EXPECT_TRUE(StartsWith(api_->calls[1], "POST /apis/batch/v1/namespaces/hb/jobs")) << api_->calls[1];
}

TEST_F(K8sSchedulerTest, NameCollisionOfGeneratedNameIsRetried) {
  Start(Options());
  api_->Script("POST jobs", 409, "jobs.batch \"hb-x-abcde\" already exists", -1, "AlreadyExists");
  Job* j = Submit("hb_x");
  EXPECT_EQ(api_->CountOf("POST jobs"), 2);
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  EXPECT_NE(api_->Find("jobs", Name(j)), nullptr);
}

TEST_F(K8sSchedulerTest, InvalidJobFailsWithTheApiMessage) {
  Start(Options());
  api_->Script("POST jobs", 422,
               "Job.batch \"hb-x-abcde\" is invalid: spec.template.spec.containers[0].image: Required value", -1,
               "Invalid");
  Job* j = NewJob("hb_x");
  Status st = sched_->Submit(j);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("422 Invalid: Job.batch \"hb-x-abcde\" is invalid: "
                              "spec.template.spec.containers[0].image: Required value"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(api_->CountOf("POST jobs"), 1);  // not retried
}

TEST_F(K8sSchedulerTest, FailedJobCreationDeletesTheServiceCreatedBeforeIt) {
  Start(Options());
  api_->Script("POST jobs", 422, "bad", -1, "Invalid");
  Job* j = NewJob("hb_mpi");
  j->num_tasks = 2;
  j->num_tasks_per_node = 1;
  EXPECT_FALSE(sched_->Submit(j).ok());
  EXPECT_EQ(api_->CountOf("DELETE services"), 1);
  EXPECT_TRUE(api_->Names("services").empty());
}

TEST_F(K8sSchedulerTest, TransientSubmitErrorsAreRetriedHonouringRetryAfter) {
  Start(Options());
  api_->Script("POST jobs", 429, "slow down", 3, "TooManyRequests");
  api_->Script("POST jobs", 503, "etcd leader changed", -1, "ServiceUnavailable");
  api_->Script("POST jobs", 0, "connection reset by peer");
  Job* j = Submit("hb_x");
  EXPECT_EQ(api_->CountOf("POST jobs"), 4);
  EXPECT_GE(clock_.slept(), 3);  // Retry-After honoured
  EXPECT_LE(clock_.slept(), 20);  // within job_submit_timeout
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  EXPECT_TRUE(Noticed("transient error, retrying"));
}

TEST_F(K8sSchedulerTest, TransientSubmitErrorsGiveUpWithinTheSubmitTimeout) {
  K8sOptions o = Options();
  o.batch.job_submit_timeout = 5;
  Start(o);
  for (int i = 0; i < 10; ++i) api_->Script("POST jobs", 503, "overloaded", -1, "ServiceUnavailable");
  Job* j = NewJob("hb_x");
  Status st = sched_->Submit(j);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("503"), std::string::npos) << st.message();
  EXPECT_LE(clock_.slept(), 5);
}

TEST_F(K8sSchedulerTest, RequestThatCannotBeMadeFailsWithoutRetrying) {
  Start(Options());
  api_->ScriptError("POST jobs", "exec plugin 'kubelogin' exited with status 1: token expired");
  Job* j = NewJob("hb_x");
  Status st = sched_->Submit(j);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("exec plugin 'kubelogin' exited with status 1"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("no answer"), std::string::npos) << st.message();
  EXPECT_EQ(api_->CountOf("POST jobs"), 1);
  EXPECT_EQ(clock_.slept(), 0);
}

// ---------------------------------------------------------------------------
// Namespace quota: queued, resubmitted, bounded by max_pending_time.

const char* kQuota =
    "jobs.batch \"hb-x\" is forbidden: exceeded quota: compute, requested: count/jobs.batch=1, used: "
    "count/jobs.batch=10, limited: count/jobs.batch=10";

TEST_F(K8sSchedulerTest, QuotaRefusalQueuesAndResubmitsUntilItSucceeds) {
  Start(Options());
  api_->Script("POST jobs", 403, kQuota, -1, "Forbidden");
  api_->Script("POST jobs", 403, kQuota, -1, "Forbidden");
  Job* j = Submit("hb_x");
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  EXPECT_EQ(j->state.reason, std::string("namespace quota exceeded: ") + kQuota);
  EXPECT_TRUE(StartsWith(j->id, "hb/"));
  Poll();  // refused again
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  EXPECT_EQ(api_->CountOf("POST jobs"), 2);
  Poll();  // accepted
  EXPECT_EQ(api_->CountOf("POST jobs"), 3);
  ASSERT_NE(api_->Find("jobs", Name(j)), nullptr) << j->id;
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  std::string pod = Running(j);
  api_->PodTerminated(pod, 0);
  api_->logs[pod] = PayloadLog("hi\n", Nonce(j), 0);
  api_->JobCondition(Name(j), "Complete");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted) << j->state.str();
}

TEST_F(K8sSchedulerTest, QuotaRefusalFailsAfterMaxPendingTime) {
  Start(Options());
  for (int i = 0; i < 50; ++i) api_->Script("POST jobs", 403, kQuota, -1, "Forbidden");
  Job* a = NewJob("hb_a");
  a->max_pending_time_s = 10;
  ASSERT_TRUE(sched_->Submit(a).ok());
  Job* b = NewJob("hb_b");
  b->max_pending_time_s = 10;
  ASSERT_TRUE(sched_->Submit(b).ok());
  int posts = api_->CountOf("POST jobs");
  Poll();
  EXPECT_EQ(api_->CountOf("POST jobs"), posts + 1);  // one try per namespace while the quota refuses
  for (int i = 0; i < 10 && !a->state.terminal(); ++i) Poll();
  EXPECT_EQ(a->state.kind, Kind::kFailed);
  EXPECT_TRUE(StartsWith(a->state.reason, "namespace quota exceeded: ")) << a->state.reason;
  EXPECT_NE(a->state.reason.find("max_pending_time"), std::string::npos) << a->state.reason;
  EXPECT_EQ(b->state.kind, Kind::kFailed);
  EXPECT_TRUE(std::isinf(sched_->NextPollDelay()));
}

// ---------------------------------------------------------------------------
// States.

TEST_F(K8sSchedulerTest, KueueSuspendedThenAdmittedRunningCompleted) {
  K8sOptions o = Options();
  o.queue_name = "team-a";
  Start(o);
  Job* j = Submit("hb_kueue");
  std::string name = Name(j);
  EXPECT_EQ(api_->Get("jobs", name)["spec"]["suspend"], true);
  api_->AddWorkload(name, "QuotaReserved", "False",
                    "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  EXPECT_EQ(j->state.reason,
            "Kueue: couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default");
  EXPECT_EQ(api_->CountOf("GET workloads"), 1);

  api_->Suspend(name, false);  // admitted
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kStarting);
  std::string pod = api_->AddPod(name);
  api_->PodWaiting(pod, "ContainerCreating", "");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kStarting);
  EXPECT_EQ(j->state.reason, "ContainerCreating");
  EXPECT_EQ(api_->CountOf("GET workloads"), 1);  // only while suspended

  api_->PodRunning(pod, "gpu-node-7", "2024-05-01T10:01:00Z");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  EXPECT_EQ(j->nodelist, std::vector<std::string>{"gpu-node-7"});
  EXPECT_DOUBLE_EQ(j->start_time, 1714557660);

  api_->logs[pod] = PayloadLog("hello\nworld\n", Nonce(j), 0, TarGz({{"hb_job.err", "a warning\n"}, {"out/result.txt", "42\n"}}));
  api_->PodTerminated(pod, 0);
  api_->JobCondition(name, "Complete");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted);
  EXPECT_EQ(j->state.exit_code, 0);
  EXPECT_DOUBLE_EQ(j->end_time, 1714557930);  // completionTime
  EXPECT_EQ(ReadFile(j->stdout_path).value(), "hello\nworld\n");
  EXPECT_EQ(ReadFile(j->stderr_path).value(), "a warning\n");
  EXPECT_EQ(ReadFile(JoinPath(j->workdir, "out/result.txt")).value(), "42\n");

  int log = api_->IndexOf("GET /api/v1/namespaces/hb/pods/" + pod + "/log");
  int del = api_->IndexOf("DELETE /apis/batch/v1/namespaces/hb/jobs/" + name);
  ASSERT_GE(log, 0);
  ASSERT_GE(del, 0);
  EXPECT_LT(log, del);  // logs before anything is deleted
  EXPECT_NE(api_->calls[del].find("propagationPolicy=Background"), std::string::npos) << api_->calls[del];
  EXPECT_EQ(api_->Find("jobs", name), nullptr);
  EXPECT_TRUE(std::isinf(sched_->NextPollDelay()));
}

TEST_F(K8sSchedulerTest, UnschedulablePodIsStartingWithTheSchedulersMessage) {
  Start(Options());
  Job* j = Submit("hb_x");
  std::string pod = api_->AddPod(Name(j));
  api_->PodUnschedulable(pod, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kStarting);
  EXPECT_EQ(j->state.reason, "Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.");
}

TEST_F(K8sSchedulerTest, ImagePullBackOffFailsAfterTheGrace) {
  Start(Options());  // waiting_grace_s = 5
  Job* j = Submit("hb_x");
  std::string pod = api_->AddPod(Name(j));
  api_->PodWaiting(pod, "ErrImagePull", "rpc error: pull access denied");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kStarting);
  EXPECT_EQ(j->state.reason, "ErrImagePull: rpc error: pull access denied");
  clock_.Advance(3);
  api_->PodWaiting(pod, "ImagePullBackOff", "Back-off pulling image \"nope:1\"");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kStarting);  // 3 s < grace
  clock_.Advance(3);
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kFailed);
  EXPECT_EQ(j->state.reason, "ImagePullBackOff: Back-off pulling image \"nope:1\"");
  EXPECT_EQ(api_->CountOf("GET log"), 0);  // the container never ran
  EXPECT_EQ(api_->Find("jobs", Name(j)), nullptr);
}

TEST_F(K8sSchedulerTest, OtherWaitingReasonsDoNotFail) {
  Start(Options());
  Job* j = Submit("hb_x");
  std::string pod = api_->AddPod(Name(j));
  api_->PodWaiting(pod, "ContainerCreating", "");
  for (int i = 0; i < 5; ++i) {
    clock_.Advance(10);
    Poll();
  }
  EXPECT_EQ(j->state.kind, Kind::kStarting);
}

TEST_F(K8sSchedulerTest, OomKilledFailsWithExitCodeAndReason) {
  Start(Options());
  Job* j = Submit("hb_x");
  std::string pod = Running(j);
  api_->logs[pod] = "allocating...\n";  // killed: no end marker
  api_->PodTerminated(pod, 137, "OOMKilled");
  api_->JobCondition(Name(j), "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kFailed);
  EXPECT_EQ(j->state.exit_code, 137);
  EXPECT_NE(j->state.reason.find("OOMKilled"), std::string::npos) << j->state.reason;
  EXPECT_NE(j->state.reason.find("BackoffLimitExceeded"), std::string::npos) << j->state.reason;
  EXPECT_EQ(ReadFile(j->stdout_path).value(), "allocating...\n");
  EXPECT_EQ(api_->Find("jobs", Name(j)), nullptr);  // keep_failed_jobs is off
}

TEST_F(K8sSchedulerTest, ScriptExitStatusFromThePayloadMakesACompletedJob) {
  Start(Options());
  Job* j = Submit("hb_x");
  std::string pod = Running(j);
  api_->logs[pod] = PayloadLog("bad input\n", Nonce(j), 3);
  api_->PodTerminated(pod, 3, "Error");
  api_->JobCondition(Name(j), "Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted) << j->state.str();
  EXPECT_EQ(j->state.exit_code, 3);
}

TEST_F(K8sSchedulerTest, DeadlineExceededIsATimeout) {
  Start(Options());
  Job* j = Submit("hb_x");
  std::string pod = Running(j);
  api_->logs[pod] = "still going\n";
  api_->PodTerminated(pod, 137, "Error");
  api_->JobCondition(Name(j), "Failed", "DeadlineExceeded", "Job was active longer than specified deadline");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kTimeout);
  EXPECT_EQ(j->state.reason, "DeadlineExceeded: Job was active longer than specified deadline");
}

TEST_F(K8sSchedulerTest, KueueEvictionGoesBackToQueuedNotFailed) {
  K8sOptions o = Options();
  o.queue_name = "team-a";
  Start(o);
  Job* j = Submit("hb_x");
  std::string name = Name(j);
  api_->Suspend(name, false);
  std::string pod = Running(j);
  api_->Suspend(name, true);  // evicted: Kueue suspends the Job, its pods go
  api_->Remove("pods", pod);
  api_->AddWorkload(name, "Evicted", "True", "Preempted to accommodate a higher priority Workload");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kQueued) << j->state.str();
  EXPECT_EQ(j->state.reason, "Kueue: Preempted to accommodate a higher priority Workload");
  EXPECT_TRUE(Noticed("suspended again"));
  api_->Suspend(name, false);
  pod = Running(j);
  api_->logs[pod] = PayloadLog("ok\n", Nonce(j), 0);
  api_->PodTerminated(pod, 0);
  api_->JobCondition(name, "Complete");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted);
}

TEST_F(K8sSchedulerTest, MaxPendingTimeDeletesAQueuedJob) {
  K8sOptions o = Options();
  o.queue_name = "team-a";
  o.keep_failed_jobs = true;  // a job that never ran is deleted anyway
  Start(o);
  Job* j = NewJob("hb_x");
  j->max_pending_time_s = 10;
  ASSERT_TRUE(sched_->Submit(j).ok());
  std::string name = Name(j);
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  clock_.Advance(11);
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kFailed);
  EXPECT_TRUE(StartsWith(j->state.reason, "pending for longer than max_pending_time (10 s")) << j->state.reason;
  EXPECT_EQ(api_->Find("jobs", name), nullptr);
}

TEST_F(K8sSchedulerTest, MaxPendingTimeCountsStartingToo) {
  Start(Options());
  Job* j = NewJob("hb_x");
  j->max_pending_time_s = 10;
  ASSERT_TRUE(sched_->Submit(j).ok());
  std::string pod = api_->AddPod(Name(j));
  api_->PodUnschedulable(pod, "0/3 nodes are available");
  for (int i = 0; i < 20 && !j->state.terminal(); ++i) Poll();
  EXPECT_EQ(j->state.kind, Kind::kFailed);
  EXPECT_NE(j->state.reason.find("Unschedulable"), std::string::npos) << j->state.reason;
}

// ---------------------------------------------------------------------------
// Polling: batched, adaptive, fault-tolerant.

TEST_F(K8sSchedulerTest, RequestsPerPollDoNotGrowWithTheNumberOfJobs) {
  Start(Options());
  for (int i = 0; i < 50; ++i) Submit("hb_many");
  for (auto& j : jobs_) api_->PodRunning(api_->AddPod(Name(j.get())), "node-" + std::to_string(jobs_.size() % 4));
  size_t before = api_->calls.size();
  Poll();
  ASSERT_EQ(api_->calls.size() - before, 2u);
  EXPECT_TRUE(StartsWith(api_->calls[before], "GET /apis/batch/v1/namespaces/hb/jobs?labelSelector=hetbench.io%2Fsession%3Dsess-1"))
      << api_->calls[before];
  EXPECT_TRUE(StartsWith(api_->calls[before + 1], "GET /api/v1/namespaces/hb/pods?labelSelector=hetbench.io%2Fsession%3Dsess-1"))
      << api_->calls[before + 1];
  for (auto& j : jobs_) EXPECT_EQ(j->state.kind, Kind::kRunning);
  before = api_->calls.size();
  Poll();
  EXPECT_EQ(api_->calls.size() - before, 2u);
}

TEST_F(K8sSchedulerTest, PollIntervalBacksOffAndResetsOnChange) {
  Start(Options());  // min 1, backoff 2, max 8
  Job* j = Submit("hb_x");
  EXPECT_DOUBLE_EQ(sched_->NextPollDelay(), 1);
  Poll();  // submitted -> starting (no pod yet): a change
  EXPECT_DOUBLE_EQ(sched_->NextPollDelay(), 1);
  std::vector<double> delays;
  for (int i = 0; i < 4; ++i) {
    Poll();
    delays.push_back(sched_->NextPollDelay());
  }
  EXPECT_EQ(delays, (std::vector<double>{2, 4, 8, 8}));
  sched_->Poll(InFlight());  // too early: nothing is asked
  EXPECT_EQ(api_->CountOf("GET jobs"), 5);
  api_->PodRunning(api_->AddPod(Name(j)), "n1");
  Poll();
  EXPECT_DOUBLE_EQ(sched_->NextPollDelay(), 1);
}

TEST_F(K8sSchedulerTest, FailedListsKeepStatesAndRecover) {
  Start(Options());
  Job* j = Submit("hb_x");
  Running(j);
  api_->Script("GET jobs", 500, "internal error", -1, "InternalError");
  api_->Script("GET jobs", 0, "connection refused");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  auto n = Notices();
  ASSERT_EQ(n.size(), 1u);  // once, not once per poll
  EXPECT_NE(n[0].find("500"), std::string::npos) << n[0];
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  EXPECT_TRUE(Noticed("answers again"));
}

TEST_F(K8sSchedulerTest, TooManyRequestsRetryAfterIsAMinimumDelay) {
  Start(Options());
  Job* j = Submit("hb_x");
  Running(j);
  api_->Script("GET pods", 429, "slow down", 30, "TooManyRequests");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  EXPECT_GE(sched_->NextPollDelay(), 30);
}

TEST_F(K8sSchedulerTest, ListsFailingForMaxQueryFailureTimeLoseTheJobs) {
  K8sOptions o = Options();
  o.batch.max_query_failure_time = 20;
  Start(o);
  Job* j = Submit("hb_x");
  Running(j);
  for (int i = 0; i < 30; ++i) api_->Script("GET jobs", 503, "apiserver overloaded", -1, "ServiceUnavailable");
  for (int i = 0; i < 10 && !j->state.terminal(); ++i) Poll();
  EXPECT_EQ(j->state.kind, Kind::kLost);
  EXPECT_NE(j->state.reason.find("did not answer"), std::string::npos) << j->state.reason;
  EXPECT_NE(j->state.reason.find("503"), std::string::npos) << j->state.reason;
}

TEST_F(K8sSchedulerTest, JobMissingForLostAfterIsLost) {
  Start(Options());  // lost_after = 30
  Job* j = Submit("hb_x");
  Running(j);
  api_->Remove("jobs", Name(j));
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  clock_.Advance(31);
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kLost);
  EXPECT_NE(j->state.reason.find("deleted outside hetbench?"), std::string::npos) << j->state.reason;
}

// ---------------------------------------------------------------------------
// Logs and cleanup.

TEST_F(K8sSchedulerTest, MultiPodLogsGetAHeaderPerPodRankZeroFirst) {
  Start(Options());
  Job* j = NewJob("hb_mpi");
  j->num_tasks = 2;
  j->num_tasks_per_node = 1;
  ASSERT_TRUE(sched_->Submit(j).ok());
  std::string name = Name(j);
  std::string p1 = api_->AddPod(name, 1);  // rank 1 listed first
  std::string p0 = api_->AddPod(name, 0);
  api_->PodRunning(p0, "node-a");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  api_->PodRunning(p1, "node-b");
  Poll();
  EXPECT_EQ(j->nodelist, (std::vector<std::string>{"node-a", "node-b"}));
  std::string nonce = Nonce(j);
  api_->logs[p0] = PayloadLog("rank zero\n", nonce, 0, TarGz({{"hb_job.err", "err0\n"}, {"r.txt", "from 0\n"}}));
  api_->logs[p1] = PayloadLog("rank one", nonce, 0, TarGz({{"hb_job.err", "err1\n"}, {"r.txt", "from 1\n"}}));
  api_->PodTerminated(p0, 0);
  api_->PodTerminated(p1, 0);
  api_->JobCondition(name, "Complete");
  Poll();
  ASSERT_EQ(j->state.kind, Kind::kCompleted);
  EXPECT_EQ(ReadFile(j->stdout_path).value(),
            "==> pod " + p0 + " (rank 0) <==\nrank zero\n==> pod " + p1 + " (rank 1) <==\nrank one");
  EXPECT_EQ(ReadFile(j->stderr_path).value(),
            "==> pod " + p0 + " (rank 0) <==\nerr0\n==> pod " + p1 + " (rank 1) <==\nerr1\n");
  EXPECT_EQ(ReadFile(JoinPath(j->workdir, "r.txt")).value(), "from 0\n");  // rank 0's file wins
  EXPECT_EQ(api_->CountOf("GET log"), 2);
  EXPECT_EQ(api_->CountOf("DELETE jobs"), 1);
  EXPECT_EQ(api_->CountOf("DELETE services"), 1);
  EXPECT_LT(api_->IndexOf("GET /api/v1/namespaces/hb/pods/" + p1 + "/log"), api_->IndexOf("DELETE"));
}

TEST_F(K8sSchedulerTest, KeepFailedJobsKeepsThemAndSaysHowToLook) {
  K8sOptions o = Options();
  o.keep_failed_jobs = true;
  Start(o);
  Job* bad = Submit("hb_bad");
  Job* good = Submit("hb_good");
  std::string pb = api_->AddPod(Name(bad)), pg = api_->AddPod(Name(good));
  api_->PodTerminated(pb, 137, "OOMKilled");
  api_->JobCondition(Name(bad), "Failed", "BackoffLimitExceeded", "");
  api_->PodTerminated(pg, 0);
  api_->logs[pg] = PayloadLog("fine\n", Nonce(good), 0);
  api_->JobCondition(Name(good), "Complete");
  Poll();
  EXPECT_EQ(bad->state.kind, Kind::kFailed);
  EXPECT_EQ(good->state.kind, Kind::kCompleted);
  EXPECT_NE(api_->Find("jobs", Name(bad)), nullptr);
  EXPECT_EQ(api_->Find("jobs", Name(good)), nullptr);
  EXPECT_TRUE(Noticed("kept for inspection: kubectl -n hb describe job " + Name(bad)));
  sched_->Shutdown();  // kept jobs stay
  EXPECT_NE(api_->Find("jobs", Name(bad)), nullptr);
}

TEST_F(K8sSchedulerTest, LogFetchFailureIsANoticeAndTheFailureReason) {
  Start(Options());
  Job* j = Submit("hb_x");
  std::string pod = Running(j);
  api_->PodTerminated(pod, 0);
  api_->JobCondition(Name(j), "Complete");
  api_->Script("GET log", 403, "pods \"x\" is forbidden: cannot get resource \"pods/log\"", -1, "Forbidden");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kFailed);
  EXPECT_NE(j->state.reason.find("cannot read the log of pod " + pod + ": 403 Forbidden"), std::string::npos)
      << j->state.reason;
  EXPECT_TRUE(Noticed("cannot read the log of pod " + pod));
}

TEST_F(K8sSchedulerTest, TransientLogFailureIsRetriedAtTheNextPoll) {
  Start(Options());
  Job* j = Submit("hb_x");
  std::string pod = Running(j);
  api_->PodTerminated(pod, 0);
  api_->logs[pod] = PayloadLog("done\n", Nonce(j), 0);
  api_->JobCondition(Name(j), "Complete");
  api_->Script("GET log", 503, "kubelet unreachable", -1, "ServiceUnavailable");
  Poll();
  EXPECT_FALSE(j->state.terminal());
  EXPECT_NE(api_->Find("jobs", Name(j)), nullptr);  // nothing deleted before the logs are read
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted);
  EXPECT_EQ(ReadFile(j->stdout_path).value(), "done\n");
}

TEST_F(K8sSchedulerTest, CancelDeletesAndIsConfirmedAtTheNextPoll) {
  Start(Options());
  Job* j = Submit("hb_x");
  Running(j);
  sched_->Cancel(j);
  int del = api_->IndexOf("DELETE /apis/batch/v1/namespaces/hb/jobs/" + Name(j));
  ASSERT_GE(del, 0);
  EXPECT_NE(api_->calls[del].find("propagationPolicy=Background"), std::string::npos);
  EXPECT_EQ(api_->Find("jobs", Name(j)), nullptr);
  EXPECT_DOUBLE_EQ(sched_->NextPollDelay(), 0);
  sched_->Poll(InFlight());
  EXPECT_EQ(j->state.kind, Kind::kCancelled);
}

TEST_F(K8sSchedulerTest, ShutdownDeletesEverythingStillThere) {
  Start(Options());
  Job* a = Submit("hb_a");
  Job* b = NewJob("hb_b");
  b->num_tasks = 2;
  b->num_tasks_per_node = 1;
  ASSERT_TRUE(sched_->Submit(b).ok());
  Running(a);
  sched_->Shutdown();
  EXPECT_TRUE(api_->Names("jobs").empty());
  EXPECT_TRUE(api_->Names("services").empty());
  EXPECT_TRUE(api_->Names("pods").empty());
  sched_->Poll(InFlight());
  EXPECT_EQ(a->state.kind, Kind::kCancelled);
}

// ---------------------------------------------------------------------------
// Check, Pods and custom resources.

TEST_F(K8sSchedulerTest, CheckListsOneJobAndReportsUnauthorizedWithoutSecrets) {
  Start(Options());
  EXPECT_TRUE(sched_->Check().ok());
  EXPECT_EQ(api_->calls.back(), "GET /apis/batch/v1/namespaces/hb/jobs?limit=1");
  sched_->set_origin("context fake-token from /x/kubeconfig");
  api_->Script("GET jobs", 401, "Unauthorized", -1, "Unauthorized");
  Status st = sched_->Check();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "Kubernetes API https://fake-apiserver:6443: 401 Unauthorized (context fake-token from /x/kubeconfig)");
}

TEST_F(K8sSchedulerTest, CheckReportsAServerThatDoesNotAnswer) {
  Start(Options());
  // One transient failure is retried...
  api_->Script("GET jobs", 500, "etcdserver: request timed out");
  EXPECT_TRUE(sched_->Check().ok());
  // ...a server that keeps not answering is reported.
  for (int i = 0; i < 10; ++i)
    api_->Script("GET jobs", 0, "Failed to connect to fake-apiserver port 6443: Connection refused");
  Status st = sched_->Check();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("no answer: Failed to connect"), std::string::npos) << st.message();
}

TEST_F(K8sSchedulerTest, PlainPodManifestFollowsThePodPhase) {
  K8sOptions o = Options();
  o.manifest = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", "mine"}}},
                {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
  Start(o);
  Job* j = Submit("hb_pod");
  EXPECT_TRUE(StartsWith(api_->calls[0], "POST /api/v1/namespaces/hb/pods")) << api_->calls[0];
  std::string pod = Name(j);
  ASSERT_NE(api_->Find("pods", pod), nullptr);
  size_t before = api_->calls.size();
  Poll();
  EXPECT_EQ(api_->calls.size() - before, 1u);  // pods only
  EXPECT_EQ(j->state.kind, Kind::kStarting);
  api_->PodRunning(pod, "node-3");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  std::string nonce;
  std::smatch m;
  std::string text = api_->Get("pods", pod).dump();
  ASSERT_TRUE(std::regex_search(text, m, std::regex("hb_nonce=([0-9a-f]+)")));
  api_->logs[pod] = PayloadLog("pod out\n", m[1], 0);
  api_->PodTerminated(pod, 0);
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted);
  EXPECT_EQ(ReadFile(j->stdout_path).value(), "pod out\n");
  EXPECT_EQ(api_->Find("pods", pod), nullptr);
}

TEST_F(K8sSchedulerTest, CustomResourceFollowsItsStateFieldAndFindsItsPods) {
  K8sOptions o = Options();
  o.manifest = {{"apiVersion", "graphcore.ai/v1alpha1"},
                {"kind", "IPUJob"},
                {"metadata", json::object()},
                {"spec", {{"workers", {{"template", {{"spec", {{"containers", {{{"name", "w"}, {"image", "busybox"}}}}}}}}}}}}};
  o.custom_resource.pod_selector = "ipujob-name={name}";  // plural and state field: the IPUJob's defaults
  Start(o);
  Job* j = Submit("hb_ipu");
  EXPECT_TRUE(StartsWith(api_->calls[0], "POST /apis/graphcore.ai/v1alpha1/namespaces/hb/ipujobs")) << api_->calls[0];
  std::string name = Name(j);
  ASSERT_NE(api_->Find("ipujobs", name), nullptr);
  size_t before = api_->calls.size();
  Poll();
  ASSERT_EQ(api_->calls.size() - before, 2u);  // the resources, the pods
  EXPECT_TRUE(StartsWith(api_->calls[before], "GET /apis/graphcore.ai/v1alpha1/namespaces/hb/ipujobs?labelSelector="));
  EXPECT_EQ(j->state.kind, Kind::kQueued);

  // The operator's pod, without hetbench's labels: found by pod_selector at the end.
  std::string nonce;
  std::smatch m;
  std::string text = api_->Get("ipujobs", name).dump();
  ASSERT_TRUE(std::regex_search(text, m, std::regex("hb_nonce=([0-9a-f]+)")));
  nonce = m[1];
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name + "-worker-0"}, {"labels", {{"ipujob-name", name}}}}},
              {"spec", {{"containers", {{{"name", "w"}}}}}},
              {"status", json::object()}};
  api_->objects["hb/pods/" + name + "-worker-0"] = pod;
  api_->PodTerminated(name + "-worker-0", 0);
  api_->logs[name + "-worker-0"] = PayloadLog("ipu out\n", nonce, 0);
  api_->Get("ipujobs", name)["status"]["launcherStatus"] = "Running";
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning);
  api_->Get("ipujobs", name)["status"]["launcherStatus"] = "Completed";
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted) << j->state.str();
  EXPECT_EQ(ReadFile(j->stdout_path).value(), "ipu out\n");
  EXPECT_EQ(api_->Find("ipujobs", name), nullptr);
}

TEST_F(K8sSchedulerTest, CustomResourceFailureValueFails) {
  K8sOptions o = Options();
  o.manifest = {{"apiVersion", "graphcore.ai/v1alpha1"}, {"kind", "IPUJob"}, {"spec", json::object()}};
  Start(o);
  Job* j = Submit("hb_ipu");
  api_->Get("ipujobs", Name(j))["status"]["launcherStatus"] = "Failed";
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kFailed);
  EXPECT_NE(j->state.reason.find("status.launcherStatus: Failed"), std::string::npos) << j->state.reason;
}

// A custom resource's own state names: queued, then (pods pending)
// starting, then running, then its success value; its pods found by
// hetbench's labels when no pod_selector is given.
TEST_F(K8sSchedulerTest, CustomResourceStatesFollowTheConfiguredValues) {
  K8sOptions o = Options();
  o.manifest = json::parse(R"({"apiVersion": "example.hetbench.io/v1", "kind": "Trainer", "metadata": {},
      "spec": {"template": {"spec": {"containers": [{"name": "w", "image": "busybox"}]}}}})");
  o.custom_resource.plural = "trainers";
  o.custom_resource.state_field = "status.phase";
  o.custom_resource.queued_values = {"", "Admitting"};
  o.custom_resource.running_values = {"Training"};
  o.custom_resource.success_values = {"Done"};
  Start(o);
  Job* j = Submit("hb_tr");
  std::string name = Name(j);
  json& cr = api_->Get("trainers", name);
  cr["status"]["phase"] = "Admitting";
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kQueued);
  EXPECT_EQ(j->state.reason, "status.phase: Admitting");
  // A pod with hetbench's labels (from the template), pending.
  std::string labels = cr["spec"]["template"]["metadata"]["labels"].dump();
  std::string pod = name + "-0";
  json p = json::parse(R"({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "w"}]},
                            "status": {"phase": "Pending"}})");
  p["metadata"] = {{"name", pod}, {"labels", json::parse(labels)}};
  api_->objects["hb/pods/" + pod] = p;
  api_->PodUnschedulable(pod, "0/2 nodes");
  api_->Get("trainers", name)["status"]["phase"] = "Training";
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kStarting) << j->state.str();
  EXPECT_NE(j->state.reason.find("Unschedulable: 0/2 nodes"), std::string::npos) << j->state.reason;
  api_->PodRunning(pod, "node-1");
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kRunning) << j->state.str();
  EXPECT_EQ(j->nodelist, std::vector<std::string>{"node-1"});
  api_->PodTerminated(pod, 0);
  std::smatch m;
  std::string text = api_->Get("trainers", name).dump();
  ASSERT_TRUE(std::regex_search(text, m, std::regex("hb_nonce=([0-9a-f]+)")));
  api_->logs[pod] = PayloadLog("trained\n", m[1], 0);
  api_->Get("trainers", name)["status"]["phase"] = "Done";
  Poll();
  EXPECT_EQ(j->state.kind, Kind::kCompleted) << j->state.str();
  EXPECT_EQ(ReadFile(j->stdout_path).value(), "trained\n");
}

// A custom resource has no deadline field: hetbench deletes it at the
// test's time limit, and the case times out as on any other scheduler.
TEST_F(K8sSchedulerTest, CustomResourceIsDeletedAtTheTimeLimit) {
  K8sOptions o = Options();
  o.manifest = json::parse(R"({"apiVersion": "graphcore.ai/v1alpha1", "kind": "IPUJob", "metadata": {},
      "spec": {"workers": {"template": {"spec": {"containers": [{"name": "w", "image": "busybox",
               "command": ["sleep", "infinity"]}]}}}}})");
  Start(o);
  Job* j = NewJob("hb_forever");
  j->time_limit_s = 5;
  ASSERT_TRUE(sched_->Submit(j).ok());
  std::string name = Name(j);
  api_->Get("ipujobs", name)["status"]["launcherStatus"] = "Running";
  Poll();
  ASSERT_EQ(j->state.kind, Kind::kRunning);
  double running_at = clock_.Monotonic();
  while (!j->state.terminal() && clock_.Monotonic() < running_at + 60) Poll();
  EXPECT_EQ(j->state.kind, Kind::kTimeout) << j->state.str();
  EXPECT_NEAR(clock_.Monotonic() - running_at, 5, 1.01);  // a poll falls due at the limit
  EXPECT_EQ(j->state.reason, "time limit of 5s exceeded (hetbench deleted IPUJob " + name + ")");
  EXPECT_EQ(api_->Find("ipujobs", name), nullptr);
}

// A Pod whose cluster does not honour activeDeadlineSeconds is stopped by
// hetbench a little after the limit.
TEST_F(K8sSchedulerTest, PodPastItsDeadlineIsStoppedByHetbench) {
  K8sOptions o = Options();
  o.manifest = json::parse(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {},
      "spec": {"containers": [{"name": "w", "image": "busybox", "command": ["sleep", "40"]}]}})");
  Start(o);
  Job* j = NewJob("hb_sleep");
  j->time_limit_s = 5;
  ASSERT_TRUE(sched_->Submit(j).ok());
  std::string name = Name(j);
  EXPECT_EQ(api_->Get("pods", name)["spec"]["activeDeadlineSeconds"], 5);
  api_->PodRunning(name, "node-1");
  api_->logs[name] = "still sleeping\n";
  Poll();
  ASSERT_EQ(j->state.kind, Kind::kRunning);
  double running_at = clock_.Monotonic();
  while (!j->state.terminal() && clock_.Monotonic() < running_at + 60) Poll();
  EXPECT_EQ(j->state.kind, Kind::kTimeout) << j->state.str();
  EXPECT_EQ(j->state.reason, "time limit of 5s exceeded (hetbench deleted Pod " + name + ")");
  EXPECT_EQ(ReadFile(j->stdout_path).value(), "still sleeping\n");  // what it printed is kept
  EXPECT_NEAR(clock_.Monotonic() - running_at, 7, 1.01);  // the limit and the grace Kubernetes gets to act first
  EXPECT_EQ(api_->Find("pods", name), nullptr);
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

// --dry-run: every object Submit would create, written out, none sent.
TEST_F(K8sSchedulerTest, DryRunWritesTheObjectsWithTheirNamespaceAndSendsNothing) {
  K8sOptions o = Options();
  o.ns = "gpu-service";
  Start(o);
  Job* j = NewJob("hb_train");
  j->num_tasks = 2;
  j->num_tasks_per_node = 1;
  Status st = sched_->WriteDryRun(*j, j->workdir);
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_TRUE(api_->requests.empty());
  auto text = ReadFile(JoinPath(j->workdir, "hb_k8s.yaml"));
  ASSERT_TRUE(text.ok());
  // Two pods: a headless Service for the rendezvous, then an Indexed Job.
  auto docs = Split(*text, '\n');
  std::vector<std::string> posts;
  for (const auto& line : docs)
    if (StartsWith(line, "# POST ")) posts.push_back(line.substr(7));
  ASSERT_EQ(posts.size(), 2u) << *text;
  EXPECT_EQ(posts[0], "/api/v1/namespaces/gpu-service/services");
  EXPECT_EQ(posts[1], "/apis/batch/v1/namespaces/gpu-service/jobs");
  size_t job_at = text->rfind("---\n");
  json job = json::parse(text->substr(text->find('{', job_at)));
  EXPECT_EQ(job["kind"], "Job");
  EXPECT_EQ(job["metadata"]["namespace"], "gpu-service");
  EXPECT_TRUE(StartsWith(job["metadata"]["name"].get<std::string>(), job["metadata"]["generateName"].get<std::string>()));
  EXPECT_EQ(job["spec"]["completions"], 2);
}

}  // namespace
}  // namespace hb
