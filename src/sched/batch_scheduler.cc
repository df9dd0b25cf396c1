#include "sched/batch_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/json_field.h"
#include "util/log.h"
#include "util/strings.h"

namespace hb {

namespace {

// "sched_options: 'key' must be ...", at the value's place when known.
Status OptionError(const JsonField& v, const std::string& key, const std::string& expected) {
  return v.Placed("sched_options: '" + key + "' must be " + expected);
}

}  // namespace

Result<BatchOptions> ParseBatchOptions(const nlohmann::json& so, const std::vector<std::string>& backend_keys) {
  return ReadBatchOptions(JsonField(so), backend_keys);
}

namespace {

// The keys every batch backend reads.
const std::vector<std::string>& BatchKeys() {
  static const std::vector<std::string> k = {"job_submit_timeout",
                                             "resubmit_on_errors",
                                             "max_resubmits",
                                             "ignore_reqnodenotavail",
                                             "use_nodes_option",
                                             "max_sacct_failures",
                                             "min_poll_interval",
                                             "max_poll_interval",
                                             "poll_backoff",
                                             "query_timeout",
                                             "lost_after",
                                             "max_query_failure_time",
                                             "cancel_pending_reasons",
                                             "slurm_job_cancel_reasons",
                                             "sched_access_in_submit"};
  return k;
}

// ReFrame's keys that hetbench does not act on, and why.
const char* NotSupported(const std::string& key) {
  if (key == "slurm_envvar_whitelist")
    return "hetbench does not unset SBATCH_* variables before sbatch, so there is nothing to keep; remove it";
  if (key == "slurm_multi_cluster_mode")
    return "hetbench follows jobs on the cluster sbatch submits to; name the cluster with access: ['--clusters=NAME'] "
           "and one partition per cluster";
  if (key == "slurm_pending_job_reason_poll_freq")
    return "hetbench reads a pending job's reason in every poll (squeue -j), so there is no separate frequency; "
           "set min_poll_interval and max_poll_interval instead";
  return nullptr;
}

}  // namespace

std::vector<std::vector<std::string>> IdChunks(const std::vector<std::string>& ids, size_t per_command) {
  std::vector<std::vector<std::string>> out;
  if (per_command == 0) per_command = 1;
  for (size_t i = 0; i < ids.size(); i += per_command)
    out.emplace_back(ids.begin() + static_cast<std::ptrdiff_t>(i),
                     ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), i + per_command)));
  return out;
}

Result<BatchOptions> ReadBatchOptions(const JsonField& so, const std::vector<std::string>& backend_keys) {
  BatchOptions o;
  if (so.absent_or_null()) return o;
  if (!so.json().is_object()) return so.Placed("sched_options: expected a mapping");
  struct NumberKey {
    const char* name;
    double* field;
  };
  const NumberKey numbers[] = {{"job_submit_timeout", &o.job_submit_timeout},
                               {"min_poll_interval", &o.min_poll_interval},
                               {"max_poll_interval", &o.max_poll_interval},
                               {"poll_backoff", &o.poll_backoff},
                               {"query_timeout", &o.query_timeout},
                               {"lost_after", &o.lost_after},
                               {"max_query_failure_time", &o.max_query_failure_time}};
  for (const auto& [key, v] : so.Items()) {
    bool done = false;
    for (const auto& n : numbers) {
      if (key != n.name) continue;
      auto seconds = JsonNumber(v.json());
      if (!seconds || *seconds < 0) return OptionError(v, key, "a number of seconds >= 0");
      *n.field = *seconds;
      done = true;
    }
    if (done) continue;
    if (key == "resubmit_on_errors" || key == "cancel_pending_reasons" || key == "slurm_job_cancel_reasons") {
      auto strings = v.Strings();
      if (!v.json().is_array() || !strings.ok()) return OptionError(v, key, "a list of strings");
      auto& dst = key == "resubmit_on_errors" ? o.resubmit_on_errors : o.cancel_pending_reasons;
      dst.insert(dst.end(), strings->begin(), strings->end());
    } else if (key == "ignore_reqnodenotavail" || key == "use_nodes_option" || key == "sched_access_in_submit") {
      auto b = JsonBool(v.json());
      if (!b) return OptionError(v, key, "true or false");
      (key == "ignore_reqnodenotavail" ? o.ignore_reqnodenotavail
       : key == "use_nodes_option"     ? o.use_nodes_option
                                       : o.sched_access_in_submit) = *b;
    } else if (key == "max_sacct_failures" || key == "max_resubmits") {
      auto n = v.Int(0, INT_MAX);
      if (!n.ok()) return OptionError(v, key, "an integer >= 0");
      (key == "max_sacct_failures" ? o.max_sacct_failures : o.max_resubmits) = static_cast<int>(*n);
    } else if (std::find(backend_keys.begin(), backend_keys.end(), key) != backend_keys.end()) {
      // read by the backend itself
    } else if (key == "ssh_hosts" || key == "hosts" || key == "unqualified_hostnames" || key == "pe") {
      return v.Placed("sched_options: '" + key + "' is an option of the " + (key == "pe" ? "sge" : "ssh") +
                      " scheduler only");
    } else if (const char* why = NotSupported(key)) {
      return v.Placed("sched_options: '" + key + "' (ReFrame's) is not supported: " + why);
    } else {
      std::vector<std::string> known = BatchKeys();
      known.insert(known.end(), backend_keys.begin(), backend_keys.end());
      return v.Placed("sched_options: unknown key '" + key + "'" + DidYouMean(key, known) +
                      " (known: " + Join(known, ", ") + ")");
    }
  }
  if (o.min_poll_interval <= 0) o.min_poll_interval = 0.05;
  if (o.max_poll_interval < o.min_poll_interval) o.max_poll_interval = o.min_poll_interval;
  if (o.poll_backoff < 1) o.poll_backoff = 1;
  return o;
}

nlohmann::json BatchPollingOptions(const BatchOptions& o) {
  return {{"min_poll_interval", o.min_poll_interval},
          {"max_poll_interval", o.max_poll_interval},
          {"poll_backoff", o.poll_backoff},
          {"query_timeout", o.query_timeout},
          {"lost_after", o.lost_after},
          {"max_query_failure_time", o.max_query_failure_time},
          {"max_sacct_failures", o.max_sacct_failures}};
}

BatchScheduler::BatchScheduler(std::unique_ptr<CommandRunner> runner, BatchOptions opts)
    : runner_(std::move(runner)), opts_(std::move(opts)), interval_(opts_.min_poll_interval) {
  own_ = Compile(opts_);
}

BatchScheduler::PartitionOptions BatchScheduler::Compile(BatchOptions o) const {
  PartitionOptions p;
  for (const auto& re : o.resubmit_on_errors) {
    auto compiled = Regex::Compile(re);
    if (compiled.ok())
      p.resubmit_res.push_back(std::make_shared<const Regex>(std::move(compiled).value()));
    else
      Notice("sched_options: resubmit_on_errors: " + compiled.status().message() + "; this pattern is left out");
  }
  p.opts = std::move(o);
  return p;
}

const BatchScheduler::PartitionOptions& BatchScheduler::PartitionOf(const Job& job) const {
  if (job.sched_options.is_null()) return own_;
  std::string key = job.sched_options.dump();
  auto it = partitions_.find(key);
  if (it != partitions_.end()) return it->second;
  auto parsed = ParseBatchOptions(job.sched_options, BackendKeys());  // checked before anything runs (instance_key)
  if (!parsed.ok()) return own_;
  return partitions_.emplace(key, Compile(std::move(parsed.value()))).first->second;
}

const BatchOptions& BatchScheduler::JobOptions(const Job& job) const { return PartitionOf(job).opts; }

Result<Observations> BatchScheduler::QueryInChunks(
    const std::vector<std::string>& ids,
    const std::function<Result<Observations>(const std::vector<std::string>&)>& query) {
  if (ids.size() <= kMaxIdsPerCommand) return query(ids);
  Observations all;
  for (const auto& chunk : IdChunks(ids)) {
    auto r = query(chunk);
    if (!r.ok()) return r;
    all.insert(r->begin(), r->end());
  }
  return all;
}

std::vector<std::string> BatchScheduler::WithIds(std::vector<std::string> head, const std::vector<std::string>& ids) {
  head.insert(head.end(), ids.begin(), ids.end());
  return head;
}

std::vector<std::string> BatchScheduler::ScriptOptions(const Job& job) const {
  std::vector<std::string> out;
  if (!JobOptions(job).sched_access_in_submit) out = job.access;
  out.insert(out.end(), job.options.begin(), job.options.end());
  return out;
}

std::vector<std::string> BatchScheduler::SubmitAccess(const Job& job) const {
  return JobOptions(job).sched_access_in_submit ? job.access : std::vector<std::string>{};
}

void BatchScheduler::Notice(const std::string& text) const {
  if (said_.insert(text).second) notices_.push_back(text);
}

std::vector<std::string> BatchScheduler::TakeNotices() {
  std::vector<std::string> out;
  out.swap(notices_);
  return out;
}

Status BatchScheduler::Check() {
  for (const auto& cmd : RequiredCommands()) {
    if (!runner_->Exists(cmd))
      return Status::Error("scheduler '" + name() + "' needs the command '" + cmd +
                           "', which is not in PATH on this host (needed: " + Join(RequiredCommands(), ", ") + ")");
  }
  return Status::OK();
}

Status BatchScheduler::Submit(Job* job) {
  std::vector<std::string> argv = SubmitCommand(*job);
  std::string id;
  const PartitionOptions& part = PartitionOf(*job);
  const BatchOptions& po = part.opts;
  for (int attempt = 0;; ++attempt) {
    CommandResult r = runner_->Run(argv, po.job_submit_timeout, job->workdir, SubmitStdin(*job));
    if (r.exit_code == 0 && !r.timed_out) {
      auto parsed = ParseSubmitOutput(r);
      if (!parsed.ok()) return parsed.status();
      id = *parsed;
      break;
    }
    std::string problem = r.timed_out ? argv[0] + " did not answer within job_submit_timeout (" +
                                            FormatNumber(po.job_submit_timeout) + " s)"
                                      : r.Problem(argv[0]);
    bool transient = std::any_of(part.resubmit_res.begin(), part.resubmit_res.end(), [&](const auto& re) {
      auto in_err = re->FindFirst(r.err), in_out = re->FindFirst(r.out);
      return (in_err.ok() && in_err->has_value()) || (in_out.ok() && in_out->has_value());
    });
    if (!transient || attempt >= po.max_resubmits) return Status::Error(problem);
    Notice(argv[0] + ": transient error, resubmitting: " + problem);
    clock_->Sleep(0.2 * (attempt + 1));
  }
  double now = Now();
  job->id = id;
  job->submit_time = WallNow();
  job->state = JobState{JobState::Kind::kQueued, "submitted", -1};
  tracked_[id] = Tracked{now, now, 0, false, "submitted"};
  active_.insert(id);
  interval_ = opts_.min_poll_interval;
  next_poll_ = std::min(next_poll_ > 0 ? next_poll_ : now + interval_, now + interval_);
  return Status::OK();
}

double BatchScheduler::NextPollDelay() const {
  if (active_.empty()) return std::numeric_limits<double>::infinity();
  return std::max(0.0, next_poll_ - Now());
}

void BatchScheduler::Backoff(bool changed) {
  interval_ = changed ? opts_.min_poll_interval : std::min(opts_.max_poll_interval, interval_ * opts_.poll_backoff);
  next_poll_ = Now() + interval_;
}

void BatchScheduler::SetTerminal(Job* job, JobState::Kind kind, const std::string& reason) {
  job->state.kind = kind;
  job->state.reason = reason;
  if (job->end_time == 0) job->end_time = WallNow();
  active_.erase(job->id);
  tracked_.erase(job->id);
}

void BatchScheduler::Apply(Job* job, Tracked* t, const JobObservation& o, double now) {
  JobState s = o.state;
  if (s.kind == JobState::Kind::kCancelled && !t->cancel_requested) {
    s.kind = JobState::Kind::kFailed;
    s.reason = "cancelled outside hetbench (by the scheduler or an administrator)";
  }
  if (!o.nodes.empty()) job->nodelist = o.nodes;
  if (o.start_time > 0) job->start_time = o.start_time;
  if ((s.kind == JobState::Kind::kRunning || s.terminal()) && job->start_time == 0) job->start_time = WallNow();
  if (s.kind == JobState::Kind::kQueued) {
    if (t->pending_since == 0) t->pending_since = now;
    t->pending_reason = s.reason;
  } else {
    t->pending_since = 0;
  }
  job->state = s;
  if (s.terminal()) {
    job->end_time = o.end_time > 0 ? o.end_time : WallNow();
    active_.erase(job->id);
    tracked_.erase(job->id);
  }
}

void BatchScheduler::CheckPending(Job* job, Tracked* t, double now) {
  if (job->state.kind != JobState::Kind::kQueued || t->cancel_requested) return;
  const BatchOptions& po = JobOptions(*job);
  std::vector<std::string> reasons =
      po.cancel_pending_reasons.empty() ? DefaultCancelReasons() : po.cancel_pending_reasons;
  // A listed reason matches the start of the scheduler's reason:
  // "ReqNodeNotAvail" matches "ReqNodeNotAvail, UnavailableNodes:n1",
  // "Can Never Run" matches PBS's "Can Never Run: ...".
  const std::string& reason = t->pending_reason;
  bool hopeless = std::any_of(reasons.begin(), reasons.end(), [&](const std::string& r) {
    return !r.empty() && StartsWith(reason, r) && !(po.ignore_reqnodenotavail && r == "ReqNodeNotAvail");
  });
  bool too_long =
      job->max_pending_time_s > 0 && t->pending_since > 0 && now - t->pending_since > job->max_pending_time_s;
  if (!hopeless && !too_long) return;
  std::vector<std::string> cmd = CancelCommand({job->id});
  CommandResult cancel = runner_->Run(cmd, opts_.query_timeout);
  std::string cancelled = cancel.exit_code == 0
                              ? "cancelled"
                              : "cancelling it failed (" + cancel.Problem(cmd[0]) + "): it may still be queued";
  std::string why = hopeless
                        ? "the scheduler cannot run it (pending reason: " + reason + "); " + cancelled
                        : "pending for more than " + FormatNumber(job->max_pending_time_s) +
                              " s (max_pending_time; last pending reason: " + t->pending_reason + "); " + cancelled;
  SetTerminal(job, JobState::Kind::kFailed, why);
}

void BatchScheduler::Poll(const std::vector<Job*>& jobs) {
  double now = Now();
  if (active_.empty() || now < next_poll_) return;
  std::vector<std::string> ids;
  for (Job* j : jobs)
    if (active_.count(j->id)) ids.push_back(j->id);
  if (ids.empty()) return;
  auto res = Query(ids);
  if (!res.ok()) {
    if (failing_since_ == 0) failing_since_ = now;
    Notice("warning: cannot query the scheduler (" + res.status().message() + "); retrying");
    if (now - failing_since_ > opts_.max_query_failure_time) {
      for (Job* j : jobs)
        if (active_.count(j->id))
          SetTerminal(j, JobState::Kind::kLost,
                      "the scheduler did not answer for " + FormatNumber(now - failing_since_, 3) +
                          " s: " + res.status().message());
    }
    Backoff(false);
    return;
  }
  if (failing_since_ != 0) Notice("the scheduler answers again");
  failing_since_ = 0;
  bool changed = false;
  for (Job* j : jobs) {
    auto tr = tracked_.find(j->id);
    if (tr == tracked_.end()) continue;
    Tracked* t = &tr->second;
    auto it = res->find(j->id);
    JobState::Kind before = j->state.kind;
    if (it != res->end()) {
      t->missing_since = 0;
      Apply(j, t, it->second, now);
      if (j->state.terminal()) {
        changed = true;
        continue;
      }
    } else {
      if (t->missing_since == 0) t->missing_since = now;
      if (t->cancel_requested) {
        SetTerminal(j, JobState::Kind::kCancelled, "cancelled");
      } else if (now - t->missing_since > opts_.lost_after) {
        SetTerminal(j, JobState::Kind::kLost,
                    "job " + j->id + " vanished: no query has found it for " + FormatNumber(opts_.lost_after) + " s");
      }
      if (j->state.terminal()) {
        changed = true;
        continue;
      }
    }
    CheckPending(j, t, now);
    changed |= j->state.kind != before;
  }
  Backoff(changed);
}

void BatchScheduler::Cancel(Job* job) {
  auto it = tracked_.find(job->id);
  if (it == tracked_.end() || it->second.cancel_requested) return;
  it->second.cancel_requested = true;
  CommandResult r = runner_->Run(CancelCommand({job->id}), opts_.query_timeout);
  if (r.exit_code != 0) Notice("warning: cancelling job " + job->id + ": " + r.Problem(CancelCommand({job->id})[0]));
  interval_ = opts_.min_poll_interval;
  next_poll_ = Now();
}

void BatchScheduler::Shutdown() {
  std::vector<std::string> ids;
  for (auto& [id, t] : tracked_)
    if (!t.cancel_requested) ids.push_back(id);
  for (size_t i = 0; i < ids.size(); i += 200) {
    std::vector<std::string> chunk(ids.begin() + i, ids.begin() + std::min(ids.size(), i + 200));
    std::vector<std::string> cmd = CancelCommand(chunk);
    CommandResult r = runner_->Run(cmd, opts_.query_timeout);
    if (r.exit_code != 0)
      LogRecord(kLogWarning, "could not cancel job(s) " + Join(chunk, " ") + " on the way out: " + r.Problem(cmd[0]) +
                                 "; cancel them by hand");
  }
  for (auto& [id, t] : tracked_) t.cancel_requested = true;
}

}  // namespace hb
