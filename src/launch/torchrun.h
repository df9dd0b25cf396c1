// The `torchrun` launcher: PyTorch's elastic launcher
// (torch.distributed.run) in front of a test's Python script, started once
// per node, each torchrun starting nproc_per_node workers.
//
//   one node:   torchrun --standalone --nnodes=1 --nproc_per_node=P
//   Slurm:      srun --nodes=N --ntasks=N --ntasks-per-node=1 --cpus-per-task=C
//                 torchrun --nnodes=N --nproc_per_node=P --rdzv_backend=c10d
//                 --rdzv_endpoint=<first node>:PORT --rdzv_id=$SLURM_JOB_ID
//   PBS:        mpiexec -n N --ppn 1 torchrun ... (first line of $PBS_NODEFILE)
//   Grid Engine: mpirun -np N --npernode 1 torchrun ... (first host of $PE_HOSTFILE)
//   Kubernetes: every pod of the Indexed Job runs the script, so no spawner:
//                 torchrun --nnodes=N --nproc_per_node=P --node_rank=$HETBENCH_RANK
//                 --master_addr=$HETBENCH_MASTER_ADDR --master_port=PORT
//
// The first node and the job id are computed by the job script from the
// scheduler's environment. Launcher options are torchrun's own words: one
// that sets a flag hetbench would set (`--nnodes=1:4`, `--rdzv_backend=...`,
// `--nproc_per_node=...`) replaces hetbench's word for it, and
// `--master_port=N` sets the rendezvous port (default 29500).
// docs/backends.md lists the exact lines.
#pragma once

#include <memory>
#include <string>

#include "launch/launcher.h"
#include "sched/job.h"

namespace hb {

// Workers per node and nodes of a job: nproc_per_node is num_tasks_per_node
// (at most num_tasks), else num_gpus_per_node, else num_tasks; nnodes is
// num_tasks / nproc_per_node, rounded up. With `one_node` (the local
// scheduler) every worker runs on this node: nnodes 1, nproc_per_node
// their product.
struct TorchrunShape {
  int nproc_per_node = 1;
  int nnodes = 1;
};
TorchrunShape TorchrunShapeOf(const Job& job, bool one_node);

// The rendezvous port when the options do not set --master_port.
constexpr int kTorchrunPort = 29500;

std::unique_ptr<Launcher> MakeTorchrunLauncher();

}  // namespace hb
