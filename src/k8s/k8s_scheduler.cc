#include "k8s/k8s_scheduler.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <ctime>
#include <limits>
#include <thread>

#include "k8s/k8s_observe.h"
#include "net/http.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

using nlohmann::json;
using Kind = JobState::Kind;

namespace {

constexpr double kShutdownBudget = 30;    // seconds Shutdown may spend deleting
constexpr int kNameCollisionRetries = 3;  // 409 on a generated name
// A Pod or Job carries activeDeadlineSeconds, which Kubernetes counts from
// the Job's start, so it acts first; hetbench's own limit waits this much
// longer. A custom resource has no such field: hetbench deletes it at the
// limit.
constexpr double kDeadlineGrace = 2;

// ---------------------------------------------------------------------------
// Small helpers: answers, paths, times.

constexpr int kNotSent = -1;  // KubeResponse::status of a request that could not be made

bool IsOk(int status) { return status >= 200 && status < 300; }
bool IsTransient(const KubeResponse& r) { return IsRetryableStatus(r.status); }

json ParseJson(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? json() : j;
}

// The Status message of an error answer ("" when the body is not a Status).
std::string StatusMessage(const KubeResponse& r) { return JsonMemberString(ParseJson(r.body), "message"); }

// "422 Invalid: Job.batch \"x\" is invalid: ...", "no answer: <why>".
std::string Describe(const KubeResponse& r) {
  if (r.status == kNotSent) return r.transport_error;
  if (r.status == 0) return "no answer" + (r.transport_error.empty() ? "" : ": " + r.transport_error);
  json b = ParseJson(r.body);
  std::string reason = JsonMemberString(b, "reason");
  std::string phrase = HttpReasonPhrase(r.status);
  std::string msg = JsonMemberString(b, "message");
  if (msg.empty() && !b.is_object() && r.body.size() < 200) msg = Trim(r.body);
  std::string out = std::to_string(r.status) + " " + (reason.empty() ? phrase : reason);
  if (!msg.empty() && msg != reason && msg != phrase) out += ": " + msg;
  return Trim(out);
}

}  // namespace

// ---------------------------------------------------------------------------
// Types private to the scheduler.

struct K8sScheduler::ObjRef {
  std::string collection;  // "/apis/batch/v1/namespaces/ns/jobs"
  std::string kind;        // "Job"
  std::string name;
  std::string path() const { return collection + "/" + name; }
};

struct K8sScheduler::Tracked {
  std::shared_ptr<const K8sOptions> opts;  // the partition's with the test's k8s block applied
  std::string ns, session;
  ManifestSet set;              // objects are dropped once all are created
  std::vector<ObjRef> created;  // in creation order
  MainKind kind = MainKind::kJob;
  CustomResourceSpec cr;        // a custom resource's, with its kind's defaults
  std::string pod_selector;     // a custom resource's pods ({name} not yet replaced)
  std::string main_collection;  // of the main object
  bool deferred = false;        // not all objects created yet (namespace quota)
  bool cancel_requested = false;
  double pending_since = 0;      // monotonic; queued or starting since
  double missing_since = 0;      // monotonic; not in the lists since
  double waiting_since = 0;      // monotonic; a pod waiting for a fail_waiting_reason since
  double ending_since = 0;       // monotonic; ended with pods still running since
  double log_failing_since = 0;  // monotonic; logs unreadable (transient) since
  double deadline = 0;           // monotonic; the time limit ends (0 = none, or not running yet)
  std::string main_name() const { return created.size() > set.main ? created[set.main].name : ""; }
};

struct K8sScheduler::CreateOutcome {
  enum Kind { kCreated, kQuota, kTransient, kFailed } kind = kCreated;
  std::string message;
  double retry_after = -1;
};

// One poll's answers for one namespace.
struct K8sScheduler::Lists {
  std::map<std::string, const json*> jobs;                           // by name
  std::map<std::string, std::map<std::string, const json*>> custom;  // by collection, then name
  PodIndex pods;
  std::map<std::string, std::string> kueue;  // Job name -> Workload's reason
  std::vector<json> bodies;                  // what the pointers point into
};

struct K8sScheduler::Observation : Seen {};

K8sScheduler::K8sScheduler(std::string name, std::unique_ptr<KubeApi> api, K8sOptions opts, Clock* clock)
    : name_(std::move(name)),
      api_(std::move(api)),
      opts_(std::make_shared<const K8sOptions>(std::move(opts))),
      clock_(clock),
      interval_(opts_->batch.min_poll_interval) {}

K8sScheduler::~K8sScheduler() = default;

void K8sScheduler::Notice(const std::string& text) {
  if (said_.insert(text).second) notices_.push_back(text);
}

std::vector<std::string> K8sScheduler::TakeNotices() {
  if (warnings_) {
    for (const auto& w : *warnings_) Notice("warning: " + w);
    warnings_->clear();
  }
  std::vector<std::string> out;
  out.swap(notices_);
  return out;
}

KubeResponse K8sScheduler::Send(const std::string& method, const std::string& path, const std::string& body,
                                double timeout) {
  KubeRequest req;
  req.method = method;
  req.path = path;
  req.body = body;
  req.timeout_s = std::max(1.0, timeout);
  auto r = api_->Send(req);
  if (r.ok()) return *r;
  KubeResponse failed;  // not sent at all (e.g. the credential plugin failed): not transient
  failed.status = kNotSent;
  failed.transport_error = r.status().message();
  return failed;
}

Status K8sScheduler::Check() {
  std::string ns = opts_->ns.empty() ? api_->DefaultNamespace() : opts_->ns;
  // A transient answer (no connection, 429, 5xx) is retried as a submission
  // is, within job_submit_timeout: a nightly run should not die of one 500.
  const BatchOptions& b = opts_->batch;
  double deadline = Now() + b.job_submit_timeout;
  KubeResponse r;
  for (int attempt = 0;; ++attempt) {
    r = Send("GET", "/apis/batch/v1/namespaces/" + ns + "/jobs?limit=1", "", b.query_timeout);
    if (!IsTransient(r)) break;
    double wait = r.retry_after_s >= 0 ? r.retry_after_s : 0.5 * (1 << std::min(attempt, 4));
    if (attempt >= b.max_resubmits || Now() + wait > deadline) break;
    clock_->Sleep(wait);
  }
  if (IsOk(r.status)) return Status::OK();
  std::string where = origin_.empty() ? "" : " (" + origin_ + ")";
  std::string what = r.status == 404 ? " (namespace '" + ns + "')" : "";
  return Status::Error("Kubernetes API " + api_->Server() + ": " + Describe(r) + what + where);
}

// ---------------------------------------------------------------------------
// Submission.

// Creates the objects not created yet, in order; one attempt each (a
// collision of generated names is retried at once).
K8sScheduler::CreateOutcome K8sScheduler::CreateRemaining(Tracked* t, double timeout) {
  while (t->created.size() < t->set.objects.size()) {
    size_t i = t->created.size();
    const json& obj = t->set.objects[i];
    std::string kind = JsonMemberString(obj, "kind");
    bool main = i == t->set.main;
    std::string coll = CollectionPath(t->set, i, t->ns);
    bool generated = !JsonMemberString(JsonMember(obj, "metadata"), "generateName").empty() &&
                     JsonMemberString(JsonMember(obj, "metadata"), "name").empty();
    KubeResponse r;
    for (int n = 0; n < kNameCollisionRetries; ++n) {
      r = Send("POST", coll, JsonText(obj), timeout);
      if (r.status != 409 || !generated) break;
    }
    if (IsOk(r.status)) {
      std::string name = JsonMemberString(JsonMember(ParseJson(r.body), "metadata"), "name");
      if (name.empty()) name = JsonMemberString(JsonMember(obj, "metadata"), "name");
      t->created.push_back(ObjRef{coll, kind, name});
      if (main) t->main_collection = coll;
      continue;
    }
    CreateOutcome out;
    std::string what = "cannot create " + kind + " in namespace " + t->ns + ": ";
    if (r.status == 403 && StatusMessage(r).find("exceeded quota") != std::string::npos) {
      out.kind = CreateOutcome::kQuota;
      out.message = "namespace quota exceeded: " + StatusMessage(r);
    } else {
      out.kind = IsTransient(r) ? CreateOutcome::kTransient : CreateOutcome::kFailed;
      out.message = what + Describe(r);
      out.retry_after = r.retry_after_s;
    }
    return out;
  }
  t->set.objects.clear();  // done with them (they may carry the stage directory)
  t->set.objects.shrink_to_fit();
  return CreateOutcome{};
}

Result<std::shared_ptr<const K8sOptions>> K8sScheduler::OptionsOf(const Job& job) {
  std::shared_ptr<const K8sOptions> opts = opts_;
  if (!job.sched_options.is_null()) {
    std::string key = job.sched_options.dump();
    auto it = partition_opts_.find(key);
    if (it == partition_opts_.end()) {
      auto parsed = ParseK8sOptions(job.sched_options);
      if (!parsed.ok()) return parsed.status();
      it = partition_opts_.emplace(key, std::make_shared<const K8sOptions>(std::move(parsed.value()))).first;
    }
    opts = it->second;
  }
  if (!job.backend_spec.is_null() && !job.backend_spec.empty()) {
    auto applied =
        ApplyTestK8s(*opts, job.backend_spec, "test '" + (job.case_id.empty() ? job.name : job.case_id) + "'");
    if (!applied.ok()) return applied.status();
    opts = std::make_shared<const K8sOptions>(std::move(applied.value()));
  }
  if (keep_failed_jobs_ && !opts->keep_failed_jobs) {
    K8sOptions copy = *opts;
    copy.keep_failed_jobs = true;
    opts = std::make_shared<const K8sOptions>(std::move(copy));
  }
  return opts;
}

Status K8sScheduler::WriteDryRun(const Job& job, const std::string& dir) {
  auto got = OptionsOf(job);
  if (!got.ok()) return got.status();
  std::shared_ptr<const K8sOptions> opts = *got;
  auto set = MakeManifests(job, *opts);
  if (!set.ok()) return set.status();
  std::string ns = opts->ns.empty() ? api_->DefaultNamespace() : opts->ns;
  std::string out =
      "# hetbench --dry-run: the objects this case would create, in order, as they would be POSTed\n"
      "# (namespace " +
      ns +
      "). Where the API server would generate a name (metadata.generateName),\n"
      "# metadata.name shows the prefix with 'dryrn' standing for its 5 random characters.\n";
  for (size_t i = 0; i < set->objects.size(); ++i) {
    json obj = set->objects[i];
    json& md = obj["metadata"];
    if (!md.is_object()) md = json::object();
    md["namespace"] = ns;
    if (!md.contains("name") && md.contains("generateName"))
      md["name"] = JsonMemberString(md, "generateName") + "dryrn";
    out += "---\n# POST " + CollectionPath(*set, i, ns) + "\n" + JsonText(obj, 2) + "\n";
  }
  return WriteFile(JoinPath(dir, "hb_k8s.yaml"), out);
}

Status K8sScheduler::Submit(Job* job) {
  auto t = std::make_unique<Tracked>();
  auto opts = OptionsOf(*job);
  if (!opts.ok()) return opts.status();
  t->opts = *opts;
  auto set = MakeManifests(*job, *t->opts);
  if (!set.ok()) return set.status();
  if (set->objects.empty() || set->main >= set->objects.size() || set->api_prefixes.size() != set->objects.size() ||
      set->plurals.size() != set->objects.size())
    return Status::Error("internal error: incomplete Kubernetes manifests for job " + job->name);
  t->ns = t->opts->ns.empty() ? api_->DefaultNamespace() : t->opts->ns;
  t->set = std::move(set.value());
  const json& main = t->set.objects[t->set.main];
  t->session =
      JsonMemberString(JsonMember(JsonMember(main, "metadata"), "labels"), kLabelSession);  // as the manifest spells it
  std::string api_version = JsonMemberString(main, "apiVersion");
  t->kind = t->set.main_kind == "jobs" && StartsWith(api_version, "batch/") ? MainKind::kJob
            : t->set.main_kind == "pods" && api_version == "v1"             ? MainKind::kPod
                                                                            : MainKind::kCustom;
  if (t->kind == MainKind::kCustom) {
    t->cr = CustomResourceDefaults(t->opts->custom_resource, api_version, JsonMemberString(main, "kind"));
    // No selector of the user's: the pods of the templates hetbench
    // labelled (the session's pod list holds only those).
    t->pod_selector = !t->cr.pod_selector.empty()
                          ? t->cr.pod_selector
                          : std::string(kLabelCase) + "=" +
                                JsonMemberString(JsonMember(JsonMember(main, "metadata"), "labels"), kLabelCase);
  }

  const BatchOptions& b = opts_->batch;
  double deadline = Now() + b.job_submit_timeout;
  CreateOutcome out;
  for (int attempt = 0;; ++attempt) {
    out = CreateRemaining(t.get(), deadline - Now());
    if (out.kind != CreateOutcome::kTransient) break;
    double wait = out.retry_after >= 0 ? out.retry_after : 0.5 * (1 << std::min(attempt, 4));
    if (attempt >= b.max_resubmits || Now() + wait > deadline) break;
    Notice("transient error, retrying: " + out.message);
    clock_->Sleep(wait);
  }
  if (out.kind == CreateOutcome::kTransient || out.kind == CreateOutcome::kFailed) {
    DeleteObjects(t->created, b.query_timeout);
    return Status::Error(out.message);
  }
  double now = Now();
  t->deferred = out.kind == CreateOutcome::kQuota;
  t->pending_since = now;
  job->id = t->ns + "/" + (t->deferred ? "not-created-" + std::to_string(++deferred_count_) : t->main_name());
  job->submit_time = EpochNow();
  job->state = JobState{Kind::kQueued, t->deferred ? out.message : "submitted", -1};
  tracked_[job->id] = std::move(t);
  interval_ = b.min_poll_interval;
  next_poll_ = next_poll_ > 0 ? std::min(next_poll_, now + interval_) : now + interval_;
  return Status::OK();
}

void K8sScheduler::Rekey(Job* job, const std::string& new_id) {
  auto node = tracked_.extract(job->id);
  node.key() = new_id;
  tracked_.insert(std::move(node));
  job->id = new_id;
}

// A case held back by the namespace's quota: try again (once per namespace
// and poll while the quota refuses), until its max_pending_time.
void K8sScheduler::Resubmit(Job* job, Tracked* t, double now, std::set<std::string>* quota_hit) {
  CreateOutcome out;
  out.kind = CreateOutcome::kQuota;
  out.message = job->state.reason;
  if (!quota_hit->count(t->ns)) out = CreateRemaining(t, opts_->batch.query_timeout);
  if (out.kind == CreateOutcome::kCreated) {
    t->deferred = false;
    Rekey(job, t->ns + "/" + t->main_name());
    job->state = JobState{Kind::kQueued, "submitted", -1};
    return;
  }
  if (out.kind == CreateOutcome::kQuota) {
    quota_hit->insert(t->ns);
    job->state.reason = out.message;
    if (job->max_pending_time_s > 0 && now - t->pending_since > job->max_pending_time_s) {
      DeleteObjects(t->created, opts_->batch.query_timeout);
      SetTerminal(job, JobState{Kind::kFailed,
                                out.message + "; pending for longer than max_pending_time (" +
                                    FormatNumber(job->max_pending_time_s) + " s)",
                                -1});
    }
  } else if (out.kind == CreateOutcome::kFailed) {
    DeleteObjects(t->created, opts_->batch.query_timeout);
    SetTerminal(job, JobState{Kind::kFailed, out.message, -1});
  } else {
    Notice("transient error, retrying at the next poll: " + out.message);
  }
}

// ---------------------------------------------------------------------------
// Polling.

double K8sScheduler::NextPollDelay() const {
  if (tracked_.empty()) return std::numeric_limits<double>::infinity();
  return std::max(0.0, next_poll_ - Now());
}

void K8sScheduler::Backoff(bool changed, double retry_after) {
  const BatchOptions& b = opts_->batch;
  interval_ = changed ? b.min_poll_interval : std::min(b.max_poll_interval, interval_ * b.poll_backoff);
  next_poll_ = Now() + std::max(interval_, retry_after);
  for (const auto& [id, t] : tracked_)  // a time limit ends: poll then
    if (t->deadline > 0) next_poll_ = std::min(next_poll_, std::max(t->deadline, Now() + b.min_poll_interval));
}

void K8sScheduler::Poll(const std::vector<Job*>& jobs) {
  double now = Now();
  if (tracked_.empty() || now < next_poll_) return;
  if (!leftovers_.empty()) {
    std::vector<ObjRef> again;
    again.swap(leftovers_);
    DeleteObjects(again, opts_->batch.query_timeout);
  }
  bool changed = false;
  std::set<std::string> quota_hit;
  std::map<std::pair<std::string, std::string>, std::vector<Job*>> groups;  // by (namespace, session)
  for (Job* j : jobs) {
    auto it = tracked_.find(j->id);
    if (it == tracked_.end()) continue;
    Tracked* t = it->second.get();
    Kind before = j->state.kind;
    if (t->cancel_requested) {
      SetTerminal(j, JobState{Kind::kCancelled, "cancelled", -1});
    } else if (t->deferred) {
      Resubmit(j, t, now, &quota_hit);
    } else {
      groups[{t->ns, t->session}].push_back(j);
    }
    changed |= j->state.kind != before;
  }
  // Every namespace's lists first, then the jobs move on: one burst of
  // lists per poll, and one consistent view (reading logs and deleting
  // objects come after).
  double retry_after = 0;
  std::map<std::pair<std::string, std::string>, Lists> listed;
  for (auto& [key, members] : groups) {
    double ra = 0;
    Lists& lists = listed[key];
    std::string problem;
    if (!ListGroup(key.first, key.second, members, &lists, &problem, &ra)) {
      listed.erase(key);
      retry_after = std::max(retry_after, ra);
      changed |= ListFailed(key.first, members, problem, now);
      continue;
    }
    if (failing_since_.erase(key.first))
      notices_.push_back("the Kubernetes API answers again (namespace " + key.first + ")");
    ReadWorkloads(key.first, members, &lists);
  }
  for (auto& [key, lists] : listed)
    for (Job* j : groups[key]) changed |= Apply(j, tracked_.at(j->id).get(), Observe(*tracked_.at(j->id), lists), now);
  Backoff(changed, retry_after);
}

// A namespace's lists failed: the states stay as they were (the user hears
// once), until max_query_failure_time; then its jobs are lost. True then.
bool K8sScheduler::ListFailed(const std::string& ns, const std::vector<Job*>& members, const std::string& problem,
                              double now) {
  double& since = failing_since_[ns];
  if (since == 0) {
    since = now;
    notices_.push_back("warning: cannot list jobs in namespace " + ns + " (" + problem +
                       "); keeping their states and retrying");
  }
  if (now - since <= opts_->batch.max_query_failure_time) return false;
  for (Job* j : members) {
    const auto& created = tracked_.at(j->id)->created;
    leftovers_.insert(leftovers_.end(), created.begin(), created.end());  // for Shutdown
    SetTerminal(
        j, JobState{Kind::kLost,
                    "the Kubernetes API did not answer for " + FormatNumber(now - since, 3) + " s: " + problem, -1});
  }
  return true;
}

// The lists one namespace needs this poll: Jobs (when it has Jobs), pods,
// and one per custom resource collection. False when one failed.
bool K8sScheduler::ListGroup(const std::string& ns, const std::string& session, const std::vector<Job*>& members,
                             Lists* out, std::string* problem, double* retry_after) {
  std::string selector = "?labelSelector=" + UrlEncode(session.empty() ? std::string(kLabelManagedBy) + "=hetbench"
                                                                       : std::string(kLabelSession) + "=" + session);
  // The main objects first, then the pods: pods are then at least as new
  // as the Job they belong to (a failed Job's pod shows why it failed).
  std::set<std::string> mains;
  for (Job* j : members) {
    const Tracked& t = *tracked_.at(j->id);
    if (t.kind != MainKind::kPod) mains.insert(t.main_collection);
  }
  std::vector<std::string> collections(mains.begin(), mains.end());
  collections.push_back("/api/v1/namespaces/" + ns + "/pods");
  for (const auto& coll : collections) {
    KubeResponse r = Send("GET", coll + selector, "", opts_->batch.query_timeout);
    json body = IsOk(r.status) ? ParseJson(r.body) : json();
    if (!JsonMember(body, "items").is_array()) {
      *problem = "GET " + coll.substr(coll.rfind('/') + 1) + ": " +
                 (IsOk(r.status) ? "the answer is not a list" : Describe(r));
      *retry_after = r.retry_after_s;
      return false;
    }
    out->bodies.push_back(std::move(body));
  }
  size_t i = 0;
  for (const auto& coll : collections) {
    const json& items = out->bodies[i++]["items"];
    for (const auto& item : items) {
      if (EndsWith(coll, "/pods")) {
        out->pods.Add(ReadPod(item));
      } else {
        std::string name = JsonMemberString(JsonMember(item, "metadata"), "name");
        if (EndsWith(coll, "/jobs") && StartsWith(coll, "/apis/batch/"))
          out->jobs[name] = &item;
        else
          out->custom[coll][name] = &item;
      }
    }
  }
  return true;
}

// Kueue's reason for each suspended Job, from the namespace's Workloads (one
// list, only when a Job is suspended). Unreadable Workloads are not a fault.
void K8sScheduler::ReadWorkloads(const std::string& ns, const std::vector<Job*>& members, Lists* lists) {
  bool any = std::any_of(members.begin(), members.end(), [&](Job* j) {
    const Tracked& t = *tracked_.at(j->id);
    auto it = lists->jobs.find(t.main_name());
    return t.kind == MainKind::kJob && it != lists->jobs.end() &&
           JsonMember(JsonMember(*it->second, "spec"), "suspend") == json(true);
  });
  if (!any || no_workloads_.count(ns)) return;
  KubeResponse r =
      Send("GET", "/apis/kueue.x-k8s.io/v1beta1/namespaces/" + ns + "/workloads", "", opts_->batch.query_timeout);
  json body = IsOk(r.status) ? ParseJson(r.body) : json();
  if (!JsonMember(body, "items").is_array()) {
    if (r.status == 403 || r.status == 404) no_workloads_.insert(ns);
    Notice("cannot read Kueue workloads in namespace " + ns + " (" + Describe(r) +
           "); suspended jobs are shown as queued without Kueue's reason");
    return;
  }
  for (const auto& w : body["items"]) {
    std::string owner;
    const json& refs = JsonMember(JsonMember(w, "metadata"), "ownerReferences");
    if (refs.is_array())
      for (const auto& ref : refs)
        if (JsonMemberString(ref, "kind") == "Job") owner = JsonMemberString(ref, "name");
    if (owner.empty()) continue;
    std::string why;
    for (const char* type : {"QuotaReserved", "Admitted", "Evicted"}) {
      const json* c = K8sCondition(w, type);
      bool bad = c && JsonMemberString(*c, "status") == (std::string(type) == "Evicted" ? "True" : "False");
      if (bad && why.empty())
        why =
            JsonMemberString(*c, "message").empty() ? JsonMemberString(*c, "reason") : JsonMemberString(*c, "message");
    }
    lists->kueue[owner] = "Kueue: " + (why.empty() ? "waiting for admission" : why);
  }
}

K8sScheduler::Observation K8sScheduler::Observe(const Tracked& t, const Lists& lists) const {
  Observation o;
  std::string name = t.main_name();
  const json* main = nullptr;
  if (t.kind != MainKind::kPod) {
    const std::map<std::string, const json*>* items = &lists.jobs;
    if (t.kind == MainKind::kCustom) {
      auto c = lists.custom.find(t.main_collection);
      if (c == lists.custom.end()) return o;
      items = &c->second;
    }
    auto it = items->find(name);
    if (it == items->end()) return o;
    main = it->second;
  }
  std::string selector = ReplaceAll(t.pod_selector, "{name}", name);
  SummarisePods(lists.pods.Of(t.kind, name, selector), t.opts->fail_waiting_reasons, &o);
  o.found = main || !o.pods.empty();
  if (!o.found) return o;
  if (t.kind == MainKind::kJob) {
    auto k = lists.kueue.find(name);
    ReadJobStatus(*main, k == lists.kueue.end() ? "" : k->second, &o);
  } else if (t.kind == MainKind::kPod) {
    ReadPodStatus(&o);
  } else {
    ReadCustomStatus(*main, t.cr, &o);
  }
  return o;
}

// Moves one job on from what the lists say. True when its state changed.
bool K8sScheduler::Apply(Job* job, Tracked* t, Observation o, double now) {
  const BatchOptions& b = opts_->batch;
  if (!o.found) {
    if (t->missing_since == 0) t->missing_since = now;
    if (now - t->missing_since <= b.lost_after) return CheckPending(job, t, now);
    DeleteObjects(t->created, b.query_timeout);  // what is left of it (a Service)
    SetTerminal(job, JobState{Kind::kLost,
                              "job " + job->id + " vanished: not listed by the Kubernetes API for " +
                                  FormatNumber(b.lost_after) + " s (deleted outside hetbench?)",
                              -1});
    return true;
  }
  t->missing_since = 0;
  if (!o.nodes.empty()) job->nodelist = o.nodes;
  if (o.start_time > 0) job->start_time = o.start_time;
  Kind before = job->state.kind;
  JobState s = o.state;
  if (s.kind == Kind::kQueued && o.suspended && (before == Kind::kStarting || before == Kind::kRunning))
    notices_.push_back("job " + job->id + " was suspended again (evicted by Kueue?); it is queued");

  // Waiting reasons Kubernetes retries forever fail the case after a grace.
  if (!s.terminal() && !o.fail_waiting.empty()) {
    if (t->waiting_since == 0) t->waiting_since = now;
    if (now - t->waiting_since >= t->opts->waiting_grace_s) {
      Finish(job, t, JobState{Kind::kFailed, o.fail_waiting, -1}, o);
      return true;
    }
  } else {
    t->waiting_since = 0;
  }
  // A multi-pod job has ended when all its pods have (within a grace).
  if (s.terminal() && o.pods_active && t->kind == MainKind::kCustom) {
    if (t->ending_since == 0) t->ending_since = now;
    if (now - t->ending_since < t->opts->waiting_grace_s) s = JobState{Kind::kRunning, "waiting for pods to end", -1};
  }
  if (s.terminal()) {
    if (o.end_time > 0) job->end_time = o.end_time;
    Finish(job, t, s, o);
    return job->state.terminal() || job->state.kind != before;
  }
  if (s.kind == Kind::kQueued || s.kind == Kind::kStarting) {
    if (t->pending_since == 0 || (before != Kind::kQueued && before != Kind::kStarting)) t->pending_since = now;
  } else {
    t->pending_since = 0;
  }
  // The time limit counts from the first poll that sees the job running;
  // hetbench enforces it itself, since not every cluster or operator
  // honours a deadline.
  if (s.kind == Kind::kRunning && t->deadline == 0 && job->time_limit_s > 0)
    t->deadline = now + job->time_limit_s + (t->kind == MainKind::kCustom ? 0 : kDeadlineGrace);
  if (t->deadline > 0 && now >= t->deadline) {
    std::string what = t->created.size() > t->set.main ? t->created[t->set.main].kind : "";
    Finish(job, t,
           JobState{Kind::kTimeout,
                    "time limit of " + FormatNumber(job->time_limit_s) + "s exceeded (hetbench deleted " + what + " " +
                        t->main_name() + ")",
                    -1},
           o, true);
    return true;
  }
  job->state = s;
  return CheckPending(job, t, now) || s.kind != before;
}

// max_pending_time bounds the time queued and starting: then the job is
// deleted and fails. True when it did.
bool K8sScheduler::CheckPending(Job* job, Tracked* t, double now) {
  if (job->max_pending_time_s <= 0 || t->pending_since == 0 || now - t->pending_since <= job->max_pending_time_s)
    return false;
  DeleteObjects(t->created, opts_->batch.query_timeout);
  SetTerminal(job, JobState{Kind::kFailed,
                            "pending for longer than max_pending_time (" + FormatNumber(job->max_pending_time_s) +
                                " s; last state: " + job->state.str() + ")",
                            -1});
  return true;
}

// ---------------------------------------------------------------------------
// Ending: logs first, then cleanup.

void K8sScheduler::Finish(Job* job, Tracked* t, JobState s, const Observation& o, bool still_running) {
  if (!CollectOutput(job, t, o, &s)) return;  // logs unreadable for now: next poll
  bool success = s.kind == Kind::kCompleted && s.exit_code == 0;
  // Objects still running (stopped at the time limit) are deleted even
  // with keep_failed_jobs: kept, they would run on.
  if (success || still_running || !t->opts->keep_failed_jobs) {
    DeleteObjects(t->created, opts_->batch.query_timeout);
  } else {
    std::string what = t->kind == MainKind::kJob   ? "job"
                       : t->kind == MainKind::kPod ? "pod"
                                                   : t->main_collection.substr(t->main_collection.rfind('/') + 1);
    notices_.push_back("job " + job->id + " " + JobState::Name(s.kind) + "; kept for inspection: kubectl -n " + t->ns +
                       " describe " + what + " " + t->main_name());
  }
  SetTerminal(job, s);
}

// Reads the logs of the job's pods and writes its stdout, stderr and result
// files. False when a log could not be read for a transient reason and the
// job should wait for the next poll (bounded by max_query_failure_time).
bool K8sScheduler::CollectOutput(Job* job, Tracked* t, const Observation& o, JobState* s) {
  const BatchOptions& b = opts_->batch;
  std::vector<PodInfo> pods = o.pods;
  json found;  // a custom resource's pods that do not carry hetbench's labels
  const std::string& selector = t->pod_selector;
  if (pods.empty() && t->kind == MainKind::kCustom && !t->cr.pod_selector.empty()) {
    std::string sel = UrlEncode(ReplaceAll(selector, "{name}", t->main_name()));
    KubeResponse r = Send("GET", "/api/v1/namespaces/" + t->ns + "/pods?labelSelector=" + sel, "", b.query_timeout);
    found = IsOk(r.status) ? ParseJson(r.body) : json();
    std::vector<PodInfo> all;
    if (JsonMember(found, "items").is_array())
      for (const auto& p : found["items"]) all.push_back(ReadPod(p));
    pods = ByRank(all);
  }
  std::vector<std::string> problems;
  std::vector<PodLog> logs;
  for (const auto& p : pods) {
    if (!p.ran) continue;
    std::string path = "/api/v1/namespaces/" + t->ns + "/pods/" + p.name + "/log" +
                       (p.container.empty() ? "" : "?container=" + UrlEncode(p.container));
    KubeResponse r = Send("GET", path, "", b.query_timeout);
    if (IsTransient(r)) {
      double now = Now();
      if (t->log_failing_since == 0) t->log_failing_since = now;
      if (now - t->log_failing_since <= b.max_query_failure_time) {
        Notice("cannot read the log of pod " + p.name + " (" + Describe(r) + "); retrying");
        job->state.reason = "reading logs";
        return false;
      }
    }
    if (!IsOk(r.status)) {
      problems.push_back("cannot read the log of pod " + p.name + ": " + Describe(r));
      continue;
    }
    auto parsed = ParsePodLog(r.body, t->set.nonce, p.name);
    if (parsed.ok())
      logs.push_back(PodLog{p, std::move(parsed.value())});
    else
      problems.push_back(parsed.status().message());
  }
  WriteOutputs(*job, logs, &problems);
  *s = SettleExitCode(*s, logs, problems.empty() && o.fail_waiting.empty());
  for (const auto& p : problems) Notice("job " + job->id + ": " + p);
  if (!problems.empty()) {
    std::string why = Join(problems, "; ");
    if (s->kind == Kind::kCompleted)
      *s = JobState{Kind::kFailed, why, s->exit_code};
    else
      s->reason = s->reason.empty() ? why : s->reason + "; " + why;
  }
  return true;
}

void K8sScheduler::DeleteObjects(const std::vector<ObjRef>& refs, double timeout) {
  // The main object first: its pods go with it (Background), then the rest.
  for (auto it = refs.rbegin(); it != refs.rend(); ++it) {
    KubeResponse r = Send("DELETE", it->path() + "?propagationPolicy=Background", "", timeout);
    if (IsOk(r.status) || r.status == 404) continue;
    Notice("warning: cannot delete " + it->kind + " " + it->name + " (" + Describe(r) + "); will retry");
    leftovers_.push_back(*it);
  }
}

void K8sScheduler::SetTerminal(Job* job, const JobState& s) {
  job->state = s;
  if (job->end_time == 0) job->end_time = EpochNow();
  if (job->start_time == 0 && s.kind != Kind::kCancelled && s.kind != Kind::kLost &&
      !StartsWith(s.reason, "pending for longer") && !StartsWith(s.reason, "namespace quota"))
    job->start_time = job->end_time;
  tracked_.erase(job->id);
}

// ---------------------------------------------------------------------------
// Cancelling.

void K8sScheduler::Cancel(Job* job) {
  auto it = tracked_.find(job->id);
  if (it == tracked_.end() || it->second->cancel_requested) return;
  it->second->cancel_requested = true;
  DeleteObjects(it->second->created, opts_->batch.query_timeout);
  interval_ = opts_->batch.min_poll_interval;
  next_poll_ = Now();
}

void K8sScheduler::Shutdown() {
  double deadline = Now() + kShutdownBudget;
  std::vector<ObjRef> refs;
  refs.swap(leftovers_);
  for (auto& [id, t] : tracked_) {
    if (!t->cancel_requested) refs.insert(refs.end(), t->created.begin(), t->created.end());
    t->cancel_requested = true;
  }
  for (const auto& ref : refs) {
    double left = deadline - Now();
    if (left <= 0) {
      Notice("warning: Shutdown ran out of time; not deleted: " + ref.kind + " " + ref.name);
      continue;
    }
    DeleteObjects({ref}, std::min(left, opts_->batch.query_timeout));
  }
  next_poll_ = Now();  // the next Poll confirms the cancellations
}

}  // namespace hb
