#include "launch/launcher.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace hb {
namespace {

using Words = std::vector<std::string>;

Job JobWith(int tasks, int per_node = 0, int cpus_per_task = 0) {
  Job job;
  job.num_tasks = tasks;
  job.num_tasks_per_node = per_node;
  job.num_cpus_per_task = cpus_per_task;
  return job;
}

std::unique_ptr<Launcher> Make(const std::string& name, Words options = {}) {
  auto l = MakeLauncher(name, std::move(options));
  EXPECT_TRUE(l.ok()) << l.status().str();
  return l.ok() ? std::move(l).value() : nullptr;
}

TEST(Launcher, LocalAddsNothing) {
  auto l = Make("local");
  EXPECT_EQ(l->name(), "local");
  EXPECT_TRUE(l->Command(JobWith(4)).empty());
  EXPECT_EQ(l->Prefix(JobWith(4)), "");
  EXPECT_EQ(l->RunLine(JobWith(4), "./stream --size 10"), "./stream --size 10");
}

// ReFrame's exact lines; as root, Open MPI's permission is in the
// environment, so MPICH's mpiexec runs the same line.
TEST(Launcher, MpirunAndMpiexecPassTheTaskCount) {
  EXPECT_EQ(Make("mpirun")->Command(JobWith(4)), (Words{"mpirun", "-np", "4"}));
  EXPECT_EQ(Make("mpiexec")->Command(JobWith(16, 8)), (Words{"mpiexec", "-n", "16"}));
  EXPECT_EQ(Make("mpirun-openmpi")->Command(JobWith(3)), (Words{"mpirun", "-np", "3"}));
  EXPECT_EQ(Make("mpirun-intelmpi")->Command(JobWith(3)), (Words{"mpirun", "-np", "3"}));
  using Env = std::vector<std::pair<std::string, std::string>>;
  Env root = {{"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"}};
  EXPECT_EQ(Make("mpiexec")->Env(), ::geteuid() == 0 ? root : Env{});
  EXPECT_TRUE(Make("srun")->Env().empty());
}

// The lines of ReFrame 4.10's reframe/core/launchers/mpi.py, word for word.
TEST(Launcher, ReframesOtherParallelLaunchers) {
  Job j = JobWith(16, 4, 2);
  EXPECT_EQ(Make("alps")->Command(j), (Words{"aprun", "-n", "16", "-N", "4", "-d", "2"}));
  j.use_smt = 1;
  EXPECT_EQ(Make("alps")->Command(j), (Words{"aprun", "-n", "16", "-N", "4", "-d", "2", "-j", "0"}));
  j.use_smt = 0;  // ReFrame adds -j 0 only for use_multithreading: true
  EXPECT_EQ(Make("alps")->Command(JobWith(2)), (Words{"aprun", "-n", "2"}));
  EXPECT_EQ(Make("ibrun")->Command(j), Words{"ibrun"});
  EXPECT_EQ(Make("upcrun")->Command(j), (Words{"upcrun", "-N", "4", "-n", "16"}));
  EXPECT_EQ(Make("upcxx-run")->Command(JobWith(6)), (Words{"upcxx-run", "-n", "6"}));
  EXPECT_EQ(Make("lrun")->Command(j), (Words{"lrun", "-N", "4", "-T", "4"}));
  EXPECT_EQ(Make("lrun")->Command(JobWith(3)), (Words{"lrun", "-N", "3", "-T", "1"}));
  EXPECT_EQ(Make("lrun-gpu")->RunLine(j, "./a.out"), "lrun -N 4 -T 4 -M \"-gpu\" ./a.out");
  EXPECT_EQ(Make("jsrun")->Command(j), (Words{"jsrun", "-n", "16", "-a", "1", "-c", "2"}));
  j.num_gpus_per_node = 4;
  EXPECT_EQ(Make("jsrun")->Command(j), (Words{"jsrun", "-n", "16", "-a", "1", "-c", "2", "-g", "1"}));
}

TEST(Launcher, SrunallocCarriesTheAllocation) {
  Job j = JobWith(8, 4, 2);
  j.name = "hb_stream";
  j.time_limit_s = 3723;
  j.num_tasks_per_core = 1;
  j.num_tasks_per_socket = 2;
  j.exclusive = true;
  j.use_smt = 0;
  j.options = {"--account=abc", "#DW jobdw", "--qos=debug"};
  EXPECT_EQ(Make("srunalloc")->Command(j),
            (Words{"srun", "--job-name=hb_stream", "--time=1:2:3", "--ntasks=8", "--ntasks-per-node=4",
                   "--ntasks-per-core=1", "--ntasks-per-socket=2", "--cpus-per-task=2", "--exclusive",
                   "--hint=nomultithread", "--account=abc", "--qos=debug"}));
  EXPECT_EQ(Make("srunalloc")->Command(JobWith(1)), (Words{"srun", "--ntasks=1"}));
}

// reframe/core/launchers/rsh.py: the hosts are the partition's access.
TEST(Launcher, RemoteShellsTakeTheirHostsFromAccess) {
  Job j = JobWith(2);
  j.access = {"-w", "node[1-2]"};
  EXPECT_EQ(Make("clush")->RunLine(j, "hostname"), "clush -w node[1-2] hostname");
  EXPECT_EQ(Make("pdsh", {"-f", "8"})->RunLine(j, "hostname"), "pdsh -w node[1-2] -f 8 hostname");
  j.access = {"-l admin", "remote.host"};
  // ssh: options go before the host, after the access options.
  EXPECT_EQ(Make("ssh", {"-p 2222"})->RunLine(j, "hostname"),
            "ssh -o BatchMode=yes -l admin -p 2222 remote.host hostname");
  EXPECT_EQ(Make("ssh")->Prefix(j), "ssh -o BatchMode=yes -l admin remote.host");
}

TEST(Launcher, SrunTakesTasksFromTheAllocation) {
  EXPECT_EQ(Make("srun")->Command(JobWith(64, 8)), Words{"srun"});
  EXPECT_EQ(Make("srun")->Command(JobWith(64, 8, 4)), (Words{"srun", "--cpus-per-task=4"}));
}

TEST(Launcher, TorchrunStartsOneWorkerPerTaskOnTheNode) {  // every scheduler: torchrun_test.cc
  EXPECT_EQ(Make("torchrun")->Command(JobWith(2)),
            (Words{"torchrun", "--standalone", "--nnodes=1", "--nproc_per_node=2"}));
}

TEST(Launcher, OptionsFollowTheLaunchersOwnWords) {
  auto l = Make("srun", {"--mpi=pmix", "--cpu-bind=cores"});
  EXPECT_EQ(l->Command(JobWith(2)), Words{"srun"});  // options are not part of Command
  EXPECT_EQ(l->RunLine(JobWith(2), "./a.out -n 3"), "srun --mpi=pmix --cpu-bind=cores ./a.out -n 3");
  auto local = Make("local", {"time"});
  EXPECT_EQ(local->RunLine(JobWith(1), "./a.out"), "time ./a.out");
}

TEST(Launcher, UnknownNamesAreErrorsWithSuggestions) {
  auto l = MakeLauncher("mpirn");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(),
            "unknown launcher 'mpirn', did you mean 'mpirun'? (known: local, mpirun, mpiexec, srun, torchrun, k8s, "
            "mpirun-openmpi, mpirun-intelmpi, alps, ibrun, jsrun, lrun, lrun-gpu, srunalloc, upcrun, upcxx-run, "
            "clush, pdsh, ssh)");
  auto far = MakeLauncher("aprun-xyz");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().message().find("did you mean"), std::string::npos);
  EXPECT_EQ(LauncherNames().size(), 19u);
}

// ReFrame's Kubernetes fork names `launcher: k8s`: the pod runs the command.
TEST(Launcher, K8sAddsNothingAndOnlyOnKubernetes) {
  for (const char* sched : {"k8s", "kubernetes"}) {
    auto l = MakeLauncher("k8s", {}, *FindSchedulerBackend(sched));
    ASSERT_TRUE(l.ok()) << l.status().str();
    EXPECT_EQ((*l)->RunLine(JobWith(4), "python train.py"), "python train.py");
  }
  auto slurm = MakeLauncher("k8s", {}, *FindSchedulerBackend("slurm"));
  ASSERT_FALSE(slurm.ok());
  EXPECT_EQ(slurm.status().message(),
            "launcher 'k8s' (the ReFrame Kubernetes fork's: the container runs the command itself) works only on a "
            "Kubernetes partition (scheduler: k8s), not with scheduler 'slurm'; use another launcher (local, mpirun, "
            "mpiexec, srun, torchrun...)");
}

}  // namespace
}  // namespace hb

namespace hb {
namespace {

TEST(Launcher, RemoteShellFailuresAreReadFromStderr) {
  EXPECT_EQ(RemoteShellFailure("pdsh", "x\npdsh@login1: n2: ./a.out exited with exit code 3\n"),
            "pdsh: host n2: exited with exit code 3");
  EXPECT_EQ(RemoteShellFailure("pdsh", "pdsh@vm: n7: ssh exited with exit code 255\n"),
            "pdsh: host n7: exited with exit code 255");
  EXPECT_EQ(RemoteShellFailure("clush", "clush: node[3]: exited with exit code 1\n"),
            "clush: host node[3]: exited with exit code 1");
  EXPECT_EQ(RemoteShellFailure("clush", "n1: fine\n"), "");
  EXPECT_EQ(RemoteShellFailure("mpirun", "clush: n2: exited with exit code 1\n"), "");
  EXPECT_TRUE(HidesHostFailures("pdsh"));
  EXPECT_FALSE(HidesHostFailures("ssh"));
}

}  // namespace
}  // namespace hb
