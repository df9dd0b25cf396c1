// The GPU libraries behind hetbench-compute-cuda: GEMM through cuBLAS and
// convolution through cuDNN on the current CUDA device, timed with CUDA
// events and checked (see engine.h). Free functions; each call sets up and
// frees its own handles and buffers. Not thread-safe.
#pragma once

#include <string>

#include "compute/engine.h"
#include "compute/flops.h"

namespace hbcompute {

struct GpuDevice {
  int index = 0;
  std::string name;
  int sms = 0, major = 0, minor = 0;
  double clock_ghz = 0;
};
// Selects the first visible GPU. No GPU (or no driver) is an error that
// says so.
bool OpenGpu(GpuDevice* dev, std::string* err);

// Row-major C = A * B, fp32 output: cublasSgemm ("fp32", no TF32), or
// cublasGemmEx with fp16 or bf16 inputs and fp32 accumulation ("fp16",
// "bf16").
bool CublasGemm(const std::string& dtype, const GemmShape& shape, int iters, int warmup, RunResult* out,
                std::string* err);
std::string CublasDescribe();

// fp32 forward convolution through cuDNN, NCHW: the fastest algorithm that
// cudnnFindConvolutionForwardAlgorithm measures with CUDNN_FMA_MATH (true
// fp32, no TF32), else the fastest of any math type; out->library names it.
bool CudnnConv(const ConvShape& shape, int iters, int warmup, RunResult* out, std::string* err);
std::string CudnnDescribe();

}  // namespace hbcompute
