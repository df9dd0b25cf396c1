#include "data/record.h"

#include <cstdio>
#include <cstring>

#include "data/example.h"
#include "data/jpeg.h"

namespace hbw::data {
namespace {

std::string_view View(const void* p, size_t n) { return std::string_view(static_cast<const char*>(p), n); }

// The features of the ImageNet TFRecords (tensorflow/models
// build_imagenet_data.py); labels there are 1-based (0 is background).
std::string ImagenetExample(const Dims& d, const std::string& jpeg, int64_t label, size_t index) {
  char name[64];
  std::snprintf(name, sizeof name, "n%08lld_%08zu.JPEG", static_cast<long long>(label), index);
  return ExampleBuilder()
      .Bytes("image/encoded", jpeg)
      .Ints("image/class/label", {label + 1})
      .Ints("image/height", {d.h})
      .Ints("image/width", {d.w})
      .Ints("image/channels", {3})
      .Bytes("image/format", "JPEG")
      .Bytes("image/colorspace", "RGB")
      .Bytes("image/filename", name)
      .Serialize();
}

const Feature* Find(const Features& f, const char* key, Feature::Kind kind, std::string* err) {
  auto it = f.find(key);
  if (it == f.end() || it->second.kind != kind) {
    *err = std::string("missing feature '") + key + "'";
    return nullptr;
  }
  return &it->second;
}

// The single bytes value of `key`, which must be `size` bytes (0: any).
bool BytesOf(const Features& f, const char* key, size_t size, std::string_view* out, std::string* err) {
  const Feature* feature = Find(f, key, Feature::kBytes, err);
  if (!feature) return false;
  if (feature->bytes.size() != 1 || (size && feature->bytes[0].size() != size)) {
    *err = std::string("feature '") + key + "' has " +
           std::to_string(feature->bytes.empty() ? 0 : feature->bytes[0].size()) + " bytes, expected " +
           std::to_string(size);
    return false;
  }
  *out = feature->bytes[0];
  return true;
}

bool DecodeImagenetExample(const SampleSpec& spec, const Features& f, bool decode, Sample* out, std::string* err) {
  std::string_view jpeg;
  if (!BytesOf(f, "image/encoded", 0, &jpeg, err)) return false;
  const Feature* label = Find(f, "image/class/label", Feature::kInt64, err);
  if (!label) return false;
  if (label->ints.size() != 1) {
    *err = "feature 'image/class/label' has " + std::to_string(label->ints.size()) + " values, expected 1";
    return false;
  }
  return !decode || DecodeImageJpeg(spec, jpeg, label->ints[0] - 1, out, err);
}

bool DecodeCosmoflowExample(const SampleSpec& spec, const Features& f, bool decode, Sample* out, std::string* err) {
  Dims d = DimsOf(spec);
  std::string_view x;
  if (!BytesOf(f, "x", d.values() * 2, &x, err)) return false;
  const Feature* y = Find(f, "y", Feature::kFloat, err);
  if (!y) return false;
  if (y->floats.size() != 4) {
    *err = "feature 'y' has " + std::to_string(y->floats.size()) + " values, expected 4";
    return false;
  }
  if (decode) DecodeCounts(x.data(), y->floats.data(), d, out);
  return true;
}

bool DecodeDeepcamExample(const SampleSpec& spec, const Features& f, bool decode, Sample* out, std::string* err) {
  Dims d = DimsOf(spec);
  std::string_view data, label;
  if (!BytesOf(f, "data", d.values() * 4, &data, err) || !BytesOf(f, "label", d.pixels() * 4, &label, err))
    return false;
  if (decode) DecodeClimate(data.data(), label.data(), d, out);
  return true;
}

}  // namespace

bool DecodeImageJpeg(const SampleSpec& spec, std::string_view jpeg, int64_t label, Sample* out, std::string* err) {
  thread_local std::vector<uint8_t> rgb, resized;
  int h, w;
  if (!DecodeJpeg(jpeg, &rgb, &h, &w, err)) return false;
  Dims d = DimsOf(spec);
  const uint8_t* src = rgb.data();
  if (h != d.h || w != d.w) {
    resized.resize(d.pixels() * 3);
    ResizeRgb(rgb.data(), h, w, resized.data(), static_cast<int>(d.h), static_cast<int>(d.w));
    src = resized.data();
  }
  DecodeImageHwc(src, label, d, out);
  return true;
}

bool EncodeRecord(const SampleSpec& spec, const RawSample& raw, size_t index, bool datum, std::string* out,
                  std::string* err) {
  Dims d = DimsOf(spec);
  switch (LayoutOf(spec)) {
    case Layout::kImagenet: {
      std::string jpeg;
      if (!EncodeJpeg(raw.image.data(), int(d.h), int(d.w), kJpegQuality, &jpeg, err)) return false;
      if (!datum) {
        *out = ImagenetExample(d, jpeg, raw.label, index);
        return true;
      }
      Datum dt;
      dt.data = jpeg;
      dt.label = static_cast<int32_t>(raw.label);
      dt.encoded = true;
      *out = SerializeDatum(dt);
      return true;
    }
    case Layout::kCosmoflow:
      *out = ExampleBuilder().Bytes("x", View(raw.counts.data(), raw.counts.size() * 2)).Floats("y", raw.y).Serialize();
      return true;
    case Layout::kDeepcam:
      *out = ExampleBuilder()
                 .Bytes("data", View(raw.climate.data(), raw.climate.size() * 4))
                 .Bytes("label", View(raw.mask.data(), raw.mask.size() * 4))
                 .Serialize();
      return true;
  }
  return false;
}

bool DecodeRecord(const SampleSpec& spec, std::string_view record, bool datum, bool decode, Sample* out,
                  std::string* err) {
  if (!decode) *out = Sample();
  Layout layout = LayoutOf(spec);
  if (datum && layout == Layout::kImagenet) {
    Datum dt;
    if (!ParseDatum(record, &dt, err)) return false;
    if (!dt.encoded) {
      *err = "caffe.Datum is not encoded (raw Datum pixels are not supported)";
      return false;
    }
    return !decode || DecodeImageJpeg(spec, dt.data, dt.label, out, err);
  }
  thread_local Features features;
  if (!ParseExample(record, &features, err)) return false;
  switch (layout) {
    case Layout::kImagenet:
      return DecodeImagenetExample(spec, features, decode, out, err);
    case Layout::kCosmoflow:
      return DecodeCosmoflowExample(spec, features, decode, out, err);
    case Layout::kDeepcam:
      return DecodeDeepcamExample(spec, features, decode, out, err);
  }
  return false;
}

}  // namespace hbw::data
