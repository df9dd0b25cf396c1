// CaseResult: everything known about one run of one test case once it has
// finished (or been skipped or interrupted), and SessionInfo: the run as a
// whole. The executor fills them; reporters (console, run report, JUnit,
// perflog, and later the results store) only read them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/check_spec.h"

namespace hb {

struct PerfResult {
  std::string name;
  double value = 0;
  std::string unit;
  std::optional<Reference> reference;  // none when no reference applies
  std::string verdict = "none";        // pass | fail | none (no reference)
  std::string message;                 // why it failed, for a failing value
};

struct StageTiming {
  std::string stage;  // setup, build, run, sanity, performance, cleanup
  double seconds = 0;
};

struct CaseResult {
  std::string id;            // stable: name + parameters + system:partition + environ
  std::string name;          // test name as written in the file
  std::string display_name;  // "stream %threads=2"
  std::string descr;
  std::string file;          // the test file
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<std::string> tags, maintainers;
  std::string system, partition, environ;

  std::string result = "pass";  // pass | fail | skip | cancelled
  std::string fail_stage;       // set when result is fail or skip
  std::string fail_reason;
  int repetition = 0;  // 0-based, from --repeat
  int attempt = 0;     // 0 = first try; >0 = retries (--max-retries)

  double start_time = 0, end_time = 0;  // seconds since the epoch
  std::vector<StageTiming> timings;
  std::string job_id, job_state;
  int exit_code = -1;
  std::vector<std::string> nodelist;
  std::string stagedir, outputdir;
  std::vector<PerfResult> perf;
};

struct SessionInfo {
  std::string session_id;
  std::string version;
  std::string hostname, user;
  std::vector<std::string> argv;
  std::string system;  // the system name
  std::string prefix;
  std::vector<std::string> config_files;
  double start_time = 0, end_time = 0;
  int exit_code = 0;
};

}  // namespace hb
