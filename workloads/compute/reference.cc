#include "compute/reference.h"

#include <cmath>
#include <cstring>

namespace hbcompute {

namespace {

// Positions 0, step, 2*step, ... of `total`, `samples` of them (all when
// samples is 0 or covers everything).
template <typename F>
uint64_t ForSamples(uint64_t total, uint64_t samples, uint64_t* checked, F check_one) {
  uint64_t step = (samples == 0 || samples >= total) ? 1 : total / samples;
  uint64_t wrong = 0, n = 0;
  for (uint64_t i = 0; i < total; i += step, ++n)
    if (!check_one(i)) ++wrong;
  *checked = n;
  return wrong;
}

bool Close(double got, double ref, double abs_sum, double tol) {
  return std::isfinite(got) && std::fabs(got - ref) <= tol * abs_sum + 1e-30;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

std::vector<float> RandomData(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  uint64_t x = seed * 2862933555777941757ull + 3037000493ull;
  for (size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;  // Knuth's MMIX LCG
    v[i] = static_cast<float>(static_cast<double>(x >> 40) / static_cast<double>(1ull << 24) * 2.0 - 1.0);
  }
  return v;
}

uint16_t FloatToBf16(float f) {
  uint32_t u = Bits(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7FFF + ((u >> 16) & 1);  // round to nearest, ties to even
  return static_cast<uint16_t>(u >> 16);
}

float Bf16ToFloat(uint16_t b) { return FromBits(static_cast<uint32_t>(b) << 16); }

// IEEE binary16, round to nearest even; overflow to infinity, subnormals kept.
uint16_t FloatToHalf(float f) {
  uint32_t u = Bits(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7FFFFFFF;
  if (abs >= 0x7F800000) return sign | (abs > 0x7F800000 ? 0x7E00 : 0x7C00);
  if (abs >= 0x477FF000) return sign | 0x7C00;   // rounds to >= 65520: infinity
  if (abs < 0x38800000) {                        // below 2^-14: subnormal or zero
    float scaled = FromBits(abs) * 16777216.0f;  // * 2^24: units of the smallest subnormal
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  uint32_t mant = abs + 0xFFF + ((abs >> 13) & 1) - 0x38000000;  // rebias 127 -> 15, round
  return sign | static_cast<uint16_t>(mant >> 13);
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  if (exp == 0) return FromBits(sign) + (sign ? -1.0f : 1.0f) * static_cast<float>(mant) / 16777216.0f;
  if (exp == 31) return FromBits(sign | 0x7F800000 | (mant << 13));
  return FromBits(sign | ((exp + 112) << 23) | (mant << 13));
}

std::vector<float> RoundTo(const std::string& dtype, const std::vector<float>& v) {
  std::vector<float> out(v);
  if (dtype == "bf16")
    for (float& x : out) x = Bf16ToFloat(FloatToBf16(x));
  else if (dtype == "fp16")
    for (float& x : out) x = HalfToFloat(FloatToHalf(x));
  return out;
}

double Tolerance(const std::string& dtype) { return dtype == "fp32" ? 1e-4 : 2e-3; }

uint64_t CheckGemm(const GemmShape& s, const std::vector<float>& a, const std::vector<float>& b,
                   const std::vector<float>& c, double tol, uint64_t samples, uint64_t* checked) {
  uint64_t total = static_cast<uint64_t>(s.m * s.n);
  return ForSamples(total, samples, checked, [&](uint64_t idx) {
    int64_t i = static_cast<int64_t>(idx) / s.n, j = static_cast<int64_t>(idx) % s.n;
    double sum = 0, abs_sum = 0;
    for (int64_t k = 0; k < s.k; ++k) {
      double t = static_cast<double>(a[i * s.k + k]) * b[k * s.n + j];
      sum += t;
      abs_sum += std::fabs(t);
    }
    return Close(c[idx], sum, abs_sum, tol);
  });
}

uint64_t CheckConv(const ConvShape& s, const std::vector<float>& in, const std::vector<float>& w,
                   const std::vector<float>& out, double tol, uint64_t samples, uint64_t* checked) {
  const int64_t P = s.p(), Q = s.q();
  uint64_t total = static_cast<uint64_t>(s.n * s.k * P * Q);
  return ForSamples(total, samples, checked, [&](uint64_t idx) {
    int64_t q = idx % Q, p = idx / Q % P, k = idx / (Q * P) % s.k, n = idx / (Q * P * s.k);
    double sum = 0, abs_sum = 0;
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t r = 0; r < s.r; ++r)
        for (int64_t t = 0; t < s.s; ++t) {
          int64_t y = p * s.stride - s.pad + r, x = q * s.stride - s.pad + t;
          if (y < 0 || y >= s.h || x < 0 || x >= s.w) continue;
          double term =
              static_cast<double>(in[((n * s.c + c) * s.h + y) * s.w + x]) * w[((k * s.c + c) * s.r + r) * s.s + t];
          sum += term;
          abs_sum += std::fabs(term);
        }
    return Close(out[idx], sum, abs_sum, tol);
  });
}

}  // namespace hbcompute
