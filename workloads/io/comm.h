// The ranks of an hetbench-io run: one process, or MPI ranks when the
// program is built with MPI and run with --mpi 1 under mpirun. Each rank
// reads its shard; results are combined across ranks. Used by the main
// thread only.
#pragma once

#include <memory>
#include <string>

namespace hbw::io {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual double Sum(double v) = 0;
  virtual double Max(double v) = 0;
  virtual void Barrier() = 0;
  [[noreturn]] virtual void Abort(int code) = 0;
};

// A single-process Comm, or (mpi) the MPI world; null with *err when MPI is
// asked for but not built in.
std::unique_ptr<Comm> MakeComm(bool mpi, int* argc, char*** argv, std::string* err);

// The single-process Comm.
std::unique_ptr<Comm> SingleComm();

}  // namespace hbw::io
