// JPEG encoding and decoding through TurboJPEG, and a bilinear resize.
// Each thread keeps its own TurboJPEG handles, so the functions are
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hbw::data {

// RGB HWC bytes -> JPEG (4:4:4 chroma, so decoding stays close).
bool EncodeJpeg(const uint8_t* rgb, int height, int width, int quality, std::string* out, std::string* err);
// JPEG -> RGB HWC bytes. Warnings (e.g. a truncated file) are errors.
bool DecodeJpeg(std::string_view jpeg, std::vector<uint8_t>* rgb, int* height, int* width, std::string* err);
// Bilinear resize of RGB HWC bytes (align-corners off, as PIL/OpenCV).
void ResizeRgb(const uint8_t* src, int sh, int sw, uint8_t* dst, int dh, int dw);

}  // namespace hbw::data
