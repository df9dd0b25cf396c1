// hetbench-comm (MPI) and hetbench-comm-nccl (NCCL and MPI): collective
// bandwidth over a message-size sweep, reported as nccl-tests does. Start
// it with the partition's launcher (mpirun, srun), one process per rank:
//
//   mpirun -np 2 hetbench-comm --op allreduce --min-bytes 8 --max-bytes 64M
//
// Exit status: 0, 1 (wrong results or a failed collective), 2 (bad flags,
// or no GPU for the NCCL backend).
#include <mpi.h>

#include <algorithm>
#include <string>

#include "comm/backend.h"
#include "comm/sweep.h"
#include "common/bench_util.h"

#ifndef HB_PROGRAM
#define HB_PROGRAM "hetbench-comm"
#endif

namespace {

std::string JoinNames(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Reads and checks the flags (before MPI_Init, so --help and bad flags work
// without a launcher).
hbcomm::SweepOptions ParseFlags(int argc, char** argv, std::string* backend) {
  hbw::Flags flags(HB_PROGRAM,
                   "Collective bandwidth over a message-size sweep (nccl-tests' time, algbw, busbw).\n"
                   "Run one process per rank, e.g. mpirun -np 2 " HB_PROGRAM " --op allreduce.");
  flags.Add("op", "allreduce", "allreduce, allgather, reduce_scatter, broadcast, or memcpy (rank-local copy)")
      .Add("backend", hbcomm::DefaultBackend(), "one of: " + JoinNames(hbcomm::BackendNames()))
      .Add("min-bytes", "8", "first size in bytes (suffixes K, M, G = 1024^n), as nccl-tests' -b")
      .Add("max-bytes", "64M", "last size, as nccl-tests' -e")
      .Add("factor", "2", "multiply the size by this each step, as nccl-tests' -f")
      .Add("iters", "20", "timed calls per size")
      .Add("warmup", "5", "untimed calls per size before the timed ones")
      .Add("dtype", "float", "element type (float)");
  flags.Parse(argc, argv);

  hbcomm::SweepOptions opt;
  opt.program = HB_PROGRAM;
  if (!hbcomm::ParseOp(flags.Str("op"), &opt.op))
    flags.Fail("--op: unknown operation '" + flags.Str("op") +
               "' (allreduce, allgather, reduce_scatter, broadcast, memcpy)");
  *backend = flags.Str("backend");
  auto names = hbcomm::BackendNames();
  if (std::find(names.begin(), names.end(), *backend) == names.end()) {
    std::string hint =
        *backend == "nccl" ? "; the NCCL backend is in hetbench-comm-nccl (built with HETBENCH_CUDA)" : "";
    flags.Fail("--backend: '" + *backend + "' is not one of " + JoinNames(names) + hint);
  }
  if (flags.Str("dtype") != "float") flags.Fail("--dtype: only 'float' is supported, got '" + flags.Str("dtype") + "'");
  if (!hbcomm::ParseSize(flags.Str("min-bytes"), &opt.min_bytes))
    flags.Fail("--min-bytes: expected a size such as 8, 512K or 64M, got '" + flags.Str("min-bytes") + "'");
  if (!hbcomm::ParseSize(flags.Str("max-bytes"), &opt.max_bytes))
    flags.Fail("--max-bytes: expected a size such as 8, 512K or 64M, got '" + flags.Str("max-bytes") + "'");
  if (opt.max_bytes < opt.min_bytes) flags.Fail("--max-bytes is smaller than --min-bytes");
  long factor = flags.Int("factor"), iters = flags.Int("iters"), warmup = flags.Int("warmup");
  if (factor < 2) flags.Fail("--factor: must be 2 or more, got " + std::to_string(factor));
  if (iters < 1) flags.Fail("--iters: must be 1 or more, got " + std::to_string(iters));
  if (warmup < 0) flags.Fail("--warmup: must be 0 or more, got " + std::to_string(warmup));
  opt.factor = static_cast<uint64_t>(factor);
  opt.iters = static_cast<int>(iters);
  opt.warmup = static_cast<int>(warmup);
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  std::string backend_name;
  hbcomm::SweepOptions opt = ParseFlags(argc, argv, &backend_name);

  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    std::fprintf(stderr, "%s: error: MPI_Init failed\n", HB_PROGRAM);
    return 1;
  }
  int rc;
  {
    std::string err;
    std::unique_ptr<hbcomm::Backend> backend = hbcomm::MakeBackend(backend_name, &err);
    if (backend) {
      rc = hbcomm::RunSweep(*backend, opt, stdout);
    } else {
      if (!err.empty()) std::fprintf(stderr, "%s: error: %s\n", HB_PROGRAM, err.c_str());
      rc = 2;
    }
  }
  MPI_Finalize();
  return rc;
}
