// The per-format halves of GenerateDataset and OpenDataset (dataset.cc
// dispatches to them), and what they share. Internal to hbw_data.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "data/dataset.h"

namespace hbw::data {

using OpenResult = std::variant<std::unique_ptr<Reader>, Error>;

std::optional<Error> GenerateTfrecord(const std::string& dir, const SampleSpec& spec, size_t count, size_t files,
                                      uint64_t seed, bool gzip);
OpenResult OpenTfrecord(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt, bool gzip);

std::optional<Error> GenerateJpegFolder(const std::string& dir, const SampleSpec& spec, size_t count, uint64_t seed);
OpenResult OpenJpegFolder(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt);

std::optional<Error> GenerateHdf5(const std::string& dir, const SampleSpec& spec, size_t count, size_t files,
                                  uint64_t seed);
OpenResult OpenHdf5(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt);

std::optional<Error> GenerateLmdb(const std::string& dir, const SampleSpec& spec, size_t count, uint64_t seed);
OpenResult OpenLmdb(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt);

std::optional<Error> GenerateSynthetic(const std::string& dir, size_t count, uint64_t seed);
OpenResult OpenSyntheticDir(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt);

// Samples [first, last) of `count` go to file k of `files`.
inline size_t FileFirst(size_t k, size_t count, size_t files) { return k * count / files; }

// "train-00003-of-00016" + suffix, the ImageNet TFRecord naming; in a
// folder named validation or val, "validation-00003-of-00016".
std::string ShardName(const std::string& dir, size_t k, size_t files, const std::string& suffix);

// Read() through ReadInto(), for the formats' Readers.
inline std::variant<Sample, Error> ReadVia(Reader* r, size_t index) {
  Sample s;
  if (auto e = r->ReadInto(index, &s)) return *e;
  return s;
}

// A Reader's byte counter.
class ByteCounter {
 public:
  void Add(size_t n) { bytes_.fetch_add(n, std::memory_order_relaxed); }
  size_t Get() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  std::atomic<size_t> bytes_{0};
};

}  // namespace hbw::data
