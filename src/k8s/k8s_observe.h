// What the Kubernetes API's objects say about one case: pure functions of
// the Jobs, Pods and custom resources a poll listed (k8s_scheduler.h
// follows the cases; this module reads them). Nothing here sends a request.
//
//  - ReadPod turns a Pod into a PodInfo (phase, node, rank, times, the
//    payload container's exit code, waiting and unschedulable reasons);
//  - SummarisePods, then ReadJobStatus (a batch/v1 Job's conditions and
//    spec.suspend), ReadPodStatus (a bare Pod's phase) or ReadCustomStatus
//    (a custom resource's state field), fill a Seen: the case's JobState,
//    its nodes and times;
//  - WriteOutputs and SettleExitCode turn the pods' logs (PodLog) into the
//    job's stdout, stderr and result files, and its exit code.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "k8s/k8s_options.h"
#include "k8s/manifest.h"
#include "sched/job.h"

namespace hb {

// One pod, as read from the API.
struct PodInfo {
  std::string name, container, phase, node;
  int rank = -1;  // the completion index, else the position by name
  double created = 0, started = 0, finished = 0;
  bool ran = false;                             // the payload container started, so there is a log
  std::string waiting_reason, waiting_message;  // a container (or init container) waiting
  std::string unschedulable;                    // the PodScheduled=False message
  int exit_code = -1;                           // the payload container's exit code
  std::string term_reason;                      // its terminated reason ("OOMKilled", "Error")
  std::string pod_reason, pod_message;          // status.reason/message ("DeadlineExceeded", "Evicted")
  const nlohmann::json* obj = nullptr;
};

PodInfo ReadPod(const nlohmann::json& pod);
// Pending, Running, or no phase yet.
bool PodActive(const PodInfo& p);
// One pod per rank: the one that succeeded, else the newest. Ranks of pods
// without a completion index are their position by name.
std::vector<PodInfo> ByRank(std::vector<PodInfo> pods);
// Why pending pods are not running yet: "Unschedulable: 0/3 nodes are
// available...; ErrImagePull: ...". "" when nothing is said.
std::string PendingReasons(const std::vector<PodInfo>& pods);

// What a case's main object is.
enum class MainKind { kJob, kPod, kCustom };

// What the lists say about one case.
struct Seen {
  bool found = false;
  JobState state;
  bool suspended = false;
  std::string fail_waiting;   // "ImagePullBackOff: ..." when a pod waits for a reason in fail_waiting_reasons
  bool pods_active = false;   // some pod has not ended
  std::vector<PodInfo> pods;  // one per rank
  std::vector<std::string> nodes;
  double start_time = 0, end_time = 0;  // epoch, 0 = unknown
};

// A poll's pods, found by "pod:NAME" and by "job:NAME" (their Job's name).
struct PodIndex {
  std::vector<PodInfo> pods;
  std::multimap<std::string, size_t> by_key;

  void Add(PodInfo p);
  // The pods of a case: a Job's by its job-name label, a Pod itself, a
  // custom resource's by its pod_selector.
  std::vector<PodInfo> Of(MainKind kind, const std::string& name, const std::string& selector) const;
};

// Nodes, times, waiting reasons and the state the pods alone give (for a
// case that has not ended by its own account). `fail_reasons`: waiting
// reasons that fail the case (fail_waiting_reasons).
void SummarisePods(const std::vector<PodInfo>& pods, const std::vector<std::string>& fail_reasons, Seen* o);
// A failure, told by the first failed pod: "OOMKilled (pod x, exit 137); head".
JobState PodFailure(const Seen& o, const std::string& head);
// A batch/v1 Job: its conditions, then spec.suspend (with Kueue's reason).
void ReadJobStatus(const nlohmann::json& job, const std::string& kueue_reason, Seen* o);
// A plain Pod: its phase (o->pods holds it).
void ReadPodStatus(Seen* o);
// A custom resource: its state field says queued, running or ended; a value
// in none of the lists (or a running one while pods are still pending) is
// told by the pods, as SummarisePods put it.
void ReadCustomStatus(const nlohmann::json& obj, const CustomResourceSpec& cr, Seen* o);
// A condition of an object's status ("Complete", "Failed"...), or null.
const nlohmann::json* K8sCondition(const nlohmann::json& obj, const std::string& type);
// "reason: message", or whichever of the two there is.
std::string ReasonText(const std::string& reason, const std::string& message);

// One pod's log, split (manifest.h's ParsePodLog).
struct PodLog {
  PodInfo pod;
  PodOutput out;
};

// The job's stdout (the logs), its stderr and result files (the archives,
// the last rank first so that rank 0's files win; each holds its pod's
// stderr file). What could not be written is added to `problems`.
void WriteOutputs(const Job& job, const std::vector<PodLog>& logs, std::vector<std::string>* problems);
// The exit code: the payload's, else the container's. A script that ended
// with a non-zero status, reported by every pod's payload, completed (as
// the batch backends say of a job whose script failed); a failure without
// that report (killed, OOMKilled) stays a failure. `clean`: nothing else
// went wrong collecting the output.
JobState SettleExitCode(JobState s, const std::vector<PodLog>& logs, bool clean);

}  // namespace hb
