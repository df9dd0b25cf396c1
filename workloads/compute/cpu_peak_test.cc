#include "compute/cpu_peak.h"

#include <gtest/gtest.h>

namespace hbcompute {
namespace {

constexpr char kZen5[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel name\t: AMD EPYC 9555\n"
    "cpu MHz\t\t: 3200.000\nflags\t\t: fpu sse2 avx avx2 fma avx512f avx512_bf16\n\n"
    "processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu MHz\t\t: 1500.000\n";

TEST(CpuPeakTest, ParsesFirstProcessor) {
  CpuInfo cpu = ParseCpuInfo(kZen5, "x86_64");
  EXPECT_EQ(cpu.vendor, "AuthenticAMD");
  EXPECT_EQ(cpu.family, 26);
  EXPECT_EQ(cpu.model_name, "AMD EPYC 9555");
  EXPECT_DOUBLE_EQ(cpu.mhz, 3200.0);
  EXPECT_TRUE(cpu.flags.count("avx512f"));
  EXPECT_TRUE(HasBf16(cpu));
}

// 64 cores x 3.2 GHz x 64 FLOP/cycle = 13107.2 GFLOP/s.
TEST(CpuPeakTest, Rules) {
  CpuInfo zen5 = ParseCpuInfo(kZen5, "x86_64");
  EXPECT_EQ(Fp32FlopsPerCycle(zen5).flops_per_cycle, 64);
  Peak p = CpuPeak(zen5, 64, 3.2, "test");
  EXPECT_DOUBLE_EQ(p.gflops, 13107.2);
  EXPECT_NE(p.basis.find("64 cores x 3.200 GHz (test) x 64 FLOP/cycle"), std::string::npos);
  EXPECT_NE(p.basis.find("an estimate"), std::string::npos);

  CpuInfo zen4 = zen5;
  zen4.family = 25;
  EXPECT_EQ(Fp32FlopsPerCycle(zen4).flops_per_cycle, 32);
  CpuInfo intel = ParseCpuInfo("vendor_id : GenuineIntel\nflags : sse2 avx avx2 fma avx512f\n", "x86_64");
  EXPECT_EQ(Fp32FlopsPerCycle(intel).flops_per_cycle, 64);
  EXPECT_FALSE(HasBf16(intel));
  CpuInfo haswell = ParseCpuInfo("vendor_id : GenuineIntel\nflags : sse2 avx avx2 fma\n", "x86_64");
  EXPECT_EQ(Fp32FlopsPerCycle(haswell).flops_per_cycle, 32);
  CpuInfo sandy = ParseCpuInfo("flags : sse2 avx\n", "x86_64");
  EXPECT_EQ(Fp32FlopsPerCycle(sandy).flops_per_cycle, 16);
  CpuInfo arm = ParseCpuInfo("Features : fp asimd sve bf16\n", "aarch64");
  EXPECT_EQ(Fp32FlopsPerCycle(arm).flops_per_cycle, 32);
  EXPECT_TRUE(HasBf16(arm));
}

}  // namespace
}  // namespace hbcompute
