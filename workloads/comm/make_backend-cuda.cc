// The backends of hetbench-comm-nccl (HETBENCH_CUDA build): NCCL, and MPI
// for comparison on the same nodes.
#include <memory>

#include "comm/backend.h"
#include "comm/mpi_backend.h"
#include "comm/nccl_backend.h"

namespace hbcomm {

std::vector<std::string> BackendNames() { return {"nccl", "mpi"}; }
std::string DefaultBackend() { return "nccl"; }

std::unique_ptr<Backend> MakeBackend(const std::string& name, std::string* err) {
  if (name == "mpi") return std::make_unique<MpiBackend>();
  auto nccl = std::make_unique<NcclBackend>();
  if (!nccl->Init(err)) return nullptr;
  return nccl;
}

}  // namespace hbcomm
