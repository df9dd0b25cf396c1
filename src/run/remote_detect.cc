#include "run/remote_detect.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "config/general_options.h"
#include "launch/launcher.h"
#include "results/store.h"
#include "run/module_system.h"
#include "run/scheduler_pool.h"
#include "sched/scheduler_factory.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/signals.h"
#include "util/strings.h"

namespace hb {

namespace {

constexpr double kDefaultTimeLimit = 300;
// How long a cancelled job may take to be confirmed gone.
constexpr double kCancelGrace = 30;
constexpr int kStderrTailLines = 10;
constexpr const char* kOutputFile = "topology.json";

std::string SelfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "hetbench";
}

// The last `n` non-empty lines of a file, indented, for error messages.
std::string Tail(const std::string& path, int n) {
  auto text = ReadFile(path);
  if (!text.ok()) return "";
  std::vector<std::string> lines;
  for (const auto& l : Split(*text, '\n'))
    if (!Trim(l).empty()) lines.push_back("  " + l);
  if (static_cast<int>(lines.size()) > n) lines.erase(lines.begin(), lines.end() - n);
  return Join(lines, "\n");
}

// One detection job in flight.
struct Pending {
  size_t index = 0;  // into the targets
  std::string name;  // sys:part
  Scheduler* sched = nullptr;
  Job job;
  std::string dir;
  std::string root;     // the folder `dir` was made in
  double deadline = 0;  // monotonic
  double time_limit_s = 0;
  bool cancelled = false;  // for running past its time limit
};

// The detection jobs' schedulers: run/scheduler_pool.h, as the executor's,
// each checked before its first job.
Result<Scheduler*> SchedulerOf(const DetectTarget& t, SchedulerPool* pool) {
  auto sched = pool->For(*t.partition, nlohmann::json::object());
  if (!sched.ok()) return sched.status();
  Status st = pool->Check(*sched);
  if (!st.ok()) return st;
  return sched;
}

// Writes the script and submits the job of one target.
Status Submit(const DetectTarget& t, const DetectJobOptions& o, SchedulerPool* schedulers, Pending* p) {
  const Partition& part = *t.partition;
  auto backend = FindSchedulerBackend(part.scheduler);
  if (!backend.ok()) return backend.status();
  if ((*backend)->traits.remote_files)
    return Status::Error("scheduler '" + part.scheduler +
                         "' runs jobs where hetbench is not installed (a Kubernetes pod's image has no hetbench), so "
                         "the partition cannot be detected; write `processor` and `devices` in the configuration");
  auto sched = SchedulerOf(t, schedulers);
  if (!sched.ok()) return sched.status();
  auto launcher = MakeLauncher(part.launcher, part.launcher_options, *backend);
  if (!launcher.ok()) return launcher.status();
  Status st = MakeDirs(o.workdir);
  if (!st.ok()) return st;
  p->root = AbsPath(o.workdir);
  auto made = SafePath(p->root, {"hb-detect-" + t.system->name + "-" + part.name + ".XXXXXX"});
  if (!made.ok()) return made.status();
  std::string tmpl = *made;
  if (!mkdtemp(tmpl.data())) return Status::Error("cannot create a folder under " + o.workdir + ": " + strerror(errno));
  p->dir = tmpl;
  Job& job = p->job;
  job.name = "hb_detect";
  job.workdir = p->dir;
  job.script_path = JoinPath(p->dir, "hb_detect.sh");
  job.stdout_path = JoinPath(p->dir, "hb_detect.out");
  job.stderr_path = JoinPath(p->dir, "hb_detect.err");
  job.time_limit_s = o.time_limit_s;
  job.num_tasks = 1;
  job.access = part.access;
  job.options = o.job_options;
  // torchrun starts Python programs only; the batch script already runs on the node.
  std::string prefix = part.launcher == "torchrun" ? "" : (*launcher)->Prefix(job);
  ScriptParts parts = DetectScriptParts(*t.system, part, prefix, o.exe, p->dir, JoinPath(p->dir, kOutputFile));
  parts.directives = (*sched)->Directives(job);
  st = WriteFile(job.script_path, RunScript(parts));
  if (!st.ok()) return st;
  st = (*sched)->Submit(&job);
  if (!st.ok()) return st;
  p->sched = *sched;
  p->time_limit_s = o.time_limit_s;
  p->deadline = MonotonicNow() + o.time_limit_s;
  return Status::OK();
}

// The topology a finished job wrote, or why there is none.
Result<Topology> Collect(const Pending& p) {
  std::string head = "partition '" + p.name + "': detection job " + p.job.id;
  std::string tail = Tail(p.job.stderr_path, kStderrTailLines);
  std::string stderr_part =
      tail.empty() ? " (its standard error is empty)" : "; its standard error ends with:\n" + tail;
  std::string kept = "\n(the job's files are kept in " + p.dir + ")";
  const JobState& s = p.job.state;
  if (p.cancelled || s.kind == JobState::Kind::kTimeout)
    return Status::Error(head + " did not finish within its time limit of " + FormatHMS(p.time_limit_s) +
                         " (set --time-limit or general/remote_detect_time_limit)" + stderr_part + kept);
  if (s.kind != JobState::Kind::kCompleted || s.exit_code != 0)
    return Status::Error(head + " ended " + s.str() + stderr_part + kept);
  auto t = ReadTopologyFile(JoinPath(p.dir, kOutputFile));
  if (!t.ok()) return Status::Error(head + " completed but left no topology: " + t.status().str() + stderr_part + kept);
  if (Status st = RemoveTreeWithin(p.dir, p.root); !st.ok())
    LogRecord(kLogVerbose, "could not remove the detection job's folder " + p.dir + ": " + st.message());
  return t;
}

}  // namespace

Result<DetectJobOptions> ResolveDetectOptions(const DetectJobOptions& cli, const nlohmann::json& general) {
  DetectJobOptions o = cli;
  auto g = ReadGeneralOptions(JsonField(general, "general"));
  if (!g.ok()) return g.status();
  if (o.exe.empty()) o.exe = g->remote_hetbench;
  if (o.exe.empty()) o.exe = SelfExe();
  if (o.workdir.empty()) o.workdir = g->remote_workdir;
  if (o.workdir.empty()) o.workdir = ".";
  if (o.time_limit_s <= 0) o.time_limit_s = g->remote_detect_time_limit_s;
  if (o.time_limit_s <= 0) o.time_limit_s = kDefaultTimeLimit;
  return o;
}

ScriptParts DetectScriptParts(const System& sys, const Partition& part, const std::string& launcher_prefix,
                              const std::string& exe, const std::string& workdir, const std::string& output) {
  ScriptParts p;
  p.workdir = workdir;
  p.prepare_cmds = part.prepare_cmds;
  // The system's and partition's modules and variables: GPU tools such as
  // rocm-smi may come with a module.
  auto environ = EnvironmentLines(sys.modules_system, {{sys.modules, sys.env_vars}, {part.modules, part.env_vars}});
  if (environ.ok()) p.environ = *environ;
  if (!launcher_prefix.empty()) p.launcher = {launcher_prefix};
  p.executable = ShellQuote(exe);
  p.executable_opts = {"detect", "--json", "-o", ShellQuote(output)};
  return p;
}

DetectOutcome DetectPartitions(const SiteConfig& config, const std::vector<DetectTarget>& targets,
                               const DetectJobOptions& cli, const std::function<void(const std::string&)>& note) {
  DetectOutcome out;
  out.results.assign(targets.size(), Result<Topology>(Status::Error("not detected")));
  EventWaiter waiter;
  SchedulerFlags flags;
  flags.kill_grace_s = cli.kill_grace_s;
  SchedulerPool schedulers(flags);
  std::vector<Pending> in_flight;
  // 1. Submit one job per partition.
  for (size_t i = 0; i < targets.size(); ++i) {
    const DetectTarget& t = targets[i];
    Pending p;
    p.index = i;
    p.name = t.system->name + ":" + t.partition->name;
    auto o = ResolveDetectOptions(cli, config.SectionFor("general", t.system->name, t.partition->name));
    Status st = o.ok() ? Submit(t, *o, &schedulers, &p) : o.status();
    if (!st.ok()) {
      out.results[i] = st.Prefixed("partition '" + p.name + "': cannot submit the detection job");
      continue;
    }
    note("hetbench: detecting the topology of partition '" + p.name + "': job " + p.job.id + " (" + p.sched->name() +
         "), time limit " + FormatHMS(p.time_limit_s));
    in_flight.push_back(std::move(p));
  }
  // 2. Wait for events, poll, collect what ended, cancel what ran too long.
  while (!in_flight.empty()) {
    double now = MonotonicNow(), wait = schedulers.NextPollDelay();
    for (const auto& p : in_flight) wait = std::min(wait, std::max(0.0, p.deadline - now));
    EventWaiter::Events ev = waiter.Wait(wait);
    if (ev.interrupt && !out.interrupt_signal) {
      out.interrupt_signal = ev.interrupt;
      for (auto& p : in_flight) p.sched->Cancel(&p.job);
      break;
    }
    std::vector<std::pair<Scheduler*, Job*>> jobs;
    for (auto& p : in_flight) jobs.emplace_back(p.sched, &p.job);
    schedulers.Poll(jobs);
    now = MonotonicNow();
    std::vector<Pending> still;
    for (auto& p : in_flight) {
      bool given_up = p.cancelled && now >= p.deadline;  // cancelled, not confirmed in time
      if (p.job.state.terminal() || given_up) {
        out.results[p.index] = Collect(p);
        continue;
      }
      if (!p.cancelled && now >= p.deadline) {
        p.sched->Cancel(&p.job);
        p.cancelled = true;
        p.deadline = now + kCancelGrace;
      }
      still.push_back(std::move(p));
    }
    in_flight = std::move(still);
  }
  for (auto& p : in_flight)
    out.results[p.index] =
        Status::Error("partition '" + p.name + "': detection job " + p.job.id + " cancelled (interrupted)");
  schedulers.Shutdown();
  return out;
}

int DetectMissingTopologies(Session* session, const std::vector<std::string>& job_options,
                            const std::function<void(const std::string&)>& note) {
  SiteConfig& config = session->config;
  System* sys = nullptr;
  for (auto& s : config.systems)
    if (s.name == session->system_name) sys = &s;
  if (!sys) return 0;
  std::set<std::string> used;
  for (const auto& c : session->cases) used.insert(c.partition);
  std::vector<DetectTarget> targets;
  std::vector<std::string> files;
  std::vector<Partition*> parts;
  for (auto& part : sys->partitions) {
    nlohmann::json general = config.SectionFor("general", sys->name, part.name);
    auto options = ReadGeneralOptions(JsonField(general, "general"));  // checked at load
    if (!used.count(part.name) || HasConfiguredProcessor(part) || !options.ok() || !options->remote_detect) continue;
    auto where = TopologyFile(TopologyPrefix(general, ProcessEnv), sys->name, part.name);
    if (!where.ok()) {
      note("hetbench: warning: remote_detect: " + where.status().message() + "\n");
      continue;
    }
    const std::string& file = *where;
    if (PathExists(file)) continue;  // the cache filled it in already
    targets.push_back({sys, &part});
    files.push_back(file);
    parts.push_back(&part);
  }
  if (targets.empty()) return 0;
  DetectJobOptions cli;
  cli.job_options = job_options;
  DetectOutcome out = DetectPartitions(config, targets, cli, note);
  for (size_t i = 0; i < targets.size(); ++i) {
    const std::string name = sys->name + ":" + targets[i].partition->name;
    if (!out.results[i].ok()) {
      note("hetbench: warning: remote_detect: " + out.results[i].status().str() +
           "\n(the run goes on without "
           "the partition's processor information)");
      continue;
    }
    Status st = WriteTopologyFile(files[i], *out.results[i]);
    if (!st.ok()) note("hetbench: warning: remote_detect: partition '" + name + "': not cached: " + st.str());
    FillPartitionTopology(*out.results[i], sys->name, parts[i], &config);
  }
  return out.interrupt_signal;
}

}  // namespace hb
