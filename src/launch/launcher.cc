#include "launch/launcher.h"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "launch/torchrun.h"
#include "util/strings.h"

namespace hb {

namespace {

// The launchers mirror ReFrame's (reframe/core/launchers/local.py and
// mpi.py: LocalLauncher, MpirunLauncher, MpiexecLauncher, SrunLauncher).

class LocalLauncher : public Launcher {
 public:
  std::string name() const override { return "local"; }
  std::vector<std::string> Command(const Job&) const override { return {}; }
};

// `k8s`, the launcher of ReFrame's Kubernetes fork (EPCC's): the pod's
// container runs the command itself, so nothing goes before it. Only on
// Kubernetes partitions.
class KubernetesLauncher : public Launcher {
 public:
  std::string name() const override { return "k8s"; }
  std::vector<std::string> Command(const Job&) const override { return {}; }
  bool needs_own_container() const override { return true; }
};

// Open MPI's mpirun/mpiexec refuse to start as root unless given
// --allow-run-as-root; in containers hetbench often is root, so the flag is
// added then (and only then: MPICH's mpiexec does not know it).
class MpiLauncher : public Launcher {
 public:
  MpiLauncher(std::string program, std::string count_flag)
      : program_(std::move(program)), count_flag_(std::move(count_flag)), as_root_(::geteuid() == 0) {}
  std::string name() const override { return program_; }
  // ReFrame: ['mpirun', '-np', str(job.num_tasks)], ['mpiexec', '-n', ...].
  std::vector<std::string> Command(const Job& job) const override {
    std::vector<std::string> cmd = {program_, count_flag_, std::to_string(job.num_tasks)};
    if (as_root_) cmd.push_back("--allow-run-as-root");
    return cmd;
  }

 private:
  std::string program_, count_flag_;
  bool as_root_;
};

// Inside a Slurm allocation srun takes the tasks from the job. ReFrame's
// SrunLauncher adds --cpus-per-task=N when the job sets it, because srun of
// Slurm >= 22.05 does not inherit it from the allocation; ReFrame probes
// `srun --version` to skip it for older Slurm, hetbench always passes it
// (it equals the allocation's value, so it is harmless there too).
class SrunLauncher : public Launcher {
 public:
  std::string name() const override { return "srun"; }
  std::vector<std::string> Command(const Job& job) const override {
    std::vector<std::string> cmd = {"srun"};
    if (job.num_cpus_per_task > 0) cmd.push_back("--cpus-per-task=" + std::to_string(job.num_cpus_per_task));
    return cmd;
  }
};

using Factory = std::function<std::unique_ptr<Launcher>()>;

const std::vector<std::pair<std::string, Factory>>& Factories() {
  static const std::vector<std::pair<std::string, Factory>> kFactories = {
      {"local", [] { return std::make_unique<LocalLauncher>(); }},
      {"mpirun", [] { return std::make_unique<MpiLauncher>("mpirun", "-np"); }},
      {"mpiexec", [] { return std::make_unique<MpiLauncher>("mpiexec", "-n"); }},
      {"srun", [] { return std::make_unique<SrunLauncher>(); }},
      {"torchrun", [] { return MakeTorchrunLauncher(); }},
      {"k8s", [] { return std::make_unique<KubernetesLauncher>(); }},
  };
  return kFactories;
}

}  // namespace

std::string Launcher::Prefix(const Job& job) const {
  std::vector<std::string> words = Command(job);
  words.insert(words.end(), options.begin(), options.end());
  return Join(words, " ");
}

std::string Launcher::RunLine(const Job& job, const std::string& command) const {
  std::string prefix = Prefix(job);
  return prefix.empty() ? command : prefix + " " + command;
}

const std::vector<std::string>& LauncherNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& [name, make] : Factories()) names.push_back(name);
    return names;
  }();
  return kNames;
}

Result<std::unique_ptr<Launcher>> MakeLauncher(const std::string& name, std::vector<std::string> options,
                                               const SchedulerBackend* backend) {
  for (const auto& [known, make] : Factories()) {
    if (known != name) continue;
    std::unique_ptr<Launcher> launcher = make();
    if (launcher->needs_own_container() && !(backend && backend->traits.runs_in_container))
      return Status::Error("launcher '" + name + "' (the ReFrame Kubernetes fork's: the container runs the command "
                           "itself) works only on a Kubernetes partition (scheduler: k8s), not with scheduler '" +
                           (backend ? backend->name : std::string("local")) +
                           "'; use local, mpirun, mpiexec, srun or torchrun");
    launcher->options = std::move(options);
    if (backend) launcher->traits = backend->traits;
    return launcher;
  }
  return Status::Error("unknown launcher '" + name + "'" + DidYouMean(name, LauncherNames()) +
                       " (known: " + Join(LauncherNames(), ", ") + ")");
}

}  // namespace hb
