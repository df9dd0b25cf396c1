#include "k8s/k8s_options.h"

#include <gtest/gtest.h>

#include "util/strings.h"

namespace hb {
namespace {

using nlohmann::json;

K8sOptions Parse(const json& j) {
  auto r = ParseK8sOptions(j);
  EXPECT_TRUE(r.ok()) << r.status().str();
  return r.ok() ? *r : K8sOptions();
}

std::string ParseError(const json& j) {
  auto r = ParseK8sOptions(j);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().str();
}

TEST(K8sOptionsTest, DefaultsWhenEmpty) {
  K8sOptions o = Parse(json(nullptr));
  EXPECT_EQ(o.memory_default, "1Gi");
  EXPECT_EQ(o.ttl_seconds_after_finished, 3600);
  EXPECT_EQ(o.device_resources.at("gpu"), "nvidia.com/gpu");
  EXPECT_TRUE(o.manifest.is_null());
  EXPECT_FALSE(o.keep_failed_jobs);
}

TEST(K8sOptionsTest, EveryKeyIsParsed) {
  json so = json::parse(R"({
    "kubeconfig": "/home/u/.kube/config", "context": "eidf", "namespace": "eidf095ns",
    "image": "busybox:1.36", "cpu_request": 2, "cpu_limit": "none", "memory_request": "4Gi",
    "memory_limit": "8Gi", "memory_default": "2Gi",
    "device_resources": {"ipu": "graphcore.ai/ipu"},
    "node_selector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"},
    "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "affinity": {"nodeAffinity": {}},
    "image_pull_secrets": ["regcred", {"name": "other"}],
    "service_account_name": "runner", "priority_class_name": "high",
    "security_context": {"runAsNonRoot": true}, "pod_security_context": {"fsGroup": 1000},
    "volumes": [{"name": "data", "claim_name": "eidf-data", "mount_path": "/data", "read_only": true},
                {"name": "scratch", "mount_path": "/scratch", "emptyDir": {}},
                {"name": "nfs", "mount_path": "/nfs", "source": {"nfs": {"server": "s", "path": "/x"}}}],
    "shm_size": "8Gi", "queue_name": "eidf095ns-user-queue",
    "labels": {"team": "bench", "n": 3}, "annotations": {"example.com/note": "a b c"},
    "ttl_seconds_after_finished": -1, "keep_failed_jobs": true,
    "job_spec_extra": {"podFailurePolicy": {"rules": []}},
    "staging_volume": "stage-pvc", "staging_host_path": "/mnt/stage", "staging_pod_path": "/stage",
    "manifest": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}, "keep_name": true,
    "custom_resource": {"api_version": "graphcore.ai/v1alpha1", "plural": "ipujobs",
                        "pod_selector": "ipujob={name}", "state_field": "status.phase",
                        "success_values": ["Done"], "failure_values": ["Bad"],
                        "queued_values": ["Waiting"], "running_values": ["Busy", "Stepping"]},
    "fail_waiting_reasons": ["ErrImagePull"], "waiting_grace_s": "2m",
    "job_submit_timeout": 20, "min_poll_interval": 0.5, "max_poll_interval": 5, "poll_backoff": 2,
    "query_timeout": 10, "lost_after": 30, "max_query_failure_time": 100, "max_resubmits": 1,
    "resubmit_on_errors": ["TooManyRequests"], "cancel_pending_reasons": ["Unschedulable"]
  })");
  // The test names every key, so a key added later must be added here too.
  for (const auto& key : K8sOptionKeys()) EXPECT_TRUE(so.contains(key)) << key;
  K8sOptions o = Parse(so);
  EXPECT_EQ(o.kubeconfig, "/home/u/.kube/config");
  EXPECT_EQ(o.context, "eidf");
  EXPECT_EQ(o.ns, "eidf095ns");
  EXPECT_EQ(o.image, "busybox:1.36");
  EXPECT_EQ(o.cpu_request, "2");
  EXPECT_EQ(o.cpu_limit, "none");
  EXPECT_EQ(o.memory_request, "4Gi");
  EXPECT_EQ(o.memory_limit, "8Gi");
  EXPECT_EQ(o.memory_default, "2Gi");
  EXPECT_EQ(o.device_resources.at("ipu"), "graphcore.ai/ipu");
  EXPECT_EQ(o.device_resources.at("gpu"), "nvidia.com/gpu");  // defaults stay
  EXPECT_EQ(o.node_selector.at("nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-40GB");
  EXPECT_EQ(o.tolerations.size(), 1u);
  EXPECT_TRUE(o.affinity.contains("nodeAffinity"));
  EXPECT_EQ(o.image_pull_secrets, (std::vector<std::string>{"regcred", "other"}));
  EXPECT_EQ(o.service_account_name, "runner");
  EXPECT_EQ(o.priority_class_name, "high");
  EXPECT_EQ(o.security_context["runAsNonRoot"], true);
  EXPECT_EQ(o.pod_security_context["fsGroup"], 1000);
  ASSERT_EQ(o.volumes.size(), 3u);
  EXPECT_EQ(o.volumes[0].claim_name, "eidf-data");
  EXPECT_TRUE(o.volumes[0].read_only);
  EXPECT_EQ(o.volumes[1].source, json::parse(R"({"emptyDir": {}})"));
  EXPECT_EQ(o.volumes[2].source, json::parse(R"({"nfs": {"server": "s", "path": "/x"}})"));
  EXPECT_EQ(o.volumes[2].mount_path, "/nfs");
  EXPECT_EQ(o.shm_size, "8Gi");
  EXPECT_EQ(o.queue_name, "eidf095ns-user-queue");
  EXPECT_EQ(o.labels.at("n"), "3");
  EXPECT_EQ(o.annotations.at("example.com/note"), "a b c");
  EXPECT_EQ(o.ttl_seconds_after_finished, -1);
  EXPECT_TRUE(o.keep_failed_jobs);
  EXPECT_TRUE(o.job_spec_extra.contains("podFailurePolicy"));
  EXPECT_EQ(o.staging_volume, "stage-pvc");
  EXPECT_EQ(o.staging_host_path, "/mnt/stage");
  EXPECT_EQ(o.staging_pod_path, "/stage");
  EXPECT_EQ(o.manifest["kind"], "Pod");
  EXPECT_TRUE(o.keep_name);
  EXPECT_EQ(o.custom_resource.plural, "ipujobs");
  EXPECT_EQ(o.custom_resource.api_version, "graphcore.ai/v1alpha1");
  EXPECT_EQ(o.custom_resource.pod_selector, "ipujob={name}");
  EXPECT_EQ(o.custom_resource.state_field, "status.phase");
  EXPECT_EQ(o.custom_resource.success_values, std::vector<std::string>{"Done"});
  EXPECT_EQ(o.custom_resource.failure_values, std::vector<std::string>{"Bad"});
  EXPECT_EQ(o.custom_resource.queued_values, std::vector<std::string>{"Waiting"});
  EXPECT_EQ(o.custom_resource.running_values, (std::vector<std::string>{"Busy", "Stepping"}));
  EXPECT_EQ(o.fail_waiting_reasons, std::vector<std::string>{"ErrImagePull"});
  EXPECT_DOUBLE_EQ(o.waiting_grace_s, 120);
  EXPECT_DOUBLE_EQ(o.batch.job_submit_timeout, 20);
  EXPECT_DOUBLE_EQ(o.batch.min_poll_interval, 0.5);
  EXPECT_DOUBLE_EQ(o.batch.max_poll_interval, 5);
  EXPECT_DOUBLE_EQ(o.batch.poll_backoff, 2);
  EXPECT_DOUBLE_EQ(o.batch.query_timeout, 10);
  EXPECT_DOUBLE_EQ(o.batch.lost_after, 30);
  EXPECT_DOUBLE_EQ(o.batch.max_query_failure_time, 100);
  EXPECT_EQ(o.batch.max_resubmits, 1);
  EXPECT_EQ(o.batch.resubmit_on_errors, std::vector<std::string>{"TooManyRequests"});
  EXPECT_EQ(o.batch.cancel_pending_reasons, std::vector<std::string>{"Unschedulable"});
}

TEST(K8sOptionsTest, UnknownKeySuggestsTheClosest) {
  std::string err = ParseError(json::parse(R"({"nodeselector": {"a": "b"}})"));
  EXPECT_NE(err.find("unknown key 'nodeselector'"), std::string::npos) << err;
  EXPECT_NE(err.find("did you mean 'node_selector'"), std::string::npos) << err;
  err = ParseError(json::parse(R"({"volumes": [{"name": "d", "claim_name": "c", "mount_pth": "/d"}]})"));
  EXPECT_NE(err.find("did you mean 'mount_path'"), std::string::npos) << err;
  err = ParseError(json::parse(R"({"custom_resource": {"plurl": "x"}})"));
  EXPECT_NE(err.find("did you mean 'plural'"), std::string::npos) << err;
  // Batch-only keys of other backends are not Kubernetes ones.
  err = ParseError(json::parse(R"({"use_nodes_option": true})"));
  EXPECT_NE(err.find("unknown key 'use_nodes_option'"), std::string::npos) << err;
}

TEST(K8sOptionsTest, WrongTypesNameTheKey) {
  struct Case {
    const char* json;
    const char* want;
  };
  const Case cases[] = {
      {R"({"image": 3})", "'image' must be a string, got a number"},
      {R"({"node_selector": ["a"]})", "'node_selector' must be a mapping"},
      {R"({"node_selector": {"a": {"b": 1}}})", "'node_selector.a' must be a string"},
      {R"({"tolerations": {"key": "x"}})", "'tolerations' must be a list"},
      {R"({"tolerations": ["x"]})", "'tolerations' must be a list of mappings"},
      {R"({"affinity": []})", "'affinity' must be a mapping"},
      {R"({"memory_default": "1GB"})",
       "'memory_default' must be a Kubernetes quantity such as 2, 500m or 8Gi, not '1GB'"},
      {R"({"cpu_request": true})", "'cpu_request' must be a Kubernetes quantity"},
      {R"({"cpu_request": "none"})", "'cpu_request' must be a Kubernetes quantity"},
      {R"({"ttl_seconds_after_finished": "1h"})", "'ttl_seconds_after_finished' must be a whole number"},
      {R"({"ttl_seconds_after_finished": -2})", "'ttl_seconds_after_finished' must be a whole number"},
      {R"({"keep_failed_jobs": "yes"})", "'keep_failed_jobs' must be true or false"},
      {R"({"image_pull_secrets": "regcred"})", "'image_pull_secrets' must be a list of secret names"},
      {R"({"waiting_grace_s": "soon"})", "'waiting_grace_s' must be a duration"},
      {R"({"manifest": {"kind": "Pod"}})",
       "'manifest' must be a Kubernetes object (a mapping with apiVersion and kind)"},
      {R"({"manifest": "pod.yaml"})", "'manifest' must be a Kubernetes object"},
      {R"({"labels": {"a": "not ok!"}})", "is not a valid label value"},
      {R"({"labels": {"bad key": "x"}})", "is not a valid Kubernetes key"},
      {R"({"volumes": [{"name": "d", "mount_path": "/d"}]})", "give exactly one source"},
      {R"({"volumes": [{"name": "d", "claim_name": "c", "mount_path": "d"}]})",
       "'volumes[0].mount_path' must be an absolute path"},
      {R"({"volumes": [{"name": "Data", "claim_name": "c", "mount_path": "/d"}]})",
       "'volumes[0].name' must be a DNS label"},
      {R"({"min_poll_interval": "fast"})", "'min_poll_interval' must be a number of seconds"},
      {R"({"staging_volume": "pvc"})", "staging_volume needs staging_host_path"},
      {R"({"staging_host_path": "/x"})", "need staging_volume"},
      {R"([1, 2])", "sched_options: expected a mapping"},
  };
  for (const auto& c : cases) {
    std::string err = ParseError(json::parse(c.json));
    EXPECT_NE(err.find(c.want), std::string::npos) << c.json << " -> " << err;
    if (!StartsWith(c.json, "[")) {
      EXPECT_EQ(err.rfind("sched_options: ", 0), 0u) << err;
    }
  }
}

TEST(K8sOptionsTest, TestBlockOverridesThePartition) {
  K8sOptions base = Parse(json::parse(R"({
    "namespace": "ns", "image": "busybox", "node_selector": {"a": "1", "b": "2"},
    "labels": {"team": "x"}, "tolerations": [{"key": "t1", "operator": "Exists"}],
    "volumes": [{"name": "data", "claim_name": "d1", "mount_path": "/data"}],
    "job_spec_extra": {"podFailurePolicy": {"rules": []}}, "min_poll_interval": 1})"));
  auto r = ApplyTestK8s(base, json::parse(R"({
    "image": "pytorch:2", "node_selector": {"b": "3", "c": "4"}, "labels": {"case": "y"},
    "tolerations": [{"key": "t2", "operator": "Exists"}],
    "volumes": [{"name": "data", "claim_name": "d2", "mount_path": "/data"},
                {"name": "more", "claim_name": "m", "mount_path": "/more"}],
    "job_spec_extra": {"backoffLimitPerIndex": 1}, "keep_failed_jobs": true})"),
                        "test 'nccl'");
  ASSERT_TRUE(r.ok()) << r.status().str();
  const K8sOptions& o = *r;
  EXPECT_EQ(o.ns, "ns");
  EXPECT_EQ(o.image, "pytorch:2");
  EXPECT_EQ(o.node_selector, (std::map<std::string, std::string>{{"a", "1"}, {"b", "3"}, {"c", "4"}}));
  EXPECT_EQ(o.labels.size(), 2u);
  ASSERT_EQ(o.tolerations.size(), 1u);  // lists replace
  EXPECT_EQ(o.tolerations[0]["key"], "t2");
  ASSERT_EQ(o.volumes.size(), 2u);  // volumes merge by name
  EXPECT_EQ(o.volumes[0].claim_name, "d2");
  EXPECT_EQ(o.volumes[1].name, "more");
  EXPECT_TRUE(o.job_spec_extra.contains("podFailurePolicy"));
  EXPECT_TRUE(o.job_spec_extra.contains("backoffLimitPerIndex"));
  EXPECT_TRUE(o.keep_failed_jobs);
  EXPECT_DOUBLE_EQ(o.batch.min_poll_interval, 1);
  // The partition's options are untouched.
  EXPECT_EQ(base.image, "busybox");
  EXPECT_FALSE(base.keep_failed_jobs);
}

TEST(K8sOptionsTest, CustomResourceDefaultsByKind) {
  // Graphcore's IPUJob: the operator's status field (docs/k8s-manifests.md).
  CustomResourceSpec ipu = CustomResourceDefaults({}, "graphcore.ai/v1alpha1", "IPUJob");
  EXPECT_EQ(ipu.plural, "ipujobs");
  EXPECT_EQ(ipu.state_field, "status.launcherStatus");
  EXPECT_EQ(ipu.success_values.front(), "Completed");
  EXPECT_EQ(ipu.failure_values.front(), "Failed");
  EXPECT_EQ(ipu.queued_values, (std::vector<std::string>{"", "Pending"}));
  EXPECT_EQ(ipu.running_values, std::vector<std::string>{"Running"});
  EXPECT_EQ(ipu.pod_selector, "");  // hetbench's labels on the worker template
  // Any other kind: status.state, and no plural to guess.
  CustomResourceSpec other = CustomResourceDefaults({}, "example.org/v1", "Trainer");
  EXPECT_EQ(other.plural, "");
  EXPECT_EQ(other.state_field, "status.state");
  // What the user wrote wins, field by field.
  CustomResourceSpec given;
  given.state_field = "status.phase";
  given.success_values = {"Done"};
  CustomResourceSpec mixed = CustomResourceDefaults(given, "graphcore.ai/v1alpha1", "IPUJob");
  EXPECT_EQ(mixed.state_field, "status.phase");
  EXPECT_EQ(mixed.success_values, std::vector<std::string>{"Done"});
  EXPECT_EQ(mixed.failure_values.front(), "Failed");
  EXPECT_EQ(mixed.plural, "ipujobs");
  // An empty list of values is refused: it would mean the default silently.
  auto bad = ParseK8sOptions(json::parse(R"({"custom_resource": {"running_values": []}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("custom_resource.running_values"), std::string::npos) << bad.status().str();
}

TEST(K8sOptionsTest, TestBlockMayChooseContextAndNamespace) {
  K8sOptions base = Parse(json::parse(R"({"context": "gpu", "namespace": "gpu-ns"})"));
  auto r = ApplyTestK8s(base, json::parse(R"({"context": "ipu", "namespace": "ipu-ns"})"), "test 'bert'");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->context, "ipu");
  EXPECT_EQ(r->ns, "ipu-ns");
  EXPECT_EQ(base.context, "gpu");
}

TEST(K8sOptionsTest, TestBlockCannotMoveTheFilesOrChangePolling) {
  K8sOptions base;
  for (const char* key : {"kubeconfig", "min_poll_interval", "staging_volume"}) {
    auto r = ApplyTestK8s(base, json{{key, "x"}}, "test 'a'");
    ASSERT_FALSE(r.ok()) << key;
    EXPECT_EQ(r.status().str(),
              std::string("test 'a': k8s: '") + key + "' can only be set in the partition's sched_options");
  }
  auto r = ApplyTestK8s(base, json::parse(R"({"tolerashuns": []})"), "test 'a'");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().str().find("test 'a': k8s: unknown key 'tolerashuns'"), std::string::npos);
  EXPECT_NE(r.status().str().find("did you mean 'tolerations'"), std::string::npos);
  r = ApplyTestK8s(base, json::parse(R"({"image": ["a"]})"), "test 'a'");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str(), "test 'a': k8s: 'image' must be a string, got a list");
  r = ApplyTestK8s(base, json::array(), "test 'a'");
  EXPECT_FALSE(r.ok());
  r = ApplyTestK8s(base, json::object(), "test 'a'");
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace hb
