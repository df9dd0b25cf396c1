// K8sScheduler: the Kubernetes backend. Each case becomes the objects
// MakeManifests describes (a batch/v1 Job, with a headless Service when it
// needs several pods; or the user's Pod, Job or custom resource), created
// through a KubeApi in the partition's namespace and followed until it ends:
//
//  - submission: objects are POSTed in order; transient answers (no answer,
//    5xx, 429 with its Retry-After) are retried within job_submit_timeout;
//    a generateName collision (409) is retried; a namespace quota refusal
//    (403 "exceeded quota") keeps the case queued and resubmits it at later
//    polls until its max_pending_time;
//  - batched polling, as BatchScheduler: per namespace and poll, one list of
//    Jobs, one of pods (by the session's label), one per custom-resource
//    plural, and one of Kueue Workloads only while a Job is suspended; never
//    a request per job. The interval is short after a submission or a state
//    change and grows by poll_backoff up to max_poll_interval;
//  - states from the Job's conditions, spec.suspend, the Workload's
//    conditions and the pods (Unschedulable, waiting reasons, OOMKilled,
//    DeadlineExceeded); waiting reasons Kubernetes never gives up on fail
//    the case after waiting_grace_s; max_pending_time bounds queued and
//    starting time together;
//  - faults: a failed list keeps the states (one notice) and loses the jobs
//    after max_query_failure_time; a job missing from the lists for
//    lost_after seconds is lost;
//  - results: when a job ends, each pod's log is read (before anything is
//    deleted) and split by ParsePodLog into the job's stdout, stderr and
//    result files; then the objects are deleted (propagationPolicy
//    Background), except failed ones when keep_failed_jobs is set.
//
// Owned by the executor and used from its thread only; not thread-safe.
// Submit may block for a few seconds while it retries a transient error;
// Poll, Cancel and Shutdown send a bounded number of requests, each bounded
// by query_timeout.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "k8s/k8s_options.h"
#include "k8s/kube_api.h"
#include "k8s/manifest.h"
#include "sched/scheduler.h"
#include "sched/scheduler_factory.h"
#include "util/clock.h"

namespace hb {

// The scheduler for a partition whose scheduler is `k8s` (alias
// `kubernetes`), registered with the scheduler registry by k8s_factory.cc:
// parses sched_options, finds the API server and credentials (kubeconfig.h)
// of the partition's context, or of the test's when its `k8s` block
// (backend_spec) names one, and makes the client (kube_client.h). Any error
// (bad option, unreadable kubeconfig, unknown context) is returned here,
// before anything is submitted. With flags.dry_run no request is ever sent.
Result<std::unique_ptr<Scheduler>> MakeK8sScheduler(const nlohmann::json& sched_options,
                                                    const nlohmann::json& backend_spec, const SchedulerFlags& flags);

class K8sScheduler : public Scheduler {
 public:
  // `clock` (util/clock.h) is the time the scheduler reads and how it waits
  // between submission retries; tests give a FakeClock so nothing sleeps.
  K8sScheduler(std::string name, std::unique_ptr<KubeApi> api, K8sOptions opts, Clock* clock = &Clock::Real());
  ~K8sScheduler() override;

  std::string name() const override { return name_; }
  std::vector<std::string> Directives(const Job&) const override { return {}; }
  Status Submit(Job* job) override;
  void Poll(const std::vector<Job*>& jobs) override;
  void Cancel(Job* job) override;
  double NextPollDelay() const override;
  void Shutdown() override;
  // One GET of the namespace's Jobs (limit=1): the server answers and the
  // credentials are accepted.
  Status Check() override;
  std::vector<std::string> TakeNotices() override;
  // Writes dir/hb_k8s.yaml: every object Submit would POST, in order, as
  // it would send it, each with its metadata.namespace (and, where the
  // server would generate the name, a stand-in name; see the file's head).
  Status WriteDryRun(const Job& job, const std::string& dir) override;

  // Where the server and credentials come from, added to connection errors:
  // "/root/.kube/config (context gpu)".
  void set_origin(std::string origin) { origin_ = std::move(origin); }
  // Messages others collect for the user (the client's warnings), passed on
  // once each by TakeNotices.
  void set_warning_source(std::shared_ptr<std::vector<std::string>> w) { warnings_ = std::move(w); }
  // --keep-failed-jobs: applies to every partition this instance serves.
  void set_keep_failed_jobs(bool keep) { keep_failed_jobs_ = keep; }
  KubeApi& api() { return *api_; }

 private:
  struct ObjRef;
  struct Tracked;
  struct Observation;
  struct CreateOutcome;
  struct Lists;

  double Now() const { return clock_->Monotonic(); }
  // The options of one job: its partition's, with its test's block.
  Result<std::shared_ptr<const K8sOptions>> OptionsOf(const Job& job);
  double EpochNow() const { return clock_->Wall(); }
  KubeResponse Send(const std::string& method, const std::string& path, const std::string& body, double timeout);
  void Notice(const std::string& text);

  // Submission.
  CreateOutcome CreateRemaining(Tracked* t, double timeout);
  void Resubmit(Job* job, Tracked* t, double now, std::set<std::string>* quota_hit);
  void Rekey(Job* job, const std::string& new_id);

  // Polling.
  bool ListGroup(const std::string& ns, const std::string& session, const std::vector<Job*>& members, Lists* out,
                 std::string* problem, double* retry_after);
  bool ListFailed(const std::string& ns, const std::vector<Job*>& members, const std::string& problem, double now);
  void ReadWorkloads(const std::string& ns, const std::vector<Job*>& members, Lists* lists);
  Observation Observe(const Tracked& t, const Lists& lists) const;
  bool Apply(Job* job, Tracked* t, Observation o, double now);
  bool CheckPending(Job* job, Tracked* t, double now);

  // Ending.
  void Finish(Job* job, Tracked* t, JobState s, const Observation& o, bool still_running = false);
  bool CollectOutput(Job* job, Tracked* t, const Observation& o, JobState* s);
  void DeleteObjects(const std::vector<ObjRef>& refs, double timeout);
  void SetTerminal(Job* job, const JobState& s);
  void Backoff(bool changed, double retry_after);

  std::string name_;
  std::unique_ptr<KubeApi> api_;
  std::shared_ptr<const K8sOptions> opts_;  // the first partition's: polling and faults
  // Other partitions' options (Job::sched_options), parsed once each.
  std::map<std::string, std::shared_ptr<const K8sOptions>> partition_opts_;
  bool keep_failed_jobs_ = false;
  Clock* clock_;
  std::string origin_;
  std::shared_ptr<std::vector<std::string>> warnings_;
  std::map<std::string, std::unique_ptr<Tracked>> tracked_;  // by job id, until terminal
  std::vector<ObjRef> leftovers_;                            // objects whose deletion failed; retried
  std::map<std::string, double> failing_since_;              // by namespace; lists failing since
  std::set<std::string> no_workloads_;                       // namespaces whose Workloads cannot be read
  std::vector<std::string> notices_;
  std::set<std::string> said_;
  int deferred_count_ = 0;
  double interval_ = 0.25;
  double next_poll_ = 0;
};

}  // namespace hb
