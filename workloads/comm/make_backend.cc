// The backends of hetbench-comm (CPU-only build): MPI.
#include <memory>

#include "comm/backend.h"
#include "comm/mpi_backend.h"

namespace hbcomm {

std::vector<std::string> BackendNames() { return {"mpi"}; }
std::string DefaultBackend() { return "mpi"; }

std::unique_ptr<Backend> MakeBackend(const std::string& name, std::string* err) {
  return std::make_unique<MpiBackend>();
}

}  // namespace hbcomm
