// Remote topology detection (`hetbench detect --partition SYS:PART`, and
// `general: remote_detect: true` in `hetbench run`), as ReFrame's
// autodetect does it: one small job per partition, submitted through the
// partition's own scheduler with its access options (and -J options), runs
// hetbench itself on a compute node through the partition's launcher,
//   srun /shared/bin/hetbench detect --json -o <workdir>/topology.json
// and the caller reads the Topology (config/topology.h) back from the
// shared file system.
//
// Assumptions, as ReFrame's: the job's folder (under `remote_workdir`,
// default the current folder) and the hetbench binary are visible on the
// node at the same paths; a site where they are not sets `remote_hetbench`
// (a path on the node) and `remote_workdir` (a shared folder) in `general`.
//
// Nothing hangs: the wait for each job, queueing included, is bounded by
// its time limit (default 5 minutes), after which the job is cancelled.
// A job's folder is removed when it succeeded and kept for inspection when
// it failed. Used from one thread; it owns its schedulers and waits on an
// hb::EventWaiter, so it must not run while an Executor runs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/site_config.h"
#include "config/topology.h"
#include "run/script.h"
#include "run/session.h"
#include "sched/job.h"
#include "util/status.h"

namespace hb {

struct DetectJobOptions {
  std::string exe;                       // hetbench on the node; "" = general/remote_hetbench, else this binary
  std::string workdir;                   // job folders go here; "" = general/remote_workdir, else "."
  double time_limit_s = 0;               // 0 = general/remote_detect_time_limit, else 300
  std::vector<std::string> job_options;  // -J, after the partition's access options
  double kill_grace_s = 2;               // local jobs: SIGTERM -> SIGKILL
};

// `cli` with what it leaves unset taken from a partition's `general` options.
Result<DetectJobOptions> ResolveDetectOptions(const DetectJobOptions& cli, const nlohmann::json& general);

// The job script's parts for detecting `part` of `sys`, writing the result
// to `output` (pure; the scheduler's directives are added by the caller).
ScriptParts DetectScriptParts(const System& sys, const Partition& part, const std::string& launcher_prefix,
                              const std::string& exe, const std::string& workdir, const std::string& output);

struct DetectTarget {
  const System* system = nullptr;
  const Partition* partition = nullptr;
};

struct DetectOutcome {
  std::vector<Result<Topology>> results;  // one per target, in order
  int interrupt_signal = 0;               // SIGINT/SIGTERM received: jobs were cancelled
};

// Runs the detection jobs of all targets at once and waits for them.
// `note` hears progress lines ("submitted job 42 ..."). Errors name the
// partition, the job id, its final state and the end of its stderr.
DetectOutcome DetectPartitions(const SiteConfig& config, const std::vector<DetectTarget>& targets,
                               const DetectJobOptions& cli, const std::function<void(const std::string&)>& note);

// `general: remote_detect: true` (ReFrame's key; off by default): before
// `hetbench run` starts, detects the partitions that have cases but
// neither a configured `processor` nor a cached topology, caches the
// results and fills them into session->config. As in ReFrame, a failed
// detection is a warning (through `note`) and the run goes on. Returns the
// signal that interrupted the detection, or 0.
int DetectMissingTopologies(Session* session, const std::vector<std::string>& job_options,
                            const std::function<void(const std::string&)>& note);

}  // namespace hb
