#include "compute/flops.h"

#include <gtest/gtest.h>

namespace hbcompute {
namespace {

TEST(FlopsTest, Gemm) {
  GemmShape s;
  std::string err;
  ASSERT_TRUE(ParseGemm("2,3,4", &s, &err));
  EXPECT_DOUBLE_EQ(GemmFlops(s), 48.0);  // 2*2*3*4
  ASSERT_TRUE(ParseGemm("1024", &s, &err));
  EXPECT_DOUBLE_EQ(GemmFlops(s), 2147483648.0);  // 2 * 1024^3
  ASSERT_TRUE(ParseGemm("8x16x32", &s, &err));
  EXPECT_EQ(s.str(), "8x16x32");
  EXPECT_FALSE(ParseGemm("0", &s, &err));
  EXPECT_FALSE(ParseGemm("2,3", &s, &err));
  EXPECT_FALSE(ParseGemm("big", &s, &err));
  EXPECT_EQ(err, "expected N or M,N,K (positive integers), got 'big'");
}

// ResNet-50 layer3's 3x3 convolution, one image: 14x14 out;
// 2*1*256*14*14*256*3*3 = 231211008 FLOPs.
TEST(FlopsTest, Conv) {
  ConvShape s;
  std::string err;
  ASSERT_TRUE(ParseConv("resnet50-layer3", 1, &s, &err));
  EXPECT_EQ(s.p(), 14);
  EXPECT_EQ(s.q(), 14);
  EXPECT_DOUBLE_EQ(ConvFlops(s), 231211008.0);
  // The stem, 224 -> 112: 118,013,952 multiply-adds per image, the figure
  // published for ResNet-50's conv1 (e.g. torchvision's and fvcore's
  // per-layer counts), so 236,027,904 FLOPs per image, 32 images.
  ASSERT_TRUE(ParseConv("resnet50-conv1", 32, &s, &err));
  EXPECT_EQ(s.p(), 112);
  EXPECT_DOUBLE_EQ(ConvFlops(s), 32 * 236027904.0);
  // Explicit, stride 2 without padding: a 9x9 input gives 4x4 outputs per
  // channel (positions 0, 2, 4, 6); 2 images x 4 channels x 16 outputs, each
  // 3x3x3 = 27 multiply-adds: 3,456 of them, 6,912 FLOPs.
  ASSERT_TRUE(ParseConv("2,3,9,9,4,3,3,2,0", 1, &s, &err));
  EXPECT_EQ(s.n, 2);
  EXPECT_EQ(s.p(), 4);
  EXPECT_DOUBLE_EQ(ConvFlops(s), 6912.0);
  EXPECT_FALSE(ParseConv("resnet50-layer9", 1, &s, &err));
  EXPECT_NE(err.find("resnet50-layer3"), std::string::npos);
  EXPECT_FALSE(ParseConv("1,1,2,2,1,5,5,1,0", 1, &s, &err));  // filter larger than the input
}

}  // namespace
}  // namespace hbcompute
