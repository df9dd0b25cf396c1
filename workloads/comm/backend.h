// A Backend runs the collectives of hetbench-comm over one group of ranks
// (all processes of MPI_COMM_WORLD), on a send and a receive buffer that it
// owns: host memory for MPI, GPU memory for NCCL. The sweep (sweep.h) fills
// and reads those buffers through host vectors, so data checks are the
// same for every backend. Host-side group operations (barrier, max and sum
// over ranks) go over MPI in every backend.
//
// One per process, made after MPI_Init and destroyed before MPI_Finalize;
// not thread-safe. Methods that can fail return false and set *err.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "comm/collective.h"

namespace hbcomm {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // A line for the output header: the library and devices in use.
  virtual std::string Describe() const = 0;
  virtual int rank() const = 0;
  virtual int nranks() const = 0;

  // Copies `send` and `recv` into the buffers, growing them when needed.
  virtual bool Upload(const std::vector<float>& send, const std::vector<float>& recv, std::string* err) = 0;
  // Copies the first `count` elements of the receive buffer out.
  virtual bool Download(uint64_t count, std::vector<float>* recv, std::string* err) = 0;
  // Starts one collective on the buffers (it may still be running on
  // return); Wait() returns once every started one has finished.
  virtual bool Start(Op op, const Counts& c, std::string* err) = 0;
  virtual bool Wait(std::string* err) = 0;

  virtual void Barrier() = 0;
  virtual double MaxOverRanks(double x) = 0;
  virtual uint64_t SumOverRanks(uint64_t x) = 0;
  // Ends every rank's process with `code`: for a failure on one rank that
  // would leave the others waiting in a collective.
  [[noreturn]] virtual void Abort(int code) = 0;
};

// The backends this program was built with ("mpi"; "mpi,nccl" in
// hetbench-comm-nccl), and the one it uses without --backend.
std::vector<std::string> BackendNames();
std::string DefaultBackend();

// Makes the named backend. Collective over MPI_COMM_WORLD: every rank calls
// it, and when any rank fails every rank gets nullptr; *err is the failing
// rank's message on the lowest failing rank and empty on the others, so the
// caller prints one message.
std::unique_ptr<Backend> MakeBackend(const std::string& name, std::string* err);

}  // namespace hbcomm
