#include "k8s/manifest.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cstdio>
#include <regex>

#include "sched/process.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

using nlohmann::json;

const char kScript[] = "#!/bin/bash\necho hello\n";

// A stage directory with a job script, and a job that runs it.
struct Stage {
  TempDir tmp;
  std::string dir;
  Job job;

  explicit Stage(const std::string& sub = "stage") {
    dir = tmp / sub;
    job.name = "hb_stream";
    job.workdir = dir;
    job.script_path = tmp.Write(sub + "/hb_job.sh", kScript);
    job.stdout_path = JoinPath(dir, "hb_job.out");
    job.stderr_path = JoinPath(dir, "hb_job.err");
    job.session_id = "s1";
    job.case_id = "stream %gpu @eidf:gpu+cuda";
    job.num_cpus_per_task = 4;
    job.time_limit_s = 90.5;
  }
};

K8sOptions Options(const std::string& extra = "{}") {
  json so = json::parse(R"({"namespace": "eidf095ns", "image": "busybox:1.36"})");
  so.merge_patch(json::parse(extra));
  auto o = ParseK8sOptions(so);
  EXPECT_TRUE(o.ok()) << o.status().str();
  return o.ok() ? *o : K8sOptions();
}

ManifestSet Make(const Job& job, const K8sOptions& opts) {
  auto m = MakeManifests(job, opts);
  EXPECT_TRUE(m.ok()) << m.status().str();
  return m.ok() ? *m : ManifestSet();
}

const json& MainJob(const ManifestSet& m) { return m.objects.at(m.main); }
const json& Container(const json& job) { return job["spec"]["template"]["spec"]["containers"][0]; }

// The container's env as name -> entry.
std::map<std::string, json> EnvOf(const json& container) {
  std::map<std::string, json> out;
  for (const auto& e : container["env"]) out[e["name"].get<std::string>()] = e;
  return out;
}

// Replaces what changes from run to run (the packed stage, the bootstrap
// with its nonce, the Service name) for golden comparisons.
json Masked(json obj, const std::string& service = "") {
  std::string text = obj.dump();
  if (!service.empty()) text = ReplaceAll(text, service, "<service>");
  obj = json::parse(text);
  auto mask_pod = [](json& spec) {
    for (auto& c : spec["containers"]) {
      c["command"][2] = "<bootstrap>";
      for (auto& e : c["env"])
        if (StartsWith(e["name"].get<std::string>(), "HETBENCH_STAGE_TGZ")) e["value"] = "<tgz>";
    }
  };
  if (obj["kind"] == "Job") mask_pod(obj["spec"]["template"]["spec"]);
  return obj;
}

// ------------------------------------------------ offline validation helper

bool HaveKubernetesClient() {
  static const bool have = std::system("/usr/bin/python3 -c 'import kubernetes.client' >/dev/null 2>&1") == 0;
  return have;
}

struct Validation {
  int rc = -1;
  std::string out;
};

// Runs tests/k8s/validate_manifest.py on the objects.
Validation Validate(const std::vector<json>& objects, const std::vector<std::string>& allow = {}) {
  TempDir t;
  std::string text;
  for (const auto& o : objects) text += o.dump(2) + "\n";
  std::string file = t.Write("manifests.json", text);
  std::string cmd = "/usr/bin/python3 " + ShellQuote(std::string(HB_SOURCE_DIR) + "/tests/k8s/validate_manifest.py");
  for (const auto& a : allow) cmd += " --allow " + ShellQuote(a);
  cmd += " " + ShellQuote(file) + " 2>&1";
  Validation v;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return v;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) v.out.append(buf, n);
  int status = pclose(p);
  v.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return v;
}

// Every manifest the tests make goes through the Python client.
void ExpectValid(const ManifestSet& m, const std::vector<std::string>& allow = {}) {
  if (!HaveKubernetesClient()) return;  // ManifestValidate tests report the skip
  Validation v = Validate(m.objects, allow);
  EXPECT_EQ(v.rc, 0) << v.out;
}

// Kubernetes' $(VAR) expansion of command, args and env values, as in
// kubernetes/third_party/forked/golang/expansion/expand.go.
std::string KubeExpand(const std::string& in, const std::map<std::string, std::string>& env) {
  std::string buf;
  size_t checkpoint = 0;
  for (size_t cursor = 0; cursor < in.size(); ++cursor) {
    if (in[cursor] != '$' || cursor + 1 >= in.size()) continue;
    buf += in.substr(checkpoint, cursor - checkpoint);
    std::string rest = in.substr(cursor + 1);
    size_t advance = 1;
    if (rest[0] == '$') {
      buf += "$";
    } else if (rest[0] == '(' && rest.find(')') != std::string::npos) {
      size_t close = rest.find(')');
      std::string name = rest.substr(1, close - 1);
      auto it = env.find(name);
      buf += it != env.end() ? it->second : "$(" + name + ")";
      advance = close + 1;
    } else {
      buf += rest[0] == '(' ? std::string("$(") : std::string("$") + rest[0];
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return buf + in.substr(std::min(checkpoint, in.size()));
}

// ----------------------------------------------------------- generated Job

TEST(ManifestTest, SinglePodJobGolden) {
  Stage s;
  K8sOptions o = Options(R"({
    "node_selector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"},
    "volumes": [{"name": "data", "claim_name": "eidf-data", "mount_path": "/data", "read_only": true}],
    "shm_size": "8Gi", "labels": {"team": "bench"}, "image_pull_secrets": ["regcred"],
    "security_context": {"allowPrivilegeEscalation": false}, "pod_security_context": {"fsGroup": 1000}})");
  s.job.env = {{"HETBENCH_JOB_MARK", "m$1"}};
  ManifestSet m = Make(s.job, o);
  ASSERT_EQ(m.objects.size(), 1u);
  EXPECT_EQ(m.main, 0u);
  EXPECT_EQ(m.main_kind, "jobs");
  EXPECT_EQ(m.api_prefixes, std::vector<std::string>{"/apis/batch/v1"});
  EXPECT_EQ(CollectionPath(m, 0, "eidf095ns"), "/apis/batch/v1/namespaces/eidf095ns/jobs");
  EXPECT_EQ(m.pods_expected, 1);
  EXPECT_TRUE(std::regex_match(m.nonce, std::regex("[0-9a-f]{16}")));
  const json labels = json::parse(R"({"app.kubernetes.io/managed-by": "hetbench", "hetbench.io/session": "s1",
                                      "hetbench.io/case": "CASE", "team": "bench"})");
  json want = json::parse(R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"generateName": "hb-stream-", "namespace": "eidf095ns", "labels": {},
                 "annotations": {"hetbench.io/case-id": "stream %gpu @eidf:gpu+cuda"}},
    "spec": {
      "backoffLimit": 0, "completions": 1, "parallelism": 1, "activeDeadlineSeconds": 91,
      "ttlSecondsAfterFinished": 3600,
      "template": {
        "metadata": {"labels": {}, "annotations": {"hetbench.io/case-id": "stream %gpu @eidf:gpu+cuda"}},
        "spec": {
          "restartPolicy": "Never", "enableServiceLinks": false,
          "nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"},
          "imagePullSecrets": [{"name": "regcred"}],
          "securityContext": {"fsGroup": 1000},
          "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "eidf-data", "readOnly": true}},
                      {"name": "hb-dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}],
          "containers": [{
            "name": "hetbench", "image": "busybox:1.36",
            "command": ["/bin/sh", "-c", "<bootstrap>"],
            "env": [{"name": "HETBENCH_STAGE_TGZ", "value": "<tgz>"},
                    {"name": "HETBENCH_JOB_MARK", "value": "m$$1"},
                    {"name": "HETBENCH_NTASKS", "value": "1"},
                    {"name": "HETBENCH_NTASKS_PER_POD", "value": "1"},
                    {"name": "HETBENCH_WORLD_SIZE", "value": "1"},
                    {"name": "WORLD_SIZE", "value": "1"},
                    {"name": "HETBENCH_RANK", "value": "0"},
                    {"name": "RANK", "value": "0"},
                    {"name": "HETBENCH_MASTER_ADDR", "value": "127.0.0.1"},
                    {"name": "MASTER_ADDR", "value": "127.0.0.1"},
                    {"name": "MASTER_PORT", "value": "29500"}],
            "resources": {"requests": {"cpu": "4", "memory": "1Gi"}, "limits": {"cpu": "4", "memory": "1Gi"}},
            "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": true},
                             {"name": "hb-dshm", "mountPath": "/dev/shm"}],
            "securityContext": {"allowPrivilegeEscalation": false}
          }]
        }
      }
    }
  })");
  std::string case_hash = MainJob(m)["metadata"]["labels"]["hetbench.io/case"];
  EXPECT_TRUE(std::regex_match(case_hash, std::regex("[0-9a-f]{16}")));
  json l = labels;
  l["hetbench.io/case"] = case_hash;
  want["metadata"]["labels"] = l;
  want["spec"]["template"]["metadata"]["labels"] = l;
  EXPECT_EQ(Masked(MainJob(m)), want) << Masked(MainJob(m)).dump(2);
  // The bootstrap, as Kubernetes will expand it, is the payload's.
  std::string cmd = Container(MainJob(m))["command"][2];
  EXPECT_NE(cmd.find("printf '@@hetbench-files %s begin@@\\n' \"$$hb_nonce\""), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("hb_nonce=" + m.nonce), std::string::npos);
  ExpectValid(m);
}

TEST(ManifestTest, IndexedJobWithHeadlessService) {
  Stage s;
  s.job.num_tasks = 8;
  s.job.num_tasks_per_node = 4;
  s.job.num_cpus_per_task = 2;
  s.job.session_id = "2024-05-01T10:00:00 run#1";
  ManifestSet m = Make(s.job, Options());
  ASSERT_EQ(m.objects.size(), 2u);
  ASSERT_EQ(m.main, 1u);
  EXPECT_EQ(m.pods_expected, 2);
  EXPECT_EQ(m.plurals, (std::vector<std::string>{"services", "jobs"}));
  EXPECT_EQ(CollectionPath(m, 0, "ns"), "/api/v1/namespaces/ns/services");
  const json& svc = m.objects[0];
  const json& job = MainJob(m);
  std::string name = svc["metadata"]["name"];
  EXPECT_TRUE(std::regex_match(name, std::regex("[a-z0-9]([-a-z0-9]*[a-z0-9])?"))) << name;
  EXPECT_LE(name.size(), 63u);
  EXPECT_EQ(svc["kind"], "Service");
  EXPECT_EQ(svc["metadata"]["namespace"], "eidf095ns");
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["ports"], json::parse(R"([{"name": "rendezvous", "port": 29500, "protocol": "TCP"}])"));
  // The Service selects this case's pods.
  const json& pod_labels = job["spec"]["template"]["metadata"]["labels"];
  for (auto it = svc["spec"]["selector"].begin(); it != svc["spec"]["selector"].end(); ++it)
    EXPECT_EQ(pod_labels[it.key()], it.value()) << it.key();
  EXPECT_EQ(svc["spec"]["selector"].size(), 2u);
  EXPECT_EQ(pod_labels["hetbench.io/session"], "2024-05-01T10-00-00-run-1");

  EXPECT_EQ(job["spec"]["completionMode"], "Indexed");
  EXPECT_EQ(job["spec"]["completions"], 2);
  EXPECT_EQ(job["spec"]["parallelism"], 2);
  EXPECT_EQ(job["spec"]["template"]["spec"]["subdomain"], name);
  auto env = EnvOf(Container(job));
  const std::string index = "metadata.annotations['batch.kubernetes.io/job-completion-index']";
  EXPECT_EQ(env["HETBENCH_RANK"]["valueFrom"]["fieldRef"]["fieldPath"], index);
  EXPECT_EQ(env["RANK"]["valueFrom"]["fieldRef"]["fieldPath"], index);
  EXPECT_EQ(env["HETBENCH_JOB_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "metadata.labels['job-name']");
  EXPECT_EQ(env["MASTER_ADDR"]["value"], "$(HETBENCH_JOB_NAME)-0." + name);
  EXPECT_EQ(env["HETBENCH_MASTER_ADDR"]["value"], "$(HETBENCH_JOB_NAME)-0." + name);
  EXPECT_EQ(env["MASTER_PORT"]["value"], "29500");
  EXPECT_EQ(env["HETBENCH_WORLD_SIZE"]["value"], "2");
  EXPECT_EQ(env["WORLD_SIZE"]["value"], "2");
  EXPECT_EQ(env["HETBENCH_NTASKS"]["value"], "8");
  EXPECT_EQ(env["HETBENCH_NTASKS_PER_POD"]["value"], "4");
  // JOB_NAME is defined before the variables that expand it.
  std::vector<std::string> order;
  for (const auto& e : Container(job)["env"]) order.push_back(e["name"]);
  EXPECT_LT(std::find(order.begin(), order.end(), "HETBENCH_JOB_NAME"), std::find(order.begin(), order.end(), "MASTER_ADDR"));
  // Kubernetes' expansion gives the rank-0 pod's name in the Service.
  EXPECT_EQ(KubeExpand(env["MASTER_ADDR"]["value"], {{"HETBENCH_JOB_NAME", "hb-stream-x7k2p"}}),
            "hb-stream-x7k2p-0." + name);
  // CPUs: per pod, 4 tasks of 2.
  EXPECT_EQ(Container(job)["resources"]["requests"]["cpu"], "8");
  ExpectValid(m);

  // Another attempt at the same case gets its own Service.
  ManifestSet again = Make(s.job, Options());
  EXPECT_NE(again.objects[0]["metadata"]["name"], name);
}

TEST(ManifestTest, TasksThatFitOnePodMakeOnePod) {
  Stage s;
  s.job.num_tasks = 4;
  s.job.num_tasks_per_node = 8;
  ManifestSet m = Make(s.job, Options());
  EXPECT_EQ(m.objects.size(), 1u);
  EXPECT_FALSE(MainJob(m)["spec"].contains("completionMode"));
  EXPECT_EQ(Container(MainJob(m))["resources"]["limits"]["cpu"], "16");
  s.job.num_tasks = 5;
  s.job.num_tasks_per_node = 2;
  m = Make(s.job, Options());
  EXPECT_EQ(m.pods_expected, 3);
}

TEST(ManifestTest, DevicesAndResourceOptions) {
  Stage s;
  s.job.num_gpus_per_node = 4;
  s.job.num_devices_per_node = {{"ipu", 2}, {"fpga", 0}};
  K8sOptions o = Options(R"({"device_resources": {"ipu": "graphcore.ai/ipu"}, "cpu_request": "500m",
                             "cpu_limit": "none", "memory_limit": "16Gi"})");
  ManifestSet m = Make(s.job, o);
  const json& res = Container(MainJob(m))["resources"];
  EXPECT_EQ(res, json::parse(R"({
    "requests": {"cpu": "500m", "memory": "16Gi", "nvidia.com/gpu": "4", "graphcore.ai/ipu": "2"},
    "limits": {"memory": "16Gi", "nvidia.com/gpu": "4", "graphcore.ai/ipu": "2"}})"))
      << res.dump();
  ExpectValid(m);

  s.job.num_devices_per_node = {{"tpu", 1}};
  auto bad = MakeManifests(s.job, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no Kubernetes resource for device type 'tpu'"), std::string::npos)
      << bad.status().message();
}

TEST(ManifestTest, KueueQueueSuspendsTheJob) {
  Stage s;
  ManifestSet m = Make(s.job, Options(R"({"queue_name": "eidf095ns-user-queue"})"));
  const json& job = MainJob(m);
  EXPECT_EQ(job["spec"]["suspend"], true);
  EXPECT_EQ(job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "eidf095ns-user-queue");
  EXPECT_FALSE(job["spec"]["template"]["metadata"]["labels"].contains("kueue.x-k8s.io/queue-name"));
  ExpectValid(m);
  m = Make(s.job, Options());
  EXPECT_FALSE(MainJob(m)["spec"].contains("suspend"));
}

TEST(ManifestTest, KeptFailedJobsAreNotGarbageCollected) {
  Stage s;
  EXPECT_EQ(MainJob(Make(s.job, Options()))["spec"]["ttlSecondsAfterFinished"], 3600);
  EXPECT_FALSE(MainJob(Make(s.job, Options(R"({"keep_failed_jobs": true})")))["spec"].contains("ttlSecondsAfterFinished"));
  EXPECT_FALSE(MainJob(Make(s.job, Options(R"({"ttl_seconds_after_finished": -1})")))["spec"].contains("ttlSecondsAfterFinished"));
  EXPECT_EQ(MainJob(Make(s.job, Options(R"({"ttl_seconds_after_finished": 0})")))["spec"]["ttlSecondsAfterFinished"], 0);
}

TEST(ManifestTest, DeadlineIsRoundedUp) {
  Stage s;
  s.job.time_limit_s = 60;
  EXPECT_EQ(MainJob(Make(s.job, Options()))["spec"]["activeDeadlineSeconds"], 60);
  s.job.time_limit_s = 0.2;
  EXPECT_EQ(MainJob(Make(s.job, Options()))["spec"]["activeDeadlineSeconds"], 1);
  s.job.time_limit_s = 0;
  EXPECT_FALSE(MainJob(Make(s.job, Options()))["spec"].contains("activeDeadlineSeconds"));
}

TEST(ManifestTest, NamesAreDnsSafe) {
  Stage s;
  const std::regex dns("[a-z0-9]([-a-z0-9]*[a-z0-9])?-");
  struct Case {
    std::string name;
    std::string want;
  };
  const Case cases[] = {{"hb_NCCL Test!", "hb-nccl-test-"},
                        {"__Über__", "ber-"},
                        {"***", "hb-"},
                        {"hb_" + std::string(100, 'x'), ""}};
  for (const auto& c : cases) {
    s.job.name = c.name;
    std::string g = MainJob(Make(s.job, Options()))["metadata"]["generateName"];
    EXPECT_TRUE(std::regex_match(g, dns)) << g;
    EXPECT_LE(g.size(), 57u) << g;
    if (!c.want.empty()) {
      EXPECT_EQ(g, c.want);
    }
  }
  // Pods of an Indexed Job are named NAME-INDEX: room for the index.
  s.job.num_tasks = 12;
  s.job.num_tasks_per_node = 1;
  std::string g = MainJob(Make(s.job, Options()))["metadata"]["generateName"];
  EXPECT_LE(g.size() + 5 + std::string("-11").size(), 63u) << g;
  // Label values are label-safe whatever the session id.
  s.job.session_id = "-" + std::string(80, 'a') + " b:c/";
  std::string session = MainJob(Make(s.job, Options()))["metadata"]["labels"]["hetbench.io/session"];
  EXPECT_TRUE(std::regex_match(session, std::regex("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"))) << session;
  EXPECT_LE(session.size(), 63u);
}

TEST(ManifestTest, ImageComesFromTheJobThenTheOptions) {
  Stage s;
  s.job.image = "nvcr.io/nvidia/pytorch:24.01-py3";
  EXPECT_EQ(Container(MainJob(Make(s.job, Options())))["image"], "nvcr.io/nvidia/pytorch:24.01-py3");
  s.job.image.clear();
  EXPECT_EQ(Container(MainJob(Make(s.job, Options())))["image"], "busybox:1.36");
  K8sOptions o = Options();
  o.image.clear();
  auto r = MakeManifests(s.job, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "no container image: set `image` in the test or in its environment, or `image` in the partition's "
            "sched_options");
}

TEST(ManifestTest, JobSpecExtraAndTheTestBlock) {
  Stage s;
  K8sOptions base = Options(R"({"job_spec_extra": {"podFailurePolicy": {"rules": [
      {"action": "FailJob", "onExitCodes": {"containerName": "hetbench", "operator": "In", "values": [42]}}]}}})");
  s.job.backend_spec = json::parse(R"({"node_selector": {"kubernetes.io/arch": "arm64"}, "image": "arm:1"})");
  auto o = ApplyTestK8s(base, s.job.backend_spec, "test 'stream'");
  ASSERT_TRUE(o.ok()) << o.status().str();
  ManifestSet m = Make(s.job, *o);
  const json& job = MainJob(m);
  EXPECT_EQ(job["spec"]["podFailurePolicy"]["rules"][0]["action"], "FailJob");
  EXPECT_EQ(job["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/arch"], "arm64");
  EXPECT_EQ(Container(job)["image"], "arm:1");
  ExpectValid(m, {"spec.podFailurePolicy"});
}

TEST(ManifestTest, TooBigStageNeedsAStagingVolume) {
  Stage s;
  std::string noise;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 700 * 1024; ++i) {  // xorshift: does not compress
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    noise += static_cast<char>(x & 0xff);
  }
  s.tmp.Write("stage/data.bin", noise);
  auto r = MakeManifests(s.job, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("packs to 70"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("more than the 512 KiB"), std::string::npos);
  EXPECT_NE(r.status().message().find("`staging_volume`"), std::string::npos);

  // On a staging volume nothing travels in the manifest.
  K8sOptions o = Options(json{{"staging_volume", "stage-pvc"}, {"staging_pod_path", "/stage"},
                               {"staging_host_path", s.tmp.path()}}.dump());
  ManifestSet m = Make(s.job, o);
  const json& pod = MainJob(m)["spec"]["template"]["spec"];
  for (const auto& e : Container(MainJob(m))["env"])
    EXPECT_FALSE(StartsWith(e["name"].get<std::string>(), "HETBENCH_STAGE")) << e.dump();
  EXPECT_EQ(pod["volumes"][0]["persistentVolumeClaim"]["claimName"], "stage-pvc");
  EXPECT_EQ(Container(MainJob(m))["volumeMounts"][0]["mountPath"], "/stage");
  std::string cmd = Container(MainJob(m))["command"][2];
  EXPECT_NE(cmd.find("ln -s /stage/stage " + ShellQuote(s.dir)), std::string::npos) << cmd;
  ExpectValid(m);
  // A stage outside the staging path is an error.
  o.staging_host_path = "/elsewhere";
  r = MakeManifests(s.job, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is not under staging_host_path /elsewhere"), std::string::npos);
}

TEST(ManifestTest, LargeStageIsSplitAcrossVariables) {
  Stage s;
  std::string noise;
  uint64_t x = 2463534242ull;
  for (int i = 0; i < 300 * 1024; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    noise += static_cast<char>(x & 0xff);
  }
  s.tmp.Write("stage/data.bin", noise);
  auto p = MakePayload(s.job, Options());
  ASSERT_TRUE(p.ok()) << p.status().str();
  ASSERT_GE(p->env.size(), 4u);
  EXPECT_EQ(p->env[0].first, "HETBENCH_STAGE_TGZ");
  EXPECT_EQ(p->env[1].first, "HETBENCH_STAGE_TGZ_1");
  for (const auto& [k, v] : p->env) EXPECT_LT(k.size() + v.size(), 128u * 1024) << k;
  EXPECT_NE(p->command[2].find("\"$HETBENCH_STAGE_TGZ\" \"$HETBENCH_STAGE_TGZ_1\""), std::string::npos);
}

// ------------------------------------------------------- user manifests

TEST(ManifestTest, UserPodGetsLabelsNameAndPayload) {
  Stage s;
  K8sOptions o = Options(R"({"manifest": {"apiVersion": "v1", "kind": "Pod",
      "metadata": {"name": "mine", "namespace": "other", "labels": {"app": "x"}},
      "spec": {"containers": [{"name": "main", "image": "alpine:3"}]}}})");
  ManifestSet m = Make(s.job, o);
  ASSERT_EQ(m.objects.size(), 1u);
  EXPECT_EQ(m.main_kind, "pods");
  EXPECT_EQ(CollectionPath(m, 0, "eidf095ns"), "/api/v1/namespaces/eidf095ns/pods");
  const json& pod = m.objects[0];
  EXPECT_FALSE(pod["metadata"].contains("name"));
  EXPECT_EQ(pod["metadata"]["generateName"], "hb-stream-");
  EXPECT_EQ(pod["metadata"]["namespace"], "eidf095ns");
  EXPECT_EQ(pod["metadata"]["labels"]["app"], "x");
  EXPECT_EQ(pod["metadata"]["labels"]["app.kubernetes.io/managed-by"], "hetbench");
  EXPECT_EQ(pod["metadata"]["annotations"]["hetbench.io/case-id"], s.job.case_id);
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(pod["spec"]["activeDeadlineSeconds"], 91);  // the test's time_limit, 90.5 s
  const json& c = pod["spec"]["containers"][0];
  EXPECT_EQ(c["image"], "alpine:3");
  EXPECT_EQ(c["command"][0], "/bin/sh");
  EXPECT_EQ(c["env"][0]["name"], "HETBENCH_STAGE_TGZ");
  EXPECT_NE(c["command"][2].get<std::string>().find(m.nonce), std::string::npos);
  ExpectValid(m);

  o.keep_name = true;
  o.ns.clear();
  m = Make(s.job, o);
  EXPECT_EQ(m.objects[0]["metadata"]["name"], "mine");
  EXPECT_FALSE(m.objects[0]["metadata"].contains("generateName"));
  EXPECT_FALSE(m.objects[0]["metadata"].contains("namespace"));
}

TEST(ManifestTest, UserJobKeepsItsOwnCommand) {
  Stage s;
  s.tmp.Write("stage/big.bin", std::string(3 << 20, 'x'));  // never packed: no payload
  K8sOptions o = Options(R"j({"manifest": {"apiVersion": "batch/v1", "kind": "Job",
      "metadata": {"generateName": "own-"},
      "spec": {"completions": 3, "parallelism": 3, "backoffLimit": 2, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "main", "image": "alpine:3", "command": ["echo", "$(HOME)"]}]}}}}})j");
  ManifestSet m = Make(s.job, o);
  EXPECT_EQ(m.main_kind, "jobs");
  EXPECT_EQ(m.pods_expected, 3);
  EXPECT_EQ(m.nonce, "");
  const json& job = m.objects[0];
  EXPECT_EQ(job["metadata"]["generateName"], "own-");
  EXPECT_EQ(job["spec"]["backoffLimit"], 2);  // the manifest's own
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 91);
  EXPECT_EQ(Container(job)["command"], json::parse(R"j(["echo", "$(HOME)"])j"));
  EXPECT_FALSE(Container(job).contains("env"));
  EXPECT_EQ(job["spec"]["template"]["metadata"]["labels"]["hetbench.io/session"], "s1");
  ExpectValid(m);
}

TEST(ManifestTest, UserJobGetsNoRetriesAndTheTimeLimitUnlessItSetsThem) {
  Stage s;
  K8sOptions o = Options(R"j({"manifest": {"apiVersion": "batch/v1", "kind": "Job",
      "spec": {"template": {"spec": {"restartPolicy": "Never",
        "containers": [{"name": "main", "image": "alpine:3", "command": ["false"]}]}}}}})j");
  json job = Make(s.job, o).objects[0];
  EXPECT_EQ(job["spec"]["backoffLimit"], 0);
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 91);
  EXPECT_EQ(job["spec"]["ttlSecondsAfterFinished"], 3600);  // the partition's TTL
  o.keep_failed_jobs = true;  // --keep-failed-jobs: no TTL, failed Jobs stay
  EXPECT_FALSE(Make(s.job, o).objects[0]["spec"].contains("ttlSecondsAfterFinished"));
  o.keep_failed_jobs = false;
  o.manifest["spec"]["ttlSecondsAfterFinished"] = 60;  // the manifest's own wins
  EXPECT_EQ(Make(s.job, o).objects[0]["spec"]["ttlSecondsAfterFinished"], 60);
  o.manifest["spec"]["activeDeadlineSeconds"] = 30;
  job = Make(s.job, o).objects[0];
  EXPECT_EQ(job["spec"]["activeDeadlineSeconds"], 30);
  s.job.time_limit_s = 0;  // no limit: none added
  o.manifest["spec"].erase("activeDeadlineSeconds");
  job = Make(s.job, o).objects[0];
  EXPECT_FALSE(job["spec"].contains("activeDeadlineSeconds"));
}

TEST(ManifestTest, CustomResourceNeedsItsPlural) {
  Stage s;
  json ipu = json::parse(R"({"apiVersion": "graphcore.ai/v1alpha1", "kind": "IPUJob",
      "metadata": {"name": "bert"},
      "spec": {"jobInstances": 1, "ipusPerJobInstance": "4",
               "workers": {"template": {"spec": {"containers": [{"name": "w", "image": "graphcore/pytorch"}]}}}}})");
  K8sOptions o = Options();
  // A kind hetbench has no defaults for needs its plural.
  json other = ipu;
  other["apiVersion"] = "example.org/v1";
  other["kind"] = "Trainer";
  o.manifest = other;
  auto r = MakeManifests(s.job, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is a custom resource: set custom_resource.plural (e.g. trainers)"),
            std::string::npos)
      << r.status().message();
  // Graphcore's IPUJob is known: plural ipujobs.
  o.manifest = ipu;
  ManifestSet m = Make(s.job, o);
  EXPECT_EQ(m.main_kind, "ipujobs");
  EXPECT_EQ(CollectionPath(m, 0, "ns"), "/apis/graphcore.ai/v1alpha1/namespaces/ns/ipujobs");
  const json& tmpl = m.objects[0]["spec"]["workers"]["template"];
  EXPECT_EQ(tmpl["spec"]["containers"][0]["command"][0], "/bin/sh");
  EXPECT_EQ(tmpl["metadata"]["labels"]["hetbench.io/case"], m.objects[0]["metadata"]["labels"]["hetbench.io/case"]);
  if (HaveKubernetesClient()) {
    Validation v = Validate(m.objects);
    EXPECT_EQ(v.rc, 0) << v.out;
    EXPECT_NE(v.out.find("note: skipped IPUJob"), std::string::npos) << v.out;
  }
  o.custom_resource.api_version = "graphcore.ai/v1";
  EXPECT_FALSE(MakeManifests(s.job, o).ok());
  o.manifest = json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap"})");
  EXPECT_FALSE(MakeManifests(s.job, o).ok());
}

// ----------------------------------------------------- validation script

// Extended-resource names have a domain with dots; a quantity written as a
// number there is fine (the client keeps quantities as strings), and no
// false "wrong type" is reported.
TEST(ManifestValidateTest, AcceptsExtendedResourceQuantities) {
  ASSERT_TRUE(HaveKubernetesClient()) << "no python3-kubernetes for /usr/bin/python3 (run ./scripts/deps)";
  json pod = json::parse(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "ns"},
      "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "alpine:3",
        "resources": {"limits": {"nvidia.com/gpu": 1, "graphcore.ai/ipu": 2, "cpu": "500m", "memory": "1Gi"},
                      "requests": {"nvidia.com/gpu": "1", "cpu": 0.5}}}]}})");
  Validation v = Validate({pod});
  EXPECT_EQ(v.rc, 0) << v.out;
  EXPECT_EQ(v.out.find("wrong type"), std::string::npos) << v.out;
  // A number where the API wants a string, outside a quantity, still is.
  pod["spec"]["containers"][0]["image"] = 3;
  v = Validate({pod});
  EXPECT_EQ(v.rc, 1) << v.out;
}

TEST(ManifestValidateTest, CatchesAMisspeltField) {
  // scripts/deps installs python3-kubernetes: its absence is a broken setup, not a reason to skip.
  ASSERT_TRUE(HaveKubernetesClient()) << "no python3-kubernetes for /usr/bin/python3 (run ./scripts/deps)";
  Stage s;
  ManifestSet m = Make(s.job, Options());
  json job = MainJob(m);
  job["spec"]["backofLimit"] = job["spec"]["backoffLimit"];
  job["spec"].erase("backoffLimit");
  Validation v = Validate({job});
  EXPECT_EQ(v.rc, 1) << v.out;
  EXPECT_NE(v.out.find("spec.backofLimit: unknown field"), std::string::npos) << v.out;

  job = MainJob(m);
  job["spec"]["template"]["spec"]["containers"][0]["volumeMount"] = json::array();
  v = Validate({job});
  EXPECT_EQ(v.rc, 1);
  EXPECT_NE(v.out.find("spec.template.spec.containers[0].volumeMount: unknown field"), std::string::npos) << v.out;

  job = MainJob(m);
  job["spec"]["podFailurePolicy"] = json::parse(R"({"rules": []})");
  EXPECT_EQ(Validate({job}).rc, 1);
  EXPECT_EQ(Validate({job}, {"spec.podFailurePolicy"}).rc, 0);

  job = MainJob(m);
  job["spec"]["backoffLimit"] = "0";
  v = Validate({job});
  EXPECT_EQ(v.rc, 1);
  EXPECT_NE(v.out.find("spec.backoffLimit: \"0\" became 0"), std::string::npos) << v.out;
}

// ------------------------------------------------------------- the payload

// Runs a container's command as the kubelet would: $(VAR) expanded from the
// container's env (values expanded too), in a clean environment.
struct PodRun {
  int status = -1;
  std::string log, shell_err;
};

PodRun RunContainer(const json& container, const TempDir& tmp) {
  std::map<std::string, std::string> env;
  std::vector<std::pair<std::string, std::string>> env_list = {{"HOME", tmp.path()}, {"TMPDIR", tmp.path()}};
  for (const auto& e : container["env"]) {
    if (!e.contains("value")) continue;
    std::string v = KubeExpand(e["value"], env);
    env[e["name"]] = v;
    env_list.emplace_back(e["name"], v);
  }
  SpawnOptions so;
  for (const auto& a : container["command"]) so.argv.push_back(KubeExpand(a, env));
  so.cwd = tmp.path();
  so.env = env_list;
  so.stdout_path = tmp / "pod.log";
  so.stderr_path = tmp / "pod.stderr";
  PodRun r;
  auto pid = SpawnProcess(so);
  EXPECT_TRUE(pid.ok()) << pid.status().str();
  if (!pid.ok()) return r;
  int st = 0;
  waitpid(*pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.log = ReadFile(so.stdout_path).value();
  r.shell_err = ReadFile(so.stderr_path).value();
  return r;
}

TEST(ManifestPayloadTest, RoundTripThroughAShell) {
  // Shell and Kubernetes metacharacters in every path and name.
  Stage s("st age $(HOME) $$ 'q' \"d\" `x` ;&|");
  s.job.script_path = s.tmp.Write("st age $(HOME) $$ 'q' \"d\" `x` ;&|/run me.sh",
                                  "#!/bin/bash\n"
                                  "cd " + ShellQuote(s.dir) + " || exit 125\n"
                                  "echo \"hello stdout\"\n"
                                  "printf 'no newline'\n"
                                  "echo \"hello stderr\" >&2\n"
                                  "cat input.txt > 'out $1 file.txt'\n"
                                  "echo dat > a.dat; echo dat > b.dat\n"
                                  "exit 3\n");
  s.tmp.Write("st age $(HOME) $$ 'q' \"d\" `x` ;&|/input.txt", "from the stage\n");
  s.job.build_script_path = s.tmp.Write("st age $(HOME) $$ 'q' \"d\" `x` ;&|/hb_build.sh",
                                        "echo building; echo built > built.bin; echo warn >&2\n");
  s.job.fetch_files = {"out $1 file.txt", "*.dat", "missing.txt", "built.bin"};
  ManifestSet m = Make(s.job, Options());
  ExpectValid(m);
  // The pod starts without the stage directory: it must come from the manifest.
  ASSERT_EQ(std::rename(s.dir.c_str(), (s.tmp / "original").c_str()), 0);

  PodRun run = RunContainer(Container(MainJob(m)), s.tmp);
  EXPECT_EQ(run.status, 3) << run.log << run.shell_err;
  EXPECT_EQ(run.shell_err, "");
  auto out = ParsePodLog(run.log, m.nonce, "hb-stream-abcde");
  ASSERT_TRUE(out.ok()) << out.status().str();
  EXPECT_EQ(out->stdout_text, "hello stdout\nno newline");
  EXPECT_EQ(out->exit_status, 3);
  ASSERT_FALSE(out->archive.empty());

  std::string back = s.tmp / "back";
  Status st = ExtractArchive(out->archive, back);
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(ReadFile(JoinPath(back, "out $1 file.txt")).value(), "from the stage\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "a.dat")).value(), "dat\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "b.dat")).value(), "dat\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "built.bin")).value(), "built\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "hb_job.err")).value(), "hello stderr\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "hb_build.out")).value(), "building\n");
  EXPECT_EQ(ReadFile(JoinPath(back, "hb_build.err")).value(), "warn\n");
  EXPECT_FALSE(PathExists(JoinPath(back, "missing.txt")));
  EXPECT_FALSE(PathExists(JoinPath(back, "input.txt")));  // only what was asked for
}

TEST(ManifestPayloadTest, FailedBuildStopsTheJob) {
  Stage s;
  s.job.build_script_path = s.tmp.Write("stage/hb_build.sh", "echo compiling; echo 'error: no cc' >&2; exit 7\n");
  ManifestSet m = Make(s.job, Options());
  ASSERT_EQ(std::rename(s.dir.c_str(), (s.tmp / "original").c_str()), 0);
  PodRun run = RunContainer(Container(MainJob(m)), s.tmp);
  EXPECT_EQ(run.status, 7);
  auto out = ParsePodLog(run.log, m.nonce, "p");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->stdout_text, "");  // the job script never ran
  EXPECT_EQ(out->exit_status, 7);
  ASSERT_TRUE(ExtractArchive(out->archive, s.tmp / "back").ok());
  EXPECT_EQ(ReadFile(s.tmp / "back/hb_build.err").value(), "error: no cc\n");
  EXPECT_NE(ReadFile(s.tmp / "back/hb_job.err").value().find("the build script hb_build.sh failed with exit status 7"),
            std::string::npos);
}

TEST(ManifestPayloadTest, StageThatCannotBeCreatedIsReported) {
  Stage s;
  s.job.workdir = "/proc/hetbench-cannot-be-here";
  s.job.script_path = "/proc/hetbench-cannot-be-here/hb_job.sh";
  s.job.stderr_path.clear();
  // Packing needs the folder on this side: make the payload from a real one.
  auto p = MakePayload(s.job, Options());
  ASSERT_FALSE(p.ok());  // tar cannot read it
  Stage real;
  auto ok = MakePayload(real.job, Options());
  ASSERT_TRUE(ok.ok());
  std::string script = ReplaceAll(ok->command[2], ShellQuote(real.dir), "/proc/hetbench-cannot-be-here");
  json c = {{"command", {"/bin/sh", "-c", EscapeKubeExpansion(script)}}, {"env", json::array()}};
  for (const auto& [k, v] : ok->env) c["env"].push_back({{"name", k}, {"value", v}});
  PodRun run = RunContainer(c, real.tmp);
  EXPECT_EQ(run.status, 1);
  auto out = ParsePodLog(run.log, ok->nonce, "p");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->exit_status, 1);
  EXPECT_NE(out->stdout_text.find("hetbench: cannot create the stage directory /proc/hetbench-cannot-be-here"),
            std::string::npos)
      << out->stdout_text;
}

TEST(ManifestPayloadTest, StderrFileFollowsTheJob) {
  Stage s;
  auto p = MakePayload(s.job, Options());
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->command[2].find("hb_err=hb_job.err\n"), std::string::npos);
  s.job.stderr_path = JoinPath(s.dir, "logs/err file.txt");
  p = MakePayload(s.job, Options());
  EXPECT_NE(p->command[2].find("hb_err='logs/err file.txt'\n"), std::string::npos);
  s.job.stderr_path = "/elsewhere/run.err";  // outside: its base name in the stage
  p = MakePayload(s.job, Options());
  EXPECT_NE(p->command[2].find("hb_err=run.err\n"), std::string::npos);
  s.job.stderr_path.clear();
  p = MakePayload(s.job, Options());
  EXPECT_NE(p->command[2].find("hb_err=hb_job.err\n"), std::string::npos);
  // Scripts and result files must be in the stage directory.
  s.job.script_path = "/elsewhere/hb_job.sh";
  p = MakePayload(s.job, Options());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("the job script '/elsewhere/hb_job.sh' is not in the stage directory"),
            std::string::npos);
  Stage t;
  t.job.fetch_files = {"../secret"};
  EXPECT_FALSE(MakePayload(t.job, Options()).ok());
  t.job.fetch_files = {JoinPath(t.dir, "out/*.json")};  // absolute inside: made relative
  p = MakePayload(t.job, Options());
  ASSERT_TRUE(p.ok()) << p.status().str();
  EXPECT_NE(p->command[2].find("for hb_f in out/*.json "), std::string::npos);
}

TEST(ManifestPayloadTest, ParsePodLogEdges) {
  auto r = ParsePodLog("just output\n", "0123456789abcdef", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "just output\n");
  EXPECT_EQ(r->exit_status, -1);
  EXPECT_EQ(r->archive, "");

  // Killed while writing the files: no end marker.
  r = ParsePodLog("out\n@@hetbench-files 0123456789abcdef begin@@\nH4sI", "0123456789abcdef", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "out\n");
  EXPECT_EQ(r->exit_status, -1);

  // Another job's markers are output.
  std::string other = "@@hetbench-files ffffffffffffffff begin@@\n@@hetbench-files ffffffffffffffff end 0@@\n";
  r = ParsePodLog(other, "0123456789abcdef", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, other);

  r = ParsePodLog("x@@hetbench-files n begin@@\naGVs\nbG8=\n@@hetbench-files n end 0@@\n", "n", "p");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stdout_text, "x");
  EXPECT_EQ(r->exit_status, 0);
  EXPECT_EQ(r->archive, "hello");

  r = ParsePodLog("@@hetbench-files n begin@@\n%%%\n@@hetbench-files n end 2@@\n", "n", "hb-x-1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "pod hb-x-1: the result files in the log are not valid base64");
}

TEST(ManifestPayloadTest, ExtractRefusesPathsOutsideAndLinks) {
  TempDir t;
  auto pack = [&](const std::string& py) {
    std::string file = t / "a.tgz";
    std::string cmd = "/usr/bin/python3 -c " +
                      ShellQuote("import io, tarfile\n"
                                 "t = tarfile.open('" + file + "', 'w:gz')\n" + py +
                                 "t.close()\n");
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return ReadFile(file).value();
  };
  std::string add = "def add(name, data=b'x'):\n"
                    "    i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n";
  Status st = ExtractArchive(pack(add + "add('ok.txt')\nadd('../evil.txt')\n"), t / "out");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'../evil.txt', which is outside the stage directory"), std::string::npos) << st.str();
  EXPECT_FALSE(PathExists(t / "evil.txt"));
  st = ExtractArchive(pack(add + "add('/tmp/abs.txt')\n"), t / "out");
  EXPECT_FALSE(st.ok());
  st = ExtractArchive(pack("i = tarfile.TarInfo('l'); i.type = tarfile.SYMTYPE; i.linkname = '/etc'; t.addfile(i)\n"),
                      t / "out");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("link"), std::string::npos);
  st = ExtractArchive(pack(add + "add('sub/ok.txt', b'fine')\n"), t / "out");
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(ReadFile(t / "out/sub/ok.txt").value(), "fine");
  EXPECT_FALSE(ExtractArchive("not a tar", t / "out").ok());
}

TEST(ManifestPayloadTest, EscapeSurvivesKubernetesExpansion) {
  for (std::string s : {"plain", "$HOME", "$(HOME)", "$$", "a$", "$$(X)", "$(", "x $(MASTER_ADDR) $1 $$$"}) {
    EXPECT_EQ(KubeExpand(EscapeKubeExpansion(s), {{"HOME", "/root"}, {"X", "y"}, {"MASTER_ADDR", "m"}}), s) << s;
  }
}

}  // namespace
}  // namespace hb
