// The shapes hetbench-compute measures and their floating-point operation
// counts. Pure functions; unit-tested.
//
//  - GEMM C[MxN] = A[MxK] * B[KxN]: 2*M*N*K FLOPs (one multiply and one add
//    per term, the count cuBLAS, OpenBLAS and HPL report).
//  - Convolution, NCHW input, K filters of CxRxS, output NxKxPxQ with
//    P = (H + 2*pad - R) / stride + 1 (Q likewise from W and S):
//    2*N*K*P*Q*C*R*S FLOPs (direct convolution's multiply-adds, as
//    cuDNN's and oneDNN's benchmarks count them; no bias).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hbcompute {

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  std::string str() const;  // "MxNxK"
};

// "N" (square), "M,N,K" or "MxNxK"; every number >= 1.
bool ParseGemm(const std::string& text, GemmShape* shape, std::string* err);
double GemmFlops(const GemmShape& s);

struct ConvShape {
  std::string name;  // "resnet50-layer3", or "" for an explicit shape
  int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1, stride = 1, pad = 0;
  int64_t p() const { return (h + 2 * pad - r) / stride + 1; }
  int64_t q() const { return (w + 2 * pad - s) / stride + 1; }
  std::string str() const;  // "N=.. C=.. H=.. W=.. K=.. R=.. S=.. stride .. pad .. -> P=.. Q=.."
};

// ResNet-50's convolutions (224x224 input), by name: resnet50-conv1 (7x7,
// stride 2), resnet50-layer1..layer4 (the 3x3 convolutions of stages
// conv2_x..conv5_x). `batch` is their N.
std::vector<std::string> NamedConvs();
// A name above, or "N,C,H,W,K,R,S,stride,pad". The output must be at least
// 1x1.
bool ParseConv(const std::string& text, int64_t batch, ConvShape* shape, std::string* err);
double ConvFlops(const ConvShape& s);

}  // namespace hbcompute
