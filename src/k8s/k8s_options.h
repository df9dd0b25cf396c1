// K8sOptions: the settings of a Kubernetes partition, read from its
// `sched_options` in the site configuration, and overridden per test by the
// test's `k8s` block (Job::backend_spec). Names follow the Kubernetes API
// in snake_case (node_selector, image_pull_secrets...); values that are
// Kubernetes objects (tolerations, affinity, security_context, volumes) are
// written as in a manifest and passed through. An unknown key or a wrong
// type is an error naming the key, with a did-you-mean. Pure; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sched/batch_scheduler.h"
#include "util/status.h"

namespace hb {

struct K8sVolume {
  std::string name;
  std::string claim_name;  // a PersistentVolumeClaim, or
  nlohmann::json source;   // any other volume source as written (e.g. {"nfs": {...}})
  std::string mount_path;
  bool read_only = false;
};

// How to find and follow a user-supplied custom resource (e.g. Graphcore's
// IPUJob): where it lives in the API, which pods are its own, and which of
// its fields says what state it is in. Empty fields take the kind's
// defaults (CustomResourceDefaults).
struct CustomResourceSpec {
  std::string api_version;  // "graphcore.ai/v1alpha1"; "" = the manifest's
  std::string plural;       // "ipujobs"
  // Label selector of its pods; "{name}" is the resource's name. "" = the
  // pods that carry hetbench's labels for the case (hetbench puts them on
  // every pod template in the manifest).
  std::string pod_selector;
  std::string state_field;  // dotted path ("status.state")
  // What the state field's values mean: queued (no pods wanted yet),
  // running, ended well, ended badly. A value in none of the lists is
  // told by the pods (starting while they are pending, running once one
  // runs).
  std::vector<std::string> queued_values, running_values, success_values, failure_values;
};

// The spec with every empty field filled in for a manifest's kind: for
// Graphcore's IPUJob (apiVersion graphcore.ai/..., kind IPUJob) the
// operator's documented status field and values (docs/k8s-manifests.md
// cites them); for any other kind status.state with Pending/Queued/...,
// Running, Completed/Succeeded and Failed/Error. Pure.
CustomResourceSpec CustomResourceDefaults(const CustomResourceSpec& given, const std::string& api_version,
                                          const std::string& kind);

struct K8sOptions {
  // Where: kubeconfig file and context ("" = kubectl's rules), namespace
  // ("" = the context's, else "default").
  std::string kubeconfig, context, ns;
  // What the pods get.
  std::string image;                         // default image when neither test nor environment gives one
  std::string cpu_request, cpu_limit;        // "" = from num_cpus_per_task (request = limit)
  std::string memory_request, memory_limit;  // "" = memory_default
  std::string memory_default = "1Gi";
  // Device type of the partition's `devices` -> resource name.
  std::map<std::string, std::string> device_resources = {
      {"gpu", "nvidia.com/gpu"}, {"nvidia_gpu", "nvidia.com/gpu"}, {"amd_gpu", "amd.com/gpu"}};
  std::map<std::string, std::string> node_selector;
  nlohmann::json tolerations = nlohmann::json::array();
  nlohmann::json affinity = nlohmann::json::object();
  std::vector<std::string> image_pull_secrets;
  std::string service_account_name, priority_class_name;
  nlohmann::json security_context = nlohmann::json::object();      // container securityContext
  nlohmann::json pod_security_context = nlohmann::json::object();  // pod securityContext
  std::vector<K8sVolume> volumes;
  std::string shm_size;    // "" = no /dev/shm volume; "8Gi" = emptyDir Memory of that size
  std::string queue_name;  // Kueue LocalQueue -> label kueue.x-k8s.io/queue-name
  std::map<std::string, std::string> labels, annotations;  // extra, on Job and pods
  int ttl_seconds_after_finished = 3600;                   // -1 = leave out
  bool keep_failed_jobs = false;                           // --keep-failed-jobs sets it too
  // Extra fields beyond batch/v1 as of Kubernetes 1.22 that the user asks
  // for, merged into the Job spec (e.g. {"podFailurePolicy": {...}}).
  nlohmann::json job_spec_extra = nlohmann::json::object();
  // Files: a volume that hetbench's host also mounts at `staging_host_path`,
  // mounted in pods at `staging_pod_path`; "" = files travel in the job
  // manifest and back through the pod log.
  std::string staging_volume, staging_host_path, staging_pod_path;
  // A whole manifest to run instead of a generated Job (Pod, Job, or a
  // custom resource), as JSON; null = generate. Its metadata.name is
  // replaced by a generateName unless keep_name is true.
  nlohmann::json manifest;
  bool keep_name = false;
  CustomResourceSpec custom_resource;  // used when `manifest` is a custom resource
  // Waiting reasons Kubernetes never gives up on: fail after this grace.
  std::vector<std::string> fail_waiting_reasons = {"ErrImagePull", "ImagePullBackOff", "InvalidImageName",
                                                   "CreateContainerConfigError"};
  double waiting_grace_s = 60;
  // Polling and faults, as the batch backends (min/max poll interval,
  // backoff, lost_after...); job_submit_timeout bounds each request.
  BatchOptions batch;
};

// Reads a partition's sched_options.
Result<K8sOptions> ParseK8sOptions(const nlohmann::json& sched_options);
// Applies a test's `k8s` block on top of the partition's options (same keys,
// except the kubeconfig, how files travel -- staging_* -- and the polling
// ones; a test's `context` and `namespace` replace the partition's); `what` names the test in
// messages. Mappings (labels, node_selector...) and job_spec_extra merge key
// by key, volumes by name; other values replace the partition's.
Result<K8sOptions> ApplyTestK8s(const K8sOptions& base, const nlohmann::json& test_k8s, const std::string& what);
// Every key ParseK8sOptions accepts (for messages and docs).
const std::vector<std::string>& K8sOptionKeys();

}  // namespace hb
