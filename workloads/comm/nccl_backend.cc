#include "comm/nccl_backend.h"

#include <mpi.h>

#include <algorithm>

namespace hbcomm {

namespace {

bool Cuda(cudaError_t e, const char* call, std::string* err) {
  if (e == cudaSuccess) return true;
  *err = std::string(call) + ": " + cudaGetErrorString(e);
  return false;
}

bool Nccl(ncclResult_t r, const char* call, std::string* err) {
  if (r == ncclSuccess) return true;
  *err = std::string(call) + ": " + ncclGetErrorString(r);
  return false;
}

}  // namespace

NcclBackend::~NcclBackend() {
  if (comm_) ncclCommDestroy(comm_);
  if (stream_) cudaStreamDestroy(stream_);
  if (send_) cudaFree(send_);
  if (recv_) cudaFree(recv_);
}

// The rank's index among the ranks on its node selects the GPU; NCCL
// refuses two ranks on one GPU, so more ranks than GPUs is an error here.
bool NcclBackend::FindDevice(std::string* err) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);

  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    *err = std::string("no usable GPU (cudaGetDeviceCount: ") +
           (e == cudaSuccess ? "0 devices" : cudaGetErrorString(e)) +
           "); hetbench-comm-nccl runs on GPU nodes, hetbench-comm measures MPI on CPUs";
    return false;
  }
  if (local_size > count) {
    *err = std::to_string(local_size) + " ranks on this node but " + std::to_string(count) +
           " GPU(s); NCCL needs one GPU per rank";
    return false;
  }
  device_ = local_rank;
  cudaDeviceProp prop;
  if (!Cuda(cudaSetDevice(device_), "cudaSetDevice", err) ||
      !Cuda(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties", err))
    return false;
  device_name_ = prop.name;
  return Cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate", err);
}

bool NcclBackend::Init(std::string* err) {
  if (!AllReady(FindDevice(err), err)) return false;
  ncclUniqueId id;
  bool ok = rank_ != 0 || Nccl(ncclGetUniqueId(&id), "ncclGetUniqueId", err);
  if (!AllReady(ok, err)) return false;
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ok = Nccl(ncclCommInitRank(&comm_, nranks_, id, rank_), "ncclCommInitRank", err);
  return AllReady(ok, err);
}

std::string NcclBackend::Describe() const {
  int v = 0;
  ncclGetVersion(&v);
  // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9.
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         ", rank 0 on GPU " + std::to_string(device_) + " (" + device_name_ + ")";
}

bool NcclBackend::Grow(float** buf, uint64_t* cap, uint64_t n, std::string* err) {
  if (n <= *cap && *buf) return true;
  if (*buf) cudaFree(*buf);
  *buf = nullptr;
  *cap = 0;
  if (!Cuda(cudaMalloc(reinterpret_cast<void**>(buf), std::max<uint64_t>(n, 1) * sizeof(float)), "cudaMalloc", err))
    return false;
  *cap = n;
  return true;
}

// The copies go on the collectives' stream and are waited for: a
// cudaMemcpy from pageable memory may return before its data reaches the
// device, and the non-blocking stream would not wait for it.
bool NcclBackend::Upload(const std::vector<float>& send, const std::vector<float>& recv, std::string* err) {
  return Grow(&send_, &send_cap_, send.size(), err) && Grow(&recv_, &recv_cap_, recv.size(), err) &&
         Cuda(cudaMemcpyAsync(send_, send.data(), send.size() * sizeof(float), cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync", err) &&
         Cuda(cudaMemcpyAsync(recv_, recv.data(), recv.size() * sizeof(float), cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync", err) &&
         Cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", err);
}

bool NcclBackend::Download(uint64_t count, std::vector<float>* recv, std::string* err) {
  recv->resize(std::min(count, recv_cap_));
  return Cuda(cudaMemcpyAsync(recv->data(), recv_, recv->size() * sizeof(float), cudaMemcpyDeviceToHost, stream_),
              "cudaMemcpyAsync", err) &&
         Cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", err);
}

bool NcclBackend::Start(Op op, const Counts& c, std::string* err) {
  size_t n = c.param;
  switch (op) {
    case Op::kAllReduce:
      return Nccl(ncclAllReduce(send_, recv_, n, ncclFloat, ncclSum, comm_, stream_), "ncclAllReduce", err);
    case Op::kAllGather:
      return Nccl(ncclAllGather(send_, recv_, n, ncclFloat, comm_, stream_), "ncclAllGather", err);
    case Op::kReduceScatter:
      return Nccl(ncclReduceScatter(send_, recv_, n, ncclFloat, ncclSum, comm_, stream_), "ncclReduceScatter", err);
    case Op::kBroadcast:
      return Nccl(ncclBroadcast(send_, recv_, n, ncclFloat, kRoot, comm_, stream_), "ncclBroadcast", err);
    case Op::kMemcpy:
      return Cuda(cudaMemcpyAsync(recv_, send_, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_),
                  "cudaMemcpyAsync", err);
  }
  return true;
}

bool NcclBackend::Wait(std::string* err) {
  if (!Cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize", err)) return false;
  ncclResult_t async = ncclSuccess;
  return Nccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError", err) &&
         Nccl(async, "NCCL (asynchronous error)", err);
}

}  // namespace hbcomm
