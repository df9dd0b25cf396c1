// MpiBackend: the collectives through MPI on host memory
// (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast from
// rank 0, memcpy), float sums. It also provides the host-side group
// operations that NcclBackend inherits. See backend.h for ownership and
// threading.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "comm/backend.h"

namespace hbcomm {

class MpiBackend : public Backend {
 public:
  MpiBackend();
  std::string name() const override { return "mpi"; }
  std::string Describe() const override;
  int rank() const override { return rank_; }
  int nranks() const override { return nranks_; }

  bool Upload(const std::vector<float>& send, const std::vector<float>& recv, std::string* err) override;
  bool Download(uint64_t count, std::vector<float>* recv, std::string* err) override;
  bool Start(Op op, const Counts& c, std::string* err) override;
  bool Wait(std::string* err) override { return true; }  // MPI calls block

  void Barrier() override;
  double MaxOverRanks(double x) override;
  uint64_t SumOverRanks(uint64_t x) override;
  [[noreturn]] void Abort(int code) override;

  // Every rank passes whether it is ready and its error; returns whether all
  // are. On failure *err is kept on the lowest failing rank only.
  bool AllReady(bool ok, std::string* err);

 protected:
  int rank_ = 0, nranks_ = 1;

 private:
  std::vector<float> send_, recv_;
};

// "MPI error N: text" for an MPI return code.
std::string MpiError(int code);

}  // namespace hbcomm
