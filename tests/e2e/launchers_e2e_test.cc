// End-to-end tests of launchers with the real programs behind them:
// Debian's pdsh and ClusterShell's clush (the remote-shell launchers, with
// their `exec` back-ends, which run the command here for each host name),
// and the `mpiexec` launcher with both MPICH's Hydra (mpiexec.mpich) and
// Open MPI. All installed by scripts/deps.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "e2e_util.h"

namespace {

std::string Missing(const std::string& program) {
  if (e2e::Shell("command -v " + program).empty()) return program + " is not installed (scripts/deps installs it)";
  return "";
}

// One local partition `p` with `partition` (YAML flow mapping entries).
std::string Site(const std::string& partition) { return e2e::OnePartitionSite("scheduler: local, " + partition); }

struct Run {
  Output out;
  std::string script, stdout_text;
};

Run RunOne(const std::string& site, const std::string& test) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", site);
  Write(dir + "/t.yaml", test);
  Run r;
  r.out = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 120);
  auto scripts = e2e::Find(dir + "/output", "hb_job.sh");
  if (scripts.size() == 1) r.script = Read(scripts[0]);
  auto outs = e2e::Find(dir + "/output", "hb_job.out");
  if (outs.size() == 1) r.stdout_text = Read(outs[0]);
  return r;
}

// ReFrame's pdsh launcher: `pdsh <access words> <command>`. With pdsh's
// exec module the command runs here once per host, %h replaced by the host.
TEST(LaunchersE2E, PdshRunsTheCommandForEachHostOfTheAccessList) {
  std::string missing = Missing("pdsh");
  if (!missing.empty()) GTEST_SKIP() << missing;
  auto r = RunOne(Site("launcher: pdsh, access: ['-R exec', '-w n1,n2']"), R"(name: where
executable: echo
executable_opts: ['ran on %h']
sanity:
  - {pattern: '^n1: ran on n1$'}
  - {pattern: '^n2: ran on n2$'}
)");
  EXPECT_EQ(r.out.exit_code, 0) << r.out.out << r.out.err << r.stdout_text;
  EXPECT_NE(r.script.find("\npdsh -R exec -w n1,n2 echo ran on %h\n"), std::string::npos) << r.script;
}

// ReFrame's clush launcher, the same way, with ClusterShell's exec worker.
TEST(LaunchersE2E, ClushRunsTheCommandForEachHostOfTheAccessList) {
  std::string missing = Missing("clush");
  if (!missing.empty()) GTEST_SKIP() << missing;
  auto r = RunOne(Site("launcher: clush, access: ['-R exec', '-w n[1-3]']"), R"(name: where
executable: echo
executable_opts: ['ran on %h']
sanity:
  - {pattern: '^n[123]: ran on n[123]$', count: 3}
)");
  EXPECT_EQ(r.out.exit_code, 0) << r.out.out << r.out.err << r.stdout_text;
  EXPECT_NE(r.script.find("\nclush -R exec -w n[1-3] echo ran on %h\n"), std::string::npos) << r.script;
}

// A host that fails fails the case. pdsh and clush exit 0 then (unless
// given -S), with ReFrame's line too; hetbench reads their stderr.
TEST(LaunchersE2E, AHostThatFailsFailsTheCase) {
  for (const char* shell : {"pdsh", "clush"}) {
    std::string missing = Missing(shell);
    if (!missing.empty()) GTEST_SKIP() << missing;
    auto r = RunOne(Site(std::string("launcher: ") + shell + ", access: ['-R exec', '-w n1,n2']"), R"(name: where
executable: test
executable_opts: ['%h', '=', 'n1']
sanity: [{exit_code: 0}]
)");
    EXPECT_EQ(r.out.exit_code, 1) << r.out.out << r.out.err;
    EXPECT_NE(r.out.out.find(std::string("run: ") + shell + ": host n2: exited with exit code 1 (" + shell +
                             " itself exited 0; add -S to make it exit non-zero)"),
              std::string::npos)
        << r.out.out;
    // With -S the launcher's own exit code fails it.
    r = RunOne(Site(std::string("launcher: ") + shell + ", access: ['-S', '-R exec', '-w n1,n2']"), R"(name: where
executable: test
executable_opts: ['%h', '=', 'n1']
sanity: [{exit_code: 0}]
)");
    EXPECT_EQ(r.out.exit_code, 1) << r.out.out << r.out.err;
  }
}

const char kMpiTest[] = R"(name: ranks
num_tasks: 2
executable: sh
executable_opts: ['-c', "'echo rank ${PMI_RANK:-$OMPI_COMM_WORLD_RANK} of ${PMI_SIZE:-$OMPI_COMM_WORLD_SIZE}'"]
sanity:
  - {pattern: '^rank 0 of 2$'}
  - {pattern: '^rank 1 of 2$'}
)";

// The mpiexec launcher writes ReFrame's line, `mpiexec -n 2`, which MPICH's
// Hydra runs as it is, as root too (it has no --allow-run-as-root flag).
TEST(LaunchersE2E, MpiexecRunsWithMpich) {
  std::string missing = Missing("mpiexec.mpich");
  if (!missing.empty()) GTEST_SKIP() << missing;
  // MPICH first in PATH, as its module would put it; Hydra finds its
  // hydra_pmi_proxy beside its real path.
  std::string bin = TempDir();
  Write(bin + "/mpiexec", "#!/bin/sh\nexec /usr/bin/mpiexec.mpich \"$@\"\n");
  ASSERT_EQ(::chmod((bin + "/mpiexec").c_str(), 0755), 0);
  auto r = RunOne(Site("launcher: mpiexec, prepare_cmds: ['export PATH=" + bin + ":$PATH']"), kMpiTest);
  EXPECT_EQ(r.out.exit_code, 0) << r.out.out << r.out.err << r.stdout_text;
  EXPECT_NE(r.script.find("\nmpiexec -n 2 sh -c "), std::string::npos) << r.script;
}

// The same line with Open MPI's mpiexec; as root, the script exports Open
// MPI's OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) instead of a flag on the line.
TEST(LaunchersE2E, MpiexecRunsWithOpenMpi) {
  std::string missing = Missing("mpiexec.openmpi");
  if (!missing.empty()) GTEST_SKIP() << missing;
  std::string bin = TempDir();
  ASSERT_EQ(::symlink("/usr/bin/mpiexec.openmpi", (bin + "/mpiexec").c_str()), 0);
  auto r = RunOne(Site("launcher: mpiexec, prepare_cmds: ['export PATH=" + bin +
                       ":$PATH', "
                       "'export OMPI_MCA_rmaps_base_oversubscribe=1']"),
                  kMpiTest);
  EXPECT_EQ(r.out.exit_code, 0) << r.out.out << r.out.err << r.stdout_text;
  EXPECT_NE(r.script.find("\nmpiexec -n 2 sh -c "), std::string::npos) << r.script;
  EXPECT_EQ(r.script.find("--allow-run-as-root"), std::string::npos) << r.script;
  if (::geteuid() == 0) {
    EXPECT_NE(r.script.find("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), std::string::npos) << r.script;
  }
}

}  // namespace

namespace {

// Issue 19, item 6: a ReFrame site configuration (ReFrame 4's YAML form)
// naming every scheduler and launcher ReFrame has loads, lists, and writes
// each partition's job script with --dry-run (LSF, OAR and Flux are not
// installed here; ssh and the launchers run for real in the tests above).
const char kReframeSite[] = R"(
systems:
  - name: centre
    descr: every ReFrame scheduler and launcher
    hostnames: ['.*']
    partitions:
      - {name: lsf, scheduler: lsf, launcher: lrun, access: ['-q pbatch'], environs: [gnu], max_jobs: 4}
      - {name: lsfgpu, scheduler: lsf, launcher: lrun-gpu, environs: [gnu]}
      - {name: oar, scheduler: oar, launcher: mpirun, access: ['-q default'], environs: [gnu]}
      - {name: flux, scheduler: flux, launcher: local, environs: [gnu]}
      - {name: sshsched, scheduler: ssh, launcher: local, sched_options: {ssh_hosts: [n1, n2]}, environs: [gnu]}
      - {name: alps, scheduler: pbs, launcher: alps, environs: [gnu]}
      - {name: tacc, scheduler: slurm, launcher: ibrun, environs: [gnu]}
      - {name: alloc, scheduler: local, launcher: srunalloc, environs: [gnu]}
      - {name: upc, scheduler: local, launcher: upcrun, environs: [gnu]}
      - {name: upcxx, scheduler: local, launcher: upcxx-run, environs: [gnu]}
      - {name: clush, scheduler: local, launcher: clush, access: ['-w n[1-2]'], environs: [gnu]}
      - {name: pdsh, scheduler: local, launcher: pdsh, access: ['-w n[1-2]'], environs: [gnu]}
      - {name: sshl, scheduler: local, launcher: ssh, access: ['-l bench', 'login2'], environs: [gnu]}
      - {name: ompi, scheduler: sge, launcher: mpirun-openmpi, environs: [gnu]}
      - {name: impi, scheduler: torque, launcher: mpirun-intelmpi, environs: [gnu]}
environments:
  - {name: gnu, cc: gcc, cxx: g++}
)";

TEST(ReframeSite, EverySchedulerAndLauncherLoadsListsAndWritesItsScript) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kReframeSite);
  Write(dir + "/t.yaml", R"(name: hello
num_tasks: 4
num_tasks_per_node: 2
time_limit: 10m
executable: ./hello
sanity: [{pattern: hello}]
)");
  auto l = Hetbench({"list", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  ASSERT_EQ(l.exit_code, 0) << l.out << l.err;
  for (const char* p : {"lsf", "oar", "flux", "sshsched", "alps", "upcxx", "impi"})
    EXPECT_NE(l.out.find(std::string("@centre:") + p + "+gnu"), std::string::npos) << p << "\n" << l.out;
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--dry-run", "--no-store"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  auto script = [&](const std::string& part) {
    auto files = e2e::Find(dir + "/output", "hb_job.sh");
    for (const auto& f : files)
      if (f.find("/centre/" + part + "/") != std::string::npos) return Read(f);
    return std::string("(no script for " + part + ")");
  };
  struct Want {
    const char* part;
    std::vector<std::string> lines;
  };
  const Want wants[] = {
      {"lsf", {"#BSUB -J hb_hello", "#BSUB -nnodes 2", "#BSUB -W 10", "#BSUB -q pbatch", "lrun -N 2 -T 2 ./hello"}},
      {"lsfgpu", {"lrun -N 2 -T 2 -M \"-gpu\" ./hello"}},
      {"oar",
       {"#OAR -n \"hb_hello\"", "#OAR -l /host=2/core=2,walltime=0:10:0", "#OAR -q default", "mpirun -np 4 ./hello"}},
      {"flux", {"# flux: --job-name=hb_hello", "# flux: -n 4", "# flux: -N 2", "# flux: -t 600s", "./hello"}},
      {"sshsched", {"./hello"}},
      {"alps", {"aprun -n 4 -N 2 ./hello"}},
      {"tacc", {"#SBATCH --ntasks=4", "ibrun ./hello"}},
      {"alloc", {"srun --job-name=hb_hello --time=0:10:0 --ntasks=4 --ntasks-per-node=2 ./hello"}},
      {"upc", {"upcrun -N 2 -n 4 ./hello"}},
      {"upcxx", {"upcxx-run -N 2 -n 4 ./hello"}},
      {"clush", {"clush -w n[1-2] ./hello"}},
      {"pdsh", {"pdsh -w n[1-2] ./hello"}},
      {"sshl", {"ssh -o BatchMode=yes -l bench login2 ./hello"}},
      {"ompi", {"#$ -N \"hb_hello\"", "mpirun -np 4 ./hello"}},
      {"impi", {"#PBS -l nodes=2:ppn=2", "mpirun -np 4 ./hello"}},
  };
  for (const auto& w : wants) {
    std::string text = script(w.part);
    for (const auto& line : w.lines)
      EXPECT_NE(text.find("\n" + line + "\n"), std::string::npos) << w.part << ": " << line << "\n" << text;
  }
}

// Keys of ReFrame's sched_options that hetbench cannot honour are refused
// with the reason; an ssh partition without hosts is refused too.
TEST(ReframeSite, SchedOptionsHetbenchCannotHonourAreRefused) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", "name: t\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n");
  auto site = [](const std::string& partition) {
    return "systems:\n  - name: c\n    hostnames: ['.*']\n    partitions:\n      - {name: p, environs: [gnu], " +
           partition + "}\nenvironments:\n  - {name: gnu, cc: gcc}\n";
  };
  Write(dir + "/a.yaml", site("scheduler: slurm, launcher: srun, sched_options: {slurm_multi_cluster_mode: [x]}"));
  auto o = Hetbench({"list", "-C", "a.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.err.find("a.yaml:5:"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("sched_options: 'slurm_multi_cluster_mode' (ReFrame's) is not supported"), std::string::npos)
      << o.err;
  Write(dir + "/b.yaml", site("scheduler: ssh, launcher: local"));
  o = Hetbench({"list", "-C", "b.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2) << o.out;
  EXPECT_NE(o.err.find("the ssh scheduler needs ssh_hosts"), std::string::npos) << o.err;
}

}  // namespace
