#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "compute/cuda_check.h"
#include "compute/gpu_kernels.h"
#include "compute/reference.h"

namespace hbcompute {

namespace {

bool Blas(cublasStatus_t s, const char* call, std::string* err) {
  if (s == CUBLAS_STATUS_SUCCESS) return true;
  *err = std::string(call) + ": " + cublasGetStatusString(s);
  return false;
}

// Device memory freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  bool Upload(const void* host, size_t bytes, std::string* err) {
    return Cuda(cudaMalloc(&p, bytes), "cudaMalloc", err) &&
           Cuda(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy", err);
  }
};

// A or B in the GEMM's input type on the device; `host` gets the values the
// GPU sees (rounded to fp16/bf16).
bool UploadOperand(const std::string& dtype, std::vector<float>* host, DeviceBuffer* dev, std::string* err) {
  *host = RoundTo(dtype, *host);
  if (dtype == "fp32") return dev->Upload(host->data(), host->size() * sizeof(float), err);
  std::vector<uint16_t> half(host->size());
  for (size_t i = 0; i < host->size(); ++i)
    half[i] = dtype == "bf16" ? FloatToBf16((*host)[i]) : FloatToHalf((*host)[i]);
  return dev->Upload(half.data(), half.size() * sizeof(uint16_t), err);
}

// One GEMM shape: upload, `warmup` + `iters` calls, download C, check
// `samples` elements (0: all). cuBLAS is column-major: row-major
// C = A*B is column-major C^T = B^T * A^T, so B goes first.
bool RunShape(cublasHandle_t h, const std::string& dtype, const GemmShape& s, int iters, int warmup, uint64_t samples,
              RunResult* out, std::string* err) {
  std::vector<float> a = RandomData(static_cast<size_t>(s.m * s.k), 1);
  std::vector<float> b = RandomData(static_cast<size_t>(s.k * s.n), 2);
  std::vector<float> c(static_cast<size_t>(s.m * s.n));
  DeviceBuffer da, db, dc;
  if (!UploadOperand(dtype, &a, &da, err) || !UploadOperand(dtype, &b, &db, err) ||
      !Cuda(cudaMalloc(&dc.p, c.size() * sizeof(float)), "cudaMalloc", err))
    return false;
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  const float alpha = 1, beta = 0;
  cudaDataType in = dtype == "bf16" ? CUDA_R_16BF : CUDA_R_16F;
  auto call = [&] {
    if (dtype == "fp32")
      return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, static_cast<float*>(db.p), n,
                         static_cast<float*>(da.p), k, &beta, static_cast<float*>(dc.p), n);
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, db.p, in, n, da.p, in, k, &beta, dc.p, CUDA_R_32F,
                        n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  bool ok = true;
  for (int i = 0; ok && i < warmup; ++i) ok = Blas(call(), "cublas GEMM", err);
  cudaEventRecord(start);
  for (int i = 0; ok && i < iters; ++i) ok = Blas(call(), "cublas GEMM", err);
  cudaEventRecord(stop);
  float ms = 0;
  ok = ok && Cuda(cudaEventSynchronize(stop), "cudaEventSynchronize", err) &&
       Cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime", err) &&
       Cuda(cudaMemcpy(c.data(), dc.p, c.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy", err);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!ok) return false;
  out->seconds = ms / 1e3 / iters;
  out->library = dtype == "fp32" ? "cublasSgemm" : "cublasGemmEx " + dtype + " in, fp32 out and compute";
  uint64_t checked = 0;
  out->mismatches += CheckGemm(s, a, b, c, Tolerance(dtype), samples, &checked);
  out->checked += checked;
  return true;
}

}  // namespace

bool CublasGemm(const std::string& dtype, const GemmShape& shape, int iters, int warmup, RunResult* out,
                std::string* err) {
  if (dtype != "fp32" && dtype != "fp16" && dtype != "bf16") {
    *err = "cuBLAS GEMM: unsupported dtype '" + dtype + "' (fp32, fp16, bf16)";
    return false;
  }
  cublasHandle_t h;
  if (!Blas(cublasCreate(&h), "cublasCreate", err)) return false;
  // cuBLAS's default math mode: no TF32 for fp32 (CUBLAS_DEFAULT_MATH).
  RunResult small;
  bool ok = RunShape(h, dtype, GemmShape{67, 45, 93}, 1, 0, 0, &small, err) &&
            RunShape(h, dtype, shape, iters, warmup, kCheckedSamples, out, err);
  cublasDestroy(h);
  out->checked += small.checked;
  out->mismatches += small.mismatches;
  return ok;
}

std::string CublasDescribe() {
  int v = 0;
  cublasGetProperty(MAJOR_VERSION, &v);
  std::string s = "cuBLAS " + std::to_string(v);
  cublasGetProperty(MINOR_VERSION, &v);
  s += "." + std::to_string(v);
  cublasGetProperty(PATCH_LEVEL, &v);
  return s + "." + std::to_string(v);
}

}  // namespace hbcompute
