// Case to job: what a TestCase's build and run jobs are, made from the
// case (bound for its run, model/bind.h), its partition and environment,
// and the command line's -J options. Pure: nothing is written or
// submitted here. The executor (run/executor.h) writes each JobPlan's
// script and submits its job; the checks read the files FilesChecksRead
// names.
//
// The order of things follows ReFrame's pipeline:
//  - a job's options: the partition's access options (Job::access), the
//    partition's `resources` the test asks for, the test's job_options,
//    then -J;
//  - a script's environment: system, partition, environment, a container
//    platform's, then the test's modules and variables (module_system.h);
//  - a build: prebuild_cmds, the build system's commands, postbuild_cmds.
#pragma once

#include <string>
#include <vector>

#include "config/site_config.h"
#include "model/expand.h"
#include "run/module_system.h"
#include "run/session.h"
#include "sched/job.h"
#include "sched/scheduler.h"
#include "util/status.h"

namespace hb {

// File names inside a stage folder (ReFrame's are rfm_job.sh etc.).
inline constexpr char kJobScript[] = "hb_job.sh";
inline constexpr char kJobOut[] = "hb_job.out";
inline constexpr char kJobErr[] = "hb_job.err";
inline constexpr char kBuildScript[] = "hb_build.sh";
inline constexpr char kBuildOut[] = "hb_build.out";
inline constexpr char kBuildErr[] = "hb_build.err";
// What a dry run on Kubernetes would create (k8s/k8s_scheduler.h).
inline constexpr char kDryRunObjects[] = "hb_k8s.yaml";

// What a case's jobs are made from. All pointers are set and outlive it,
// except `env`, null when the environment is not defined on the system.
struct CaseJobInput {
  const Session* session = nullptr;
  const TestCase* tc = nullptr;
  const TestSpec* spec = nullptr;  // the case bound for its run
  const Partition* part = nullptr;
  const Environment* env = nullptr;
  std::string stagedir;
  std::vector<std::string> cli_job_options;  // -J
};

// A job and its script, ready to be written (to job.script_path) and
// submitted.
struct JobPlan {
  Job job;
  std::string script;
  std::string launcher;  // a run job's launcher name
};

// The partition of `local: true` cases and of local builds: the local
// scheduler, no access options.
const Partition& LocalPartition();

// The partition a case's run job goes to: its own, or LocalPartition()
// for `local: true`.
const Partition& RunPartition(const CaseJobInput& in);

// Where a case's build runs:
//  - kHere: on this host, with the local scheduler (build_locally: true,
//    ReFrame's default);
//  - kPartition: as a job of the partition's own scheduler, with its
//    access and -J options (build_locally: false);
//  - kInJob: first thing inside the run job, because the job runs where
//    hetbench's files are not (Kubernetes: the same container).
enum class BuildPlace { kHere, kPartition, kInJob };
BuildPlace WhereBuildRuns(const CaseJobInput& in);
// The partition and backend block of the scheduler a build job goes to.
const Partition& BuildPartition(const CaseJobInput& in);

// The build job and its script (prebuild_cmds, the build system's
// commands, postbuild_cmds, after the same set-up as the run script).
// `sched` is the build's scheduler; its directives head the script when
// the build runs on the partition.
Result<JobPlan> MakeBuildJob(const CaseJobInput& in, const Scheduler& sched);

// The run job and its script. `sched` is RunPartition's scheduler;
// `build_output` the build's stdout (build systems read their set-up from
// it, e.g. Spack's environment); `build_in_job` the build script to run
// first inside the job (BuildPlace::kInJob), else "".
Result<JobPlan> MakeRunJob(const CaseJobInput& in, const Scheduler& sched, const std::string& build_output,
                           const std::string& build_in_job);

// The module and env_vars lines of system, partition, environment,
// `extra` (a container platform's) and test, in that order.
Result<std::vector<std::string>> EnvironLines(const CaseJobInput& in, const EnvLevel* extra = nullptr);

// The partition's `resources` templates that the test asks for, filled
// in: a resource named in extra_resources gets its values
// ("--gres=cs:{num_csx}" with {num_csx: 1}); `gpu` (or ReFrame's
// `_rfm_gpu`) gets num_gpus_per_node when the test sets it. Resources the
// partition does not define are ignored, as ReFrame does, so that one test
// serves many sites; a template value the test does not give is an error.
Result<std::vector<std::string>> ResourceOptions(const TestSpec& spec, const Partition& part);

// The files (relative to the stage folder; globs allowed) that the checks
// and keep_files read after the job, besides stdout and stderr, sorted.
std::vector<std::string> FilesChecksRead(const TestSpec& spec);

// The variables every job gets first: HETBENCH_BIN_DIR, the folder of the
// running hetbench where its benchmark programs are, first in PATH (the
// configuration's variables may override both). Values as shell text.
std::vector<std::pair<std::string, std::string>> HetbenchEnv();

}  // namespace hb
