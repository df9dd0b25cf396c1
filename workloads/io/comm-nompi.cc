// MakeComm for builds without MPI.
#include "io/comm.h"

namespace hbw::io {

std::unique_ptr<Comm> MakeComm(bool mpi, int*, char***, std::string* err) {
  if (!mpi) return SingleComm();
  *err = "--mpi 1: this hetbench-io was built without MPI (configure with an MPI installed)";
  return nullptr;
}

}  // namespace hbw::io
