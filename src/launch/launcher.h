// Launchers: the words in front of a test's executable in a job script
// that start it as a parallel program (`mpirun -np 4 ./stream`), as
// ReFrame's JobLauncher does (reframe/core/launchers/__init__.py): the run
// line is Command(job) + options + the command, joined by spaces, verbatim
// (options are shell words the user wrote, like ReFrame's).
//
// A partition names its launcher; MakeLauncher builds it: local, mpirun,
// mpiexec, srun, torchrun, and k8s (ReFrame's Kubernetes fork's: the
// container runs the command itself; Kubernetes partitions only).
// Launchers are small immutable values once made; Command() is const and
// thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sched/job.h"
#include "sched/scheduler_factory.h"
#include "util/status.h"

namespace hb {

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual std::string name() const = 0;

  // The launcher's own words for job, e.g. {"mpirun", "-np", "4"}; none
  // for `local`.
  virtual std::vector<std::string> Command(const Job& job) const = 0;
  // True when the job's own container must run the command (the `k8s`
  // launcher): valid only where SchedulerTraits::runs_in_container.
  virtual bool needs_own_container() const { return false; }

  // Extra options, appended after the launcher's own words.
  std::vector<std::string> options;
  // What the partition's scheduler says of itself: how a launcher that runs
  // once per node (torchrun) starts on every node of the job.
  SchedulerTraits traits;

  // Command(job) and options, joined by spaces ("" for local without options).
  std::string Prefix(const Job& job) const;
  // The line for the job script: Prefix(job) + " " + command, or command
  // alone when the prefix is empty.
  std::string RunLine(const Job& job, const std::string& command) const;
};

// Launchers hetbench knows: local, mpirun, mpiexec, srun, torchrun, k8s. An
// unknown name is an error that lists them, with a did-you-mean; `k8s` on a
// backend whose jobs do not run in their own container is an error too.
// `backend` is the partition's scheduler (scheduler_factory.h); null = the
// local one.
Result<std::unique_ptr<Launcher>> MakeLauncher(const std::string& name,
                                               std::vector<std::string> options = {},
                                               const SchedulerBackend* backend = nullptr);

// The names MakeLauncher accepts, in a stable order.
const std::vector<std::string>& LauncherNames();

}  // namespace hb
