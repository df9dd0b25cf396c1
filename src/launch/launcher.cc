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

// Open MPI's mpirun/mpiexec refuse to start as root unless allowed; in
// containers hetbench often is root. The job script then exports Open MPI's
// OMPI_ALLOW_RUN_AS_ROOT and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM (Env()), so the
// command line stays ReFrame's and MPICH's mpiexec, which knows no
// --allow-run-as-root flag, runs the same line.
class MpiLauncher : public Launcher {
 public:
  MpiLauncher(std::string name, std::string program, std::string count_flag)
      : name_(std::move(name)), program_(std::move(program)), count_flag_(std::move(count_flag)) {}
  std::string name() const override { return name_; }
  // ReFrame: ['mpirun', '-np', str(job.num_tasks)], ['mpiexec', '-n', ...].
  std::vector<std::string> Command(const Job& job) const override {
    return {program_, count_flag_, std::to_string(job.num_tasks)};
  }
  std::vector<std::pair<std::string, std::string>> Env() const override {
    if (::geteuid() != 0) return {};
    return {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
  }

 private:
  std::string name_, program_, count_flag_;
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

// A launcher whose words are a function of the job alone.
class WordsLauncher : public Launcher {
 public:
  using Words = std::function<std::vector<std::string>(const Job&)>;
  WordsLauncher(std::string name, Words words) : name_(std::move(name)), words_(std::move(words)) {}
  std::string name() const override { return name_; }
  std::vector<std::string> Command(const Job& job) const override { return words_(job); }

 private:
  std::string name_;
  Words words_;
};

std::string Str(int n) { return std::to_string(n); }

// ReFrame's AlpsLauncher: aprun -n <tasks> [-N <per node>] [-d <cpus per
// task>] [-j 0 with use_multithreading: true].
std::vector<std::string> Aprun(const Job& job) {
  std::vector<std::string> cmd = {"aprun", "-n", Str(job.num_tasks)};
  if (job.num_tasks_per_node > 0) cmd.insert(cmd.end(), {"-N", Str(job.num_tasks_per_node)});
  if (job.num_cpus_per_task > 0) cmd.insert(cmd.end(), {"-d", Str(job.num_cpus_per_task)});
  if (job.use_smt == 1) cmd.insert(cmd.end(), {"-j", "0"});
  return cmd;
}

// ReFrame's UpcrunLauncher and UpcxxrunLauncher: <program> [-N <nodes>] -n
// <tasks>, nodes = tasks // tasks per node when that is set.
WordsLauncher::Words Upc(const std::string& program) {
  return [program](const Job& job) {
    std::vector<std::string> cmd = {program};
    if (job.num_tasks_per_node > 0) cmd.insert(cmd.end(), {"-N", Str(job.num_tasks / job.num_tasks_per_node)});
    cmd.insert(cmd.end(), {"-n", Str(job.num_tasks)});
    return cmd;
  };
}

// ReFrame's LrunLauncher (LLNL): lrun -N <nodes> -T <tasks per node>, with
// tasks per node 1 when unset; lrun-gpu adds the one word '-M "-gpu"'.
std::vector<std::string> Lrun(const Job& job) {
  int per_node = job.num_tasks_per_node > 0 ? job.num_tasks_per_node : 1;
  return {"lrun", "-N", Str(job.num_tasks / per_node), "-T", Str(per_node)};
}

// IBM's jsrun (LSF on Summit/Sierra-class machines). ReFrame 4.10 has no
// jsrun launcher; this follows IBM's jsrun(1): one resource set per task
// (-n tasks, -a 1 task per set), -c cpus per set (num_cpus_per_task, 1
// when unset), -g GPUs per set when the job asks for GPUs per node and
// says how many tasks share a node (num_gpus_per_node / tasks per node).
std::vector<std::string> Jsrun(const Job& job) {
  std::vector<std::string> cmd = {
      "jsrun", "-n", Str(job.num_tasks), "-a", "1", "-c", Str(job.num_cpus_per_task > 0 ? job.num_cpus_per_task : 1)};
  if (job.num_gpus_per_node > 0 && job.num_tasks_per_node > 0)
    cmd.insert(cmd.end(), {"-g", Str(std::max(1, job.num_gpus_per_node / job.num_tasks_per_node))});
  return cmd;
}

// ReFrame's SrunAllocationLauncher: srun with the job's allocation options,
// for a partition whose scheduler is `local` (srun makes the allocation).
std::vector<std::string> SrunAlloc(const Job& job) {
  std::vector<std::string> cmd = {"srun"};
  if (!job.name.empty()) cmd.push_back("--job-name=" + job.name);
  if (job.time_limit_s > 0) {
    long t = static_cast<long>(job.time_limit_s);  // ReFrame: seconds_to_hms, '%d:%d:%d'
    cmd.push_back("--time=" + Str(static_cast<int>(t / 3600)) + ":" + Str(static_cast<int>((t / 60) % 60)) + ":" +
                  Str(static_cast<int>(t % 60)));
  }
  if (job.num_tasks > 0) cmd.push_back("--ntasks=" + Str(job.num_tasks));
  if (job.num_tasks_per_node > 0) cmd.push_back("--ntasks-per-node=" + Str(job.num_tasks_per_node));
  if (job.num_tasks_per_core > 0) cmd.push_back("--ntasks-per-core=" + Str(job.num_tasks_per_core));
  if (job.num_tasks_per_socket > 0) cmd.push_back("--ntasks-per-socket=" + Str(job.num_tasks_per_socket));
  if (job.num_cpus_per_task > 0) cmd.push_back("--cpus-per-task=" + Str(job.num_cpus_per_task));
  if (job.exclusive) cmd.push_back("--exclusive");
  if (job.use_smt >= 0) cmd.push_back(job.use_smt ? "--hint=multithread" : "--hint=nomultithread");
  for (const auto& o : job.options)
    if (!o.empty() && o[0] != '#') cmd.push_back(o);
  return cmd;
}

// ReFrame's remote-shell launchers (rsh.py): clush and pdsh take the
// partition's access words as theirs (the hosts: -w node[1-4]); ssh takes
// the last access word as the host and the others as ssh options, in
// batch mode (no password prompt).
WordsLauncher::Words RemoteShell(const std::string& program) {
  return [program](const Job& job) {
    std::vector<std::string> cmd = {program};
    cmd.insert(cmd.end(), job.access.begin(), job.access.end());
    return cmd;
  };
}

class SshLauncher : public Launcher {
 public:
  std::string name() const override { return "ssh"; }
  // ReFrame: ['ssh', '-o BatchMode=yes'] + access[:-1] + options + [host]:
  // the options come before the host, so Prefix() does not append them.
  std::vector<std::string> Command(const Job& job) const override {
    std::vector<std::string> cmd = {"ssh", "-o BatchMode=yes"};
    if (!job.access.empty()) cmd.insert(cmd.end(), job.access.begin(), job.access.end() - 1);
    cmd.insert(cmd.end(), options.begin(), options.end());
    if (!job.access.empty()) cmd.push_back(job.access.back());
    return cmd;
  }
  bool appends_options() const override { return false; }
};

using Factory = std::function<std::unique_ptr<Launcher>()>;

const std::vector<std::pair<std::string, Factory>>& Factories() {
  static const std::vector<std::pair<std::string, Factory>> kFactories = {
      {"local", [] { return std::make_unique<LocalLauncher>(); }},
      {"mpirun", [] { return std::make_unique<MpiLauncher>("mpirun", "mpirun", "-np"); }},
      {"mpiexec", [] { return std::make_unique<MpiLauncher>("mpiexec", "mpiexec", "-n"); }},
      {"srun", [] { return std::make_unique<SrunLauncher>(); }},
      {"torchrun", [] { return MakeTorchrunLauncher(); }},
      {"k8s", [] { return std::make_unique<KubernetesLauncher>(); }},
      // ReFrame's mpirun-openmpi and mpirun-intelmpi differ from mpirun only
      // in how they pass a launcher's env_vars, which hetbench tests set
      // with env_vars instead.
      {"mpirun-openmpi", [] { return std::make_unique<MpiLauncher>("mpirun-openmpi", "mpirun", "-np"); }},
      {"mpirun-intelmpi", [] { return std::make_unique<MpiLauncher>("mpirun-intelmpi", "mpirun", "-np"); }},
      {"alps", [] { return std::make_unique<WordsLauncher>("alps", Aprun); }},
      {"ibrun",
       [] {
         return std::make_unique<WordsLauncher>("ibrun", [](const Job&) { return std::vector<std::string>{"ibrun"}; });
       }},
      {"jsrun", [] { return std::make_unique<WordsLauncher>("jsrun", Jsrun); }},
      {"lrun", [] { return std::make_unique<WordsLauncher>("lrun", Lrun); }},
      {"lrun-gpu",
       [] {
         return std::make_unique<WordsLauncher>("lrun-gpu", [](const Job& job) {
           auto cmd = Lrun(job);
           cmd.push_back("-M \"-gpu\"");
           return cmd;
         });
       }},
      {"srunalloc", [] { return std::make_unique<WordsLauncher>("srunalloc", SrunAlloc); }},
      {"upcrun", [] { return std::make_unique<WordsLauncher>("upcrun", Upc("upcrun")); }},
      {"upcxx-run", [] { return std::make_unique<WordsLauncher>("upcxx-run", Upc("upcxx-run")); }},
      {"clush", [] { return std::make_unique<WordsLauncher>("clush", RemoteShell("clush")); }},
      {"pdsh", [] { return std::make_unique<WordsLauncher>("pdsh", RemoteShell("pdsh")); }},
      {"ssh", [] { return std::make_unique<SshLauncher>(); }},
  };
  return kFactories;
}

}  // namespace

std::string Launcher::Prefix(const Job& job) const {
  std::vector<std::string> words = Command(job);
  if (appends_options()) words.insert(words.end(), options.begin(), options.end());
  return Join(words, " ");
}

std::string Launcher::RunLine(const Job& job, const std::string& command) const {
  std::string prefix = Prefix(job);
  return prefix.empty() ? command : prefix + " " + command;
}

bool HidesHostFailures(const std::string& launcher) { return launcher == "pdsh" || launcher == "clush"; }

std::string RemoteShellFailure(const std::string& launcher, const std::string& stderr_text) {
  std::string prefix = launcher == "pdsh" ? "pdsh@" : launcher == "clush" ? "clush: " : "";
  if (prefix.empty()) return "";
  const std::string kExited = "exited with exit code ";
  for (const auto& raw : Split(stderr_text, '\n')) {
    std::string line = Trim(raw);
    if (!StartsWith(line, prefix) || line.find(kExited) == std::string::npos) continue;
    // pdsh@login: n2: prog exited...   clush: n2: exited...
    std::string rest = launcher == "pdsh"
                           ? line.substr(line.find(": ") == std::string::npos ? line.size() : line.find(": ") + 2)
                           : line.substr(prefix.size());
    size_t colon = rest.find(": ");
    if (colon == std::string::npos) continue;
    std::string code = rest.substr(rest.find(kExited) + kExited.size());
    return launcher + ": host " + rest.substr(0, colon) + ": " + kExited + Trim(code);
  }
  return "";
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
      return Status::Error("launcher '" + name +
                           "' (the ReFrame Kubernetes fork's: the container runs the command "
                           "itself) works only on a Kubernetes partition (scheduler: k8s), not with scheduler '" +
                           (backend ? backend->name : std::string("local")) +
                           "'; use another launcher (local, mpirun, mpiexec, srun, torchrun...)");
    launcher->options = std::move(options);
    if (backend) launcher->traits = backend->traits;
    return launcher;
  }
  return Status::Error("unknown launcher '" + name + "'" + DidYouMean(name, LauncherNames()) +
                       " (known: " + Join(LauncherNames(), ", ") + ")");
}

}  // namespace hb
