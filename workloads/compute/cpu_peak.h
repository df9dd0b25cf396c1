// A CPU's theoretical fp32 peak, estimated from /proc/cpuinfo when the
// partition does not give one (hetbench-compute --peak):
//
//   peak = cores x clock x FP32 FLOPs per cycle per core
//
// FLOPs per cycle come from the widest SIMD the CPU reports (rules below,
// each a count of FMA units x lanes x 2); the clock is the base frequency
// when the kernel exposes it (cpufreq base_frequency), else the maximum
// (cpuinfo_max_freq), else /proc/cpuinfo's current "cpu MHz". Units per
// core vary inside one ISA (some Xeon Silver parts have one AVX-512 FMA
// unit, Zen 4 runs AVX-512 on 256-bit units), so the result is always an
// estimate, and says so; pass the vendor's figure with --peak for a real one.
//
// Parsing is pure (tested on sample text); ReadCpuInfo() reads the machine.
#pragma once

#include <set>
#include <string>

namespace hbcompute {

struct CpuInfo {
  std::string arch;             // "x86_64", "aarch64", ... (uname)
  std::string vendor;           // vendor_id: "GenuineIntel", "AuthenticAMD"
  std::string model_name;       // "model name"
  int family = 0;               // "cpu family"
  double mhz = 0;               // "cpu MHz" of the first processor
  std::set<std::string> flags;  // "flags" (x86) or "Features" (Arm)
};

// The first processor block of /proc/cpuinfo text.
CpuInfo ParseCpuInfo(const std::string& text, const std::string& arch);

// FP32 FLOPs per cycle per core and the rule that gave them, e.g.
// {64, "avx512: 2 FMA units x 16 lanes x 2"}.
struct SimdRule {
  int flops_per_cycle = 0;
  std::string rule;
};
SimdRule Fp32FlopsPerCycle(const CpuInfo& cpu);

// Whether the CPU does bf16 arithmetic in hardware (avx512_bf16 or
// amx_bf16 on x86, bf16 on Arm).
bool HasBf16(const CpuInfo& cpu);

struct Peak {
  double gflops = 0;
  std::string basis;  // how it was computed, for the output
};
// cores x ghz x Fp32FlopsPerCycle(cpu); `clock_source` names where the
// clock came from.
Peak CpuPeak(const CpuInfo& cpu, int cores, double ghz, const std::string& clock_source);

// This machine: /proc/cpuinfo and uname.
CpuInfo ReadCpuInfo();
// This machine's clock in GHz and where it came from (see above); 0 if none.
double ReadClockGhz(const CpuInfo& cpu, std::string* source);
// Physical cores that `threads` threads occupy on this machine: at most the
// cores of the CPUs this process may run on (SMT siblings counted once).
int CoresForThreads(int threads);

}  // namespace hbcompute
