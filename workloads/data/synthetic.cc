// The synthetic format: samples made in memory on every read, the same that
// GenerateDataset would write. A descriptor (dir/synthetic.txt) records the
// count and seed so OpenDataset can find them.
#include <cinttypes>
#include <cstdio>

#include "data/file_util.h"
#include "data/formats.h"
#include "data/samples.h"

namespace hbw::data {
namespace {

class SyntheticReader : public Reader {
 public:
  SyntheticReader(const SampleSpec& spec, size_t count, uint64_t seed, const ReadOptions& opt)
      : spec_(spec), count_(count), seed_(seed), opt_(opt), raw_bytes_(RawBytes(spec)) {}
  size_t size() const override { return count_; }
  size_t bytes_read() const override { return bytes_.Get(); }
  std::variant<Sample, Error> Read(size_t index) override { return ReadVia(this, index); }
  std::optional<Error> ReadInto(size_t index, Sample* out) override {
    if (index >= count_) return Error{"sample index " + std::to_string(index) + " out of range"};
    bytes_.Add(raw_bytes_);
    *out = opt_.decode ? ExpectedSample(spec_, index, count_, seed_) : Sample();
    return std::nullopt;
  }

 private:
  SampleSpec spec_;
  size_t count_;
  uint64_t seed_;
  ReadOptions opt_;
  size_t raw_bytes_;
  ByteCounter bytes_;
};

constexpr const char* kDescriptor = "synthetic.txt";

}  // namespace

std::unique_ptr<Reader> OpenSynthetic(const SampleSpec& spec, size_t count, uint64_t seed) {
  return std::make_unique<SyntheticReader>(spec, count, seed, ReadOptions());
}

std::optional<Error> GenerateSynthetic(const std::string& dir, size_t count, uint64_t seed) {
  std::string err;
  std::string text =
      "hetbench synthetic dataset 1\ncount " + std::to_string(count) + "\nseed " + std::to_string(seed) + "\n";
  if (!WriteFile(JoinPath(dir, kDescriptor), text, &err)) return Error{err};
  return std::nullopt;
}

OpenResult OpenSyntheticDir(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt) {
  std::string path = JoinPath(dir, kDescriptor), text, err;
  if (!ReadFile(path, &text, &err)) return Error{err + " (write it with GenerateDataset, or use OpenSynthetic)"};
  int version = 0;
  unsigned long long count = 0, seed = 0;
  if (std::sscanf(text.c_str(), "hetbench synthetic dataset %d\ncount %llu\nseed %llu", &version, &count, &seed) != 3)
    return Error{path + ": not a synthetic dataset descriptor"};
  if (version != 1) return Error{path + ": descriptor version " + std::to_string(version) + " (this reads 1)"};
  if (count == 0) return Error{path + ": count is 0"};
  return std::unique_ptr<Reader>(new SyntheticReader(spec, count, seed, opt));
}

}  // namespace hbw::data
