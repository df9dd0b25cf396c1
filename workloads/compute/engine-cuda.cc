// hetbench-compute-cuda's engine: the first visible NVIDIA GPU, through
// cuBLAS (GEMM) and cuDNN (convolution).
#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>

#include "compute/cuda_check.h"
#include "compute/engine.h"
#include "compute/gpu_kernels.h"
#include "compute/gpu_peak.h"

namespace hbcompute {

namespace {

class GpuEngine : public Engine {
 public:
  explicit GpuEngine(GpuDevice dev) : dev_(std::move(dev)) {}

  std::string Describe() const override {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s (GPU %d, sm_%d%d, %d SMs, %.3f GHz); ", dev_.name.c_str(), dev_.index,
                  dev_.major, dev_.minor, dev_.sms, dev_.clock_ghz);
    return buf + CublasDescribe() + "; " + CudnnDescribe();
  }
  std::vector<std::string> DefaultDtypes() const override { return {"fp32", "fp16", "bf16"}; }
  std::string Unsupported(const std::string& dtype) const override {
    if (dtype == "bf16" && dev_.major < 8) return "not supported by this GPU (bf16 needs compute capability 8.0)";
    return "";
  }
  bool Gemm(const std::string& dtype, const GemmShape& shape, int iters, int warmup, RunResult* out,
            std::string* err) override {
    return CublasGemm(dtype, shape, iters, warmup, out, err);
  }
  bool Conv(const ConvShape& shape, int iters, int warmup, RunResult* out, std::string* err) override {
    return CudnnConv(shape, iters, warmup, out, err);
  }
  Peak DetectPeak() const override { return GpuPeak(dev_.sms, dev_.clock_ghz, dev_.major, dev_.minor); }

 private:
  GpuDevice dev_;
};

}  // namespace

bool OpenGpu(GpuDevice* dev, std::string* err) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    *err = std::string("no usable GPU (cudaGetDeviceCount: ") +
           (e == cudaSuccess ? "0 devices" : cudaGetErrorString(e)) +
           "); hetbench-compute-cuda runs on GPU nodes, hetbench-compute measures CPUs";
    return false;
  }
  cudaDeviceProp prop;
  int khz = 0;
  if (!Cuda(cudaSetDevice(0), "cudaSetDevice", err) ||
      !Cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties", err) ||
      !Cuda(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "cudaDeviceGetAttribute", err))
    return false;
  *dev = GpuDevice{0, prop.name, prop.multiProcessorCount, prop.major, prop.minor, khz / 1e6};
  return true;
}

std::unique_ptr<Engine> MakeEngine(std::string* err) {
  GpuDevice dev;
  if (!OpenGpu(&dev, err)) return nullptr;
  return std::make_unique<GpuEngine>(dev);
}

}  // namespace hbcompute
