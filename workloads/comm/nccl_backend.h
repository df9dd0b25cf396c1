// NcclBackend: the collectives through NCCL on GPU memory, one GPU per rank
// (the rank's index among the ranks of its node picks the device). MPI
// starts the ranks, carries NCCL's unique id from rank 0 to the others, and
// does the host-side group operations (inherited from MpiBackend).
// Operations are enqueued on one CUDA stream; Wait() synchronises it, as
// nccl-tests' completeColl() does. Only in hetbench-comm-nccl (built with
// HETBENCH_CUDA). See backend.h for ownership and threading.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <vector>

#include "comm/mpi_backend.h"

namespace hbcomm {

class NcclBackend : public MpiBackend {
 public:
  NcclBackend() = default;
  ~NcclBackend() override;
  // Collective: finds this rank's GPU and makes the communicator. A machine
  // without a usable GPU is an error that says so.
  bool Init(std::string* err);

  std::string name() const override { return "nccl"; }
  std::string Describe() const override;
  bool Upload(const std::vector<float>& send, const std::vector<float>& recv, std::string* err) override;
  bool Download(uint64_t count, std::vector<float>* recv, std::string* err) override;
  bool Start(Op op, const Counts& c, std::string* err) override;
  bool Wait(std::string* err) override;

 private:
  bool FindDevice(std::string* err);
  bool Grow(float** buf, uint64_t* cap, uint64_t n, std::string* err);

  int device_ = -1;
  std::string device_name_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  float* send_ = nullptr;
  float* recv_ = nullptr;
  uint64_t send_cap_ = 0, recv_cap_ = 0;
};

}  // namespace hbcomm
