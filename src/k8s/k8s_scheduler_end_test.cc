// The Kubernetes scheduler, part 2: what a job leaves (logs, kept objects),
// cancel, shutdown, Check, plain Pods, custom resources and dry runs.
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
  EXPECT_EQ(st.message(),
            "Kubernetes API https://fake-apiserver:6443: 401 Unauthorized (context fake-token from /x/kubeconfig)");
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
  o.manifest = {
      {"apiVersion", "graphcore.ai/v1alpha1"},
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
  EXPECT_TRUE(
      StartsWith(job["metadata"]["name"].get<std::string>(), job["metadata"]["generateName"].get<std::string>()));
  EXPECT_EQ(job["spec"]["completions"], 2);
}

}  // namespace
}  // namespace hb
