// What the cuBLAS and cuDNN paths of hetbench-compute-cuda share: turning a
// CUDA runtime error into the message the program prints, and how many
// output elements each run checks against the CPU reference.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace hbcompute {

inline constexpr uint64_t kCheckedSamples = 512;

// True on success; else *err = "CALL: CUDA's message".
inline bool Cuda(cudaError_t e, const char* call, std::string* err) {
  if (e == cudaSuccess) return true;
  *err = std::string(call) + ": " + cudaGetErrorString(e);
  return false;
}

}  // namespace hbcompute
