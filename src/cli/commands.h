// The `hetbench` subcommands. main.cc parses the command line into these
// option structs and calls one function; each returns the process exit
// status: 0 all passed, 1 a test failed, 2 bad usage or configuration,
// 130 interrupted.
#pragma once

#include <string>
#include <vector>

#include <memory>

#include "results/store.h"
#include "run/executor.h"
#include "run/session.h"
#include "util/text_table.h"

namespace hb {

struct RunCommandOptions {
  SessionOptions session;
  ExecOptions exec;
  std::string report_file;          // --report-file ("" = <prefix>/reports/run-<session>.json)
  std::string junit_file;           // --report-junit
  std::string perflog_dir;          // --perflog-dir ("" = config's or <prefix>/perflogs)
  std::string restore_report;       // --restore-session
  bool failed_only = false;         // --failed
  std::string distribute;           // --distribute[=STATE]: node state ("" = off)
  std::string kubeconfig;           // --kubeconfig (Kubernetes partitions)
  bool keep_failed_jobs = false;    // --keep-failed-jobs (Kubernetes partitions)
  std::string store;                // --store ("" = HETBENCH_STORE, configuration, default)
  bool no_store = false;            // --no-store
  std::string color = "auto";       // --color: auto | always | never (and NO_COLOR)
  bool performance_report = false;  // --performance-report: previous stored values in the table
  std::string ci_generate;          // --ci-generate FILE: write a GitLab child pipeline, run nothing
  std::string mode;                 // --mode (carried into --ci-generate jobs)
  std::vector<std::string> argv;
};

// `hetbench results ACTION`: sessions, cases, show, delete, export, import.
struct ResultsCommandOptions {
  std::string action;
  std::string store;                      // --store
  std::vector<std::string> config_files;  // -C: for the configuration's `storage` entry
  std::vector<std::string> names, tags;   // -n, -t (regexes)
  std::string system;                     // --system sys[:part]
  std::string since, until;               // --since, --until (dates or ages)
  std::string session;                    // --session
  std::string format;                     // export: csv | json
  std::string output;                     // export: -o FILE ("" = stdout)
  std::vector<std::string> args;          // show/delete: sessions; import: paths
  double fail_on_regression = -1;         // changes: percent; < 0 = off
  int recent = 5;                         // changes: the recent-shift window
};

// `hetbench compare BASE TARGET`: the stored values of two selections.
struct CompareCommandOptions {
  ResultsCommandOptions filters;  // store, -C, -n, -t, --system, --since, --until
  std::string base, target;       // selections (analysis/compare.h)
  std::string aggregate = "median";
  double alpha = 0.05;
  int min_samples = 5;
  double fail_on_regression = -1;  // percent; < 0 = off
  bool fail_on_untested = false;   // exit 1 when a series could not be tested
  bool changes_only = false;       // list only better and worse rows
  std::vector<std::string> lower_is_better, higher_is_better;
  std::string format = "text";  // text | csv | json
};
// `hetbench report -o FILE`: the HTML report of a session, a time range or
// the whole store.
struct ReportCommandOptions {
  ResultsCommandOptions filters;
  std::string output = "report.html";
  std::string title;
  int max_points = 500;  // per history chart (the latest ones)
  double cv_limit = 5;   // percent: run-to-run CV above it is highlighted
};

// `hetbench detect`: this host's topology, or (with a partition) its
// compute nodes' through a detection job, cached per partition.
struct DetectCommandOptions {
  std::vector<std::string> config_files;  // -C
  std::string partition;                  // --partition / --system SYS[:PART]; "" = this host
  bool json = false;                      // --json: the topology document instead of YAML
  std::string output;                     // -o FILE ("" = stdout)
  bool refresh = false;                   // --refresh: detect even when cached
  double time_limit_s = 0;                // --time-limit (0 = configuration's, else 5m)
  std::string exe;                        // --hetbench PATH: hetbench as the nodes see it
  std::vector<std::string> job_options;   // -J
};

enum class ListFormat { kNames, kDetails, kDescribe };  // list, list -L, list --describe
int ListCommand(const SessionOptions& opts, ListFormat format);
int RunCommand(RunCommandOptions opts);
int ShowConfigCommand(const SessionOptions& opts, const std::string& path);
int DetectCommand(const DetectCommandOptions& opts);
int ResultsCommand(const ResultsCommandOptions& opts);
// `hetbench results changes`: the change points and recent shifts of the
// selected series (analysis/changes.h), as a table or --json.
int ResultsChanges(Store& store, const StoreQuery& q, const ResultsCommandOptions& o);
int CompareCommand(const CompareCommandOptions& opts);
int ReportCommand(const ReportCommandOptions& opts);

// Shared by the commands that read the results store (results_cmd.cc).
Result<StoreQuery> MakeStoreQuery(const ResultsCommandOptions& o);
Result<std::unique_ptr<Store>> OpenResultsStore(const ResultsCommandOptions& o, bool create);
std::string LocalTime(double t);  // "2024-05-01 12:30:00", "-" when unknown

}  // namespace hb
