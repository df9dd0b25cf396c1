#include "run/executor.h"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "buildsys/build_system.h"
#include "check/performance.h"
#include "check/reference.h"
#include "check/sanity.h"
#include "config/detect.h"
#include "launch/launcher.h"
#include "model/bind.h"
#include "model/placeholder.h"
#include "run/case_checks.h"
#include "run/module_system.h"
#include "run/script.h"
#include "sched/scheduler_factory.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/regex.h"
#include "util/signals.h"
#include "util/strings.h"

namespace hb {

namespace {

// How long an interrupted run waits for cancelled jobs to end.
constexpr double kInterruptGrace = 30;

// How often the sizes of running jobs' output files are looked at.
constexpr double kOutputCheckInterval = 0.5;

// A folder name for a case: the test name and parameter values, made safe.
std::string CaseDirName(const TestCase& c) {
  std::string name = c.spec->name;
  bool changed = false;
  for (const auto& [k, v] : c.params) {
    std::string safe;
    for (char ch : v) {
      bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.' || ch == '_';
      safe += ok ? ch : '_';
      changed |= !ok;
    }
    name += "_" + k + "_" + safe;
  }
  if (changed || name.size() > 120) {
    size_t h = std::hash<std::string>{}(c.id);
    char buf[20];
    std::snprintf(buf, sizeof buf, "_%08zx", h & 0xffffffffu);
    name = name.substr(0, 100) + buf;
  }
  return name;
}

// The last non-empty line of a file, for failure messages.
std::string LastLine(const std::string& path) {
  auto content = ReadFile(path);
  if (!content.ok()) return "";
  auto lines = Split(*content, '\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    std::string t = Trim(*it);
    if (!t.empty()) return t.size() > 200 ? t.substr(0, 200) + "..." : t;
  }
  return "";
}

int NumCpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace

// One run of one case (one repetition; retries reuse the Task).
struct Executor::Task {
  const TestCase* tc = nullptr;
  size_t case_index = 0;
  int rep = 0;
  int attempt = 0;
  enum class Phase { kPending, kBuilding, kRunning, kDone } phase = Phase::kPending;
  const Partition* part = nullptr;
  const Environment* env = nullptr;
  Scheduler* sched = nullptr;  // of the job in flight
  Job job;
  bool local_slot = false;  // counts against max_local_jobs while in flight
  std::string stagedir, outputdir;
  Status folders;           // why stagedir/outputdir could not be made (Setup fails the case)
  std::vector<Task*> deps;  // tasks this one waits for
  int dependents_left = 0;  // tasks still to run that may read our stage dir
  bool remove_stage_when_free = false;
  double stage_started = 0;
  // A build that runs inside the job (container backends): its script.
  std::string build_in_job;
  // The case's spec with the run-time values bound (model/bind.h), set
  // when the case starts; every stage reads the case through it.
  std::shared_ptr<const TestSpec> spec;
  CaseResult result;
  // The job's stdout or stderr outgrew general: max_output_per_case: which
  // one, and how big it was seen; the job was cancelled.
  std::string output_over;
  uint64_t output_seen = 0;
  std::string launcher;  // the run job's launcher name
};

Executor::Executor(const Session& session, const ExecOptions& opts, Console* console, ExecSeams seams)
    : session_(session),
      opts_(opts),
      console_(console),
      clock_(seams.clock ? seams.clock : &Clock::Real()),
      events_(seams.events),
      given_events_(seams.events),
      pool_([&] {
        SchedulerFlags f = opts.sched;
        f.clock = seams.clock ? seams.clock : &Clock::Real();
        return f;
      }()) {
  if (opts_.max_local_jobs <= 0) opts_.max_local_jobs = NumCpus();
  if (opts_.repeat < 1) opts_.repeat = 1;
  MakeTasks();
}

Executor::~Executor() = default;

// The system's stagedir/outputdir, else PREFIX/stage and PREFIX/output
// (sessions built by hand in tests carry only the prefix).
std::string Executor::StageRoot() const {
  return session_.stage_root.empty() ? JoinPath(session_.prefix, "stage") : session_.stage_root;
}
std::string Executor::OutputRoot() const {
  return session_.output_root.empty() ? JoinPath(session_.prefix, "output") : session_.output_root;
}

namespace {

// SESSION/SYSTEM/PARTITION/ENVIRON/CASE[/repN], the folders of a case below a root.
std::vector<std::string> CaseFolders(const std::string& session, const TestCase& c, int rep, int repeat) {
  std::vector<std::string> names{session, c.system, c.partition, c.environ, CaseDirName(c)};
  if (repeat > 1) names.push_back("rep" + std::to_string(rep));
  return names;
}

}  // namespace

Result<std::string> Executor::StageDir(const TestCase& c, int rep) const {
  return SafePath(StageRoot(), CaseFolders(session_.id, c, rep, opts_.repeat));
}

Result<std::string> Executor::OutputDir(const TestCase& c, int rep) const {
  return SafePath(OutputRoot(), CaseFolders(session_.id, c, rep, opts_.repeat));
}

void Executor::MakeTasks() {
  const auto& cases = session_.cases;
  // Repetition-major order: every case once, then every case again.
  for (int rep = 0; rep < opts_.repeat; ++rep) {
    size_t base = tasks_.size();
    for (size_t i = 0; i < cases.size(); ++i) {
      auto t = std::make_unique<Task>();
      t->tc = &cases[i];
      t->case_index = i;
      t->rep = rep;
      t->part = &session_.partition(cases[i].partition);
      t->env = session_.environment(cases[i]);
      auto stagedir = StageDir(cases[i], rep);
      auto outputdir = OutputDir(cases[i], rep);
      t->folders = stagedir.ok() ? outputdir.status() : stagedir.status();
      if (t->folders.ok()) {
        t->stagedir = *stagedir;
        t->outputdir = *outputdir;
      }
      for (size_t d : cases[i].deps) t->deps.push_back(tasks_[base + d].get());
      tasks_.push_back(std::move(t));
    }
    for (size_t i = base; i < tasks_.size(); ++i)
      for (Task* d : tasks_[i]->deps) ++d->dependents_left;
  }
}

Status Executor::Prepare() {
  prepared_ = true;
  opts_.sched.dry_run = opts_.dry_run;
  pool_.mutable_flags()->dry_run = opts_.dry_run;
  // Every partition's backend, and every scheduler instance the cases will
  // use (one per partition's options and test block's context): each made
  // and checked once, before anything runs.
  std::set<std::pair<const Partition*, std::string>> uses;
  for (const auto& t : tasks_) {
    const Partition* p = t->tc->spec->local ? &LocalPartition() : t->part;
    if (uses.emplace(p, t->tc->spec->k8s.dump()).second) {
      std::string where = "partition '" + session_.system_name + ":" + p->name + "'";
      auto backend = FindSchedulerBackend(p->scheduler);
      if (!backend.ok()) {
        Status st = backend.status().Prefixed(where);
        return p->mark.known() ? Status::Error(p->mark, st.message()) : st;
      }
      auto s = pool_.For(*p, t->tc->spec->k8s);
      if (!s.ok()) {
        bool own = !t->tc->spec->k8s.empty() && !t->tc->spec->k8s.is_null();
        return Status::Error(where + (own ? ", test '" + t->tc->display_name + "'" : std::string()) + ": " +
                             s.status().message());
      }
      // A launcher that cannot work is one error before anything runs.
      auto launcher = MakeLauncher(p->launcher, {}, *backend);
      if (!launcher.ok()) return launcher.status().Prefixed(where);
      // So are module mappings that do not parse.
      auto general = session_.config.GeneralFor(session_.system_name, p->name);
      if (!general.ok()) return general.status();
      auto mappings = ParseModuleMappings(general->module_mappings);
      if (!mappings.ok()) return mappings.status().Prefixed("general: module_mappings");
    }
  }
  if (opts_.dry_run) return Status::OK();  // offline: no scheduler command, no API server
  return pool_.CheckAll(session_.system_name);
}

void Executor::PrintNotices() {
  for (const auto& n : pool_.TakeNotices()) console_->Note("hetbench: " + n);
}

// ---------------------------------------------------------------------------
// The main loop.
std::vector<CaseResult> Executor::Run() {
  std::unique_ptr<EventWaiter> waiter;
  if (!given_events_) {
    waiter = std::make_unique<EventWaiter>();
    events_ = waiter.get();
  }
  if (!prepared_) {
    Status st = Prepare();
    if (!st.ok()) console_->Note("hetbench: error: " + st.str());
  }
  while (true) {
    // 1. Start as many cases as the limits allow (and settle skipped ones).
    if (!interrupted_ && !aborted_) StartReadyTasks();
    // 2. Nothing in flight: everything has been started and finished.
    if (in_flight_.empty()) break;
    // 3. Wait for a child to exit, a signal, or the next poll/deadline.
    EventSource::Events ev = events_->Wait(NextTimeout());
    if (ev.interrupt) Interrupt(ev.interrupt);
    // 4. Bring job states up to date; move finished jobs' cases on.
    PollAll();
    CheckOutputSizes();
    PrintNotices();
    // 5. After an interrupt, wait a bounded time for the schedulers to
    //    confirm the cancellations, then give up on them.
    if (interrupted_ && clock_->Monotonic() - interrupted_at_ >= kInterruptGrace) {
      std::vector<Task*> left = in_flight_;
      for (Task* t : left)
        Finish(t, "cancelled", "run", "cancelled (interrupted; the scheduler did not confirm in time)");
    }
  }
  if (interrupted_ || aborted_)
    CancelPending(interrupted_ ? "interrupted before it started" : "not run: --maxfail reached");
  pool_.Shutdown();

  std::vector<CaseResult> results;
  results.reserve(tasks_.size());
  for (auto& t : tasks_) results.push_back(t->result);
  events_ = given_events_;
  return results;
}

double Executor::NextTimeout() const {
  double t = std::numeric_limits<double>::infinity();
  t = std::min(t, pool_.NextPollDelay());
  if (interrupted_) t = std::min(t, std::max(0.0, interrupted_at_ + kInterruptGrace - clock_->Monotonic()));
  if (!in_flight_.empty()) t = std::min(t, kOutputCheckInterval);
  return t;
}

void Executor::PollAll() {
  std::vector<std::pair<Scheduler*, Job*>> jobs;
  std::map<const Job*, std::string> before;  // for the main log's debug records
  bool log = LogEnabled(kLogDebug);
  for (Task* t : in_flight_) {
    jobs.emplace_back(t->sched, &t->job);
    if (log) before[&t->job] = t->job.state.str();
  }
  pool_.Poll(jobs);
  if (log)  // every state change, with its reason: queued(Priority) -> running
    for (Task* t : in_flight_)
      if (std::string now = t->job.state.str(); now != before[&t->job])
        LogRecord(kLogDebug, "job " + t->job.id + " (" + t->tc->display_name + " on " + t->tc->system + ":" +
                                 t->tc->partition + "): " + before[&t->job] + " -> " + now);
  // Move on every task whose job ended. OnJobDone may submit a new job
  // (build -> run), which keeps the task in flight.
  std::vector<Task*> ended;
  for (Task* t : in_flight_)
    if (t->job.state.terminal()) ended.push_back(t);
  for (Task* t : ended) OnJobDone(t);
}

// A job whose stdout or stderr outgrew general: max_output_per_case is
// cancelled now; OnJobDone cuts the file and fails the case. (A file the
// job writes elsewhere, on a cluster's node or in a pod, is checked when
// it arrives.)
void Executor::CheckOutputSizes() {
  for (Task* t : in_flight_) {
    if (!t->output_over.empty() || t->job.id.empty() || t->job.state.terminal()) continue;
    for (const std::string* path : {&t->job.stdout_path, &t->job.stderr_path}) {
      uint64_t size = FileSize(*path);
      if (size <= session_.max_output_per_case) continue;
      t->output_over = *path;
      t->output_seen = size;
      LogRecord(kLogVerbose, "job " + t->job.id + " (" + t->tc->display_name + "): " + BaseName(*path) + " is " +
                                 FormatByteSize(size) + ", beyond general: max_output_per_case; cancelling it");
      t->sched->Cancel(&t->job);
      break;
    }
  }
}

// Cuts a job's output files that outgrew the limit, with a marker line,
// and says why the case fails; "" when both are within it.
std::string Executor::CutOversizedOutput(Task* t) {
  uint64_t limit = session_.max_output_per_case;
  std::vector<std::string> cut;
  for (const std::string* path : {&t->job.stdout_path, &t->job.stderr_path}) {
    uint64_t size = FileSize(*path);
    if (*path == t->output_over) size = std::max(size, t->output_seen);
    if (size <= limit) continue;
    Status st = TruncateWithMarker(
        *path, limit,
        "\n[hetbench: output cut here at " + FormatByteSize(limit) + " (general: max_output_per_case)]\n");
    cut.push_back(BaseName(*path) + (st.ok() ? "" : " (could not cut it: " + st.message() + ")"));
  }
  if (cut.empty()) return "";
  return "output limit: " + Join(cut, " and ") + " grew beyond " + FormatByteSize(limit) +
         " (general: max_output_per_case); the job was stopped and the output cut there with a marker line; "
         "make the job print less, or raise general: max_output_per_case in the site configuration";
}

void Executor::Interrupt(int signo) {
  if (interrupted_) {
    // A second interrupt: stop waiting for jobs to end gracefully.
    pool_.Shutdown();
    interrupted_at_ = clock_->Monotonic() - kInterruptGrace;  // stop waiting
    return;
  }
  interrupted_ = signo;
  interrupted_at_ = clock_->Monotonic();
  console_->Note("hetbench: interrupted (signal " + std::to_string(signo) + "); cancelling " +
                 std::to_string(in_flight_.size()) + " running job(s)");
  for (Task* t : in_flight_) t->sched->Cancel(&t->job);
}

void Executor::CancelPending(const std::string& why) {
  for (auto& t : tasks_) {
    if (t->phase != Task::Phase::kPending) continue;
    t->result.start_time = t->result.end_time = clock_->Wall();
    Finish(t.get(), "cancelled", "", why);
  }
}

// ---------------------------------------------------------------------------
// Starting cases.

void Executor::FillIdentity(const Task& t, CaseResult* r) {
  const TestCase& c = *t.tc;
  r->id = c.id;
  r->name = c.spec->name;
  r->display_name = c.display_name;
  r->descr = c.spec->descr;
  r->file = c.spec->file;
  r->parameters = c.params;
  r->variables = c.loggable;
  r->tags = c.spec->tags;
  r->maintainers = c.spec->maintainers;
  r->scaling_axes = c.spec->scaling_axes;
  r->system = c.system;
  r->partition = c.partition;
  r->environ = c.environ;
  r->repetition = t.rep;
  const TestSpec& s = t.spec ? *t.spec : *c.spec;
  r->env_vars = s.env_vars;
  r->modules = ModuleNames(s.modules);
  r->extra_resources = s.extra_resources;
  r->exclusive_access = s.exclusive_access;
  r->num_tasks = s.num_tasks;
  r->num_tasks_per_node = s.num_tasks_per_node;
  r->num_cpus_per_task = s.num_cpus_per_task;
  r->num_gpus_per_node = s.num_gpus_per_node;
}

bool Executor::DepsDone(const Task& t, std::string* failed_dep) const {
  for (const Task* d : t.deps) {
    if (d->phase != Task::Phase::kDone) return false;
    bool ok = d->result.result == "pass" || d->result.result == "dry-run";
    if (!ok && failed_dep->empty()) *failed_dep = d->tc->display_name;
  }
  return true;
}

bool Executor::CanStart(const Task& t) const {
  if (opts_.serial) return in_flight_.empty();
  auto it = partition_load_.find(t.tc->system + ":" + t.tc->partition);
  int load = it == partition_load_.end() ? 0 : it->second;
  if (load >= std::max(1, t.part->max_jobs)) return false;
  bool local = TraitsOf(*t.part).on_this_host || t.tc->spec->local ||
               (!t.tc->spec->build.type.empty() && t.tc->spec->build_locally);
  return !local || local_load_ < opts_.max_local_jobs;
}

void Executor::StartReadyTasks() {
  for (auto& tp : tasks_) {
    Task* t = tp.get();
    if (t->phase != Task::Phase::kPending) continue;
    if (aborted_ || interrupted_) return;
    if (!t->tc->skip.empty()) {  // skip_if
      t->result.start_time = t->result.end_time = clock_->Wall();
      Finish(t, "skip", "setup", t->tc->skip);
      continue;
    }
    std::string failed_dep;
    if (!DepsDone(*t, &failed_dep)) continue;
    if (!t->tc->missing_deps.empty()) {
      t->result.start_time = t->result.end_time = clock_->Wall();
      Finish(t, "skip", "setup",
             "dependency '" + t->tc->missing_deps[0] + "' has no case on " + t->tc->system + ":" + t->tc->partition +
                 "+" + t->tc->environ);
      continue;
    }
    if (!failed_dep.empty()) {
      t->result.start_time = t->result.end_time = clock_->Wall();
      Finish(t, "skip", "setup", "dependency '" + failed_dep + "' did not pass");
      continue;
    }
    if (!CanStart(*t)) {
      if (opts_.serial) return;
      continue;
    }
    Start(t);
    // Submissions block (an sbatch takes ~0.1 s): when a poll falls due,
    // let the main loop poll before submitting more, so that jobs ending
    // meanwhile are noticed promptly (the loop comes back here at once).
    if (!in_flight_.empty() && NextTimeout() <= 0) return;
  }
}

void Executor::Start(Task* t) {
  CaseResult& r = t->result;
  const TestCase& c = *t->tc;
  r = CaseResult();
  FillIdentity(*t, &r);
  r.attempt = t->attempt;
  r.stagedir = t->stagedir;
  r.outputdir = t->outputdir;
  r.start_time = clock_->Wall();
  if (t->attempt == 0) console_->CaseStart(Console::Label(r));

  t->stage_started = r.start_time;
  Status st = BindRun(t);
  if (st.ok()) FillIdentity(*t, &r);
  if (st.ok()) st = Setup(t);
  r.timings.push_back({"setup", clock_->Wall() - t->stage_started});
  if (!st.ok()) {
    Finish(t, "fail", "setup", st.message());
    return;
  }
  t->stage_started = clock_->Wall();
  bool build = !t->spec->build.type.empty();
  st = build ? SubmitBuild(t) : SubmitRun(t);
  if (!st.ok()) {
    Finish(t, "fail", build ? "build" : "run", st.message());
    return;
  }
  if (opts_.dry_run) return;  // SubmitRun finished the task
  in_flight_.push_back(t);
  ++partition_load_[c.system + ":" + c.partition];
}

Status Executor::Setup(Task* t) {
  if (!t->folders.ok()) return t->folders;
  Status st = PathExists(t->stagedir) ? RemoveTreeWithin(t->stagedir, StageRoot()) : Status::OK();
  if (st.ok()) st = MakeDirs(t->stagedir);
  if (st.ok()) st = MakeDirs(t->outputdir);
  if (!st.ok()) return st;
  if (!t->env) return Status::Error("environment '" + t->tc->environ + "' is not defined for " + t->tc->system);
  const std::string& src = t->spec->sourcesdir;
  if (!src.empty()) {
    st = CopyTree(src, t->stagedir);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Placeholders and scripts.

// Binds the values known only now (model/bind.h): the case's folders,
// the session, and the folders of the cases it depends on.
Status Executor::BindRun(Task* t) {
  RunValues run;
  run.stagedir = t->stagedir;
  run.outputdir = t->outputdir;
  run.prefix = session_.prefix;
  run.session = session_.id;
  run.repetition = t->rep;
  run.partition = PartitionValues(session_.system(), *t->part);
  for (const Task* d : t->deps) run.deps.emplace(d->tc->spec->name, std::make_pair(d->stagedir, d->outputdir));
  auto bound = BindForRun(*t->tc, run);
  if (!bound.ok()) return bound.status();
  t->spec = *bound;
  return Status::OK();
}

const SchedulerTraits& Executor::TraitsOf(const Partition& part) const {
  static const SchedulerTraits kNone;
  auto b = FindSchedulerBackend(part.scheduler);
  return b.ok() ? (*b)->traits : kNone;
}

CaseJobInput Executor::JobInput(const Task& t) const {
  CaseJobInput in;
  in.session = &session_;
  in.tc = t.tc;
  in.spec = t.spec.get();
  in.part = t.part;
  in.env = t.env;
  in.stagedir = t.stagedir;
  in.cli_job_options = opts_.job_options;
  return in;
}

Status Executor::WriteScript(const JobPlan& plan) { return WriteFile(plan.job.script_path, plan.script); }

// The build job (run/case_job.h): on this host, on the partition
// (build_locally: false), or inside the run job where the job runs away
// from hetbench's files (Kubernetes).
Status Executor::SubmitBuild(Task* t) {
  CaseJobInput in = JobInput(*t);
  BuildPlace where = WhereBuildRuns(in);
  auto sched = pool_.For(BuildPartition(in), where == BuildPlace::kPartition ? t->spec->k8s : nlohmann::json::object());
  if (!sched.ok()) return sched.status();
  auto plan = MakeBuildJob(in, **sched);
  if (!plan.ok()) return plan.status();
  Status st = WriteScript(*plan);
  if (!st.ok()) return st;
  t->job = std::move(plan->job);
  if (where == BuildPlace::kInJob) t->build_in_job = t->job.script_path;
  if (opts_.dry_run || where == BuildPlace::kInJob) return SubmitRun(t);

  st = (*sched)->Submit(&t->job);
  if (!st.ok()) return st;
  t->sched = *sched;
  t->phase = Task::Phase::kBuilding;
  if (where == BuildPlace::kHere && !t->local_slot) {
    t->local_slot = true;
    ++local_load_;
  }
  return Status::OK();
}

Status Executor::SubmitRun(Task* t) {
  CaseJobInput in = JobInput(*t);
  const Partition& part = RunPartition(in);
  bool local = TraitsOf(part).on_this_host;
  auto sched = pool_.For(part, t->spec->local ? nlohmann::json::object() : t->spec->k8s);
  if (!sched.ok()) return sched.status();
  auto build_out = ReadFile(JoinPath(t->stagedir, kBuildOut));
  auto plan = MakeRunJob(in, **sched, build_out.ok() ? *build_out : "", t->build_in_job);
  if (!plan.ok()) return plan.status();
  t->launcher = plan->launcher;
  Status st = WriteScript(*plan);
  if (!st.ok()) return st;
  Job job = std::move(plan->job);

  if (opts_.dry_run) {
    st = (*sched)->WriteDryRun(job, t->stagedir);
    if (!st.ok()) return st;
    Cleanup(t);
    t->result.end_time = clock_->Wall();
    bool k8s = PathExists(JoinPath(t->stagedir, kDryRunObjects));
    Finish(t, "dry-run", "",
           "job script written to " + JoinPath(t->outputdir, kJobScript) +
               (k8s ? ", Kubernetes objects to " + JoinPath(t->outputdir, kDryRunObjects) : ""));
    return Status::OK();
  }
  st = (*sched)->Submit(&job);
  if (!st.ok()) return st;
  t->job = std::move(job);
  t->sched = *sched;
  t->phase = Task::Phase::kRunning;
  if (local && !t->local_slot) {
    t->local_slot = true;
    ++local_load_;
  } else if (!local && t->local_slot) {
    t->local_slot = false;
    --local_load_;
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Finishing jobs and cases.

void Executor::OnJobDone(Task* t) {
  const JobState& js = t->job.state;
  CaseResult& r = t->result;
  double now = clock_->Wall();
  bool building = t->phase == Task::Phase::kBuilding;
  r.timings.push_back({building ? "build" : "run", now - t->stage_started});
  t->stage_started = now;
  const char* stage = building ? "build" : "run";
  // The job as it ended, whatever the outcome (a failed or timed-out job's
  // id, state and nodes are what the user looks up first); a build job's
  // are replaced by the run job's.
  r.job_id = t->job.id;
  r.job_state = js.str();
  r.exit_code = js.exit_code;
  r.nodelist = t->job.nodelist;
  r.job_submit_time = t->job.submit_time;
  r.job_completion_time = t->job.end_time;
  r.job_noticed_time = now;

  if (std::string over = CutOversizedOutput(t); !over.empty()) {
    Finish(t, "fail", stage, over);
    return;
  }
  if (js.kind == JobState::Kind::kCancelled) {
    Finish(t, "cancelled", stage, "cancelled" + (interrupted_ ? std::string(" (interrupted)") : ""));
    return;
  }
  if (js.kind == JobState::Kind::kTimeout) {
    Finish(t, "fail", stage, js.reason.empty() ? "time limit exceeded" : js.reason);
    return;
  }
  if (js.kind != JobState::Kind::kCompleted) {
    Finish(t, "fail", stage, js.str());
    return;
  }
  if (building) {
    if (js.exit_code != 0) {
      if (auto module = ModuleFailure(t->job.stderr_path)) return Finish(t, "fail", "build", *module);
      auto err = ReadFile(t->job.stderr_path);
      std::string why = BuildFailureReason(err.ok() ? *err : "");
      Finish(t, "fail", "build",
             "exit code " + std::to_string(js.exit_code) + (why.empty() ? "" : ": " + why) +
                 " (log: " + JoinPath(t->outputdir, kBuildErr) + ")");
      return;
    }
    Status st = SubmitRun(t);
    if (!st.ok()) Finish(t, "fail", "run", st.message());
    return;
  }
  CheckRun(t);
}

void Executor::CheckRun(Task* t) {
  const TestSpec& s = *t->spec;
  CaseResult& r = t->result;
  // With --skip-sanity-check a non-zero exit code still fails the case.
  bool exit_code_checked = !opts_.skip_sanity && std::any_of(s.sanity.begin(), s.sanity.end(), [](const SanitySpec& x) {
    return x.kind == SanitySpec::Kind::kExitCode;
  });
  if (r.exit_code != 0) {
    if (auto why = ModuleFailure(t->job.stderr_path)) return Finish(t, "fail", "run", *why);
  }
  if (r.exit_code == 0 && !opts_.skip_sanity && HidesHostFailures(t->launcher)) {
    // pdsh and clush exit 0 when a host fails; their stderr says which.
    auto err = ReadFile(t->job.stderr_path);
    std::string host = err.ok() ? RemoteShellFailure(t->launcher, *err) : "";
    if (!host.empty())
      return Finish(t, "fail", "run", host + " (" + t->launcher + " itself exited 0; add -S to make it exit non-zero)");
  }
  if (r.exit_code != 0 && !exit_code_checked) {
    std::string last = LastLine(t->job.stderr_path);
    Finish(t, "fail", "run",
           "exit code " + std::to_string(r.exit_code) + (last.empty() ? "" : " (stderr: " + last + ")"));
    return;
  }
  CheckInput in;
  in.stagedir = t->stagedir;
  in.stdout_path = t->job.stdout_path;
  in.stderr_path = t->job.stderr_path;
  in.exit_code = r.exit_code;
  // A long output is searched in segments; a signal stops the search
  // between them (it stays pending for the main loop's Wait).
  in.interrupted = [this] { return events_->Interrupting(); };

  double start = clock_->Wall();
  if (!opts_.skip_sanity) {
    Status st = EvaluateSanity(s.sanity, in);
    r.timings.push_back({"sanity", clock_->Wall() - start});
    if (Regex::ScanInterrupted(st)) return CancelCheck(t, "sanity");
    if (!st.ok()) {
      Finish(t, "fail", "sanity", st.message());
      return;
    }
  }
  if (opts_.skip_performance) return Finish(t, "pass", "", "");
  start = clock_->Wall();
  PerfOutcome perf = CheckPerformance(s, *t->tc, *t->part, in);
  if (perf.interrupted) return CancelCheck(t, "performance");
  r.perf = std::move(perf.perf);
  r.timings.push_back({"performance", clock_->Wall() - start});
  if (!perf.failure.empty()) return Finish(t, "fail", "performance", perf.failure);
  Finish(t, "pass", "", "");
}

void Executor::CancelCheck(Task* t, const std::string& stage) {
  Finish(t, "cancelled", stage, "cancelled (interrupted during the " + stage + " check)");
  EventSource::Events ev = events_ ? events_->Poll() : EventSource::Events{};
  Interrupt(ev.interrupt ? ev.interrupt : SIGINT);
}

void Executor::Finish(Task* t, const std::string& result, const std::string& stage, const std::string& reason) {
  CaseResult& r = t->result;
  bool was_in_flight = std::find(in_flight_.begin(), in_flight_.end(), t) != in_flight_.end();
  if (was_in_flight) {
    in_flight_.erase(std::find(in_flight_.begin(), in_flight_.end(), t));
    --partition_load_[t->tc->system + ":" + t->tc->partition];
  }
  if (t->local_slot) {
    t->local_slot = false;
    --local_load_;
  }
  r.result = result;
  r.fail_stage = result == "pass" ? "" : stage;
  r.fail_reason = reason;
  r.end_time = clock_->Wall();
  const TestSpec& s = t->spec ? *t->spec : *t->tc->spec;
  int max_retries = s.max_retries >= 0 ? s.max_retries : opts_.max_retries;
  if (result == "fail" && t->attempt < max_retries && !interrupted_ && !aborted_) {
    Cleanup(t);
    ++t->attempt;
    console_->CaseRetry(Console::Label(r), t->attempt, stage + ": " + reason);
    t->phase = Task::Phase::kPending;
    return;
  }
  t->phase = Task::Phase::kDone;
  bool started = !r.id.empty();
  if (was_in_flight || (started && result == "fail")) {
    double start = clock_->Wall();
    Cleanup(t);
    if (was_in_flight) r.timings.push_back({"cleanup", clock_->Wall() - start});
  }
  if (!started) FillIdentity(*t, &r);
  ++done_;
  if (result == "fail") ++failures_;
  console_->CaseEnd(r, done_, tasks_.size(), started);
  if (on_case_end) on_case_end(r);
  ReleaseDependencies(*t);
  if (opts_.maxfail > 0 && failures_ >= opts_.maxfail && !aborted_) {
    aborted_ = true;
    console_->Note("hetbench: " + std::to_string(failures_) + " failure(s): --maxfail " +
                   std::to_string(opts_.maxfail) + " reached; cancelling the rest");
    for (Task* f : in_flight_) f->sched->Cancel(&f->job);
  }
}

// Copies what a person needs to the output folder; removes the stage folder
// after a pass unless it is kept or a dependent case still needs it.
void Executor::Cleanup(Task* t) {
  if (!t->folders.ok()) return;  // it never had folders
  for (const char* f : {kJobScript, kJobOut, kJobErr, kBuildScript, kBuildOut, kBuildErr, kDryRunObjects}) {
    std::string from = JoinPath(t->stagedir, f);
    if (!PathExists(from)) continue;
    Status st = CopyFile(from, JoinPath(t->outputdir, f));  // streamed: an output may be large
    if (!st.ok()) console_->Note("hetbench: could not keep '" + std::string(f) + "': " + st.message());
  }
  if (t->spec)
    for (const auto& note : KeepFiles(t->stagedir, t->outputdir, t->spec->keep_files))
      console_->Note("hetbench: " + note);
  if (t->result.result == "pass" && !opts_.keep_stage_files) {
    if (t->dependents_left > 0)
      t->remove_stage_when_free = true;
    else
      RemoveStage(t->stagedir);
  }
}

void Executor::RemoveStage(const std::string& dir) {
  Status st = RemoveTreeWithin(dir, StageRoot());
  if (!st.ok()) console_->Note("hetbench: could not remove the stage folder " + dir + ": " + st.message());
}

void Executor::ReleaseDependencies(const Task& t) {
  for (Task* d : t.deps) {
    if (--d->dependents_left == 0 && d->remove_stage_when_free) {
      RemoveStage(d->stagedir);
      d->remove_stage_when_free = false;
    }
  }
}

}  // namespace hb
