#include "launch/torchrun.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "sched/scheduler_factory.h"

namespace hb {
namespace {

// The registered backend of a scheduler name or alias (this test links the
// Kubernetes backend too, so `k8s` and `kubernetes` are known).
const SchedulerBackend* Backend(const std::string& name) {
  auto b = FindSchedulerBackend(name);
  EXPECT_TRUE(b.ok()) << b.status().str();
  return b.ok() ? *b : nullptr;
}

Job JobWith(int tasks, int per_node = 0, int gpus_per_node = 0, int cpus_per_task = 0) {
  Job job;
  job.num_tasks = tasks;
  job.num_tasks_per_node = per_node;
  job.num_gpus_per_node = gpus_per_node;
  job.num_cpus_per_task = cpus_per_task;
  return job;
}

// The run line torchrun writes for job on scheduler, with options.
std::string Line(const std::string& scheduler, const Job& job, std::vector<std::string> options = {}) {
  auto l = MakeLauncher("torchrun", std::move(options), Backend(scheduler));
  EXPECT_TRUE(l.ok()) << l.status().str();
  return l.ok() ? (*l)->RunLine(job, "train.py --epochs 1") : "";
}

TEST(Torchrun, ShapeFollowsTasksThenGpusPerNode) {
  auto shape = [](const Job& j, bool one_node = false) {
    TorchrunShape s = TorchrunShapeOf(j, one_node);
    return std::to_string(s.nnodes) + "x" + std::to_string(s.nproc_per_node);
  };
  EXPECT_EQ(shape(JobWith(2)), "1x2");        // num_tasks on one node
  EXPECT_EQ(shape(JobWith(8, 4)), "2x4");     // num_tasks_per_node
  EXPECT_EQ(shape(JobWith(10, 4)), "3x4");    // rounded up
  EXPECT_EQ(shape(JobWith(2, 4)), "1x2");     // no more per node than tasks
  EXPECT_EQ(shape(JobWith(1, 0, 4)), "1x4");  // one worker per GPU
  EXPECT_EQ(shape(JobWith(8, 0, 4)), "2x4");
  EXPECT_EQ(shape(JobWith(8, 2, 4)), "4x2");     // tasks per node win over GPUs
  EXPECT_EQ(shape(JobWith(8, 4), true), "1x8");  // the local scheduler: all on this node
  EXPECT_EQ(shape(JobWith(0)), "1x1");
}

TEST(Torchrun, OneNodeIsStandalone) {
  EXPECT_EQ(Line("local", JobWith(2)), "torchrun --standalone --nnodes=1 --nproc_per_node=2 train.py --epochs 1");
  // One node under a batch scheduler needs no spawner: the script runs on it.
  EXPECT_EQ(Line("slurm", JobWith(4, 4)), "torchrun --standalone --nnodes=1 --nproc_per_node=4 train.py --epochs 1");
  EXPECT_EQ(Line("k8s", JobWith(4)), "torchrun --standalone --nnodes=1 --nproc_per_node=4 train.py --epochs 1");
  // The local scheduler has one node, whatever the test asks per node.
  EXPECT_EQ(Line("local", JobWith(8, 4)), "torchrun --standalone --nnodes=1 --nproc_per_node=8 train.py --epochs 1");
}

TEST(Torchrun, GpusPerNodeSetTheWorkersPerNode) {
  EXPECT_EQ(Line("local", JobWith(1, 0, 4)), "torchrun --standalone --nnodes=1 --nproc_per_node=4 train.py --epochs 1");
  EXPECT_EQ(
      Line("slurm", JobWith(8, 0, 4)),
      "srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --cpus-per-task=4 torchrun --nnodes=2 --nproc_per_node=4 "
      "--rdzv_backend=c10d --rdzv_endpoint=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)\":29500 "
      "--rdzv_id=\"$SLURM_JOB_ID\" train.py --epochs 1");
}

TEST(Torchrun, SlurmStartsOneTorchrunPerNodeWithTheNodesCpus) {
  const std::string rdzv =
      "--rdzv_backend=c10d --rdzv_endpoint=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)\":29500 "
      "--rdzv_id=\"$SLURM_JOB_ID\"";
  EXPECT_EQ(Line("slurm", JobWith(8, 4, 0, 2)),
            "srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --cpus-per-task=8 torchrun --nnodes=2 --nproc_per_node=4 " +
                rdzv + " train.py --epochs 1");
  EXPECT_EQ(Line("squeue", JobWith(12, 4)),
            "srun --nodes=3 --ntasks=3 --ntasks-per-node=1 --cpus-per-task=4 torchrun --nnodes=3 --nproc_per_node=4 " +
                rdzv + " train.py --epochs 1");
}

TEST(Torchrun, PbsAndGridEngineTakeTheFirstHostOfTheirNodeFiles) {
  for (const char* pbs : {"pbs", "pbspro", "torque"})
    EXPECT_EQ(Line(pbs, JobWith(8, 4)),
              "mpiexec -n 2 --ppn 1 torchrun --nnodes=2 --nproc_per_node=4 --rdzv_backend=c10d "
              "--rdzv_endpoint=\"$(head -n1 \"$PBS_NODEFILE\")\":29500 --rdzv_id=\"$PBS_JOBID\" train.py --epochs 1")
        << pbs;
  std::string root = ::geteuid() == 0 ? " --allow-run-as-root" : "";
  EXPECT_EQ(Line("sge", JobWith(8, 4)),
            "mpirun -np 2 --npernode 1" + root +
                " torchrun --nnodes=2 --nproc_per_node=4 --rdzv_backend=c10d "
                "--rdzv_endpoint=\"$(head -n1 \"$PE_HOSTFILE\" | cut -d' ' -f1)\":29500 --rdzv_id=\"$JOB_ID\" "
                "train.py --epochs 1");
}

TEST(Torchrun, KubernetesPodsRendezvousAtRankZero) {
  // The k8s backend runs the script in every pod of an Indexed Job and
  // exports HETBENCH_RANK and HETBENCH_MASTER_ADDR (k8s/manifest.cc).
  EXPECT_EQ(Line("k8s", JobWith(8, 4)),
            "torchrun --nnodes=2 --nproc_per_node=4 --node_rank=\"$HETBENCH_RANK\" "
            "--master_addr=\"$HETBENCH_MASTER_ADDR\" --master_port=29500 train.py --epochs 1");
  // The documented alias is the same backend (it used to get an empty
  // --rdzv_endpoint=:29500).
  EXPECT_EQ(Line("kubernetes", JobWith(8, 4)), Line("k8s", JobWith(8, 4)));
}

TEST(Torchrun, OptionsReplaceTheFlagsTheySet) {
  // An elastic range and a port.
  EXPECT_EQ(
      Line("slurm", JobWith(8, 4), {"--nnodes=1:2", "--master_port=29600", "--max_restarts=3"}),
      "srun --nodes=2 --ntasks=2 --ntasks-per-node=1 --cpus-per-task=4 torchrun --nproc_per_node=4 "
      "--rdzv_backend=c10d --rdzv_endpoint=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)\":29600 "
      "--rdzv_id=\"$SLURM_JOB_ID\" --nnodes=1:2 --master_port=29600 --max_restarts=3 train.py --epochs 1");
  // torchrun's dashed spellings and `--flag value` count too.
  EXPECT_EQ(Line("pbs", JobWith(8, 4), {"--nproc-per-node", "gpu", "--master_port", "1234"}),
            "mpiexec -n 2 --ppn 1 torchrun --nnodes=2 --rdzv_backend=c10d "
            "--rdzv_endpoint=\"$(head -n1 \"$PBS_NODEFILE\")\":1234 --rdzv_id=\"$PBS_JOBID\" "
            "--nproc-per-node gpu --master_port 1234 train.py --epochs 1");
  EXPECT_EQ(Line("k8s", JobWith(8, 4), {"--master_port=29601"}),
            "torchrun --nnodes=2 --nproc_per_node=4 --node_rank=\"$HETBENCH_RANK\" "
            "--master_addr=\"$HETBENCH_MASTER_ADDR\" --master_port=29601 train.py --epochs 1");
  // A rendezvous of one's own on one node: no --standalone, which would override it.
  EXPECT_EQ(Line("local", JobWith(2), {"--rdzv_backend=c10d", "--rdzv_endpoint=localhost:29400"}),
            "torchrun --nnodes=1 --nproc_per_node=2 --rdzv_backend=c10d --rdzv_endpoint=localhost:29400 train.py "
            "--epochs 1");
  EXPECT_EQ(Line("local", JobWith(2), {"--no_python"}),
            "torchrun --standalone --nnodes=1 --nproc_per_node=2 --no_python train.py --epochs 1");
}

TEST(Torchrun, TheFactoryKnowsItByName) {
  auto l = MakeLauncher("torchrun", {}, Backend("slurm"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ((*l)->name(), "torchrun");
  EXPECT_TRUE((*l)->traits.node_spawn);
  EXPECT_FALSE((*MakeLauncher("torchrun"))->traits.node_spawn);  // local: one node
}

}  // namespace
}  // namespace hb
