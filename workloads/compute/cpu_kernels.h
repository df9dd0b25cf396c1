// The CPU libraries behind hetbench-compute: GEMM through OpenBLAS (or
// oneDNN's matmul for bf16) and convolution through oneDNN, timed and checked (see engine.h for what
// is timed and checked). Free functions; each call sets up and frees its
// own buffers. Not thread-safe (the libraries use all cores themselves).
#pragma once

#include <string>

#include "compute/engine.h"
#include "compute/flops.h"

namespace hbcompute {

// Row-major C = A * B through cblas_sgemm ("fp32") or cblas_sbgemm
// ("bf16": bf16 inputs, fp32 output; only when OpenblasHasBf16()).
bool OpenblasGemm(const std::string& dtype, const GemmShape& shape, int iters, int warmup, RunResult* out,
                  std::string* err);

// "OpenBLAS 0.3.21 (core Haswell, 2 threads)".
std::string OpenblasDescribe();
int OpenblasThreads();
// Whether this OpenBLAS exports cblas_sbgemm (built with BUILD_BFLOAT16=1).
bool OpenblasHasBf16();

// Row-major C = A * B with bf16 A and B and fp32 C through oneDNN's matmul
// primitive (plain row-major layouts, as BLAS takes them): bf16 GEMM where
// OpenBLAS has no cblas_sbgemm.
bool OnednnMatmulBf16(const GemmShape& shape, int iters, int warmup, RunResult* out, std::string* err);

// fp32 forward convolution through oneDNN's convolution_direct, in the
// memory layout oneDNN prefers (reorders from NCHW are not timed).
bool OnednnConv(const ConvShape& shape, int iters, int warmup, RunResult* out, std::string* err);
std::string OnednnDescribe();

}  // namespace hbcompute
