// hetbench: define, run and check performance tests on HPC systems.
// This file only parses the command line; commands.h does the work.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

#include "cli/commands.h"
#include "config/config_loader.h"
#include "sched/job.h"
#include "util/strings.h"
#include "version.h"

namespace {

const char* kDescription =
    "hetbench defines, runs, checks and records performance tests and benchmarks\n"
    "on HPC systems, with the concepts ReFrame users know: test files, site\n"
    "configurations, a build/run/sanity/performance pipeline and references.\n";

const char* kFooter =
    "Examples:\n"
    "  hetbench list -c examples/suite                 list the example suite's cases\n"
    "  hetbench run -c examples/suite -t quick         run the cases tagged 'quick'\n"
    "  hetbench run -C site.yaml --system hpc:gpu -c tests/ --report-junit junit.xml\n"
    "  hetbench run --restore-session reports/run-X.json --failed\n"
    "  hetbench show-config systems/0/partitions       print part of the configuration\n"
    "  hetbench detect                                 print this host's processor and devices\n"
    "  hetbench results cases -n stream --since 7d     stored results of past runs\n"
    "  hetbench compare runs:6-10 last:5 --fail-on-regression 5   did the last 5 runs get slower?\n"
    "  hetbench report -o report.html --since 30d      an HTML report of the last 30 days\n"
    "\n"
    "Exit status: 0 all passed, 1 a test failed, 2 bad usage or configuration,\n"
    "130 interrupted. Documentation: docs/ in the hetbench sources.";

// Options shared by list, run and show-config.
void AddSelection(CLI::App* app, hb::SessionOptions* s) {
  app->add_option("-c,--checkpath", s->test_paths, "Test file or folder (repeatable)")->type_name("PATH");
  app->add_flag("-R,--recursive", s->recursive, "Search folders given with -c recursively");
  app->add_option("-n,--name", s->filter.names,
                  "Select cases whose name matches REGEX, or the variant whose hashcode is HASH (as "
                  "`list` prints it: /1a2b3c4d) (repeatable: any)")
      ->type_name("REGEX|/HASH");
  app->add_option("-x,--exclude", s->filter.excludes, "Exclude cases whose name matches REGEX, or /HASH (repeatable)")
      ->type_name("REGEX|/HASH");
  app->add_option("-t,--tag", s->filter.tags, "Select tests with a tag matching REGEX (repeatable: all must match)")
      ->type_name("REGEX");
  app->add_option("-p,--prgenv", s->filter.environs, "Select cases in environments matching REGEX (repeatable)")
      ->type_name("REGEX");
  app->add_option("-E,--filter-expr", s->filter.expr,
                  "Select cases for which EXPR is true; EXPR reads parameters, variables, num_tasks, "
                  "num_gpus_per_node, system, partition, environ... as placeholders do: -E 'num_gpus > 4'")
      ->type_name("EXPR");
  app->add_flag(
         "-v,--verbose", s->verbosity,
         "Say why hetbench does what it does (configuration, system, files, filters; -vv: every job state change and "
         "scheduler command with its exit status and time); repeatable")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_flag("--allow-empty", s->allow_empty,
                "Exit 0 when the options select no case (by default that is an error, exit 2)");
  app->add_option("-S,--setvar", s->setvars,
                  "Set a test field in every test that has it, or only in TEST (repeatable); the value is "
                  "converted by the field's type: 4, true, 10m, a list a,b,c, a mapping k1:v1,k2:v2")
      ->type_name("[TEST.]FIELD=VALUE")
      ->allow_extra_args(false);
}

void AddConfig(CLI::App* app, hb::SessionOptions* s, std::string* mode) {
  app->add_option("-C,--config-file", s->config_files,
                  "Site configuration file (repeatable; later files refine earlier ones). Default: "
                  "the colon-separated HETBENCH_CONFIG_FILES, else the embedded generic system")
      ->type_name("FILE");
  app->add_option("--system", s->system, "Run on system SYS, or only on its partition PART")->type_name("SYS[:PART]");
  app->add_option("--prefix", s->prefix, "Folder for stage, output, perflog and report folders (default: .)")
      ->type_name("DIR");
  app->add_option("--mode", *mode, "Apply the named set of options from the configuration's 'modes'")
      ->type_name("NAME");
}

// Expands `--mode NAME` into the options the configuration gives for it,
// inserted right after the subcommand so that options given on the command
// line still win. Returns false (after printing why) on error.
bool ExpandMode(std::vector<std::string>* args) {
  std::string mode, system;
  std::vector<std::string> configs;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& a = (*args)[i];
    auto value = [&](const std::string& opt) -> std::optional<std::string> {
      if (a == opt && i + 1 < args->size()) return (*args)[i + 1];
      if (hb::StartsWith(a, opt + "=")) return a.substr(opt.size() + 1);
      return std::nullopt;
    };
    if (auto v = value("--mode")) mode = *v;
    if (auto v = value("--system")) system = *v;
    if (auto v = value("-C")) configs.push_back(*v);
    if (auto v = value("--config-file")) configs.push_back(*v);
  }
  if (mode.empty()) return true;
  auto loaded = hb::LoadConfiguration(configs);
  if (!loaded.ok()) {
    std::fprintf(stderr, "hetbench: error: %s\n", loaded.status().str().c_str());
    return false;
  }
  const hb::SiteConfig& cfg = *loaded;
  // A mode may be limited to some systems (target_systems).
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  auto selected = hb::SelectSystem(cfg, system, host);
  std::optional<std::vector<std::string>> options;
  if (selected.ok()) {
    options = cfg.FindMode(mode, selected->first->name);
  } else if (auto it = cfg.modes.find(mode); it != cfg.modes.end()) {
    options = it->second;
  }
  if (!options) {
    std::vector<std::string> names;
    for (const auto& [n, o] : cfg.modes) names.push_back(n);
    std::fprintf(stderr, "hetbench: error: --mode: the configuration defines no mode '%s'%s (modes: %s)\n",
                 mode.c_str(), hb::DidYouMean(mode, names).c_str(),
                 names.empty() ? "none" : hb::Join(names, ", ").c_str());
    return false;
  }
  // Mode options are written ReFrame-style ("--exec-policy=async", "-t foo")
  // and split as ReFrame splits them (shlex.split).
  std::vector<std::string> extra;
  for (const auto& opt : *options)
    for (const auto& w : hb::ShellWords(opt)) extra.push_back(w);
  args->insert(args->begin() + 1, extra.begin(), extra.end());
  return true;
}

const char* kStoreHelp =
    "The results store (SQLite). Default: $HETBENCH_STORE, else the configuration's "
    "storage/sqlite_db_file, else $XDG_DATA_HOME/hetbench/results.db (~/.local/share/hetbench/results.db)";

// The filters of `results sessions|cases|export`.
void AddResultFilters(CLI::App* app, hb::ResultsCommandOptions* o) {
  app->add_option("-n,--name", o->names, "Cases whose test name or display name matches REGEX (repeatable: any)")
      ->type_name("REGEX");
  app->add_option("-t,--tag", o->tags, "Cases with a tag matching REGEX (repeatable: all must match)")
      ->type_name("REGEX");
  app->add_option("--system", o->system, "Cases that ran on system SYS (or its partition PART)")
      ->type_name("SYS[:PART]");
  app->add_option("--since", o->since,
                  "Started at or after WHEN: a date (2024-05-01, 2024-05-01T12:30, "
                  "with Z or +02:00 for a zone) or an age (7d, 24h, 30m)")
      ->type_name("WHEN");
  app->add_option("--until", o->until, "Started before WHEN (as --since)")->type_name("WHEN");
  app->add_option("--session", o->session, "Only session ID (or a unique prefix of it)")->type_name("ID");
}

const char* kResultsFooter =
    "Examples:\n"
    "  hetbench results sessions --since 7d               sessions of the last week\n"
    "  hetbench results cases -n stream --system hpc:gpu  the stream cases on hpc:gpu\n"
    "  hetbench results show 20240501T1200                one session (an id prefix will do)\n"
    "  hetbench results export --csv -t nightly -o perf.csv\n"
    "  hetbench results import ~/.reframe/reports/results.db perflogs/\n"
    "  hetbench results delete 20240501T120000-4242\n"
    "  hetbench results changes -t nightly --fail-on-regression 5   what moved, and since when\n"
    "Every `hetbench run` adds its session to the store unless given --no-store.";

CLI::App* AddResults(CLI::App& app, hb::ResultsCommandOptions* o) {
  CLI::App* results = app.add_subcommand("results",
                                         "Query the results store of past runs, export it, import "
                                         "ReFrame perflogs and results databases");
  results->footer(kResultsFooter);
  results->require_subcommand(1);
  results->fallthrough();
  results->add_option("--store", o->store, kStoreHelp)->type_name("PATH");
  results
      ->add_option("-C,--config-file", o->config_files,
                   "Site configuration whose `storage` section names the store (default: HETBENCH_CONFIG_FILES)")
      ->type_name("FILE");
  AddResultFilters(results->add_subcommand("sessions", "List the stored sessions (a table)"), o);
  AddResultFilters(results->add_subcommand("cases", "List the stored test cases with their performance values"), o);
  results->add_subcommand("show", "Show one session: its details, cases, failures and performance values")
      ->add_option("session", o->args, "Session id or unique prefix")
      ->required()
      ->expected(1)
      ->type_name("SESSION");
  results->add_subcommand("delete", "Delete sessions (with their cases and values)")
      ->add_option("sessions", o->args, "Session ids or unique prefixes")
      ->required()
      ->type_name("SESSION...");
  CLI::App* exp = results->add_subcommand("export",
                                          "Export the cases (one row per performance value) as CSV or "
                                          "JSON with a header");
  AddResultFilters(exp, o);
  auto* csv = exp->add_flag_callback(
      "--csv", [o] { o->format = "csv"; }, "CSV with a header row");
  auto* json = exp->add_flag_callback(
      "--json", [o] { o->format = "json"; },
      "JSON: {\"schema\": \"hetbench-results-export\", \"schema_version\": 1, "
      "\"sessions\": [{\"session\", \"cases\"}]} as in the run report");
  csv->excludes(json);
  exp->add_option("-o,--output", o->output, "Write to FILE instead of standard output")->type_name("FILE");
  CLI::App* changes = results->add_subcommand(
      "changes",
      "Where each value series moved to a new level: change points of its history and a shift of its "
      "last sessions, each a regression or an improvement");
  AddResultFilters(changes, o);
  changes->add_flag_callback(
      "--json", [o] { o->format = "json"; }, "JSON: {\"schema\": \"hetbench-changes\", \"changes\": [...]}");
  changes
      ->add_option("--fail-on-regression", o->fail_on_regression,
                   "Exit 1 when a regression of at least PCT percent is found")
      ->type_name("PCT");
  changes
      ->add_option("--recent", o->recent,
                   "Sessions at the end tested against the ones before (default 5; docs/results.md)")
      ->type_name("K");
  results
      ->add_subcommand("import",
                       "Import ReFrame perflogs (files or folders), a ReFrame results.db, or "
                       "ReFrame or hetbench run reports (JSON)")
      ->add_option("paths", o->args, "Files or folders")
      ->required()
      ->type_name("PATH...");
  return results;
}

const char* kCompareFooter =
    "BASE and TARGET select runs from the results store:\n"
    "  SESSION[,SESSION...]  sessions by id or unique prefix\n"
    "  FROM..TO              cases that started in [FROM, TO): dates (2026-11-01, 2026-11-01T12:00Z),\n"
    "                        'now', or ages (7d, 24h, 30m)\n"
    "  last:N                each test's N most recent runs\n"
    "  runs:A-B              each test's A-th to B-th most recent runs (1 = the latest)\n"
    "\n"
    "Examples:\n"
    "  hetbench compare 20261101T020000-4242 20261130T020000-5151\n"
    "  hetbench compare 14d..7d 7d..now -n resnet50 --system hpc:gpu\n"
    "  hetbench compare runs:6-10 last:5 --fail-on-regression 5     exit 1 on a significant slowdown of 5%\n"
    "  hetbench compare runs:6-10 last:5 --changes-only             only what got better or worse\n"
    "\n"
    "Each value series (test case, variable, system:partition, environment) is aggregated on both sides\n"
    "(median by default); with at least --min-samples values a side a two-sided Mann-Whitney U test\n"
    "decides whether the difference is significant, and CHANGE gives the Hodges-Lehmann shift with\n"
    "its 95% confidence interval. Units of time are lower-is-better, others higher-is-better\n"
    "(--lower-is-better / --higher-is-better override). Exit status: 0; 1 when --fail-on-regression\n"
    "finds a series significantly worse whose interval reaches a slowdown of PCT (or, with\n"
    "--fail-on-untested, when a series could not be tested); 2 on bad usage. docs/results.md says\n"
    "which settings catch a 5% slowdown (bench/power.sh compare measures it).";

// Filters shared by compare and report: where the store is and which cases.
void AddStoreFilters(CLI::App* app, hb::ResultsCommandOptions* o) {
  app->add_option("--store", o->store, kStoreHelp)->type_name("PATH");
  app->add_option("-C,--config-file", o->config_files,
                  "Site configuration, for its `storage` entry (as in `hetbench run`)")
      ->type_name("FILE");
  AddResultFilters(app, o);
}

CLI::App* AddCompare(CLI::App& app, hb::CompareCommandOptions* o) {
  CLI::App* c = app.add_subcommand("compare",
                                   "Compare the performance of two selections of stored runs, with a "
                                   "significance test; gate CI on regressions");
  c->footer(kCompareFooter);
  c->add_option("base", o->base, "The runs to compare against")->required()->type_name("BASE");
  c->add_option("target", o->target, "The runs to judge")->required()->type_name("TARGET");
  AddStoreFilters(c, &o->filters);
  c->add_option("--aggregate", o->aggregate, "median (default), mean, min, max, std, cv, count or pNN (p90)")
      ->type_name("AGG");
  c->add_option("--alpha", o->alpha, "Significance level of the test (default 0.05)")->type_name("P");
  c->add_option("--min-samples", o->min_samples, "Values a side needed to test (default 5)")->type_name("N");
  c->add_option("--fail-on-regression", o->fail_on_regression,
                "Exit 1 when a series is significantly worse and the 95% interval of its change reaches a "
                "slowdown of PCT percent")
      ->type_name("PCT");
  c->add_flag("--fail-on-untested", o->fail_on_untested, "Exit 1 also when a series has too few values to be tested");
  c->add_flag("--changes-only", o->changes_only, "List only the series that got significantly better or worse");
  c->add_option("--lower-is-better", o->lower_is_better, "Variables matching REGEX are better when smaller")
      ->type_name("REGEX");
  c->add_option("--higher-is-better", o->higher_is_better, "Variables matching REGEX are better when larger")
      ->type_name("REGEX");
  auto* fmt = c->add_option_group("format");
  fmt->add_flag_callback(
      "--csv", [o] { o->format = "csv"; }, "Write CSV instead of a table");
  fmt->add_flag_callback(
      "--json", [o] { o->format = "json"; }, "Write JSON instead of a table");
  return c;
}

CLI::App* AddReport(CLI::App& app, hb::ReportCommandOptions* o) {
  CLI::App* r = app.add_subcommand("report",
                                   "Write a self-contained HTML report of stored runs: summary, failures, "
                                   "references, history with change points, ML time breakdown, scaling");
  r->footer(
      "Examples:\n"
      "  hetbench report -o report.html                         the whole store\n"
      "  hetbench report --session 20261130T0200 -o night.html  one session (with its history)\n"
      "  hetbench report --since 30d -t nightly -o month.html\n"
      "The file needs no network to view: the chart library is inside it.");
  AddStoreFilters(r, &o->filters);
  r->add_option("-o,--output", o->output, "The HTML file to write (default report.html)")->type_name("FILE");
  r->add_option("--title", o->title, "Title of the report")->type_name("TEXT");
  r->add_option("--cv-limit", o->cv_limit,
                "Highlight run-to-run variability above PCT percent (coefficient of variation; default 5)")
      ->type_name("PCT");
  r->add_option("--max-points", o->max_points, "Latest values drawn per history chart (default 500)")->type_name("N");
  return r;
}

CLI::App* AddDetect(CLI::App& app, hb::DetectCommandOptions* o) {
  CLI::App* d = app.add_subcommand("detect",
                                   "Print the processor and devices of this host, or of a partition's "
                                   "compute nodes, as YAML for a partition");
  d->footer(
      "Examples:\n"
      "  hetbench detect                                   this host\n"
      "  hetbench detect -C site.yaml --partition hpc:gpu  a compute node of hpc:gpu, through a job\n"
      "  hetbench detect -C site.yaml --system hpc --refresh   every partition of hpc, detected anew\n"
      "A partition's result is cached (general/topology_prefix, else $XDG_CACHE_HOME/hetbench/topology)\n"
      "and fills in `processor` and `devices` where the configuration leaves them out.\n"
      "The job runs this hetbench binary on the node: it must be there at the same path (a shared\n"
      "file system), or give --hetbench / general/remote_hetbench. See docs/detect.md.");
  d->add_option("-C,--config-file", o->config_files, "Site configuration file (repeatable; as in `hetbench run`)")
      ->type_name("FILE");
  d->add_option("--partition,--system", o->partition,
                "Detect on partition PART of system SYS (all its partitions without PART) through a job")
      ->type_name("SYS[:PART]");
  d->add_flag("--json", o->json, "Print the topology document (JSON, as cached) instead of YAML");
  d->add_option("-o,--output", o->output, "Write to FILE instead of standard output")->type_name("FILE");
  d->add_flag("--refresh", o->refresh, "Detect again even when the partition's topology is cached");
  d->add_option_function<std::string>(
       "--time-limit",
       [o](const std::string& v) {
         auto s = hb::ParseDuration(v);
         if (!s || *s <= 0) throw CLI::ValidationError("--time-limit", "expected a duration such as 5m, got " + v);
         o->time_limit_s = *s;
       },
       "Cancel a detection job not done after DURATION, queueing included (default 5m)")
      ->type_name("DURATION");
  d->add_option("--hetbench", o->exe, "The hetbench binary as the compute nodes see it (default: this one)")
      ->type_name("PATH");
  d->add_option("-J,--job-option", o->job_options, "Pass OPT to the scheduler (repeatable, as in `hetbench run`)")
      ->type_name("OPT")
      ->allow_extra_args(false);
  return d;
}

}  // namespace

namespace {
int Main(int argc, char** argv);
}  // namespace

// A reader that goes away (`hetbench run ... | head -1`) must not kill the
// run: with SIGPIPE ignored, writes to the closed pipe fail quietly while
// the jobs finish (or are cancelled), and the report and store are written.
// Jobs get the default disposition back (sched/process_posix.cc). Anything
// thrown that no layer caught ends in one message, not an abort.
int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetbench: internal error: %s (please report it, with the command line)\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "hetbench: internal error: unknown exception (please report it, with the command line)\n");
  }
  return 70;  // EX_SOFTWARE
}

namespace {
int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // Keep the subcommand first so mode options land after it.
  if (!args.empty() && !ExpandMode(&args)) return 2;

  CLI::App app{kDescription, "hetbench"};
  app.footer(kFooter);
  app.set_version_flag("-V,--version", std::string("hetbench ") + HETBENCH_VERSION);
  app.require_subcommand(1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  std::string mode;

  hb::SessionOptions list_opts;
  bool details = false, describe = false;
  CLI::App* list = app.add_subcommand("list", "List the test cases that the selection gives on this system");
  AddSelection(list, &list_opts);
  AddConfig(list, &list_opts, &mode);
  list->add_flag("-L,--details", details, "Show each case's details");
  list->add_flag("--describe", describe,
                 "Print a JSON array with one object per case: its test-file keys as bound, and name, "
                 "display_name, hashcode, system, partition, environ");

  hb::RunCommandOptions run_opts;
  std::string policy = "async";
  CLI::App* run = app.add_subcommand("run", "Run the selected test cases and check their results");
  AddSelection(run, &run_opts.session);
  AddConfig(run, &run_opts.session, &mode);
  run->add_option("--exec-policy", policy,
                  "async: run cases concurrently up to each partition's max_jobs; "
                  "serial: one at a time")
      ->check(CLI::IsMember({"async", "serial"}));
  run->add_option("--max-retries", run_opts.exec.max_retries, "Retry a failing case up to N times")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--maxfail", run_opts.exec.maxfail, "Stop after N failures (cancel the rest)")
      ->check(CLI::PositiveNumber);
  run->add_option("--repeat", run_opts.exec.repeat, "Run every case N times; every repetition is kept")
      ->check(CLI::PositiveNumber);
  run->add_option("--max-local-jobs", run_opts.exec.max_local_jobs,
                  "At most N local processes (builds and local runs) at once (default: CPUs)")
      ->check(CLI::PositiveNumber);
  run->add_flag("--dry-run", run_opts.exec.dry_run, "Write the job scripts without running anything");
  run->add_flag("--keep-stage-files", run_opts.exec.keep_stage_files, "Keep stage folders of passing cases");
  run->add_flag("--skip-sanity-check", run_opts.exec.skip_sanity,
                "Do not run the sanity checks (a case's exit "
                "code still counts)");
  run->add_flag("--skip-performance-check", run_opts.exec.skip_performance,
                "Skip the performance stage: no values extracted, none compared with references or logged");
  run->add_option("-J,--job-option", run_opts.exec.job_options,
                  "Pass OPT to the scheduler (repeatable): '-x ...' and '#...' as written, "
                  "key=value as --key=value, k=value as -k value")
      ->type_name("OPT")
      ->allow_extra_args(false);
  run->add_option("--report-file", run_opts.report_file,
                  "Write the JSON run report here (default: PREFIX/reports/run-SESSION.json)")
      ->type_name("FILE");
  run->add_option("--report-junit", run_opts.junit_file, "Also write a JUnit XML report")->type_name("FILE");
  run->add_option("--perflog-dir", run_opts.perflog_dir,
                  "Folder for the perflogs of every filelog handler (default: each handler's basedir, "
                  "under PREFIX when relative; without handlers PREFIX/perflogs)")
      ->type_name("DIR");
  run->add_option("--restore-session", run_opts.restore_report, "Re-run the cases of an earlier run report")
      ->type_name("REPORT");
  run->add_option("--ci-generate", run_opts.ci_generate,
                  "Write a GitLab CI child pipeline running the selected cases (one job per case, "
                  "dependencies as needs:) to FILE, and run nothing")
      ->type_name("FILE");
  run->add_flag("--failed", run_opts.failed_only, "With --restore-session: only the cases that failed");
  run->add_flag("--distribute{idle}", run_opts.distribute,
                "Run every case once on each node of its partition that is in STATE (default idle; "
                "also avail, all, or a scheduler state such as mixed), pinned to the node; the node "
                "becomes the parameter $nid")
      ->type_name("STATE")
      ->expected(0, 1);
  run->add_option("--kubeconfig", run_opts.kubeconfig,
                  "Kubernetes partitions: the kubeconfig file (default: the partition's `kubeconfig`, "
                  "then $KUBECONFIG, then ~/.kube/config, then the in-cluster service account)")
      ->type_name("FILE");
  run->add_flag("--keep-failed-jobs", run_opts.keep_failed_jobs,
                "Kubernetes partitions: keep the Jobs of failed cases for inspection instead of deleting them");
  run->add_option("--store", run_opts.store, kStoreHelp)->type_name("PATH");
  run->add_flag("--no-store", run_opts.no_store, "Do not add this run to the results store");
  run->add_option("--color", run_opts.color,
                  "Colour the output: auto (on a terminal, unless NO_COLOR is set), always or never")
      ->type_name("WHEN");
  run->add_flag("--performance-report", run_opts.performance_report,
                "Show each value in the performance table beside its value in the latest earlier session of "
                "the results store, and the change in percent");

  hb::ResultsCommandOptions results_opts;
  CLI::App* results = AddResults(app, &results_opts);

  hb::CompareCommandOptions compare_opts;
  CLI::App* compare = AddCompare(app, &compare_opts);
  hb::ReportCommandOptions report_opts;
  CLI::App* report = AddReport(app, &report_opts);

  hb::SessionOptions show_opts;
  std::string show_path;
  CLI::App* show = app.add_subcommand("show-config", "Print the site configuration in force (or one part of it)");
  AddConfig(show, &show_opts, &mode);
  show->add_option("path", show_path, "Part to print, e.g. systems/0/partitions")->type_name("PATH");

  hb::DetectCommandOptions detect_opts;
  CLI::App* detect = AddDetect(app, &detect_opts);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // --help and --version print as CLI11 does; errors get hetbench's
    // prefix, like every other error.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "hetbench: error: %s\nRun with --help for more information.\n", e.what());
    return 2;
  }
  if (*list)
    return hb::ListCommand(list_opts, describe  ? hb::ListFormat::kDescribe
                                      : details ? hb::ListFormat::kDetails
                                                : hb::ListFormat::kNames);
  if (*run) {
    if (run_opts.failed_only && run_opts.restore_report.empty()) {
      std::fprintf(stderr, "hetbench: error: --failed needs --restore-session REPORT\n");
      return 2;
    }
    run_opts.exec.serial = policy == "serial";
    for (auto& o : run_opts.exec.job_options) o = hb::NormalizeJobOption(o);
    run_opts.argv.assign(argv, argv + argc);
    run_opts.session.log_file = true;  // <prefix>/hetbench.log
    run_opts.mode = mode;
    return hb::RunCommand(run_opts);
  }
  if (*show) return hb::ShowConfigCommand(show_opts, show_path);
  if (*detect) {
    for (auto& o : detect_opts.job_options) o = hb::NormalizeJobOption(o);
    return hb::DetectCommand(detect_opts);
  }
  if (*compare) return hb::CompareCommand(compare_opts);
  if (*report) return hb::ReportCommand(report_opts);
  if (*results) {
    for (CLI::App* sub : results->get_subcommands()) results_opts.action = sub->get_name();
    return hb::ResultsCommand(results_opts);
  }
  return 2;
}
}  // namespace
