// CaseResult: everything known about one run of one test case once it has
// finished (or been skipped or interrupted), and SessionInfo: the run as a
// whole. The executor fills them; reporters (console, run report, JUnit,
// perflog, and later the results store) only read them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "check/check_spec.h"
#include "check/reference.h"  // PerfResult

namespace hb {

struct StageTiming {
  std::string stage;  // setup, build, run, sanity, performance, cleanup
  double seconds = 0;
};

struct CaseResult {
  std::string id;            // stable: name + parameters + system:partition + environ
  std::string name;          // test name as written in the file
  std::string display_name;  // "stream %threads=2"
  std::string descr;
  std::string file;  // the test file
  std::vector<std::pair<std::string, std::string>> parameters;
  // Variables the test marks loggable (perflog attributes check_NAME).
  std::vector<std::pair<std::string, std::string>> variables;
  std::vector<std::string> tags, maintainers;
  std::vector<std::string> scaling_axes;  // the test's scaling_axes
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

  // Added for the ReFrame perflog (perflog.h), which logs these as
  // check_unique_name, check_env_vars, ... ReFrame's values when unset are
  // null, and so are ours: 0 for a count or a time means "not set".
  std::string unique_name;  // ReFrame's unique_name (name_<variant>); "" = name, or
                            // ReFrame's short_name for a parameterised case
  std::vector<std::pair<std::string, std::string>> env_vars;
  std::vector<std::string> modules;
  std::map<std::string, std::map<std::string, std::string>> extra_resources;
  bool exclusive_access = false;
  int num_tasks = 1;
  int num_tasks_per_node = 0, num_cpus_per_task = 0, num_gpus_per_node = 0;
  double job_submit_time = 0;      // seconds since the epoch (Job::submit_time)
  double job_completion_time = 0;  // Job::end_time; 0 = unknown, end_time is used
  double job_noticed_time = 0;     // when hetbench learned that the job had ended
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
