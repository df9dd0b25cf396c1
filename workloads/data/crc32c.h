// CRC-32C (Castagnoli), as TFRecord framing uses it, and TFRecord's masking
// of stored CRCs. Uses the SSE4.2 crc32 instruction when the CPU has it.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hbw::data {

// CRC-32C of n bytes, continuing from `crc` (0 to start).
// Crc32c("123456789") == 0xE3069283.
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);

// The same without the crc32 instruction (slicing-by-8 tables).
uint32_t Crc32cPortable(const void* data, size_t n, uint32_t crc = 0);

// TFRecord's mask: ((crc >> 15) | (crc << 17)) + 0xa282ead8.
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace hbw::data
