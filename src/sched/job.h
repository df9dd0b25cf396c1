// Job and JobState: what a scheduler runs for one test case, and the state
// common to every backend. The executor only ever sees these and the
// Scheduler interface (scheduler.h); how a backend talks to its scheduler
// stays in that backend's file.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hb {

// State common to all backends. A Slurm job pending in the queue and a
// Kubernetes Job suspended by Kueue are both kQueued; pods being scheduled
// or pulling images are kStarting.
struct JobState {
  enum class Kind { kNone, kQueued, kStarting, kRunning, kCompleted, kFailed, kTimeout, kCancelled, kLost };
  Kind kind = Kind::kNone;
  std::string reason;  // pending reason, failure reason, signal...
  int exit_code = -1;  // for kCompleted (0 or not), and kFailed where known

  bool terminal() const {
    return kind == Kind::kCompleted || kind == Kind::kFailed || kind == Kind::kTimeout || kind == Kind::kCancelled ||
           kind == Kind::kLost;
  }
  // "queued", "running", "completed", ...
  static const char* Name(Kind k);
  // "completed(exit 3)", "queued(Priority)", "timeout"...
  std::string str() const;
};

struct Job {
  // What to run (filled before Submit).
  std::string name;         // job name shown by the scheduler
  std::string workdir;      // the script runs here (the stage directory)
  std::string script_path;  // the generated job script (bash)
  std::string stdout_path;
  std::string stderr_path;
  double time_limit_s = 0;        // 0 = no limit
  double max_pending_time_s = 0;  // batch backends cancel a job queued longer; 0 = no limit
  int num_tasks = 1;
  int num_tasks_per_node = 0;  // 0 = unset
  int num_cpus_per_task = 0;
  int num_tasks_per_core = 0;    // 0 = unset
  int num_tasks_per_socket = 0;  // 0 = unset
  int use_smt = -1;              // ReFrame's use_multithreading: -1 unset, 0 no, 1 yes
  int num_gpus_per_node = 0;
  std::map<std::string, int> num_devices_per_node;  // generic devices, e.g. {ipu: 4}
  bool exclusive = false;
  std::string pin_nodes;  // run on these nodes (--distribute); "" = anywhere
  // The partition's `access` options (ReFrame's job.sched_access): in the
  // job script before `options`, or on the submission command line with
  // sched_options `sched_access_in_submit: true`. The remote-shell
  // launchers (pdsh, clush, ssh) take their hosts from them.
  std::vector<std::string> access;
  std::vector<std::string> options;  // scheduler options: resources, the test's job_options, -J options
  // Extra environment for the job process (e.g. HETBENCH_JOB_MARK, used to
  // find processes that escaped the job's process group).
  std::vector<std::pair<std::string, std::string>> env;

  // For backends that run the job somewhere hetbench's files are not
  // (Kubernetes). Batch and local backends ignore these.
  std::string image;              // container image (the test's, else its environment's)
  std::string build_script_path;  // runs before script_path in the same job; "" = none
  // Files (relative to workdir; globs allowed) that checks or keep_files
  // read after the job: a remote backend brings them back into workdir.
  std::vector<std::string> fetch_files;
  // Who the job belongs to, for labels: session id, test case id and name.
  std::string session_id, case_id;
  // The test's `k8s` block as written (node_selector, tolerations,
  // manifest...): overrides the partition's sched_options.
  nlohmann::json backend_spec = nlohmann::json::object();
  // The partition's sched_options, for a backend whose one instance serves
  // several partitions (SchedulerBackend::instance_key); null = the
  // instance's own.
  nlohmann::json sched_options;

  // Filled by the scheduler.
  std::string id;
  JobState state;
  std::vector<std::string> nodelist;
  double submit_time = 0;  // seconds since the epoch
  double start_time = 0;
  double end_time = 0;
};

// Normalises a `-J/--job-option` value as ReFrame does: an option that
// starts with '-' (a scheduler option) or '#' (a line for the job script)
// is kept as written; `key=value` becomes `--key=value`, or `-k value` when
// the key is a single character.
std::string NormalizeJobOption(const std::string& opt);

}  // namespace hb
