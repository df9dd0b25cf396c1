// The C API only: without these, Open MPI's mpi.h pulls in its C++ bindings
// (libmpi_cxx), which hetbench does not link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>

#include "train/dist.h"

namespace hbw::train {

namespace {

// MPI counts are ints: larger buffers go in chunks.
constexpr size_t kMaxCount = INT_MAX / 2;

class MpiComm : public Comm {
 public:
  MpiComm(int* argc, char*** argv) {
    int provided = 0;
    // MULTIPLE where MPI grants it: on a GPU, autograd runs the gradient
    // hooks that start the bucket sums on its device thread.
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    multiple_ = provided >= MPI_THREAD_MULTIPLE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_size(node, &local_size_);
    MPI_Comm_free(&node);
    int leader = local_rank_ == 0 ? 1 : 0;
    MPI_Allreduce(&leader, &nodes_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  ~MpiComm() override { MPI_Finalize(); }

  std::string name() const override { return "mpi"; }
  bool thread_multiple() const override { return multiple_; }

  void StartSum(float* data, size_t n) override {
    for (size_t off = 0; off < n; off += kMaxCount) {
      reqs_.emplace_back();
      MPI_Iallreduce(MPI_IN_PLACE, data + off, static_cast<int>(std::min(kMaxCount, n - off)), MPI_FLOAT, MPI_SUM,
                     MPI_COMM_WORLD, &reqs_.back());
    }
  }
  void Sum(float* data, size_t n) override {
    for (size_t off = 0; off < n; off += kMaxCount)
      MPI_Allreduce(MPI_IN_PLACE, data + off, static_cast<int>(std::min(kMaxCount, n - off)), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
  }
  void Progress() override {
    if (reqs_.empty()) return;
    int done = 0;
    MPI_Testall(static_cast<int>(reqs_.size()), reqs_.data(), &done, MPI_STATUSES_IGNORE);
    if (done) reqs_.clear();
  }
  void WaitAll() override {
    MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
    reqs_.clear();
  }
  void AllreduceSum(double* values, size_t n) override {
    MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  void AllreduceMax(double* values, size_t n) override {
    MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(n), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  void Broadcast(void* data, size_t bytes) override {
    char* p = static_cast<char*>(data);
    for (size_t off = 0; off < bytes; off += kMaxCount)
      MPI_Bcast(p + off, static_cast<int>(std::min(kMaxCount, bytes - off)), MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  std::vector<uint64_t> Allgather(uint64_t value) override {
    std::vector<uint64_t> all(static_cast<size_t>(size_));
    MPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    return all;
  }
  void Barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void Abort(int code) override {
    std::fflush(stdout);
    std::fflush(stderr);
    if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
    MPI_Finalize();
    std::exit(code);
  }

 private:
  bool multiple_ = false;
  std::vector<MPI_Request> reqs_;  // started sums, in start order
};

}  // namespace

std::unique_ptr<Comm> InitComm(int* argc, char*** argv) { return std::make_unique<MpiComm>(argc, argv); }

}  // namespace hbw::train
