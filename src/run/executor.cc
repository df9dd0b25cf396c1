#include "run/executor.h"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "build/build_system.h"
#include "check/performance.h"
#include "check/reference.h"
#include "check/regex.h"
#include "check/sanity.h"
#include "config/detect.h"
#include "launch/container.h"
#include "launch/launcher.h"
#include "model/bind.h"
#include "model/placeholder.h"
#include "run/module_system.h"
#include "run/script.h"
#include "sched/scheduler_factory.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/signals.h"
#include "util/strings.h"

namespace hb {

namespace {

// How long an interrupted run waits for cancelled jobs to end.
constexpr double kInterruptGrace = 30;

// File names inside a stage directory (ReFrame uses rfm_job.sh etc.).
constexpr const char* kJobScript = "hb_job.sh";
constexpr const char* kJobOut = "hb_job.out";
constexpr const char* kJobErr = "hb_job.err";
constexpr const char* kBuildScript = "hb_build.sh";
constexpr const char* kBuildOut = "hb_build.out";
// How often the sizes of running jobs' output files are looked at.
constexpr double kOutputCheckInterval = 0.5;
constexpr const char* kBuildErr = "hb_build.err";
constexpr const char* kDryRunObjects = "hb_k8s.yaml";  // what a dry run would create (k8s/k8s_scheduler.h)

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
  bool local_slot = false;     // counts against max_local_jobs while in flight
  std::string stagedir, outputdir;
  Status folders;              // why stagedir/outputdir could not be made (Setup fails the case)
  std::vector<Task*> deps;     // tasks this one waits for
  int dependents_left = 0;     // tasks still to run that may read our stage dir
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

Executor::Executor(const Session& session, const ExecOptions& opts, Console* console)
    : session_(session), opts_(opts), console_(console) {
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
  Partition local_part;
  // Every partition's backend, and every scheduler instance the cases will
  // use (one per partition's options and test block's context): each made
  // and checked once, before anything runs.
  std::set<std::pair<const Partition*, std::string>> uses;
  for (const auto& t : tasks_) {
    const Partition* p = t->tc->spec->local ? &local_part : t->part;
    if (uses.emplace(p, t->tc->spec->k8s.dump()).second) {
      std::string where = "partition '" + session_.system_name + ":" + p->name + "'";
      auto backend = FindSchedulerBackend(p->scheduler);
      if (!backend.ok()) {
        Status st = backend.status().Prefixed(where);
        return p->mark.known() ? Status::Error(p->mark, st.message()) : st;
      }
      std::string err;
      Scheduler* s = SchedulerFor(*p, t->tc->spec->k8s, &err);
      if (!s) {
        bool own = !t->tc->spec->k8s.empty() && !t->tc->spec->k8s.is_null();
        return Status::Error(where + (own ? ", test '" + t->tc->display_name + "'" : std::string()) + ": " + err);
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
  for (auto& [key, s] : schedulers_) {
    Status st = s->Check();
    if (!st.ok()) return st.Prefixed("partition '" + session_.system_name + ":" + checked_for_[key] + "'");
  }
  return Status::OK();
}

void Executor::PrintNotices() {
  for (auto& [name, s] : schedulers_)
    for (const auto& n : s->TakeNotices()) console_->Note("hetbench: " + s->name() + ": " + n);
}

// ---------------------------------------------------------------------------
// The main loop.
std::vector<CaseResult> Executor::Run() {
  EventWaiter waiter;
  waiter_ = &waiter;
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
    EventWaiter::Events ev = waiter.Wait(NextTimeout());
    if (ev.interrupt) Interrupt(ev.interrupt);
    // 4. Bring job states up to date; move finished jobs' cases on.
    PollAll();
    CheckOutputSizes();
    PrintNotices();
    // 5. After an interrupt, wait a bounded time for the schedulers to
    //    confirm the cancellations, then give up on them.
    if (interrupted_ && MonotonicNow() - interrupted_at_ > kInterruptGrace) {
      std::vector<Task*> left = in_flight_;
      for (Task* t : left) Finish(t, "cancelled", "run", "cancelled (interrupted; the scheduler did not confirm in time)");
    }
  }
  if (interrupted_ || aborted_)
    CancelPending(interrupted_ ? "interrupted before it started" : "not run: --maxfail reached");
  for (auto& [name, s] : schedulers_) s->Shutdown();

  std::vector<CaseResult> results;
  results.reserve(tasks_.size());
  for (auto& t : tasks_) results.push_back(t->result);
  waiter_ = nullptr;
  return results;
}

double Executor::NextTimeout() const {
  double t = std::numeric_limits<double>::infinity();
  for (const auto& [name, s] : schedulers_) t = std::min(t, s->NextPollDelay());
  if (interrupted_) t = std::min(t, std::max(0.0, interrupted_at_ + kInterruptGrace - MonotonicNow()));
  if (!in_flight_.empty()) t = std::min(t, kOutputCheckInterval);
  return t;
}

void Executor::PollAll() {
  std::map<Scheduler*, std::vector<Job*>> by_sched;
  std::map<const Job*, std::string> before;  // for the main log's debug records
  bool log = LogEnabled(kLogDebug);
  for (Task* t : in_flight_) {
    by_sched[t->sched].push_back(&t->job);
    if (log) before[&t->job] = t->job.state.str();
  }
  for (auto& [s, jobs] : by_sched) s->Poll(jobs);
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
    Status st = TruncateWithMarker(*path, limit,
                                   "\n[hetbench: output cut here at " + FormatByteSize(limit) +
                                       " (general: max_output_per_case)]\n");
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
    for (auto& [name, s] : schedulers_) s->Shutdown();
    interrupted_at_ = MonotonicNow() - kInterruptGrace;  // stop waiting
    return;
  }
  interrupted_ = signo;
  interrupted_at_ = MonotonicNow();
  console_->Note("hetbench: interrupted (signal " + std::to_string(signo) + "); cancelling " +
                 std::to_string(in_flight_.size()) + " running job(s)");
  for (Task* t : in_flight_) t->sched->Cancel(&t->job);
}

void Executor::CancelPending(const std::string& why) {
  for (auto& t : tasks_) {
    if (t->phase != Task::Phase::kPending) continue;
    t->result.start_time = t->result.end_time = WallNow();
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
      t->result.start_time = t->result.end_time = WallNow();
      Finish(t, "skip", "setup", t->tc->skip);
      continue;
    }
    std::string failed_dep;
    if (!DepsDone(*t, &failed_dep)) continue;
    if (!t->tc->missing_deps.empty()) {
      t->result.start_time = t->result.end_time = WallNow();
      Finish(t, "skip", "setup",
             "dependency '" + t->tc->missing_deps[0] + "' has no case on " + t->tc->system + ":" +
                 t->tc->partition + "+" + t->tc->environ);
      continue;
    }
    if (!failed_dep.empty()) {
      t->result.start_time = t->result.end_time = WallNow();
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
  r.start_time = WallNow();
  if (t->attempt == 0) console_->CaseStart(Console::Label(r));

  t->stage_started = r.start_time;
  Status st = BindRun(t);
  if (st.ok()) FillIdentity(*t, &r);
  if (st.ok()) st = Setup(t);
  r.timings.push_back({"setup", WallNow() - t->stage_started});
  if (!st.ok()) {
    Finish(t, "fail", "setup", st.message());
    return;
  }
  t->stage_started = WallNow();
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

// The scheduler instances: one per instance key (scheduler_factory.h), so
// that partitions on one endpoint (a Slurm cluster with the same options; a
// Kubernetes API server) share one instance and one batched query per poll,
// while partitions configured differently get their own. The local
// scheduler is one for all, local builds included: it reaps this process's
// children, and two would take each other's.
Scheduler* Executor::SchedulerFor(const Partition& part, const nlohmann::json& backend_spec, std::string* err) {
  auto key = SchedulerInstanceKey(part.scheduler, part.sched_options, backend_spec, opts_.sched);
  if (!key.ok()) {
    *err = key.status().message();
    return nullptr;
  }
  auto it = schedulers_.find(*key);
  if (it != schedulers_.end()) return it->second.get();
  auto made = MakeScheduler(part.scheduler, part.sched_options, opts_.sched, backend_spec);
  if (!made.ok()) {
    *err = made.status().message();
    return nullptr;
  }
  Scheduler* raw = made->get();
  checked_for_[*key] = part.name;
  schedulers_[*key] = std::move(made.value());
  return raw;
}

const SchedulerTraits& Executor::TraitsOf(const Partition& part) const {
  static const SchedulerTraits kNone;
  auto b = FindSchedulerBackend(part.scheduler);
  return b.ok() ? (*b)->traits : kNone;
}

namespace {
// The folder of the running hetbench binary, where the benchmark programs
// (hetbench-train, -io, -comm, -compute) are built and installed next to it.
const std::string& HetbenchBinDir() {
  static const std::string dir = [] {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return std::string();
    std::string exe(buf, static_cast<size_t>(n));
    size_t slash = exe.rfind('/');
    return slash == std::string::npos ? std::string() : exe.substr(0, slash);
  }();
  return dir;
}

// Every job sees HETBENCH_BIN_DIR and finds hetbench's benchmark programs
// first in PATH (the configuration's variables may override both).
std::vector<std::pair<std::string, std::string>> HetbenchEnv() {
  std::vector<std::pair<std::string, std::string>> env;
  if (!HetbenchBinDir().empty()) {
    env.emplace_back("HETBENCH_BIN_DIR", ShellQuote(HetbenchBinDir()));
    env.emplace_back("PATH", "\"$HETBENCH_BIN_DIR:$PATH\"");
  }
  return env;
}
}  // namespace

// The files (relative to the stage directory; globs allowed) that the
// checks and keep_files read after the job, besides stdout and stderr.
std::vector<std::string> Executor::FilesChecksRead(const Task& t) const {
  const TestSpec& s = *t.spec;
  std::set<std::string> files;
  auto add = [&](const std::string& f) {
    if (f != "stdout" && f != "stderr" && !f.empty()) files.insert(f);
  };
  for (const auto& x : s.sanity) add(x.in);
  for (const auto& x : s.performance) add(x.in);
  for (const auto& k : s.keep_files) add(k);
  return {files.begin(), files.end()};
}

Status Executor::SubmitBuild(Task* t) {
  const TestSpec& s = *t->spec;
  auto built = BuildCommands(s.build, *t->env, t->stagedir);
  if (!built.ok()) return built.status();
  // ReFrame's build job: prebuild_cmds, the build system's, postbuild_cmds.
  std::vector<std::string> cmds = s.prebuild_cmds;
  cmds.insert(cmds.end(), built->begin(), built->end());
  cmds.insert(cmds.end(), s.postbuild_cmds.begin(), s.postbuild_cmds.end());

  auto environ = EnvironLines(*t);
  if (!environ.ok()) return environ.status();
  std::vector<std::string> prepare = t->part->prepare_cmds;
  if (t->env) prepare.insert(prepare.end(), t->env->prepare_cmds.begin(), t->env->prepare_cmds.end());
  std::string path = JoinPath(t->stagedir, kBuildScript);
  // Where hetbench's host is not where the job runs (Kubernetes), the build
  // runs first inside the job itself, in the same container.
  bool in_job = TraitsOf(*t->part).remote_files;
  if (in_job) t->build_in_job = path;
  // build_locally: false makes the build a job of the partition's own
  // scheduler (ReFrame's), with its access options and -J options.
  bool remote = !s.build_locally && !in_job;
  std::string err;
  Partition local_part;
  Scheduler* sched = SchedulerFor(remote ? *t->part : local_part, remote ? s.k8s : nlohmann::json::object(), &err);
  if (!sched) return Status::Error(err);
  t->job = Job();
  t->job.name = "hb_build_" + s.name;
  t->job.workdir = t->stagedir;
  t->job.script_path = path;
  t->job.stdout_path = JoinPath(t->stagedir, kBuildOut);
  t->job.stderr_path = JoinPath(t->stagedir, kBuildErr);
  t->job.time_limit_s = s.build_time_limit_s.value_or(0);
  if (remote) {
    t->job.sched_options = t->part->sched_options;
    t->job.access = t->part->access;
    t->job.options = opts_.job_options;
  }
  Status st = WriteFile(path, BuildScript(t->stagedir, HetbenchEnv(), prepare, *environ, cmds,
                                          remote ? sched->Directives(t->job) : std::vector<std::string>()));
  if (!st.ok()) return st;
  if (opts_.dry_run || in_job) return SubmitRun(t);

  st = sched->Submit(&t->job);
  if (!st.ok()) return st;
  t->sched = sched;
  t->phase = Task::Phase::kBuilding;
  if (!remote && !t->local_slot) {
    t->local_slot = true;
    ++local_load_;
  }
  return Status::OK();
}

// A test with container_platform set runs its command inside the image on
// this partition's container platform (docs/containers.md); on Kubernetes
// the image is the pod's and nothing is wrapped.
Status Executor::AddContainer(const Task& t, const std::string& image, ScriptParts* p) const {
  const TestSpec& s = *t.spec;
  if (!s.container.enabled || TraitsOf(*t.part).remote_files) return Status::OK();
  const ContainerSpec& c = s.container;
  std::vector<std::string> words = {p->executable};
  if (!p->executable.empty()) words.insert(words.end(), p->executable_opts.begin(), p->executable_opts.end());
  auto lines = ContainerFor(c, image, *t.part, t.tc->system + ":" + t.tc->partition, s.num_gpus_per_node,
                            t.stagedir, Join(words, " "));
  if (!lines.ok()) return lines.status();
  // ReFrame: the launch command replaces the executable and its options;
  // image pulls follow the test's prerun_cmds; the platform's modules and
  // env_vars come before the test's.
  p->executable = lines->command;
  p->executable_opts.clear();
  p->prerun_cmds.insert(p->prerun_cmds.end(), lines->prepare_cmds.begin(), lines->prepare_cmds.end());
  if (!lines->modules.empty() || !lines->env_vars.empty()) {
    EnvLevel platform;
    platform.modules = lines->modules;
    platform.env_vars = lines->env_vars;
    auto environ = EnvironLines(t, &platform);
    if (!environ.ok()) return environ.status();
    p->environ = std::move(environ).value();
  }
  return Status::OK();
}

Status Executor::SubmitRun(Task* t) {
  const TestCase& c = *t->tc;
  const TestSpec& s = *t->spec;
  std::string err;
  // local: true runs the job on this host with the local scheduler.
  Partition local_part;
  const Partition& part = s.local ? local_part : *t->part;
  bool local = TraitsOf(part).on_this_host;
  Scheduler* sched = SchedulerFor(part, s.local ? nlohmann::json::object() : s.k8s, &err);
  if (!sched) return Status::Error(err);
  // The test's launcher replaces the partition's. The partition's
  // launcher_options belong to the partition's launcher: a test with
  // another launcher gets only its own.
  std::string launcher_name = !s.launcher.empty() ? s.launcher : t->part->launcher;
  std::vector<std::string> launcher_options;
  if (launcher_name == t->part->launcher) launcher_options = t->part->launcher_options;
  launcher_options.insert(launcher_options.end(), s.launcher_options.begin(), s.launcher_options.end());
  auto backend = FindSchedulerBackend(part.scheduler);
  if (!backend.ok()) return backend.status();
  auto launcher = MakeLauncher(launcher_name, std::move(launcher_options), *backend);
  if (!launcher.ok()) return launcher.status();
  t->launcher = launcher_name;

  Job job;
  job.name = "hb_" + s.name;
  job.workdir = t->stagedir;
  job.script_path = JoinPath(t->stagedir, kJobScript);
  job.stdout_path = JoinPath(t->stagedir, kJobOut);
  job.stderr_path = JoinPath(t->stagedir, kJobErr);
  job.time_limit_s = s.time_limit_s ? *s.time_limit_s : t->part->time_limit_s;
  job.num_tasks = s.num_tasks;
  job.num_tasks_per_node = s.num_tasks_per_node;
  job.num_cpus_per_task = s.num_cpus_per_task;
  job.num_tasks_per_core = s.num_tasks_per_core;
  job.num_tasks_per_socket = s.num_tasks_per_socket;
  job.use_smt = s.use_multithreading ? (*s.use_multithreading ? 1 : 0) : -1;
  job.num_gpus_per_node = s.num_gpus_per_node;
  job.exclusive = s.exclusive_access;
  job.max_pending_time_s = s.max_pending_time_s;
  job.num_devices_per_node = s.num_devices_per_node;
  if (const std::string* node = c.Param(kNodeParam)) job.pin_nodes = *node;
  // The container image: container_platform's, the test's, the
  // environment's. Kubernetes runs the job in it as the pod's image.
  std::string image = !s.container.image.empty() ? s.container.image : s.image;
  job.image = !image.empty() ? image : (t->env ? t->env->image : "");
  job.build_script_path = t->build_in_job;
  job.fetch_files = FilesChecksRead(*t);
  job.session_id = session_.id;
  job.case_id = c.id;
  job.backend_spec = s.k8s;
  job.sched_options = part.sched_options;
  if (!s.local) {  // scheduler options mean nothing to a local job
    job.access = t->part->access;
    auto resources = ResourceOptions(*t);
    if (!resources.ok()) return resources.status();
    job.options.insert(job.options.end(), resources->begin(), resources->end());
    job.options.insert(job.options.end(), s.job_options.begin(), s.job_options.end());
    for (const auto& o : opts_.job_options) job.options.push_back(o);
  }

  ScriptParts p;
  p.directives = sched->Directives(job);
  p.workdir = t->stagedir;
  p.env = HetbenchEnv();
  for (auto& kv : (*launcher)->Env()) p.env.push_back(kv);
  auto environ = EnvironLines(*t);
  if (!environ.ok()) return environ.status();
  p.environ = std::move(environ).value();
  p.prepare_cmds = t->part->prepare_cmds;
  if (t->env) p.prepare_cmds.insert(p.prepare_cmds.end(), t->env->prepare_cmds.begin(), t->env->prepare_cmds.end());
  auto build_out = ReadFile(JoinPath(t->stagedir, kBuildOut));
  p.build_setup = RunPrepareCommands(s.build, t->stagedir, build_out.ok() ? *build_out : "");
  p.prerun_cmds = s.prerun_cmds;
  std::string prefix = (*launcher)->Prefix(job);
  if (!prefix.empty()) p.launcher = {prefix};
  p.executable = s.executable;
  p.executable_opts = s.executable_opts;
  p.postrun_cmds = s.postrun_cmds;
  Status st = AddContainer(*t, job.image, &p);
  if (!st.ok()) return st;
  st = WriteFile(job.script_path, RunScript(p));
  if (!st.ok()) return st;

  if (opts_.dry_run) {
    st = sched->WriteDryRun(job, t->stagedir);
    if (!st.ok()) return st;
    Cleanup(t);
    t->result.end_time = WallNow();
    bool k8s = PathExists(JoinPath(t->stagedir, kDryRunObjects));
    Finish(t, "dry-run", "",
           "job script written to " + JoinPath(t->outputdir, kJobScript) +
               (k8s ? ", Kubernetes objects to " + JoinPath(t->outputdir, kDryRunObjects) : ""));
    return Status::OK();
  }
  st = sched->Submit(&job);
  if (!st.ok()) return st;
  t->job = std::move(job);
  t->sched = sched;
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

// The modules and variables of the system, partition, environment, a
// container platform (`extra`) and the test, in that order
// (run/module_system.h).
Result<std::vector<std::string>> Executor::EnvironLines(const Task& t, const EnvLevel* extra) const {
  const System& sys = session_.system();
  std::vector<EnvLevel> levels = {{sys.modules, sys.env_vars}, {t.part->modules, t.part->env_vars}};
  if (t.env) levels.push_back({t.env->modules, t.env->env_vars});
  // ReFrame (pipeline.py, run()): the container platform's environment
  // goes between the programming environment's and the test's.
  if (extra) levels.push_back(*extra);
  EnvLevel test{t.spec->modules, {}};
  for (const auto& [k, v] : t.spec->env_vars) test.env_vars.emplace_back(k, v);
  levels.push_back(std::move(test));
  auto general = session_.config.GeneralFor(sys.name, t.part->name);
  if (!general.ok()) return general.status();
  auto mappings = ParseModuleMappings(general->module_mappings);
  if (!mappings.ok()) return mappings.status();
  return EnvironmentLines(sys.modules_system, levels, *mappings);
}

// The partition's `resources` templates that the test asks for, filled in:
// a resource named in extra_resources gets its values ("--gres=cs:{num_csx}"
// with {num_csx: 1}); `gpu` (or ReFrame's `_rfm_gpu`) gets
// num_gpus_per_node when the test sets it. Resources the partition does not
// define are ignored, as ReFrame does, so one test serves many sites.
Result<std::vector<std::string>> Executor::ResourceOptions(const Task& t) const {
  const TestSpec& s = *t.spec;
  std::vector<std::string> out;
  for (const auto& res : t.part->resources) {
    std::map<std::string, std::string> values;
    auto it = s.extra_resources.find(res.name);
    bool gpu = (res.name == "gpu" || res.name == "_rfm_gpu") && s.num_gpus_per_node > 0;
    if (it == s.extra_resources.end() && !gpu) continue;
    if (it != s.extra_resources.end()) values = it->second;
    if (gpu) values.emplace("num_gpus_per_node", std::to_string(s.num_gpus_per_node));
    for (const auto& tmpl : res.options) {
      std::string missing;
      std::string filled = ExpandPlaceholders(
          tmpl,
          [&](const std::string& k) -> std::optional<std::string> {
            auto v = values.find(k);
            if (v != values.end()) return v->second;
            if (missing.empty()) missing = k;
            return std::nullopt;
          },
          false);
      if (!missing.empty())
        return Status::Error("resource '" + res.name + "' of partition '" + t.part->name + "' needs a value for {" +
                             missing + "}: set extra_resources: {" + res.name + ": {" + missing + ": ...}}");
      out.push_back(filled);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Finishing jobs and cases.

void Executor::OnJobDone(Task* t) {
  const JobState& js = t->job.state;
  CaseResult& r = t->result;
  double now = WallNow();
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
             "exit code " + std::to_string(js.exit_code) + (why.empty() ? "" : ": " + why) + " (log: " +
                 JoinPath(t->outputdir, kBuildErr) + ")");
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
  in.interrupted = [] { return EventWaiter::InterruptPending(); };

  double start = WallNow();
  if (!opts_.skip_sanity) {
    Status st = EvaluateSanity(s.sanity, in);
    r.timings.push_back({"sanity", WallNow() - start});
    if (Regex::ScanInterrupted(st)) return CancelCheck(t, "sanity");
    if (!st.ok()) {
      Finish(t, "fail", "sanity", st.message());
      return;
    }
  }
  if (opts_.skip_performance) return Finish(t, "pass", "", "");
  start = WallNow();
  std::string perf_failure;
  // Extracted variables first, then those derived from them, each checked
  // against its reference, in the file's order.
  std::map<std::string, double> values;
  std::map<std::string, Result<double>> got;
  for (const PerfSpec& ps : s.performance) {
    if (!ps.expr.empty()) continue;
    auto v = ExtractPerf(ps, in);
    if (Regex::ScanInterrupted(v.status())) return CancelCheck(t, "performance");
    if (v.ok()) values[ps.name] = *v;
    got.emplace(ps.name, v);
  }
  // A derived variable may use one derived below it: evaluate until no
  // more can be, then report the rest with their missing inputs.
  for (bool progress = true; progress;) {
    progress = false;
    for (const PerfSpec& ps : s.performance) {
      if (ps.expr.empty() || values.count(ps.name)) continue;
      auto v = EvaluateDerived(ps, values, *t->tc->names);
      if (!v.ok()) continue;
      values[ps.name] = *v;
      progress = true;
    }
  }
  for (const PerfSpec& ps : s.performance)
    if (!ps.expr.empty()) got.emplace(ps.name, values.count(ps.name) ? Result<double>(values[ps.name])
                                                                      : EvaluateDerived(ps, values, *t->tc->names));
  for (const PerfSpec& ps : s.performance) {
    const auto& v = got.at(ps.name);
    if (!v.ok()) {
      if (perf_failure.empty()) perf_failure = v.status().message();
      continue;
    }
    auto ref = FindReference(s.reference, t->tc->system, t->tc->partition, ps.name, t->part->aliases);
    PerfResult pr = EvaluateReference(ps.name, *v, ps.unit, ref);
    pr.figure_of_merit = ps.figure_of_merit;
    pr.better = ps.better;
    if (pr.verdict == "fail" && perf_failure.empty()) perf_failure = pr.message;
    r.perf.push_back(std::move(pr));
  }
  r.timings.push_back({"performance", WallNow() - start});
  if (!perf_failure.empty()) {
    Finish(t, "fail", "performance", perf_failure);
    return;
  }
  Finish(t, "pass", "", "");
}

void Executor::CancelCheck(Task* t, const std::string& stage) {
  Finish(t, "cancelled", stage, "cancelled (interrupted during the " + stage + " check)");
  EventWaiter::Events ev = waiter_ ? waiter_->Poll() : EventWaiter::Events{};
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
  r.end_time = WallNow();
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
    double start = WallNow();
    Cleanup(t);
    if (was_in_flight) r.timings.push_back({"cleanup", WallNow() - start});
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
  static const std::vector<std::string> kNone;
  for (const auto& pattern : t->spec ? t->spec->keep_files : kNone) {
    std::string full = JoinPath(t->stagedir, pattern);
    glob_t g{};
    if (glob(full.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string p = g.gl_pathv[i];
        // Only what is below the stage folder (the loader refuses absolute
        // and '..' patterns; a link out of the stage is not followed).
        if (!StartsWith(p, t->stagedir + "/") || !IsWithin(p, t->stagedir)) {
          console_->Note("hetbench: not keeping '" + p + "': it is not inside the stage folder " + t->stagedir);
          continue;
        }
        std::string rel = p.substr(t->stagedir.size() + 1);
        auto dest_path = SafeJoin(t->outputdir, rel);
        if (!dest_path.ok()) {
          console_->Note("hetbench: not keeping '" + rel + "': " + dest_path.status().message());
          continue;
        }
        const std::string& dest = *dest_path;
        (void)MakeDirs(DirName(dest));
        std::error_code ec;
        std::filesystem::copy(p, dest,
                              std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing,
                              ec);
        if (ec) console_->Note("hetbench: could not keep '" + rel + "': " + ec.message());
      }
    }
    globfree(&g);
  }
  if (t->result.result == "pass" && !opts_.keep_stage_files) {
    if (t->dependents_left > 0) t->remove_stage_when_free = true;
    else (void)RemoveTreeWithin(t->stagedir, StageRoot());
  }
}

void Executor::ReleaseDependencies(const Task& t) {
  for (Task* d : t.deps) {
    if (--d->dependents_left == 0 && d->remove_stage_when_free) {
      (void)RemoveTreeWithin(d->stagedir, StageRoot());
      d->remove_stage_when_free = false;
    }
  }
}

}  // namespace hb
