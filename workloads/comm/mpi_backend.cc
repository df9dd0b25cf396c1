#include "comm/mpi_backend.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace hbcomm {

namespace {

// MPI counts are ints.
bool FitsInt(uint64_t n, std::string* err) {
  if (n <= static_cast<uint64_t>(INT_MAX)) return true;
  *err = "count " + std::to_string(n) + " is too large for MPI's int counts; lower --max-bytes";
  return false;
}

bool Check(int code, const char* call, std::string* err) {
  if (code == MPI_SUCCESS) return true;
  *err = std::string(call) + ": " + MpiError(code);
  return false;
}

}  // namespace

std::string MpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return "MPI error " + std::to_string(code) + ": " + std::string(text, len);
}

MpiBackend::MpiBackend() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  // Errors come back as return codes instead of aborting the job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

std::string MpiBackend::Describe() const {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  std::string v(version, len);
  size_t nl = v.find_first_of("\n,");
  return v.substr(0, nl);
}

bool MpiBackend::Upload(const std::vector<float>& send, const std::vector<float>& recv, std::string* err) {
  send_ = send;
  recv_ = recv;
  return true;
}

bool MpiBackend::Download(uint64_t count, std::vector<float>* recv, std::string* err) {
  recv->assign(recv_.begin(), recv_.begin() + static_cast<std::ptrdiff_t>(std::min<uint64_t>(count, recv_.size())));
  return true;
}

bool MpiBackend::Start(Op op, const Counts& c, std::string* err) {
  if (!FitsInt(c.send, err) || !FitsInt(c.recv, err)) return false;
  int n = static_cast<int>(c.param);
  float* s = send_.data();
  float* r = recv_.data();
  switch (op) {
    case Op::kAllReduce:
      return Check(MPI_Allreduce(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce", err);
    case Op::kAllGather:
      return Check(MPI_Allgather(s, n, MPI_FLOAT, r, n, MPI_FLOAT, MPI_COMM_WORLD), "MPI_Allgather", err);
    case Op::kReduceScatter:
      return Check(MPI_Reduce_scatter_block(s, r, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Reduce_scatter_block",
                   err);
    case Op::kBroadcast:  // in place: the root's data is in its receive buffer (RecvInit)
      return Check(MPI_Bcast(r, n, MPI_FLOAT, kRoot, MPI_COMM_WORLD), "MPI_Bcast", err);
    case Op::kMemcpy:
      std::memcpy(r, s, c.param * sizeof(float));
      return true;
  }
  return true;
}

void MpiBackend::Barrier() { MPI_Barrier(MPI_COMM_WORLD); }

double MpiBackend::MaxOverRanks(double x) {
  double out = x;
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

uint64_t MpiBackend::SumOverRanks(uint64_t x) {
  unsigned long long in = x, out = x;
  MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return out;
}

void MpiBackend::Abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; this tells the compiler so
}

bool MpiBackend::AllReady(bool ok, std::string* err) {
  int mine = ok ? nranks_ : rank_, first_failing = 0;
  MPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first_failing == nranks_) return true;
  if (first_failing != rank_) err->clear();
  return false;
}

}  // namespace hbcomm
