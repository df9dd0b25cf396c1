#include "compute/reference.h"

#include <gtest/gtest.h>

namespace hbcompute {
namespace {

TEST(ReferenceTest, Conversions) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(Bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(FloatToBf16(1.00390625f), 0x3F80);  // 1 + 2^-8: a tie, to even (down)
  EXPECT_EQ(FloatToBf16(1.01171875f), 0x3F82);  // 1 + 3*2^-8: a tie, to even (up)
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(70000.0f), 0x7C00);
  EXPECT_EQ(FloatToHalf(5.9604645e-8f), 0x0001);  // the smallest subnormal
  EXPECT_EQ(HalfToFloat(0x0001), 5.9604645e-8f);
  EXPECT_EQ(HalfToFloat(0x3555), 0.33325195f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(0.1f)), 0.099975586f);
  std::vector<float> r = RandomData(1000, 7);
  for (float x : r) {
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
  }
  EXPECT_EQ(RandomData(10, 7), RandomData(10, 7));
  EXPECT_NE(RandomData(10, 7), RandomData(10, 8));
}

// The naive loops catch a wrong result, and sampling covers the corners.
TEST(ReferenceTest, ChecksGemmAndConv) {
  GemmShape s{2, 3, 2};
  std::vector<float> a = {1, 2, 3, 4}, b = {1, 0, 2, 0, 1, 1};  // [[1,2],[3,4]] x [[1,0,2],[0,1,1]]
  std::vector<float> c = {1, 2, 4, 3, 4, 10};
  uint64_t checked = 0;
  EXPECT_EQ(CheckGemm(s, a, b, c, 1e-4, 0, &checked), 0u);
  EXPECT_EQ(checked, 6u);
  c[5] = 10.01f;
  EXPECT_EQ(CheckGemm(s, a, b, c, 1e-4, 0, &checked), 1u);
  EXPECT_EQ(CheckGemm(s, a, b, c, 1e-4, 3, &checked), 0u);  // samples 0, 2, 4 miss it
  EXPECT_EQ(checked, 3u);

  ConvShape cs;
  std::string err;
  ASSERT_TRUE(ParseConv("1,1,3,3,1,3,3,1,1", 1, &cs, &err));  // 3x3 ones, 3x3 ones, pad 1
  std::vector<float> in(9, 1.0f), w(9, 1.0f);
  std::vector<float> out = {4, 6, 4, 6, 9, 6, 4, 6, 4};
  EXPECT_EQ(CheckConv(cs, in, w, out, 1e-4, 0, &checked), 0u);
  out[4] = 8;
  EXPECT_EQ(CheckConv(cs, in, w, out, 1e-4, 0, &checked), 1u);
}

}  // namespace
}  // namespace hbcompute
