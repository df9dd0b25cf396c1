// OpenBLAS's GEMM against the naive loop (through the same function the
// benchmark times), and oneDNN's convolution likewise.
#include <gtest/gtest.h>

#include "compute/cpu_kernels.h"
#include "compute/cpu_peak.h"

namespace hbcompute {
namespace {

TEST(OpenblasGemmTest, Fp32MatchesNaiveLoop) {
  RunResult r;
  std::string err;
  ASSERT_TRUE(OpenblasGemm("fp32", GemmShape{33, 17, 129}, 1, 0, &r, &err)) << err;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.checked, 67u * 45u + 33u * 17u);  // the 67x45 check in full, all 561 of the timed one
  EXPECT_GT(r.seconds, 0);
}

// cblas_sbgemm where this OpenBLAS exports it, else oneDNN's matmul (as
// the engine chooses); on CPUs with bf16 arithmetic only.
TEST(OpenblasGemmTest, Bf16MatchesNaiveLoop) {
  if (!HasBf16(ReadCpuInfo())) GTEST_SKIP() << "no bf16 on this CPU";
  RunResult r;
  std::string err;
  GemmShape s{40, 24, 64};
  ASSERT_TRUE(OpenblasHasBf16() ? OpenblasGemm("bf16", s, 1, 0, &r, &err) : OnednnMatmulBf16(s, 1, 0, &r, &err)) << err;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.checked, 67u * 45u + 40u * 24u);
}

TEST(OnednnConvTest, MatchesNaiveLoop) {
  ConvShape s;
  std::string err;
  ASSERT_TRUE(ParseConv("2,5,9,9,7,3,3,2,1", 1, &s, &err));
  RunResult r;
  ASSERT_TRUE(OnednnConv(s, 1, 0, &r, &err)) << err;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.checked, 2u * 7 * 5 * 5);
}

TEST(OpenblasGemmTest, RejectsFp16) {
  RunResult r;
  std::string err;
  EXPECT_FALSE(OpenblasGemm("fp16", GemmShape{4, 4, 4}, 1, 0, &r, &err));
  EXPECT_EQ(err.rfind("OpenBLAS GEMM: unsupported dtype 'fp16' (fp32", 0), 0u) << err;
}

}  // namespace
}  // namespace hbcompute
