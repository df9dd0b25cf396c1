#include "k8s/manifest.h"

#include <gtest/gtest.h>

#include "k8s/manifest_test_util.h"

namespace hb {
namespace {

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
  EXPECT_LT(std::find(order.begin(), order.end(), "HETBENCH_JOB_NAME"),
            std::find(order.begin(), order.end(), "MASTER_ADDR"));
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
  EXPECT_FALSE(
      MainJob(Make(s.job, Options(R"({"keep_failed_jobs": true})")))["spec"].contains("ttlSecondsAfterFinished"));
  EXPECT_FALSE(MainJob(Make(s.job, Options(R"({"ttl_seconds_after_finished": -1})")))["spec"].contains(
      "ttlSecondsAfterFinished"));
  EXPECT_EQ(MainJob(Make(s.job, Options(R"({"ttl_seconds_after_finished": 0})")))["spec"]["ttlSecondsAfterFinished"],
            0);
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
  const Case cases[] = {
      {"hb_NCCL Test!", "hb-nccl-test-"}, {"__Über__", "ber-"}, {"***", "hb-"}, {"hb_" + std::string(100, 'x'), ""}};
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
  K8sOptions o =
      Options(json{{"staging_volume", "stage-pvc"}, {"staging_pod_path", "/stage"}, {"staging_host_path", s.tmp.path()}}
                  .dump());
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
  o.keep_failed_jobs = true;                                // --keep-failed-jobs: no TTL, failed Jobs stay
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

}  // namespace
}  // namespace hb
