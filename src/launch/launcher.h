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
#include "util/status.h"

namespace hb {

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual std::string name() const = 0;

  // The launcher's own words for job, e.g. {"mpirun", "-np", "4"}; none
  // for `local`.
  virtual std::vector<std::string> Command(const Job& job) const = 0;

  // Extra options, appended after the launcher's own words.
  std::vector<std::string> options;
  // The partition's scheduler (local, slurm, pbs, k8s...): how a launcher
  // that runs once per node (torchrun) starts on every node of the job.
  std::string scheduler = "local";

  // Command(job) and options, joined by spaces ("" for local without options).
  std::string Prefix(const Job& job) const;
  // The line for the job script: Prefix(job) + " " + command, or command
  // alone when the prefix is empty.
  std::string RunLine(const Job& job, const std::string& command) const;
};

// Launchers hetbench knows: local, mpirun, mpiexec, srun, torchrun. An
// unknown name is an error that lists them, with a did-you-mean.
Result<std::unique_ptr<Launcher>> MakeLauncher(const std::string& name,
                                               std::vector<std::string> options = {},
                                               const std::string& scheduler = "local");

// The names MakeLauncher accepts, in a stable order.
const std::vector<std::string>& LauncherNames();

}  // namespace hb
