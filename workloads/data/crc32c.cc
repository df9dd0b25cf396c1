#include "data/crc32c.h"

#include <array>
#include <cstring>

namespace hbw::data {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // reversed Castagnoli polynomial

// Slicing-by-8 tables for CPUs without SSE4.2.
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t{};
  Tables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
};

uint32_t Software(const uint8_t* p, size_t n, uint32_t c) {
  static const Tables tables;
  const auto& t = tables.t;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= c;
    c = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^ t[4][(w >> 24) & 0xff] ^
        t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^ t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
  }
  for (; n; --n, ++p) c = t[0][(c ^ *p) & 0xff] ^ (c >> 8);
  return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t HardwareOne(const uint8_t* p, size_t n, uint32_t c) {
  uint64_t c64 = c;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c64 = __builtin_ia32_crc32di(c64, w);
  }
  uint32_t c32 = static_cast<uint32_t>(c64);
  for (; n; --n, ++p) c32 = __builtin_ia32_crc32qi(c32, *p);
  return c32;
}

// Three streams of kBlock bytes at a time keep the crc32 unit busy (its
// latency is three times its throughput). The register is linear in the
// data: running over B from state s gives Shift(s) ^ (B run from state 0),
// where Shift appends kBlock zero bytes; Shift is tabulated per byte.
constexpr size_t kBlock = 8192;

struct ShiftTable {
  uint32_t t[4][256];
  ShiftTable() {
    static const uint8_t zeros[kBlock] = {};
    uint32_t basis[32];
    for (int i = 0; i < 32; ++i) basis[i] = HardwareOne(zeros, kBlock, 1u << i);
    for (int k = 0; k < 4; ++k)
      for (int v = 0; v < 256; ++v) {
        uint32_t x = 0;
        for (int bit = 0; bit < 8; ++bit)
          if (v & (1 << bit)) x ^= basis[8 * k + bit];
        t[k][v] = x;
      }
  }
  uint32_t Shift(uint32_t s) const {
    return t[0][s & 0xff] ^ t[1][(s >> 8) & 0xff] ^ t[2][(s >> 16) & 0xff] ^ t[3][s >> 24];
  }
};

__attribute__((target("sse4.2"))) uint32_t Hardware(const uint8_t* p, size_t n, uint32_t c) {
  static const ShiftTable shift;
  for (; n >= 3 * kBlock; n -= 3 * kBlock, p += 3 * kBlock) {
    uint64_t a = c, b = 0, d = 0;
    for (size_t i = 0; i < kBlock; i += 8) {
      uint64_t wa, wb, wd;
      std::memcpy(&wa, p + i, 8);
      std::memcpy(&wb, p + kBlock + i, 8);
      std::memcpy(&wd, p + 2 * kBlock + i, 8);
      a = __builtin_ia32_crc32di(a, wa);
      b = __builtin_ia32_crc32di(b, wb);
      d = __builtin_ia32_crc32di(d, wd);
    }
    c = shift.Shift(shift.Shift(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b)) ^ static_cast<uint32_t>(d);
  }
  return HardwareOne(p, n, c);
}
bool HaveHardware() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t Crc32cPortable(const void* data, size_t n, uint32_t crc) {
  return ~Software(static_cast<const uint8_t*>(data), n, ~crc);
}

uint32_t Crc32c(const void* data, size_t n, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~crc;
#if defined(__x86_64__)
  if (HaveHardware()) return ~Hardware(p, n, c);
#endif
  return ~Software(p, n, c);
}

}  // namespace hbw::data
