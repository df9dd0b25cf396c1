// hetbench-compute (CPU: OpenBLAS, oneDNN) and hetbench-compute-cuda (GPU:
// cuBLAS, cuDNN): GEMM and convolution throughput against the device's
// fp32 peak, with results checked against naive loops.
//
//   hetbench-compute --gemm 2048 --dtype fp32,bf16 --conv resnet50-layer3 --batch 16
//
// Output (see docs/benchmarks/compute.md):
//   gemm_fp32: 812.3 GFLOP/s        one per --dtype that runs here
//   bf16: not supported by this CPU one per --dtype that does not
//   conv_fp32: 640.1 GFLOP/s
//   peak_fp32: 1433.6 GFLOP/s
//   peak_basis: 8 cores x ...       how the peak was obtained
//   efficiency: 56.7 %              gemm_fp32 (else conv_fp32) / peak_fp32
//   mismatches: 0
//   verification: OK                or FAILED
// Exit status: 0, 1 (a mismatch or a library failure), 2 (bad flags, or no
// GPU for hetbench-compute-cuda).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/bench_util.h"
#include "compute/engine.h"
#include "compute/flops.h"

#ifndef HB_PROGRAM
#define HB_PROGRAM "hetbench-compute"
#endif

namespace hbcompute {
namespace {

struct Options {
  bool gemm = true, conv = true;
  GemmShape gemm_shape;
  ConvShape conv_shape;
  std::vector<std::string> dtypes;  // empty: the engine's default
  int iters = 10, warmup = 2;
  double peak = 0;
};

Options ParseFlags(int argc, char** argv) {
  hbw::Flags flags(HB_PROGRAM, "GEMM and convolution throughput (GFLOP/s) against the fp32 peak, results verified.");
  flags.Add("gemm", "2048", "GEMM size: N (square) or M,N,K; 'none' to skip")
      .Add("dtype", "", "GEMM types, comma-separated: fp32, bf16, fp16 (GPU); default: all this device has")
      .Add("conv", "resnet50-layer3",
           "convolution: resnet50-conv1, resnet50-layer1..4, or N,C,H,W,K,R,S,stride,pad; 'none' to skip")
      .Add("batch", "16", "N for the named convolutions")
      .Add("iters", "10", "timed calls of each kernel")
      .Add("warmup", "2", "untimed calls before the timed ones")
      .Add("peak", "0", "the device's fp32 peak in GFLOP/s (0: estimate it from the hardware)");
  flags.Parse(argc, argv);

  Options o;
  std::string err;
  o.gemm = flags.Str("gemm") != "none";
  if (o.gemm && !ParseGemm(flags.Str("gemm"), &o.gemm_shape, &err)) flags.Fail("--gemm: " + err);
  o.conv = flags.Str("conv") != "none";
  long batch = flags.Int("batch");
  if (batch < 1) flags.Fail("--batch: must be 1 or more");
  if (o.conv && !ParseConv(flags.Str("conv"), batch, &o.conv_shape, &err)) flags.Fail("--conv: " + err);
  o.dtypes = flags.List("dtype");
  for (const auto& d : o.dtypes)
    if (d != "fp32" && d != "bf16" && d != "fp16") flags.Fail("--dtype: unknown type '" + d + "' (fp32, bf16, fp16)");
  o.iters = static_cast<int>(flags.Int("iters"));
  o.warmup = static_cast<int>(flags.Int("warmup"));
  if (o.iters < 1) flags.Fail("--iters: must be 1 or more");
  if (o.warmup < 0) flags.Fail("--warmup: must be 0 or more");
  o.peak = flags.Num("peak");
  if (o.peak < 0) flags.Fail("--peak: must be 0 (estimate) or a positive GFLOP/s figure");
  return o;
}

void PrintPeak(const Engine& engine, const Options& o, double achieved) {
  Peak peak = o.peak > 0 ? Peak{o.peak, "--peak"} : engine.DetectPeak();
  if (peak.gflops <= 0) {
    std::printf("# peak_fp32: unknown (pass --peak)\n");
    return;
  }
  hbw::Result("peak_fp32", peak.gflops, "GFLOP/s");
  std::printf("peak_basis: %s\n", peak.basis.c_str());
  if (achieved > 0) hbw::Result("efficiency", 100.0 * achieved / peak.gflops, "%");
}

[[noreturn]] void Die(const std::string& err) {
  std::fprintf(stderr, "%s: error: %s\n", HB_PROGRAM, err.c_str());
  std::exit(1);
}

// Prints one kernel's figure and its comment line; returns its GFLOP/s.
double Report(const std::string& what, const std::string& metric, double flops, const RunResult& r) {
  double gflops = flops / r.seconds / 1e9;
  std::printf("# %s (%s): %.6g s per call, %llu elements checked, %llu mismatches\n", what.c_str(), r.library.c_str(),
              r.seconds, static_cast<unsigned long long>(r.checked), static_cast<unsigned long long>(r.mismatches));
  hbw::Result(metric, gflops, "GFLOP/s");
  std::fflush(stdout);
  return gflops;
}

// Every GEMM type asked for; returns the fp32 GFLOP/s (0 if none ran).
double RunGemms(Engine& engine, const Options& o, uint64_t* mismatches) {
  double fp32 = 0;
  std::string err;
  for (const std::string& dtype : o.dtypes.empty() ? engine.DefaultDtypes() : o.dtypes) {
    std::string why = engine.Unsupported(dtype);
    if (!why.empty()) {
      std::printf("%s: %s\n", dtype.c_str(), why.c_str());
      continue;
    }
    RunResult r;
    if (!engine.Gemm(dtype, o.gemm_shape, o.iters, o.warmup, &r, &err)) Die(err);
    double gflops = Report("gemm " + dtype + " " + o.gemm_shape.str(), "gemm_" + dtype, GemmFlops(o.gemm_shape), r);
    if (dtype == "fp32") fp32 = gflops;
    *mismatches += r.mismatches;
  }
  return fp32;
}

double RunConv(Engine& engine, const Options& o, uint64_t* mismatches) {
  RunResult r;
  std::string err;
  if (!engine.Conv(o.conv_shape, o.iters, o.warmup, &r, &err)) Die(err);
  *mismatches += r.mismatches;
  std::string name = o.conv_shape.name.empty() ? "explicit" : o.conv_shape.name;
  return Report("conv " + name + " " + o.conv_shape.str(), "conv_fp32", ConvFlops(o.conv_shape), r);
}

int Run(const Options& o) {
  std::string err;
  std::unique_ptr<Engine> engine = MakeEngine(&err);
  if (!engine) {
    std::fprintf(stderr, "%s: error: %s\n", HB_PROGRAM, err.c_str());
    return 2;
  }
  std::printf("# %s: %s\n", HB_PROGRAM, engine->Describe().c_str());
  std::fflush(stdout);
  uint64_t mismatches = 0;
  double gemm_fp32 = o.gemm ? RunGemms(*engine, o, &mismatches) : 0;
  double conv_fp32 = o.conv ? RunConv(*engine, o, &mismatches) : 0;
  PrintPeak(*engine, o, gemm_fp32 > 0 ? gemm_fp32 : conv_fp32);
  std::printf("mismatches: %llu\n", static_cast<unsigned long long>(mismatches));
  std::printf("verification: %s\n", mismatches ? "FAILED" : "OK");
  return mismatches ? 1 : 0;
}

}  // namespace
}  // namespace hbcompute

int main(int argc, char** argv) { return hbcompute::Run(hbcompute::ParseFlags(argc, argv)); }
