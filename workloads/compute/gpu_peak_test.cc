#include "compute/gpu_peak.h"

#include <gtest/gtest.h>

namespace hbcompute {
namespace {

// H200: 132 SMs x 1.98 GHz x 128 x 2 = 66908.16 GFLOP/s.
TEST(GpuPeakTest, Hopper) {
  EXPECT_DOUBLE_EQ(GpuPeak(132, 1.98, 9, 0).gflops, 66908.16);
  EXPECT_EQ(Fp32LanesPerSm(8, 0), 64);  // A100: 108 x 1.41 x 64 x 2 = 19.5 TFLOP/s
  EXPECT_EQ(Fp32LanesPerSm(8, 6), 128);
  EXPECT_EQ(Fp32LanesPerSm(3, 5), 0);
  EXPECT_NE(GpuPeak(10, 1.0, 3, 5).basis.find("a guess"), std::string::npos);
}

}  // namespace
}  // namespace hbcompute
