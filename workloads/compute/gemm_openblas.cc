#include <cblas.h>
#include <dlfcn.h>

#include <cstdint>
#include <vector>

#include "common/bench_util.h"
#include "compute/cpu_kernels.h"
#include "compute/reference.h"

namespace hbcompute {

namespace {

// The elements of the timed result compared with the naive loop.
constexpr uint64_t kSamples = 512;

// OpenBLAS's cblas.h declares cblas_sbgemm, but only builds with
// BUILD_BFLOAT16=1 export it (Debian 12's 0.3.21 does not), so it is looked
// up at run time.
using SbgemmFn = void (*)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint, blasint,
                          float, const bfloat16*, blasint, const bfloat16*, blasint, float, float*, blasint);
SbgemmFn Sbgemm() {
  static SbgemmFn fn = reinterpret_cast<SbgemmFn>(dlsym(RTLD_DEFAULT, "cblas_sbgemm"));
  return fn;
}

// A/B in the type OpenBLAS takes, and one call C = A * B.
struct Operands {
  std::string dtype;
  GemmShape s;
  std::vector<float> a, b, c;      // fp32 values (bf16-rounded for bf16)
  std::vector<bfloat16> a16, b16;  // bf16 only

  Operands(const std::string& type, const GemmShape& shape) : dtype(type), s(shape) {
    a = RoundTo(dtype, RandomData(static_cast<size_t>(s.m * s.k), 1));
    b = RoundTo(dtype, RandomData(static_cast<size_t>(s.k * s.n), 2));
    c.assign(static_cast<size_t>(s.m * s.n), 0.0f);
    if (dtype == "bf16") {
      for (float x : a) a16.push_back(FloatToBf16(x));
      for (float x : b) b16.push_back(FloatToBf16(x));
    }
  }
  void Call() {
    const blasint m = static_cast<blasint>(s.m), n = static_cast<blasint>(s.n), k = static_cast<blasint>(s.k);
    if (dtype == "bf16")
      Sbgemm()(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a16.data(), k, b16.data(), n, 0.0f, c.data(),
               n);
    else
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(),
                  n);
  }
  uint64_t Check(uint64_t samples, uint64_t* checked) const {
    return CheckGemm(s, a, b, c, Tolerance(dtype), samples, checked);
  }
};

}  // namespace

bool OpenblasGemm(const std::string& dtype, const GemmShape& shape, int iters, int warmup, RunResult* out,
                  std::string* err) {
  if (dtype != "fp32" && (dtype != "bf16" || !OpenblasHasBf16())) {
    *err = "OpenBLAS GEMM: unsupported dtype '" + dtype + "' (fp32" + (OpenblasHasBf16() ? ", bf16)" : ")");
    return false;
  }
  out->library = dtype == "fp32" ? "OpenBLAS cblas_sgemm" : "OpenBLAS cblas_sbgemm";
  // A small, oddly shaped GEMM in full: catches transposes and strides.
  Operands small(dtype, GemmShape{67, 45, 93});
  small.Call();
  uint64_t small_checked = 0;
  out->mismatches = small.Check(0, &small_checked);

  Operands big(dtype, shape);
  for (int i = 0; i < warmup; ++i) big.Call();
  double t0 = hbw::Now();
  for (int i = 0; i < iters; ++i) big.Call();
  out->seconds = (hbw::Now() - t0) / iters;
  uint64_t big_checked = 0;
  out->mismatches += big.Check(kSamples, &big_checked);
  out->checked = small_checked + big_checked;
  return true;
}

std::string OpenblasDescribe() {
  return std::string(openblas_get_config()) + " (core " + openblas_get_corename() + ", " +
         std::to_string(openblas_get_num_threads()) + " threads)";
}

int OpenblasThreads() { return openblas_get_num_threads(); }

bool OpenblasHasBf16() { return Sbgemm() != nullptr; }

}  // namespace hbcompute
