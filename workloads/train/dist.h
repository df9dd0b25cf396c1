// The data-parallel communicator of hetbench-train: MPI when the program is
// built with it (dist-mpi.cc, one rank per process under mpirun or srun;
// a single process started without a launcher is one rank), else one rank
// (dist-local.cc).
//
// Only the thread that created the Comm may call it (MPI_THREAD_FUNNELED),
// unless thread_multiple() says MPI granted MPI_THREAD_MULTIPLE. Every call
// is collective: all ranks make the same calls in the same order.
// A failed MPI call aborts the whole job with the error (MPI's default error
// handler), since a rank cannot continue alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hbw::train {

class Comm {
 public:
  virtual ~Comm() = default;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Rank and rank count on this node (MPI_COMM_TYPE_SHARED), and nodes.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }
  int nodes() const { return nodes_; }
  // "mpi" or "local".
  virtual std::string name() const = 0;

  // Whether any thread may call the Comm (MPI_THREAD_MULTIPLE granted).
  virtual bool thread_multiple() const { return false; }

  // Non-blocking sums, as DistributedDataParallel's buckets: StartSum
  // begins summing `n` floats over all ranks in place (MPI_Iallreduce) and
  // returns at once; Progress lets the started sums move on (MPI_Testall;
  // Open MPI moves a non-blocking collective only inside MPI calls);
  // WaitAll returns when every started sum is done. The buffer must stay
  // untouched until then. For one rank all three do nothing.
  virtual void StartSum(float* data, size_t n) = 0;
  // The same sum, blocking (MPI_Allreduce: MPI's tuned algorithms, which
  // its non-blocking collectives do not all have).
  virtual void Sum(float* data, size_t n) = 0;
  virtual void Progress() = 0;
  virtual void WaitAll() = 0;
  // Sums each buffer over all ranks, in place, all in flight together.
  void AllreduceSum(const std::vector<std::pair<float*, size_t>>& buffers) {
    for (const auto& [data, n] : buffers) StartSum(data, n);
    WaitAll();
  }
  virtual void AllreduceSum(double* values, size_t n) = 0;
  virtual void AllreduceMax(double* values, size_t n) = 0;
  // Copies rank 0's bytes to every rank.
  virtual void Broadcast(void* data, size_t bytes) = 0;
  // Every rank's value, in rank order.
  virtual std::vector<uint64_t> Allgather(uint64_t value) = 0;
  virtual void Barrier() = 0;
  // Ends every rank's process with this exit code.
  [[noreturn]] virtual void Abort(int code) = 0;

 protected:
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, nodes_ = 1;
};

// Starts the communicator (MPI_Init_thread under MPI). One per process.
std::unique_ptr<Comm> InitComm(int* argc, char*** argv);

}  // namespace hbw::train
