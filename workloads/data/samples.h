// The samples of the three layouts as they are stored (RawSample) and as a
// Reader returns them (Sample): deterministic generation from (seed, index)
// and the decoding each reference workload applies. Internal to hbw_data.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"

namespace hbw::data {

enum class Layout { kImagenet, kDeepcam, kCosmoflow };
Layout LayoutOf(const SampleSpec& spec);  // spec already checked by MakeSpec

// Stored sizes. imagenet: shape {3,H,W}; deepcam: {C,H,W}; cosmoflow:
// {C,D,H,W} stored channels-last.
struct Dims {
  int64_t c = 0, d = 1, h = 0, w = 0;
  size_t pixels() const { return static_cast<size_t>(d * h * w); }
  size_t values() const { return pixels() * static_cast<size_t>(c); }
};
Dims DimsOf(const SampleSpec& spec);

// One sample as stored.
struct RawSample {
  std::vector<uint8_t> image;   // imagenet: H*W*3, HWC RGB
  int64_t label = 0;            // imagenet: class id, 0-based
  std::vector<float> climate;   // deepcam: H*W*C, HWC
  std::vector<int32_t> mask;    // deepcam: H*W per-pixel class
  std::vector<int16_t> counts;  // cosmoflow: D*H*W*C, channels last
  std::vector<float> y;         // cosmoflow: 4 targets
};
RawSample MakeRawSample(const SampleSpec& spec, size_t index, size_t count, uint64_t seed);
// Bytes the raw sample takes when stored uncompressed.
size_t RawBytes(const SampleSpec& spec);

// Decoders, the reference workloads' preprocessing. Sizes are checked by
// the caller. `src` may be unaligned.
void DecodeImageHwc(const uint8_t* hwc, int64_t label, const Dims& d, Sample* out);
void DecodeImageChw(const uint8_t* chw, int64_t label, const Dims& d, Sample* out);
void DecodeClimate(const void* hwc_f32, const void* mask_i32, const Dims& d, Sample* out);
void DecodeCounts(const void* dhwc_i16, const float* y, const Dims& d, Sample* out);
Sample DecodeRaw(const SampleSpec& spec, const RawSample& raw);

// A small fast PRNG (splitmix64), deterministic across platforms.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_;
};

}  // namespace hbw::data
