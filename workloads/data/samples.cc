#include "data/samples.h"

#include <array>
#include <cmath>
#include <cstring>

namespace hbw::data {
namespace {

// torchvision's ImageNet normalisation.
constexpr float kMean[3] = {0.485f, 0.456f, 0.406f};
constexpr float kStd[3] = {0.229f, 0.224f, 0.225f};

// (v / 255 - mean) / std for every byte value, per channel.
struct NormTable {
  float t[3][256];
  NormTable() {
    for (int c = 0; c < 3; ++c)
      for (int v = 0; v < 256; ++v) t[c][v] = (static_cast<float>(v) / 255.0f - kMean[c]) / kStd[c];
  }
};
const NormTable& Norm() {
  static const NormTable table;
  return table;
}

// log1p of every int16 count, as CosmoFlow's reference applies to x.
struct Log1pTable {
  std::vector<float> t = std::vector<float>(65536);
  Log1pTable() {
    for (int v = -32768; v < 32768; ++v) t[static_cast<uint16_t>(v)] = std::log1p(static_cast<float>(v));
  }
};
const Log1pTable& Log1p() {
  static const Log1pTable table;
  return table;
}

uint64_t SampleSeed(uint64_t seed, size_t index) {
  return Rng(seed ^ (uint64_t(index) * 0x2545f4914f6cdd1dull)).Next();
}

// An image: a colour per class, a per-sample gradient, and noise of +-12
// levels so that its JPEG takes about as many bytes per pixel as ImageNet's
// (~0.8: ~42 KB at 224x224, quality 95).
void MakeImage(const Dims& d, int64_t label, Rng* rng, RawSample* raw) {
  Rng cls(static_cast<uint64_t>(label) * 7919 + 13);
  double base[3], gx[3], gy[3];
  for (int c = 0; c < 3; ++c) {
    base[c] = 40 + 170 * cls.Uniform();
    gx[c] = (rng->Uniform() - 0.5) * 60 / static_cast<double>(d.w);
    gy[c] = (rng->Uniform() - 0.5) * 60 / static_cast<double>(d.h);
  }
  raw->image.resize(static_cast<size_t>(d.h * d.w * 3));
  uint8_t* p = raw->image.data();
  for (int64_t y = 0; y < d.h; ++y)
    for (int64_t x = 0; x < d.w; ++x)
      for (int c = 0; c < 3; ++c) {
        double noise = static_cast<double>(rng->Next() % 25) - 12;
        double v = base[c] + gx[c] * static_cast<double>(x) + gy[c] * static_cast<double>(y) + noise;
        *p++ = static_cast<uint8_t>(std::lround(std::fmin(255.0, std::fmax(0.0, v))));
      }
}

void MakeClimate(const Dims& d, Rng* rng, RawSample* raw) {
  raw->climate.resize(d.values());
  for (float& v : raw->climate) v = static_cast<float>(rng->Uniform() * 2 - 1);
  raw->mask.resize(d.pixels());
  for (int32_t& m : raw->mask) {
    uint64_t r = rng->Next() % 100;
    m = r < 90 ? 0 : r < 97 ? 1 : 2;  // mostly background, as in DeepCAM
  }
}

void MakeCounts(const Dims& d, Rng* rng, RawSample* raw) {
  raw->counts.resize(d.values());
  // Particle counts: small, mostly zero (geometric), four per random word.
  for (size_t i = 0; i < raw->counts.size(); i += 4) {
    uint64_t r = rng->Next();
    for (size_t k = 0; k < 4 && i + k < raw->counts.size(); ++k) {
      uint16_t bits = static_cast<uint16_t>(r >> (16 * k));
      raw->counts[i + k] = static_cast<int16_t>(bits ? __builtin_ctz(bits) : 16);
    }
  }
  raw->y.resize(4);
  for (float& v : raw->y) v = static_cast<float>(rng->Uniform() * 2 - 1);
}

}  // namespace

Layout LayoutOf(const SampleSpec& spec) {
  if (spec.layout == "deepcam") return Layout::kDeepcam;
  if (spec.layout == "cosmoflow") return Layout::kCosmoflow;
  return Layout::kImagenet;
}

Dims DimsOf(const SampleSpec& spec) {
  Dims d;
  const auto& s = spec.shape;
  d.c = s[0];
  if (s.size() == 4) {
    d.d = s[1];
    d.h = s[2];
    d.w = s[3];
  } else {
    d.h = s[1];
    d.w = s[2];
  }
  return d;
}

size_t RawBytes(const SampleSpec& spec) {
  Dims d = DimsOf(spec);
  switch (LayoutOf(spec)) {
    case Layout::kImagenet:
      return d.values() + 8;
    case Layout::kDeepcam:
      return d.values() * 4 + d.pixels() * 4;
    case Layout::kCosmoflow:
      return d.values() * 2 + 16;
  }
  return 0;
}

RawSample MakeRawSample(const SampleSpec& spec, size_t index, size_t count, uint64_t seed) {
  RawSample raw;
  Rng rng(SampleSeed(seed, index));
  Dims d = DimsOf(spec);
  switch (LayoutOf(spec)) {
    case Layout::kImagenet:
      raw.label = count ? static_cast<int64_t>(index * static_cast<size_t>(spec.num_classes) / count) : 0;
      MakeImage(d, raw.label, &rng, &raw);
      break;
    case Layout::kDeepcam:
      MakeClimate(d, &rng, &raw);
      break;
    case Layout::kCosmoflow:
      MakeCounts(d, &rng, &raw);
      break;
  }
  return raw;
}

void DecodeImageHwc(const uint8_t* hwc, int64_t label, const Dims& d, Sample* out) {
  const NormTable& n = Norm();
  size_t plane = d.pixels();
  out->data.resize(plane * 3);
  float* dst = out->data.data();
  for (size_t i = 0; i < plane; ++i)
    for (int c = 0; c < 3; ++c) dst[c * plane + i] = n.t[c][hwc[i * 3 + c]];
  out->target.assign(1, static_cast<float>(label));
}

void DecodeImageChw(const uint8_t* chw, int64_t label, const Dims& d, Sample* out) {
  const NormTable& n = Norm();
  size_t plane = d.pixels();
  out->data.resize(plane * 3);
  for (int c = 0; c < 3; ++c)
    for (size_t i = 0; i < plane; ++i) out->data[c * plane + i] = n.t[c][chw[c * plane + i]];
  out->target.assign(1, static_cast<float>(label));
}

void DecodeClimate(const void* hwc_f32, const void* mask_i32, const Dims& d, Sample* out) {
  size_t plane = d.pixels(), channels = static_cast<size_t>(d.c);
  out->data.resize(plane * channels);
  const char* src = static_cast<const char*>(hwc_f32);
  for (size_t i = 0; i < plane; ++i)
    for (size_t c = 0; c < channels; ++c) std::memcpy(&out->data[c * plane + i], src + (i * channels + c) * 4, 4);
  out->target.resize(plane);
  const char* m = static_cast<const char*>(mask_i32);
  for (size_t i = 0; i < plane; ++i) {
    int32_t v;
    std::memcpy(&v, m + i * 4, 4);
    out->target[i] = static_cast<float>(v);
  }
}

void DecodeCounts(const void* dhwc_i16, const float* y, const Dims& d, Sample* out) {
  const float* lut = Log1p().t.data();
  size_t voxels = d.pixels(), channels = static_cast<size_t>(d.c);
  out->data.resize(voxels * channels);
  const char* src = static_cast<const char*>(dhwc_i16);
  float* dst = out->data.data();
  for (size_t i = 0; i < voxels; ++i)
    for (size_t c = 0; c < channels; ++c) {
      uint16_t v;
      std::memcpy(&v, src + (i * channels + c) * 2, 2);
      dst[c * voxels + i] = lut[v];
    }
  out->target.assign(y, y + 4);
}

Sample DecodeRaw(const SampleSpec& spec, const RawSample& raw) {
  Sample s;
  Dims d = DimsOf(spec);
  switch (LayoutOf(spec)) {
    case Layout::kImagenet:
      DecodeImageHwc(raw.image.data(), raw.label, d, &s);
      break;
    case Layout::kDeepcam:
      DecodeClimate(raw.climate.data(), raw.mask.data(), d, &s);
      break;
    case Layout::kCosmoflow:
      DecodeCounts(raw.counts.data(), raw.y.data(), d, &s);
      break;
  }
  return s;
}

Sample ExpectedSample(const SampleSpec& spec, size_t index, size_t count, uint64_t seed) {
  return DecodeRaw(spec, MakeRawSample(spec, index, count, seed));
}

}  // namespace hbw::data
