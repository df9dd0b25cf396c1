// An Engine runs hetbench-compute's GEMMs and convolutions on one kind of
// device: the CPU through OpenBLAS and oneDNN (hetbench-compute), or an
// NVIDIA GPU through cuBLAS and cuDNN (hetbench-compute-cuda). Each run
// times `iters` calls after `warmup` untimed ones and checks results
// against the naive loops of reference.h: a small GEMM in full through the
// same library call, and evenly spread samples of the timed result.
//
// One per process; not thread-safe. Failing methods return false and set
// *err.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compute/cpu_peak.h"
#include "compute/flops.h"

namespace hbcompute {

struct RunResult {
  std::string library;      // the call measured, e.g. "OpenBLAS cblas_sgemm"
  double seconds = 0;       // mean per call
  uint64_t checked = 0;     // elements compared with the reference
  uint64_t mismatches = 0;  // of those, the ones that failed
};

class Engine {
 public:
  virtual ~Engine() = default;
  // One line for the output header: library versions and the device.
  virtual std::string Describe() const = 0;
  // The GEMM types run without --dtype, e.g. {"fp32", "bf16"}.
  virtual std::vector<std::string> DefaultDtypes() const = 0;
  // "" when GEMMs of `dtype` can run here, else why not
  // ("not supported by this CPU").
  virtual std::string Unsupported(const std::string& dtype) const = 0;
  virtual bool Gemm(const std::string& dtype, const GemmShape& shape, int iters, int warmup, RunResult* out,
                    std::string* err) = 0;
  // fp32 convolution.
  virtual bool Conv(const ConvShape& shape, int iters, int warmup, RunResult* out, std::string* err) = 0;
  // The device's fp32 peak, estimated; gflops 0 when unknown.
  virtual Peak DetectPeak() const = 0;
};

// The engine of this program; nullptr and *err when its device is missing
// (no GPU for hetbench-compute-cuda).
std::unique_ptr<Engine> MakeEngine(std::string* err);

}  // namespace hbcompute
