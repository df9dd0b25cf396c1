#include "data/jpeg.h"

#include <turbojpeg.h>

#include <algorithm>
#include <cmath>

namespace hbw::data {
namespace {

// One compressor and one decompressor per thread, made on first use.
struct Handles {
  tjhandle compress = nullptr, decompress = nullptr;
  ~Handles() {
    if (compress) tjDestroy(compress);
    if (decompress) tjDestroy(decompress);
  }
};
thread_local Handles handles;

std::string TjError(tjhandle h) { return std::string("JPEG: ") + tjGetErrorStr2(h); }

// After a failure a TurboJPEG handle can keep stale state (2.1 reports a
// bogus size for the next good image), so a failed handle is replaced.
void Reset(tjhandle* h) {
  tjDestroy(*h);
  *h = nullptr;
}

}  // namespace

bool EncodeJpeg(const uint8_t* rgb, int height, int width, int quality, std::string* out, std::string* err) {
  if (!handles.compress && !(handles.compress = tjInitCompress())) {
    *err = "JPEG: cannot start the TurboJPEG compressor";
    return false;
  }
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  if (tjCompress2(handles.compress, rgb, width, 0, height, TJPF_RGB, &buf, &size, TJSAMP_444, quality,
                  TJFLAG_ACCURATEDCT) != 0) {
    *err = TjError(handles.compress);
    Reset(&handles.compress);
    tjFree(buf);
    return false;
  }
  out->assign(reinterpret_cast<const char*>(buf), size);
  tjFree(buf);
  return true;
}

bool DecodeJpeg(std::string_view jpeg, std::vector<uint8_t>* rgb, int* height, int* width, std::string* err) {
  if (!handles.decompress && !(handles.decompress = tjInitDecompress())) {
    *err = "JPEG: cannot start the TurboJPEG decompressor";
    return false;
  }
  tjhandle h = handles.decompress;
  const auto* src = reinterpret_cast<const unsigned char*>(jpeg.data());
  int subsamp = 0, colorspace = 0;
  *width = *height = 0;
  bool ok = tjDecompressHeader3(h, src, jpeg.size(), width, height, &subsamp, &colorspace) == 0;
  if (!ok) {
    *err = TjError(h);
  } else if (*width <= 0 || *height <= 0 || int64_t(*width) * *height > (int64_t(1) << 28)) {
    *err = "JPEG: implausible size " + std::to_string(*width) + "x" + std::to_string(*height);
    ok = false;
  } else {
    rgb->resize(size_t(*width) * size_t(*height) * 3);
    ok = tjDecompress2(h, src, jpeg.size(), rgb->data(), *width, 0, *height, TJPF_RGB,
                       TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING) == 0;
    if (!ok) *err = TjError(h);
  }
  if (!ok) Reset(&handles.decompress);
  return ok;
}

void ResizeRgb(const uint8_t* src, int sh, int sw, uint8_t* dst, int dh, int dw) {
  const float sy = float(sh) / float(dh), sx = float(sw) / float(dw);
  for (int y = 0; y < dh; ++y) {
    float fy = std::max(0.0f, (float(y) + 0.5f) * sy - 0.5f);
    int y0 = std::min(int(fy), sh - 1), y1 = std::min(y0 + 1, sh - 1);
    float wy = fy - float(y0);
    for (int x = 0; x < dw; ++x) {
      float fx = std::max(0.0f, (float(x) + 0.5f) * sx - 0.5f);
      int x0 = std::min(int(fx), sw - 1), x1 = std::min(x0 + 1, sw - 1);
      float wx = fx - float(x0);
      for (int c = 0; c < 3; ++c) {
        auto at = [&](int yy, int xx) { return float(src[(size_t(yy) * sw + xx) * 3 + c]); };
        float top = at(y0, x0) * (1 - wx) + at(y0, x1) * wx;
        float bottom = at(y1, x0) * (1 - wx) + at(y1, x1) * wx;
        dst[(size_t(y) * dw + x) * 3 + c] = uint8_t(std::lround(top * (1 - wy) + bottom * wy));
      }
    }
  }
}

}  // namespace hbw::data
