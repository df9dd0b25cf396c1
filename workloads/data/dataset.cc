// The format-independent half of the dataset interface: names, specs, and
// dispatch to the formats.
#include "data/dataset.h"

#include <algorithm>

#include "data/file_util.h"
#include "data/formats.h"
#include "data/samples.h"

namespace hbw::data {
namespace {

const std::pair<Format, const char*> kFormats[] = {
    {Format::kSynthetic, "synthetic"},      {Format::kJpegFolder, "jpeg"}, {Format::kTfrecord, "tfrecord"},
    {Format::kTfrecordGzip, "tfrecord-gz"}, {Format::kHdf5, "hdf5"},       {Format::kLmdb, "lmdb"},
};

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t v : shape) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

// Which format can hold which layout: jpeg folders hold only images.
std::optional<Error> CheckSupported(Format f, const SampleSpec& spec) {
  if (f == Format::kJpegFolder && LayoutOf(spec) != Layout::kImagenet)
    return Error{"format jpeg holds only the imagenet layout, not " + spec.layout};
  return std::nullopt;
}

}  // namespace

bool ParseFormat(const std::string& name, Format* out) {
  for (const auto& [f, n] : kFormats)
    if (name == n) {
      *out = f;
      return true;
    }
  return false;
}

std::string FormatName(Format f) {
  for (const auto& [g, n] : kFormats)
    if (f == g) return n;
  return "unknown";
}

std::optional<Error> MakeSpec(const std::string& layout, const std::vector<int64_t>& shape, SampleSpec* out) {
  SampleSpec s;
  s.layout = layout;
  s.shape = shape;
  if (layout == "imagenet") {
    if (s.shape.empty()) s.shape = {3, 224, 224};
    s.num_classes = 1000;
    if (s.shape.size() != 3 || s.shape[0] != 3)
      return Error{"imagenet sample shape must be 3,H,W, not " + ShapeText(s.shape)};
  } else if (layout == "deepcam") {
    if (s.shape.empty()) s.shape = {16, 768, 1152};
    s.num_classes = 3;
    if (s.shape.size() != 3) return Error{"deepcam sample shape must be C,H,W, not " + ShapeText(s.shape)};
  } else if (layout == "cosmoflow") {
    if (s.shape.empty()) s.shape = {4, 128, 128, 128};
    s.num_classes = 4;
    if (s.shape.size() != 4) return Error{"cosmoflow sample shape must be C,D,H,W, not " + ShapeText(s.shape)};
  } else {
    return Error{"unknown layout '" + layout + "' (imagenet, deepcam, cosmoflow)"};
  }
  for (int64_t v : s.shape)
    if (v <= 0 || v > (1 << 16)) return Error{"sample shape " + ShapeText(s.shape) + " has a bad dimension"};
  *out = s;
  return std::nullopt;
}

size_t SampleElements(const SampleSpec& spec) {
  size_t n = 1;
  for (int64_t v : spec.shape) n *= static_cast<size_t>(v);
  return n;
}

size_t TargetElements(const SampleSpec& spec) {
  switch (LayoutOf(spec)) {
    case Layout::kImagenet:
      return 1;
    case Layout::kDeepcam:
      return DimsOf(spec).pixels();
    case Layout::kCosmoflow:
      return 4;
  }
  return 0;
}

std::optional<Error> GenerateDataset(const std::string& dir, Format f, const SampleSpec& spec, size_t count,
                                     size_t files, uint64_t seed) {
  SampleSpec checked;
  if (auto e = MakeSpec(spec.layout, spec.shape, &checked)) return e;
  checked.num_classes = spec.num_classes;
  if (auto e = CheckSupported(f, checked)) return e;
  if (LayoutOf(checked) == Layout::kImagenet && checked.num_classes <= 0) return Error{"num_classes must be positive"};
  if (count == 0) return Error{"a dataset needs at least one sample"};
  if (files == 0) return Error{"a dataset needs at least one file"};
  files = std::min(files, count);
  std::string err;
  if (!MakeDirs(dir, &err)) return Error{err};
  switch (f) {
    case Format::kSynthetic:
      return GenerateSynthetic(dir, count, seed);
    case Format::kJpegFolder:
      return GenerateJpegFolder(dir, checked, count, seed);
    case Format::kTfrecord:
      return GenerateTfrecord(dir, checked, count, files, seed, false);
    case Format::kTfrecordGzip:
      return GenerateTfrecord(dir, checked, count, files, seed, true);
    case Format::kHdf5:
      return GenerateHdf5(dir, checked, count, files, seed);
    case Format::kLmdb:
      return GenerateLmdb(dir, checked, count, seed);
  }
  return Error{"unknown format"};
}

std::variant<std::unique_ptr<Reader>, Error> OpenDataset(const std::string& dir, Format f, const SampleSpec& spec) {
  return OpenDataset(dir, f, spec, ReadOptions());
}

std::variant<std::unique_ptr<Reader>, Error> OpenDataset(const std::string& dir, Format f, const SampleSpec& spec,
                                                         const ReadOptions& options) {
  SampleSpec checked;
  if (auto e = MakeSpec(spec.layout, spec.shape, &checked)) return *e;
  checked.num_classes = spec.num_classes;
  if (auto e = CheckSupported(f, checked)) return *e;
  switch (f) {
    case Format::kSynthetic:
      return OpenSyntheticDir(dir, checked, options);
    case Format::kJpegFolder:
      return OpenJpegFolder(dir, checked, options);
    case Format::kTfrecord:
      return OpenTfrecord(dir, checked, options, false);
    case Format::kTfrecordGzip:
      return OpenTfrecord(dir, checked, options, true);
    case Format::kHdf5:
      return OpenHdf5(dir, checked, options);
    case Format::kLmdb:
      return OpenLmdb(dir, checked, options);
  }
  return Error{"unknown format"};
}

}  // namespace hbw::data
