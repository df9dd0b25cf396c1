// Launchers: the words in front of a test's executable in a job script
// that start it as a parallel program (`mpirun -np 4 ./stream`), as
// ReFrame's JobLauncher does (reframe/core/launchers/__init__.py): the run
// line is Command(job) + options + the command, joined by spaces, verbatim
// (options are shell words the user wrote, like ReFrame's).
//
// A partition names its launcher; MakeLauncher builds it. ReFrame's:
// local, mpirun, mpiexec, mpirun-openmpi, mpirun-intelmpi, srun, srunalloc,
// alps (aprun), ibrun, lrun, lrun-gpu, upcrun, upcxx-run, and the remote
// shells clush, pdsh and ssh (their hosts are the partition's access
// words); hetbench's own: torchrun, jsrun (IBM's; ReFrame has none), and
// k8s (ReFrame's Kubernetes fork's: the container runs the command itself;
// Kubernetes partitions only). docs/backends.md lists each one's line.
// Launchers are small immutable values once made; Command() is const and
// thread-safe.
#pragma once

#include <memory>
#include <string>
#include <utility>
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
  // Variables the job script exports before the run line (Open MPI's
  // permission to run as root for the MPI launchers).
  virtual std::vector<std::pair<std::string, std::string>> Env() const { return {}; }
  // False when Command() places the options itself (ssh: before the host).
  virtual bool appends_options() const { return true; }

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

// Launchers hetbench knows (LauncherNames()). An unknown name is an error that lists them, with a did-you-mean; `k8s`
// on a backend whose jobs do not run in their own container is an error too. `backend` is the partition's scheduler
// (scheduler_factory.h); null = the local one.
Result<std::unique_ptr<Launcher>> MakeLauncher(const std::string& name, std::vector<std::string> options = {},
                                               const SchedulerBackend* backend = nullptr);

// pdsh and clush exit 0 even when the command fails on some hosts (unless
// given -S); both say so on stderr ("pdsh@login: n2: prog exited with exit
// code 1", "clush: n2: exited with exit code 1"). For those launchers, the
// first such line of `stderr_text`, as "host n2: exited with exit code 1",
// else "" (and always "" for the other launchers). ReFrame's line stays as
// it is; the executor fails the case with this.
std::string RemoteShellFailure(const std::string& launcher, const std::string& stderr_text);
// True for the launchers RemoteShellFailure reads (pdsh, clush).
bool HidesHostFailures(const std::string& launcher);

// The names MakeLauncher accepts, in a stable order.
const std::vector<std::string>& LauncherNames();

}  // namespace hb
