// `hetbench run`: open the session, run the executor, write the run
// report, JUnit XML and perflogs, add the session to the results store,
// print the summary.
#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <set>

#include "cli/commands.h"
#include "results/junit.h"
#include "results/perflog_handlers.h"
#include "results/run_report.h"
#include "results/store.h"
#include "run/ci_pipeline.h"
#include "run/remote_detect.h"
#include "sched/scheduler_factory.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strings.h"
#include "version.h"

namespace hb {

namespace {

bool UseTerminal() {
  const char* term = std::getenv("TERM");
  const char* ci = std::getenv("CI");
  return isatty(STDOUT_FILENO) && term && std::string(term) != "dumb" && !(ci && std::string(ci) == "true");
}

// Where the perflog handlers write: filelog basedirs relative to the
// prefix, all replaced by --perflog-dir (results/perflog_handlers.h).
PerflogHandlerOptions PerflogOptions(const RunCommandOptions& o, const Session& s) {
  PerflogHandlerOptions opts;
  opts.prefix = s.prefix;
  if (!o.perflog_dir.empty()) opts.basedir = AbsPath(o.perflog_dir);
  opts.config_files = s.config.files;
  return opts;
}

// Adds the session to the results store (results/store.h); returns the
// store's path, or "" when storing is off or failed. A store that cannot be
// written costs one warning, never the run's results or exit status: the
// run report holds them (and `hetbench results import` takes it later).
std::string StoreSession(const RunCommandOptions& o, const Session& s, const SessionInfo& info,
                         const std::vector<CaseResult>& results, Console* console, bool* failed) {
  StoreLocation where = LocateStore(o.store, o.no_store, s.config.SectionFor("storage", s.system_name), ProcessEnv);
  if (!where.enabled) return "";
  StoreOptions opts;
  opts.busy_timeout_s = where.busy_timeout_s;
  auto store = Store::Open(where.path, opts);
  Status st = store.ok() ? (*store)->Add(info, results).status() : store.status();
  if (st.ok()) return where.path;
  console->Note("hetbench: error: session not stored: " + st.str() +
                " (the run report has every result: `hetbench results import` adds it later)");
  *failed = true;
  return "";
}

// --performance-report: each case's variables' values in the latest
// earlier session of the store that has them. A store that cannot be read
// costs a note, not the run.
PreviousValues PreviousFromStore(const RunCommandOptions& o, const Session& s, const SessionInfo& info,
                                 const std::vector<CaseResult>& results, Console* console) {
  PreviousValues out;
  StoreLocation where = LocateStore(o.store, false, s.config.SectionFor("storage", s.system_name), ProcessEnv);
  if (!PathExists(where.path)) return out;
  StoreOptions opts;
  opts.create = false;
  opts.busy_timeout_s = where.busy_timeout_s;
  auto store = Store::Open(where.path, opts);
  StoreQuery q;
  q.system = s.system_name;
  q.until = info.start_time;
  std::set<std::string> names;
  for (const auto& r : results) names.insert("^" + RegexEscape(r.name) + "$");
  q.names.assign(names.begin(), names.end());
  auto table = store.ok() ? (*store)->Perf(q) : Result<PerfTable>(store.status());
  if (!table.ok()) {
    console->Note("hetbench: warning: --performance-report: cannot read the results store: " + table.status().str());
    return out;
  }
  for (const auto& p : table->points) {  // by time: later points replace earlier ones
    const PerfSeriesKey& k = table->series[p.series];
    std::string label = k.display_name + " @" + k.system + ":" + k.partition + "+" + k.environ;
    out[PreviousKey(label, k.var)] = PreviousValue{p.value, table->sessions[p.session].session_id};
  }
  return out;
}

// Text that is not UTF-8 (a job's Latin-1 output in a failure reason) is
// written as U+FFFD in the report and the store; each place is in the main
// log, and the console says once that it happened and where to look.
void NoteInvalidUtf8(const SessionInfo& info, const std::vector<CaseResult>& results, Console* console) {
  size_t cases = 0;
  std::vector<std::string> session_fields = InvalidUtf8Fields(info);
  if (!session_fields.empty())
    LogRecord(kLogWarning, "session: not UTF-8, written with U+FFFD: " + Join(session_fields, ", "));
  for (const auto& r : results) {
    std::vector<std::string> fields = InvalidUtf8Fields(r);
    if (fields.empty()) continue;
    ++cases;
    LogRecord(kLogWarning, r.display_name + " @" + r.system + ":" + r.partition + "+" + r.environ +
                               ": not UTF-8, written with U+FFFD: " + Join(fields, ", "));
  }
  if (cases == 0 && session_fields.empty()) return;
  console->Note(
      "hetbench: note: " +
      (cases ? std::to_string(cases) + (cases == 1 ? " case has" : " cases have") : std::string("the session has")) +
      " text that is not UTF-8; the report and the store have it with U+FFFD in its place, and list the "
      "fields in `utf8_replaced` (the output files keep the bytes)");
}

// How long the end of a run waits for perflog records still being sent.
constexpr double kPerflogFlushSeconds = 30;

int Fail(const Status& st) {
  std::fprintf(stderr, "hetbench: error: %s\n", st.str().c_str());
  return 2;
}

// The options of `o` that shape a run, as words for the jobs of a
// --ci-generate pipeline (selection is per job; reports are per job).
std::vector<std::string> CarriedOptions(const RunCommandOptions& o) {
  std::vector<std::string> w;
  for (const auto& c : o.session.config_files) w.insert(w.end(), {"-C", c});
  if (!o.mode.empty()) w.insert(w.end(), {"--mode", o.mode});
  if (o.session.recursive) w.push_back("-R");
  for (const auto& s : o.session.setvars) w.insert(w.end(), {"-S", s});
  if (o.exec.max_retries > 0) w.insert(w.end(), {"--max-retries", std::to_string(o.exec.max_retries)});
  if (o.exec.repeat > 1) w.insert(w.end(), {"--repeat", std::to_string(o.exec.repeat)});
  for (const auto& j : o.exec.job_options) w.insert(w.end(), {"-J", j});
  return w;
}

// --ci-generate FILE: writes the pipeline (atomically) and runs nothing.
int GenerateCi(const RunCommandOptions& o, const Session& session) {
  CiOptions ci;
  ci.test_paths = o.session.test_paths;
  ci.run_args = CarriedOptions(o);
  auto text = GitlabPipeline(session.cases, ci);
  if (!text.ok()) return Fail(text.status());
  Status st = WriteFileAtomic(o.ci_generate, *text);
  if (!st.ok()) return Fail(st);
  std::printf("Wrote a GitLab CI child pipeline with %zu job%s to %s\n", session.cases.size(),
              session.cases.size() == 1 ? "" : "s", o.ci_generate.c_str());
  return 0;
}

}  // namespace

int RunCommand(RunCommandOptions o) {
  std::vector<std::string> restore_ids;
  if (!o.restore_report.empty()) {
    auto report = ReadRunReport(o.restore_report);
    if (!report.ok()) return Fail(report.status());
    std::set<std::string> files;
    for (const auto& c : report->cases) {
      if (o.failed_only && c.result != "fail") continue;
      restore_ids.push_back(c.id);
      files.insert(c.file);
    }
    if (restore_ids.empty()) {
      std::printf("hetbench: no %scases to re-run in %s\n", o.failed_only ? "failed " : "", o.restore_report.c_str());
      return 0;
    }
    if (o.session.test_paths.empty()) o.session.test_paths.assign(files.begin(), files.end());
  }
  o.exec.sched.kubeconfig = o.kubeconfig;
  o.session.kubeconfig = o.kubeconfig;
  o.exec.sched.keep_failed_jobs = o.keep_failed_jobs;
  o.exec.sched.dry_run = o.exec.dry_run;
  auto opened = OpenSession(o.session);
  if (!opened.ok()) return Fail(opened.status());
  Session& session = **opened;
  if (!o.distribute.empty()) {
    Status st = DistributeCases(&session, [&](const Partition& part) -> Result<std::vector<std::string>> {
      auto sched = MakeScheduler(part.scheduler, part.sched_options, o.exec.sched);
      if (!sched.ok()) return sched.status();
      std::vector<std::string> options = part.access;
      options.insert(options.end(), o.exec.job_options.begin(), o.exec.job_options.end());
      return (*sched)->ListNodes(options, o.distribute);
    });
    if (!st.ok()) return Fail(st);
  }
  if (!restore_ids.empty()) RestrictCases(&session, restore_ids);
  if (!o.ci_generate.empty()) return GenerateCi(o, session);
  if (!o.exec.dry_run) {
    auto note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    if (DetectMissingTopologies(&session, o.exec.job_options, note) != 0) return 130;
  }

  SessionInfo info;
  info.session_id = session.id;
  info.version = HETBENCH_VERSION;
  info.hostname = ThisHostName();
  info.user = ThisUserName();
  info.argv = o.argv;
  info.system = session.system_name;
  info.prefix = session.prefix;
  info.config_files = session.config.files;
  info.start_time = WallNow();

  auto handlers =
      PerflogHandlers::Create(session.config.SectionFor("logging", session.system_name), PerflogOptions(o, session));
  if (!handlers.ok()) return Fail(handlers.status());
  const bool tty = UseTerminal();
  auto color = ColorChoice(o.color, tty, std::getenv("NO_COLOR"));
  if (!color.ok()) return Fail(color.status());
  Console console(stdout, tty, *color);
  auto note_handler_warnings = [&] {
    for (const auto& w : (*handlers)->TakeWarnings()) console.Note("hetbench: warning: " + w);
  };
  Executor executor(session, o.exec, &console);
  Status ready = executor.Prepare();
  if (!ready.ok()) return Fail(ready);
  console.SessionStart("hetbench " + info.version + ": session " + session.id + " on system '" + session.system_name +
                           "' (partitions: " + Join(session.partition_names, ", ") + "), prefix " + session.prefix,
                       session.cases.size() * static_cast<size_t>(std::max(1, o.exec.repeat)));
  if (session.cases.empty()) console.Note("hetbench: no test case matches the selection");

  executor.on_case_end = [&](const CaseResult& r) {
    if (o.exec.dry_run) return;
    (*handlers)->Log(info, r);
    note_handler_warnings();
  };
  note_handler_warnings();
  std::vector<CaseResult> results = executor.Run();
  // The httpjson handlers send in the background; give them a bounded time.
  (*handlers)->Finish(kPerflogFlushSeconds);
  note_handler_warnings();
  info.end_time = WallNow();

  bool failed = false;
  for (const auto& r : results) failed |= r.result == "fail";
  info.exit_code = executor.interrupted() ? 130 : (failed ? 1 : 0);

  NoteInvalidUtf8(info, results, &console);
  std::string report =
      o.report_file.empty() ? JoinPath(session.prefix, "reports/run-" + session.id + ".json") : AbsPath(o.report_file);
  // A record that cannot be written (report, JUnit, store) is exit status
  // 3, unless the run already says 1 (a case failed) or 130 (interrupted).
  bool unwritten = false;
  Status st = MakeDirs(DirName(report));
  if (st.ok()) st = WriteRunReport(report, info, results);
  if (!st.ok()) {
    console.Note("hetbench: error: cannot write the run report: " + st.str());
    unwritten = true;
  }
  if (!o.junit_file.empty()) {
    Status js = WriteJunit(AbsPath(o.junit_file), info, results);
    if (!js.ok()) console.Note("hetbench: error: cannot write the JUnit report: " + js.str());
    unwritten |= !js.ok();
  }
  if (o.performance_report) console.SetPreviousValues(PreviousFromStore(o, session, info, results, &console));
  std::string stored = o.exec.dry_run ? "" : StoreSession(o, session, info, results, &console, &unwritten);
  console.Summary(results, executor.interrupted());
  if (st.ok())
    std::printf("Run report: %s\n", report.c_str());
  else
    std::printf("Run report: not written (%s)\n", st.message().c_str());
  std::vector<std::string> perflog_dirs = (*handlers)->FilelogDirs();
  if (!o.exec.dry_run && !results.empty() && !perflog_dirs.empty())
    std::printf("Perflogs:   %s\n", Join(perflog_dirs, ", ").c_str());
  if (!stored.empty()) std::printf("Stored in:  %s\n", stored.c_str());
  std::fflush(stdout);
  return unwritten && info.exit_code == 0 ? 3 : info.exit_code;
}

}  // namespace hb
