// The `hetbench` subcommands. main.cc parses the command line into these
// option structs and calls one function; each returns the process exit
// status: 0 all passed, 1 a test failed, 2 bad usage or configuration,
// 130 interrupted.
#pragma once

#include <string>
#include <vector>

#include "run/executor.h"
#include "run/session.h"

namespace hb {

struct RunCommandOptions {
  SessionOptions session;
  ExecOptions exec;
  std::string report_file;   // --report-file ("" = <prefix>/reports/run-<session>.json)
  std::string junit_file;    // --report-junit
  std::string perflog_dir;   // --perflog-dir ("" = config's or <prefix>/perflogs)
  std::string restore_report;  // --restore-session
  bool failed_only = false;    // --failed
  std::string distribute;      // --distribute[=STATE]: node state ("" = off)
  std::string kubeconfig;      // --kubeconfig (Kubernetes partitions)
  bool keep_failed_jobs = false;  // --keep-failed-jobs (Kubernetes partitions)
  std::vector<std::string> argv;
};

int ListCommand(const SessionOptions& opts, bool details);
int RunCommand(RunCommandOptions opts);
int ShowConfigCommand(const SessionOptions& opts, const std::string& path);
int DetectCommand();

}  // namespace hb
