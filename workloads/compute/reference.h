// What hetbench-compute checks its libraries against: deterministic input
// data, naive GEMM and convolution in double precision, the reduced
// precisions' rounding, and the comparison that counts mismatches. Pure
// functions; unit-tested.
//
// A result element passes when |got - ref| <= tol * sum|a_i * b_i|, the sum
// of the absolute values of its terms (the scale of a dot product's
// rounding error): tol = 1e-4 for fp32 (fp32 sums of 10^4 terms typically
// err by ~1e-5 of that scale), 2e-3 for bf16 and fp16 inputs, compared
// against the reference computed from the inputs after rounding them, so
// only the accumulation is judged. A wrong index or
// transpose gives errors of the order of the sum itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/flops.h"

namespace hbcompute {

// Uniform in [-1, 1), from a 64-bit LCG: the same for a seed everywhere.
std::vector<float> RandomData(size_t n, uint64_t seed);

// Round-to-nearest-even conversions (bit patterns as uint16_t).
uint16_t FloatToBf16(float f);
float Bf16ToFloat(uint16_t b);
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);
// `v` rounded to "bf16" or "fp16" and back (unchanged for "fp32").
std::vector<float> RoundTo(const std::string& dtype, const std::vector<float>& v);
double Tolerance(const std::string& dtype);

// Row-major C[MxN] = A[MxK] * B[KxN]: the elements of `c` at `samples`
// evenly spread positions (all of them when samples is 0 or >= M*N) that
// fail the test above. *checked gets how many were compared.
uint64_t CheckGemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b,
                   const std::vector<float>& c, double tol, uint64_t samples, uint64_t* checked);

// NCHW input, KCRS weights, NKPQ output (cross-correlation, as cuDNN's and
// oneDNN's convolution_direct): the same check.
uint64_t CheckConv(const ConvShape& s, const std::vector<float>& in, const std::vector<float>& w,
                   const std::vector<float>& out, double tol, uint64_t samples, uint64_t* checked);

}  // namespace hbcompute
