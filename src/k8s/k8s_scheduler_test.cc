#include "k8s/k8s_scheduler.h"

#include <gtest/gtest.h>

#include "k8s/k8s_scheduler_test_util.h"
#include "util/fs.h"
#include "util/strings.h"

namespace hb {
namespace {

using json = nlohmann::json;
using Kind = JobState::Kind;

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
  EXPECT_GE(clock_.slept(), 3);   // Retry-After honoured
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

  api_->logs[pod] =
      PayloadLog("hello\nworld\n", Nonce(j), 0, TarGz({{"hb_job.err", "a warning\n"}, {"out/result.txt", "42\n"}}));
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
  EXPECT_TRUE(StartsWith(api_->calls[before],
                         "GET /apis/batch/v1/namespaces/hb/jobs?labelSelector=hetbench.io%2Fsession%3Dsess-1"))
      << api_->calls[before];
  EXPECT_TRUE(StartsWith(api_->calls[before + 1],
                         "GET /api/v1/namespaces/hb/pods?labelSelector=hetbench.io%2Fsession%3Dsess-1"))
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

}  // namespace
}  // namespace hb
