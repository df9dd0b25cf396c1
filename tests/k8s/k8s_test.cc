// End-to-end tests of the Kubernetes backend: the real hetbench binary and
// its real HTTPS client against tests/k8s/fake_apiserver.py, a fake API
// server with a simulated Kueue, Job controller and kubelet that really runs
// the pods' commands here (no kube-apiserver can run on this machine; see
// docs/k8s-fake-apiserver.md). Every Job the server received is also
// checked offline against Debian's python3-kubernetes models
// (tests/k8s/validate_manifest.py).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <thread>

#include "../e2e/e2e_util.h"
#include "fake_apiserver_process.h"

using e2e::Shell;
using e2e::WaitFor;
using k8s_e2e::FakeApiServer;

namespace {

const std::string kSource = HB_SOURCE_DIR;
const std::string kPython = "/usr/bin/python3";

class K8sTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = e2e::TempDir();
    api_ = std::make_unique<FakeApiServer>(dir_ + "/api");
    std::filesystem::create_directories(dir_ + "/api");
  }
  void StartServer(const std::vector<std::string>& flags = {}) { api_->Start(flags); }

  // A site with a Kubernetes partition `kube` and a local partition `here`;
  // `extra` is added to the Kubernetes partition's sched_options.
  void WriteSite(const std::string& extra = "") {
    Write(dir_ + "/site.yaml", R"(
systems:
  - name: site
    hostnames: ['.*']
    partitions:
      - name: kube
        scheduler: k8s
        launcher: local
        environs: [builtin]
        max_jobs: 50
        sched_options:
          kubeconfig: )" + api_->kubeconfig() +
                                   R"(
          image: debian:bookworm-slim
          min_poll_interval: 0.1
          max_poll_interval: 0.5
          waiting_grace_s: 1
)" + extra + R"(
      - name: here
        scheduler: local
        launcher: local
        environs: [builtin]
environments:
  - {name: builtin, cc: gcc}
)");
  }

  e2e::Output Run(const std::string& yaml, const std::string& part = "kube", std::vector<std::string> extra = {},
                  double timeout = 120) {
    Write(dir_ + "/t.yaml", yaml);
    std::vector<std::string> args = {"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "site:" + part};
    args.insert(args.end(), extra.begin(), extra.end());
    return Hetbench(args, dir_, timeout);
  }
  nlohmann::json Report() { return e2e::LatestReport(dir_); }
  // Every Job the server holds passes the offline validator.
  void ValidateJobsOnServer() {
    for (const auto& job : api_->Objects("jobs")) {
      nlohmann::json clean = job;
      clean.erase("status");
      clean.erase("_fake");
      // What the server adds to metadata is not hetbench's.
      for (const char* k : {"creationTimestamp", "uid", "resourceVersion", "managedFields", "generation"})
        clean["metadata"].erase(k);
      Write(dir_ + "/job.json", clean.dump());
      std::string out =
          Shell(kPython + " " + kSource + "/tests/k8s/validate_manifest.py " + dir_ + "/job.json 2>&1; echo rc=$?");
      EXPECT_NE(out.find("rc=0"), std::string::npos) << out << clean.dump(2);
    }
  }

  std::string dir_;
  std::unique_ptr<FakeApiServer> api_;
};

// The same test file on a local partition and on a Kubernetes partition
// gives the same sanity and performance results: a build (runs in the pod),
// stdout checks, a check on a file the job writes, a performance value.
TEST_F(K8sTest, SameTestFileSameResultsAsLocal) {
  StartServer();
  WriteSite();
  e2e::Write(dir_ + "/src/sum.c",
             "#include <stdio.h>\n"
             "int main(void) { long s = 0; for (int i = 1; i <= 1000; ++i) s += i;\n"
             "  printf(\"sum %ld\\n\", s); printf(\"rate: 42.5 Mops/s\\n\");\n"
             "  FILE* f = fopen(\"result.txt\", \"w\"); fprintf(f, \"checked ok\\n\"); fclose(f);\n"
             "  fprintf(stderr, \"a warning\\n\"); return 0; }\n");
  const std::string test = R"(
name: sum
build_system: {type: SingleSource, source: sum.c}
keep_files: [result.txt]
sanity:
  - {pattern: 'sum 500500'}
  - {pattern: 'checked ok', in: result.txt}
  - {pattern: 'a warning', in: stderr}
performance:
  rate: {pattern: 'rate: (\S+)', unit: Mops/s}
)";
  auto local = Run(test, "here");
  ASSERT_EQ(local.exit_code, 0) << local.out << local.err;
  const nlohmann::json local_rep = e2e::ReportOf(local);
  auto kube = Run(test, "kube");
  ASSERT_EQ(kube.exit_code, 0) << kube.out << kube.err;
  const nlohmann::json kube_rep = e2e::ReportOf(kube);
  ASSERT_EQ(local_rep.value("cases", nlohmann::json::array()).size(), 1u) << local.out;
  ASSERT_EQ(kube_rep.value("cases", nlohmann::json::array()).size(), 1u) << kube.out;
  const auto& lc = local_rep.at("cases").at(0);
  const auto& kc = kube_rep.at("cases").at(0);
  EXPECT_EQ(kc.at("result"), "pass") << kc.dump(2);
  EXPECT_EQ(lc.at("partition"), "here");
  EXPECT_EQ(kc.at("partition"), "kube");
  // The same performance value, extracted the same way.
  ASSERT_EQ(kc.at("perf").size(), 1u) << kc.dump(2);
  ASSERT_EQ(lc.at("perf").size(), 1u) << lc.dump(2);
  for (const char* k : {"name", "value", "unit"}) EXPECT_EQ(kc["perf"][0].at(k), lc["perf"][0].at(k)) << k;
  EXPECT_EQ(kc["perf"][0].at("value"), 42.5);
  // The file the job wrote came back (keep_files) and stdout is clean.
  auto kept = e2e::Find(dir_ + "/output", "result.txt");
  ASSERT_EQ(kept.size(), 2u);
  for (const auto& k : kept) EXPECT_EQ(Read(k), "checked ok\n");
  auto outs = e2e::Find(dir_ + "/output", "hb_job.out");
  for (const auto& o : outs) EXPECT_EQ(Read(o), "sum 500500\nrate: 42.5 Mops/s\n") << o;
  // Cleaned up after success, with the pods.
  EXPECT_TRUE(WaitFor([&] { return api_->Objects("jobs").empty() && api_->Objects("pods").empty(); }, 10))
      << api_->State().dump(1);
}

TEST_F(K8sTest, FailuresNameTheirCause) {
  StartServer();
  WriteSite();
  auto o = Run(R"(
name: exits
executable: sh
executable_opts: ['-c', "'echo oops >&2; exit 3'"]
sanity: [{exit_code: 0}]
---
name: oom
image: fake/oom
executable: 'true'
sanity: [{exit_code: 0}]
---
name: pull
image: fake/pull-error:1.0
executable: 'true'
sanity: [{exit_code: 0}]
---
name: slow
executable: sleep
executable_opts: ['60']
time_limit: 2s
sanity: [{exit_code: 0}]
)");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 4u) << o.out;
  std::map<std::string, nlohmann::json> by;
  for (const auto& c : rep["cases"]) by[c["name"]] = c;
  EXPECT_NE(std::string(by["exits"]["fail_reason"]).find("exit code 3"), std::string::npos) << by["exits"].dump(2);
  EXPECT_NE(std::string(by["oom"]["fail_reason"]).find("OOMKilled"), std::string::npos) << by["oom"].dump(2);
  EXPECT_NE(std::string(by["pull"]["fail_reason"]).find("ImagePull"), std::string::npos) << by["pull"].dump(2);
  EXPECT_NE(std::string(by["slow"]["fail_reason"]).find("DeadlineExceeded"), std::string::npos) << by["slow"].dump(2);
  for (auto& [n, c] : by) EXPECT_EQ(c["result"], "fail") << c.dump(2);
  // Failed jobs are deleted unless --keep-failed-jobs.
  EXPECT_TRUE(WaitFor([&] { return api_->Objects("jobs").empty(); }, 10)) << api_->State().dump(1);
}

TEST_F(K8sTest, KeepFailedJobs) {
  StartServer();
  WriteSite();
  auto o = Run("name: bad\nexecutable: 'false'\nsanity: [{exit_code: 0}]\n", "kube", {"--keep-failed-jobs"});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  auto jobs = api_->Objects("jobs");
  ASSERT_EQ(jobs.size(), 1u) << api_->State().dump(1);
  EXPECT_FALSE(jobs[0]["spec"].contains("ttlSecondsAfterFinished")) << jobs[0].dump(2);
  EXPECT_NE(o.out.find("kubectl -n hb-test describe job " + std::string(jobs[0]["metadata"]["name"])),
            std::string::npos)
      << o.out;
  ValidateJobsOnServer();
}

// Kueue: queued (suspended) then admitted; a queue that never admits is
// bounded by max_pending_time, with Kueue's reason.
TEST_F(K8sTest, KueueQueuedThenAdmittedOrPendingTooLong) {
  StartServer();
  WriteSite("          queue_name: team-a\n");
  auto ok = Run("name: queued\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: hello}]\n");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  ValidateJobsOnServer();
  auto held = Run(R"(
name: held
executable: 'true'
max_pending_time: 2s
k8s: {queue_name: hold}
sanity: [{exit_code: 0}]
)");
  EXPECT_EQ(held.exit_code, 1) << held.out << held.err;
  auto rep = Report();
  std::string reason = rep["cases"][0]["fail_reason"];
  EXPECT_NE(reason.find("max_pending_time"), std::string::npos) << reason;
  EXPECT_NE(reason.find("insufficient quota"), std::string::npos) << reason;
}

// Two pods (an Indexed Job with a headless Service): each gets its rank,
// the world size and rank 0's address; the log of each pod is in stdout.
TEST_F(K8sTest, MultiPodRanksAndLogs) {
  StartServer();
  WriteSite();
  auto o = Run(R"(
name: ranks
num_tasks: 2
num_tasks_per_node: 1
executable: sh
executable_opts: ['-c', '"echo rank=$HETBENCH_RANK of $HETBENCH_WORLD_SIZE master=$MASTER_ADDR"']
sanity:
  - {pattern: 'rank=\d of 2 master=\S+-0\.\S+', count: 2}
  - {pattern: 'rank=0 of 2'}
  - {pattern: 'rank=1 of 2'}
)");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto outs = e2e::Find(dir_ + "/output", "hb_job.out");
  ASSERT_EQ(outs.size(), 1u);
  std::string out = Read(outs[0]);
  EXPECT_NE(out.find("==> pod "), std::string::npos) << out;
}

// Transient API faults (429 with Retry-After, 500, a dropped connection, a
// name collision, a quota rejection) slow the run down but do not fail it.
TEST_F(K8sTest, SurvivesApiFaultsAndQuota) {
  StartServer({"--max-active-jobs", "2"});
  WriteSite();
  api_->Control("POST", "/fake/faults",
                R"({"match": "GET /api/v1/namespaces/hb-test/pods", "status": 429, "count": 2, "retry_after": 1})");
  api_->Control("POST", "/fake/faults",
                R"({"match": "GET /apis/batch/v1/namespaces/hb-test/jobs", "status": 500, "count": 2})");
  api_->Control("POST", "/fake/faults",
                R"({"match": "POST /apis/batch/v1/namespaces/hb-test/jobs", "drop": true, "count": 1})");
  // A generated name that collides (409 AlreadyExists) is retried.
  api_->Control("POST", "/fake/faults",
                R"({"match": "POST /apis/batch/v1/namespaces/hb-test/jobs", "status": 409, "count": 1})");
  auto o = Run(R"(
name: many
parameters: {i: [1, 2, 3, 4, 5]}
executable: echo
executable_opts: ['value {i}']
sanity: [{pattern: 'value \d'}]
max_pending_time: 60s
)");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 5u);
  for (const auto& c : rep["cases"]) EXPECT_EQ(c["result"], "pass") << c.dump(2);
  std::string log = Read(api_->dir() + "/requests.log");
  EXPECT_NE(log.find("\"status\": 403"), std::string::npos) << "the quota was hit";
}

// The API server restarts in the middle of a run; the pod keeps running (as
// on a real node) and the run completes.
TEST_F(K8sTest, ApiServerRestartMidRun) {
  StartServer();
  WriteSite();
  Write(dir_ + "/t.yaml",
        "name: survive\nexecutable: sh\nexecutable_opts: ['-c', \"'sleep 3; echo done'\"]\n"
        "sanity: [{pattern: done}]\n");
  pid_t pid = e2e::StartHetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "site:kube"}, dir_);
  ASSERT_TRUE(WaitFor(
      [&] {
        for (const auto& p : api_->Objects("pods"))
          if (p["status"].value("phase", "") == "Running") return true;
        return false;
      },
      30));
  api_->Restart();
  EXPECT_EQ(e2e::WaitExit(pid, 60), 0) << Read(dir_ + "/hb.stdout") << Read(dir_ + "/hb.stderr");
}

// SIGINT: every Job hetbench created is deleted before it exits.
TEST_F(K8sTest, SigintDeletesEveryJob) {
  StartServer();
  WriteSite();
  Write(dir_ + "/t.yaml",
        "name: long\nexecutable: sleep\nexecutable_opts: ['600']\nparameters: {i: [1, 2]}\nsanity: [{exit_code: 0}]\n");
  pid_t pid = e2e::StartHetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "site:kube"}, dir_);
  ASSERT_TRUE(WaitFor(
      [&] {
        int running = 0;
        for (const auto& p : api_->Objects("pods")) running += p["status"].value("phase", "") == "Running";
        return running == 2;
      },
      30))
      << api_->State().dump(1);
  kill(pid, SIGINT);
  EXPECT_EQ(e2e::WaitExit(pid, 60), 130) << Read(dir_ + "/hb.stdout");
  EXPECT_TRUE(WaitFor([&] { return api_->Objects("jobs").empty(); }, 10)) << api_->State().dump(1);
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 2u);
  for (const auto& c : rep["cases"]) EXPECT_EQ(c["result"], "cancelled") << c.dump(2);
}

// Bad credentials: one clear error before anything is submitted, and the
// token never appears in what hetbench prints or writes.
TEST_F(K8sTest, BadCredentialsOneErrorNoSecret) {
  StartServer();
  std::string kc = Read(api_->kubeconfig());
  size_t at = kc.find("hb-test-token");
  ASSERT_NE(at, std::string::npos) << kc;
  kc.replace(at, std::string("hb-test-token").size(), "s3cr3t-wrong-token");
  Write(api_->dir() + "/bad-kubeconfig", kc);
  WriteSite();
  auto o =
      Run("name: a\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n---\nname: b\nexecutable: 'true'\nsanity: "
          "[{exit_code: 0}]\n",
          "kube", {"--kubeconfig", api_->dir() + "/bad-kubeconfig"});
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE((o.out + o.err).find("401"), std::string::npos) << o.out << o.err;
  EXPECT_EQ((o.out + o.err).find("s3cr3t"), std::string::npos) << o.out << o.err;
  std::string all = Shell("grep -rl s3cr3t " + dir_ + " --exclude-dir=api 2>/dev/null");
  EXPECT_EQ(all, "") << "token written to " << all;
  EXPECT_TRUE(api_->Objects("jobs").empty());
}

// A user-supplied manifest (here a plain Pod) gets hetbench's labels and
// the payload, and is followed like a generated Job.
TEST_F(K8sTest, UserSuppliedPodManifest) {
  StartServer();
  WriteSite();
  auto o = Run(R"(
name: mypod
executable: echo
executable_opts: ['from a user pod']
sanity: [{pattern: 'from a user pod'}]
k8s:
  manifest:
    apiVersion: v1
    kind: Pod
    metadata: {labels: {team: ml}}
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: debian:bookworm-slim
)");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

// A custom resource (as Graphcore's IPUJob): created from the test's
// manifest, followed by its state field, its pods found by label.
TEST_F(K8sTest, CustomResourceFollowedByStateField) {
  StartServer();
  WriteSite();
  auto o = Run(R"(
name: ipu
executable: echo
executable_opts: ['from the custom resource']
sanity: [{pattern: 'from the custom resource'}]
k8s:
  manifest:
    apiVersion: example.hetbench.io/v1
    kind: FakeIPUJob
    spec:
      replicas: 1
      template:
        spec:
          restartPolicy: Never
          containers:
            - {name: worker, image: graphcore/pytorch:3.3.0}
  custom_resource:
    plural: fakeipujobs
    pod_selector: 'fake.hetbench.io/owner={name}'
)");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

// Pods that can never be scheduled: the reason reaches the user, and
// max_pending_time ends the wait.
TEST_F(K8sTest, UnschedulableIsReportedAndBounded) {
  StartServer();
  WriteSite();
  auto o =
      Run("name: greedy\nexecutable: 'true'\nnum_gpus_per_node: 16\nmax_pending_time: 2s\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  std::string reason = Report()["cases"][0]["fail_reason"];
  EXPECT_NE(reason.find("Insufficient nvidia.com/gpu"), std::string::npos) << reason;
  EXPECT_NE(reason.find("max_pending_time"), std::string::npos) << reason;
}

// Kueue evicts a running Job (re-suspends it): it is queued again, not
// failed, and completes once re-admitted.
TEST_F(K8sTest, KueueEvictionRequeues) {
  StartServer();
  WriteSite("          queue_name: team-a\n");
  Write(dir_ + "/t.yaml",
        "name: evicted\nexecutable: sh\nexecutable_opts: ['-c', \"'sleep 2; echo finished'\"]\n"
        "sanity: [{pattern: finished}]\n");
  pid_t pid = e2e::StartHetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "site:kube"}, dir_);
  std::string job;
  ASSERT_TRUE(WaitFor(
      [&] {
        for (const auto& p : api_->Objects("pods"))
          if (p["status"].value("phase", "") == "Running") {
            job = p["metadata"]["labels"].value("job-name", "");
            return true;
          }
        return false;
      },
      30))
      << api_->State().dump(1);
  api_->Control("POST", "/fake/evict", R"({"namespace": "hb-test", "job": ")" + job + R"("})");
  EXPECT_EQ(e2e::WaitExit(pid, 60), 0) << Read(dir_ + "/hb.stdout") << Read(dir_ + "/hb.stderr");
  std::string log = Read(api_->dir() + "/requests.log");
  EXPECT_NE(log.find("/workloads"), std::string::npos) << "workloads were read while queued";
}

// The example site configuration in examples/k8s loads, and its test
// files list on its partitions.
TEST_F(K8sTest, ExampleSiteConfigurationLoads) {
  auto o = Hetbench(
      {"list", "-C", kSource + "/examples/k8s/site.yaml", "--system", "eidf", "-c", kSource + "/examples/k8s/tests"},
      dir_, 60);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("@eidf:a100+pytorch"), std::string::npos) << o.out;
}

// Opt-in: a real cluster (KUBECONFIG and HETBENCH_K8S_LIVE=1). Runs one
// small case in the context's namespace with a public busybox image
// (HETBENCH_K8S_IMAGE overrides it).
TEST(K8sLive, TrivialCaseOnARealCluster) {
  const char* live = std::getenv("HETBENCH_K8S_LIVE");
  const char* kc = std::getenv("KUBECONFIG");
  if (!live || std::string(live) != "1" || !kc) GTEST_SKIP() << "set KUBECONFIG and HETBENCH_K8S_LIVE=1";
  const char* image = std::getenv("HETBENCH_K8S_IMAGE");
  std::string dir = e2e::TempDir();
  Write(dir + "/site.yaml", std::string(R"(
systems:
  - name: live
    hostnames: ['.*']
    partitions:
      - name: kube
        scheduler: k8s
        launcher: local
        environs: [builtin]
        sched_options:
          image: )") + (image ? image : "busybox:1.36") +
                                R"(
          memory_default: 64Mi
          pod_security_context: {runAsUser: 0}
environments:
  - {name: builtin}
)");
  Write(dir + "/t.yaml",
        "name: live\nexecutable: echo\nexecutable_opts: ['value: 1.5']\n"
        "sanity: [{pattern: 'value: 1.5'}]\ntime_limit: 5m\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 600);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

}  // namespace
