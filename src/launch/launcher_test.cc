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

// Open MPI needs --allow-run-as-root when hetbench runs as root.
Words RootFlag() { return ::geteuid() == 0 ? Words{"--allow-run-as-root"} : Words{}; }

Words Concat(Words a, const Words& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(Launcher, LocalAddsNothing) {
  auto l = Make("local");
  EXPECT_EQ(l->name(), "local");
  EXPECT_TRUE(l->Command(JobWith(4)).empty());
  EXPECT_EQ(l->Prefix(JobWith(4)), "");
  EXPECT_EQ(l->RunLine(JobWith(4), "./stream --size 10"), "./stream --size 10");
}

TEST(Launcher, MpirunAndMpiexecPassTheTaskCount) {
  EXPECT_EQ(Make("mpirun")->Command(JobWith(4)), Concat({"mpirun", "-np", "4"}, RootFlag()));
  EXPECT_EQ(Make("mpiexec")->Command(JobWith(16, 8)), Concat({"mpiexec", "-n", "16"}, RootFlag()));
}

TEST(Launcher, SrunTakesTasksFromTheAllocation) {
  EXPECT_EQ(Make("srun")->Command(JobWith(64, 8)), Words{"srun"});
  EXPECT_EQ(Make("srun")->Command(JobWith(64, 8, 4)), (Words{"srun", "--cpus-per-task=4"}));
}

TEST(Launcher, TorchrunStartsOneWorkerPerTaskOnTheNode) {  // every scheduler: torchrun_test.cc
  EXPECT_EQ(Make("torchrun")->Command(JobWith(2)), (Words{"torchrun", "--standalone", "--nnodes=1", "--nproc_per_node=2"}));
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
            "unknown launcher 'mpirn', did you mean 'mpirun'? (known: local, mpirun, mpiexec, srun, torchrun, k8s)");
  auto far = MakeLauncher("aprun-xyz");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().message().find("did you mean"), std::string::npos);
  EXPECT_EQ(LauncherNames(), (Words{"local", "mpirun", "mpiexec", "srun", "torchrun", "k8s"}));
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
            "Kubernetes partition (scheduler: k8s), not with scheduler 'slurm'; use local, mpirun, mpiexec, srun or "
            "torchrun");
}

}  // namespace
}  // namespace hb
