// MakeComm for builds with MPI: the MPI world when --mpi 1.
#include <mpi.h>

#include <cstdlib>

#include "io/comm.h"

namespace hbw::io {
namespace {

class Mpi : public Comm {
 public:
  Mpi(int* argc, char*** argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~Mpi() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  double Sum(double v) override { return Reduce(v, MPI_SUM); }
  double Max(double v) override { return Reduce(v, MPI_MAX); }
  void Barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void Abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
  }

 private:
  static double Reduce(double v, MPI_Op op) {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
    return out;
  }
  int rank_ = 0, size_ = 1;
};

}  // namespace

std::unique_ptr<Comm> MakeComm(bool mpi, int* argc, char*** argv, std::string*) {
  if (!mpi) return SingleComm();
  return std::make_unique<Mpi>(argc, argv);
}

}  // namespace hbw::io
