// hetbench-compute's engine: the CPU, through OpenBLAS (GEMM; bf16 through
// oneDNN's matmul when this OpenBLAS lacks cblas_sbgemm) and oneDNN
// (convolution).
#include <memory>

#include "compute/cpu_kernels.h"
#include "compute/engine.h"

namespace hbcompute {

namespace {

class CpuEngine : public Engine {
 public:
  CpuEngine() : cpu_(ReadCpuInfo()) {}

  std::string Describe() const override {
    return (cpu_.model_name.empty() ? cpu_.arch : cpu_.model_name) + "; " + OpenblasDescribe() + "; " +
           OnednnDescribe();
  }
  std::vector<std::string> DefaultDtypes() const override { return {"fp32", "bf16"}; }
  std::string Unsupported(const std::string& dtype) const override {
    if (dtype == "fp32") return "";
    if (dtype == "bf16") return HasBf16(cpu_) ? "" : "not supported by this CPU";
    return "not supported on CPUs by hetbench-compute (fp32, bf16)";
  }
  bool Gemm(const std::string& dtype, const GemmShape& shape, int iters, int warmup, RunResult* out,
            std::string* err) override {
    if (dtype == "bf16" && !OpenblasHasBf16()) return OnednnMatmulBf16(shape, iters, warmup, out, err);
    return OpenblasGemm(dtype, shape, iters, warmup, out, err);
  }
  bool Conv(const ConvShape& shape, int iters, int warmup, RunResult* out, std::string* err) override {
    return OnednnConv(shape, iters, warmup, out, err);
  }
  // The cores OpenBLAS's threads occupy.
  Peak DetectPeak() const override {
    std::string source;
    double ghz = ReadClockGhz(cpu_, &source);
    if (ghz <= 0) return Peak{};
    return CpuPeak(cpu_, CoresForThreads(OpenblasThreads()), ghz, source);
  }

 private:
  CpuInfo cpu_;
};

}  // namespace

std::unique_ptr<Engine> MakeEngine(std::string* err) { return std::make_unique<CpuEngine>(); }

}  // namespace hbcompute
