#include "k8s/k8s_observe.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <optional>

#include "util/fs.h"
#include "util/json_field.h"
#include "util/rfc3339.h"
#include "util/strings.h"

namespace hb {

using nlohmann::json;
using Kind = JobState::Kind;

namespace {

// RFC 3339 to epoch seconds; 0 when absent or not a time.
double ParseTime(const json& v) {
  const std::string* s = JsonStringPtr(v);
  std::optional<double> t = s ? ParseRfc3339(*s) : std::nullopt;
  return t ? *t : 0;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

const json* K8sCondition(const json& obj, const std::string& type) {
  const json& conds = JsonMember(JsonMember(obj, "status"), "conditions");
  if (!conds.is_array()) return nullptr;
  for (const auto& c : conds)
    if (JsonMemberString(c, "type") == type) return &c;
  return nullptr;
}
namespace {

bool ConditionTrue(const json& obj, const std::string& type) {
  const json* c = K8sCondition(obj, type);
  return c && JsonMemberString(*c, "status") == "True";
}

}  // namespace

std::string ReasonText(const std::string& reason, const std::string& message) {
  if (reason.empty()) return message;
  if (message.empty()) return reason;
  return reason + ": " + message;
}

namespace {

// A dotted path ("status.state") in an object, as text ("" when absent).
std::string FieldText(const json& obj, const std::string& dotted) {
  const json* cur = &obj;
  for (const auto& part : Split(dotted, '.')) {
    if (!cur->is_object() || !cur->contains(part)) return "";
    cur = &(*cur)[part];
  }
  if (const std::string* s = JsonStringPtr(*cur)) return *s;
  if (cur->is_null()) return "";
  return cur->dump();
}

// True when the labels satisfy every equality term of a selector
// ("a=b,c==d"); terms of other kinds are not checked.
bool SelectorMatches(const std::string& selector, const json& labels) {
  for (const auto& term : Split(selector, ',')) {
    std::string t = Trim(term);
    size_t eq = t.find('=');
    if (t.empty() || eq == std::string::npos || (eq > 0 && t[eq - 1] == '!')) continue;
    std::string key = Trim(t.substr(0, eq));
    std::string value = Trim(t.substr(t[eq + 1] == '=' ? eq + 2 : eq + 1));
    if (JsonMemberString(labels, key.c_str()) != value) return false;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------
// Pods.

PodInfo ReadPod(const json& p) {
  PodInfo pod;
  pod.obj = &p;
  const json& meta = JsonMember(p, "metadata");
  const json& spec = JsonMember(p, "spec");
  const json& st = JsonMember(p, "status");
  pod.name = JsonMemberString(meta, "name");
  pod.created = ParseTime(JsonMember(meta, "creationTimestamp"));
  std::string index = JsonMemberString(JsonMember(meta, "annotations"), "batch.kubernetes.io/job-completion-index");
  if (index.empty()) index = JsonMemberString(JsonMember(meta, "labels"), "batch.kubernetes.io/job-completion-index");
  if (!index.empty() && std::isdigit(static_cast<unsigned char>(index[0]))) pod.rank = std::atoi(index.c_str());
  const json& containers = JsonMember(spec, "containers");
  if (containers.is_array() && !containers.empty()) pod.container = JsonMemberString(containers[0], "name");
  pod.node = JsonMemberString(spec, "nodeName");
  pod.phase = JsonMemberString(st, "phase");
  pod.pod_reason = JsonMemberString(st, "reason");
  pod.pod_message = JsonMemberString(st, "message");
  pod.started = ParseTime(JsonMember(st, "startTime"));
  if (const json* sched = K8sCondition(p, "PodScheduled"); sched && JsonMemberString(*sched, "status") == "False")
    pod.unschedulable = ReasonText(JsonMemberString(*sched, "reason"), JsonMemberString(*sched, "message"));
  for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
    const json& list = JsonMember(st, key);
    if (!list.is_array()) continue;
    for (const auto& cs : list) {
      const json& state = JsonMember(cs, "state");
      const json& waiting = JsonMember(state, "waiting");
      if (waiting.is_object() && pod.waiting_reason.empty()) {
        pod.waiting_reason = JsonMemberString(waiting, "reason");
        pod.waiting_message = JsonMemberString(waiting, "message");
      }
      bool payload = std::string(key) == "containerStatuses" &&
                     (JsonMemberString(cs, "name") == pod.container || pod.container.empty());
      if (!payload) continue;
      const json& running = JsonMember(state, "running");
      const json* term = &JsonMember(state, "terminated");
      if (!term->is_object()) term = &JsonMember(JsonMember(cs, "lastState"), "terminated");
      if (running.is_object()) {
        pod.ran = true;
        if (double t = ParseTime(JsonMember(running, "startedAt"))) pod.started = t;
      }
      if (term->is_object()) {
        pod.ran = true;
        std::optional<long long> code = JsonInt(JsonMember(*term, "exitCode"));
        pod.exit_code = code && *code >= INT_MIN && *code <= INT_MAX ? static_cast<int>(*code) : -1;
        pod.term_reason = JsonMemberString(*term, "reason");
        if (double t = ParseTime(JsonMember(*term, "startedAt"))) pod.started = t;
        pod.finished = ParseTime(JsonMember(*term, "finishedAt"));
      }
    }
  }
  return pod;
}

bool PodActive(const PodInfo& p) { return p.phase == "Pending" || p.phase == "Running" || p.phase.empty(); }

// One pod per rank: the one that succeeded, else the newest. Ranks of pods
// without a completion index are their position by name.
std::vector<PodInfo> ByRank(std::vector<PodInfo> pods) {
  std::sort(pods.begin(), pods.end(), [](const PodInfo& a, const PodInfo& b) { return a.name < b.name; });
  bool indexed = std::any_of(pods.begin(), pods.end(), [](const PodInfo& p) { return p.rank >= 0; });
  if (!indexed)
    for (size_t i = 0; i < pods.size(); ++i) pods[i].rank = static_cast<int>(i);
  std::map<int, PodInfo> best;
  for (auto& p : pods) {
    auto it = best.find(p.rank);
    bool better = it == best.end() || (p.phase == "Succeeded" && it->second.phase != "Succeeded") ||
                  (p.phase == it->second.phase && p.created > it->second.created);
    if (better) best[p.rank] = p;
  }
  std::vector<PodInfo> out;
  for (auto& [rank, p] : best) out.push_back(p);
  return out;
}

// Why pending pods are not running yet: "Unschedulable: 0/3 nodes are
// available...; ErrImagePull: ...". "" when nothing is said.
std::string PendingReasons(const std::vector<PodInfo>& pods) {
  std::vector<std::string> parts;
  for (const auto& p : pods) {
    if (p.phase == "Running" || !PodActive(p)) continue;
    for (const std::string& s :
         {p.unschedulable, p.waiting_reason.empty() ? "" : ReasonText(p.waiting_reason, p.waiting_message)})
      if (!s.empty() && !Contains(parts, s)) parts.push_back(s);
  }
  return Join(parts, "; ");
}

// ---------------------------------------------------------------------------
// What the lists say about one case: pure functions of the API's objects.

void PodIndex::Add(PodInfo p) {
  const json& labels = JsonMember(JsonMember(*p.obj, "metadata"), "labels");
  std::string job = JsonMemberString(labels, "batch.kubernetes.io/job-name");
  if (job.empty()) job = JsonMemberString(labels, "job-name");
  by_key.emplace("pod:" + p.name, pods.size());
  if (!job.empty()) by_key.emplace("job:" + job, pods.size());
  pods.push_back(std::move(p));
}

std::vector<PodInfo> PodIndex::Of(MainKind kind, const std::string& name, const std::string& selector) const {
  std::vector<PodInfo> out;
  if (kind == MainKind::kCustom) {
    for (const auto& p : pods)
      if (!selector.empty() && SelectorMatches(selector, JsonMember(JsonMember(*p.obj, "metadata"), "labels")))
        out.push_back(p);
    return out;
  }
  auto range = by_key.equal_range((kind == MainKind::kPod ? "pod:" : "job:") + name);
  for (auto it = range.first; it != range.second; ++it) out.push_back(pods[it->second]);
  return out;
}

// Nodes, times, waiting reasons and the state the pods alone give (for a
// case that has not ended by its own account).
void SummarisePods(const std::vector<PodInfo>& pods, const std::vector<std::string>& fail_reasons, Seen* o) {
  for (const auto& p : pods)
    o->pods_active |= PodActive(p) && !JsonMember(JsonMember(*p.obj, "metadata"), "deletionTimestamp").is_string();
  o->pods = ByRank(pods);
  for (const auto& p : o->pods) {
    if (!p.node.empty() && !Contains(o->nodes, p.node)) o->nodes.push_back(p.node);
    if (p.started > 0 && (o->start_time == 0 || p.started < o->start_time)) o->start_time = p.started;
    o->end_time = std::max(o->end_time, p.finished);
    if (PodActive(p) && Contains(fail_reasons, p.waiting_reason) && o->fail_waiting.empty())
      o->fail_waiting = ReasonText(p.waiting_reason, p.waiting_message);
  }
  auto any = [&](auto pred) { return std::any_of(o->pods.begin(), o->pods.end(), pred); };
  if (any([](const PodInfo& p) { return p.phase == "Running"; })) {
    o->state = JobState{Kind::kRunning, "", -1};
  } else if (any(PodActive)) {
    std::string why = PendingReasons(o->pods);
    o->state = JobState{Kind::kStarting, why.empty() ? "pods pending" : why, -1};
  } else {
    o->state =
        JobState{o->pods.empty() ? Kind::kStarting : Kind::kRunning, o->pods.empty() ? "no pod yet" : "pods ended", -1};
  }
}

// A failure, told by the first failed pod: "OOMKilled (pod x, exit 137); head".
JobState PodFailure(const Seen& o, const std::string& head) {
  JobState s{Kind::kFailed, head, -1};
  auto p = std::find_if(o.pods.begin(), o.pods.end(), [](const PodInfo& x) { return x.phase == "Failed"; });
  if (p == o.pods.end()) return s;
  s.exit_code = p->exit_code;
  std::string detail = p->term_reason.empty() ? ReasonText(p->pod_reason, p->pod_message) : p->term_reason;
  detail += (detail.empty() ? "(pod " : " (pod ") + p->name +
            (p->exit_code >= 0 ? ", exit " + std::to_string(p->exit_code) : "") + ")";
  s.reason = head.empty() ? detail : detail + "; " + head;
  return s;
}

// A batch/v1 Job: its conditions, then spec.suspend (with Kueue's reason).
void ReadJobStatus(const json& job, const std::string& kueue_reason, Seen* o) {
  const json& st = JsonMember(job, "status");
  if (ConditionTrue(job, "Complete")) {
    o->state = JobState{Kind::kCompleted, "", 0};
    if (double end = ParseTime(JsonMember(st, "completionTime"))) o->end_time = end;
  } else if (ConditionTrue(job, "Failed")) {
    const json* c = K8sCondition(job, "Failed");
    std::string head = ReasonText(JsonMemberString(*c, "reason"), JsonMemberString(*c, "message"));
    o->state = JsonMemberString(*c, "reason") == "DeadlineExceeded" ? JobState{Kind::kTimeout, head, -1}
                                                                    : PodFailure(*o, head);
    if (double end = ParseTime(JsonMember(*c, "lastTransitionTime"))) o->end_time = std::max(o->end_time, end);
  } else if (JsonMember(JsonMember(job, "spec"), "suspend") == json(true)) {
    o->suspended = true;
    o->state = JobState{Kind::kQueued, kueue_reason.empty() ? "suspended" : kueue_reason, -1};
    o->fail_waiting.clear();
  }
  if (o->start_time == 0 && o->state.kind != Kind::kQueued) o->start_time = ParseTime(JsonMember(st, "startTime"));
}

// A plain Pod: its phase.
void ReadPodStatus(Seen* o) {
  const PodInfo& p = o->pods.front();
  if (p.phase == "Succeeded") o->state = JobState{Kind::kCompleted, "", std::max(0, p.exit_code)};
  if (p.phase == "Failed")
    o->state = p.pod_reason == "DeadlineExceeded"
                   ? JobState{Kind::kTimeout, ReasonText(p.pod_reason, p.pod_message), -1}
                   : PodFailure(*o, "");
}

// A custom resource: its state field says queued, running or ended; a value
// in none of the lists (or a running one while pods are still pending) is
// told by the pods, as SummarisePods put it.
void ReadCustomStatus(const json& obj, const CustomResourceSpec& cr, Seen* o) {
  std::string value = FieldText(obj, cr.state_field);
  std::string said = value.empty() ? "waiting for the operator" : cr.state_field + ": " + value;
  if (Contains(cr.success_values, value)) {
    o->state = JobState{Kind::kCompleted, "", 0};
  } else if (Contains(cr.failure_values, value)) {
    o->state = PodFailure(*o, cr.state_field + ": " + value);
  } else if (Contains(cr.queued_values, value)) {
    o->state = JobState{Kind::kQueued, said, -1};
    o->fail_waiting.clear();
  } else if (o->pods.empty()) {
    o->state = JobState{Contains(cr.running_values, value) ? Kind::kRunning : Kind::kStarting, said, -1};
  } else if (o->state.kind == Kind::kStarting && o->state.reason != "no pod yet") {
    o->state.reason = said + "; " + o->state.reason;  // pods pending: why
  } else if (Contains(cr.running_values, value)) {
    o->state = JobState{Kind::kRunning, "", -1};
  }
}

// ---------------------------------------------------------------------------
// What the pods' logs bring back.

namespace {

// Several pods' texts, each under "==> pod NAME (rank I) <==".
std::string WithHeaders(const std::vector<PodLog>& logs, const std::vector<std::string>& texts) {
  if (logs.size() == 1) return texts[0];
  std::string out;
  for (size_t i = 0; i < logs.size(); ++i) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += "==> pod " + logs[i].pod.name + " (rank " + std::to_string(logs[i].pod.rank) + ") <==\n" + texts[i];
  }
  return out;
}

}  // namespace

// The job's stdout (the logs), its stderr and result files (the archives,
// the last rank first so that rank 0's files win; each holds its pod's
// stderr file).
void WriteOutputs(const Job& job, const std::vector<PodLog>& logs, std::vector<std::string>* problems) {
  if (logs.empty()) return;
  std::vector<std::string> outs, errs(logs.size());
  for (const auto& l : logs) outs.push_back(l.out.stdout_text);
  Status st = WriteFile(job.stdout_path, WithHeaders(logs, outs));
  if (!st.ok()) problems->push_back(st.message());
  std::string err_rel = StartsWith(job.stderr_path, job.workdir + "/")
                            ? job.stderr_path.substr(job.workdir.size() + 1)
                            : job.stderr_path.substr(job.stderr_path.rfind('/') + 1);
  std::string err_file = JoinPath(job.workdir, err_rel);
  bool any_archive = false;
  for (size_t i = logs.size(); i-- > 0;) {
    if (logs[i].out.archive.empty()) continue;
    any_archive = true;
    (void)::unlink(err_file.c_str());
    st = ExtractArchive(logs[i].out.archive, job.workdir);
    if (!st.ok()) problems->push_back("pod " + logs[i].pod.name + ": " + st.message());
    auto text = ReadFile(err_file);
    if (text.ok()) errs[i] = *text;
  }
  if (!any_archive) return;  // the files are on a shared volume
  st = WriteFile(job.stderr_path, WithHeaders(logs, errs));
  if (!st.ok()) problems->push_back(st.message());
}

// The exit code: the payload's, else the container's. A script that ended
// with a non-zero status, reported by every pod's payload, completed (as
// the batch backends say of a job whose script failed); a failure without
// that report (killed, OOMKilled) stays a failure.
JobState SettleExitCode(JobState s, const std::vector<PodLog>& logs, bool clean) {
  bool all_reported = !logs.empty();
  int first_nonzero = 0;
  for (const auto& l : logs) {
    int code = l.out.exit_status >= 0 ? l.out.exit_status : l.pod.exit_code;
    all_reported &= l.out.exit_status >= 0;
    if (code > 0 && first_nonzero == 0) first_nonzero = code;
  }
  if (s.kind == Kind::kCompleted && !logs.empty()) s.exit_code = first_nonzero;
  if (s.kind == Kind::kFailed && all_reported && first_nonzero > 0 && clean)
    return JobState{Kind::kCompleted, "", first_nonzero};
  if (s.kind == Kind::kFailed && first_nonzero > 0) s.exit_code = first_nonzero;
  return s;
}

}  // namespace hb
