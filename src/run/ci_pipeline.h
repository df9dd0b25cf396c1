// --ci-generate: a GitLab CI child pipeline for the selected cases, in the
// manner of ReFrame's --ci-generate (reframe/frontend/ci.py).
//
// One job per case. Each job runs `hetbench run` on that case alone
// (--system SYS:PART, -p '^ENV$', -n '^DISPLAY NAME$'), with the options of
// the original run that shape a run (-C, --mode, -S, -R, --max-retries,
// --repeat, -J); it writes <job>-report.json and <job>-report.xml (JUnit,
// shown by GitLab as the job's test report) as artifacts. A case that
// depends on others is in a later stage (hb-stage-<level>: level 0 for no
// dependencies, else one more than its deepest dependency) and names them
// in `needs:`. Job names are the case ids made safe for GitLab (at most
// 255 characters, not starting with '.', unique). Note that hetbench's
// selection pulls in a case's dependencies, so a job re-runs them; `needs:`
// keeps the pipeline's order and failure semantics.
//
// A case whose dependency has no case on its partition and environment is
// an error (the pipeline could not be consistent); a dependency cycle never
// reaches here (the loader refuses it). Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

struct CiOptions {
  std::string program = "hetbench";     // the command the jobs run
  std::vector<std::string> run_args;    // carried options, as words
  std::vector<std::string> test_paths;  // -c
};

// The job name for a case id.
std::string CiJobName(const std::string& case_id);

// The pipeline as YAML text.
Result<std::string> GitlabPipeline(const std::vector<TestCase>& cases, const CiOptions& opts);

}  // namespace hb
