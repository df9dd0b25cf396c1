// The datasets the benchmark programs read (hetbench-io, hetbench-train):
// one interface over the on-disk formats the real ML workloads use
// (ImageNet JPEG folders and TFRecords, CosmoFlow gzip TFRecords, DeepCAM
// HDF5, Caffe-style LMDB) plus an in-memory synthetic source.
//
// A dataset is written by GenerateDataset (deterministic from a seed), read
// sample by sample through a Reader, and batched by a Loader with worker
// threads and prefetch. Errors are values: a corrupt file or record gives an
// Error naming the file and record, never a crash or a hang.
//
// The formats are described in docs/benchmarks/io.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hbw::data {

// Names the file and record, e.g.
// "/d/train-00001.tfrecord: record 17: data CRC mismatch".
struct Error {
  std::string message;
};

enum class Format { kSynthetic, kJpegFolder, kTfrecord, kTfrecordGzip, kHdf5, kLmdb };

// "synthetic", "jpeg", "tfrecord", "tfrecord-gz", "hdf5", "lmdb".
bool ParseFormat(const std::string& name, Format* out);
std::string FormatName(Format f);

// What one sample is. Layouts of the real workloads:
//  "imagenet": image CHW uint8 RGB stored (JPEG in jpeg folder; encoded JPEG
//     bytes inside TFRecord/LMDB records as the ImageNet TFRecords do; raw in
//     HDF5), decoded to float CHW in [0,1] then normalised with ImageNet
//     mean/std; target = class id (1 float).
//  "deepcam": data float32 HWC with 16 channels stored as the DeepCAM HDF5
//     files do (dataset "climate/data" [H,W,16] and "climate/labels_0" [H,W]
//     int32 in one file per sample); returned CHW float; target = per-pixel
//     class (H*W floats, 3 classes).
//  "cosmoflow": data 4 channels of D^3 (int16 counts in the CosmoFlow
//     TFRecords: features "x" (bytes, raw int16) and "y" (4 float targets)),
//     stored shape [D,D,D,4]; returned CDHW float after log1p; target = 4
//     floats.
struct SampleSpec {
  std::string layout;
  // Returned CHW / CDHW shape, e.g. {3,224,224}, {16,768,1152}, {4,128,128,128}.
  std::vector<int64_t> shape;
  int num_classes = 1000;
};

// Checks a layout and shape and fills in what is left out: an empty shape
// gets the real workload's ({3,224,224}, {16,768,1152}, {4,128,128,128}),
// num_classes gets 1000 / 3 / 4 (the target width for cosmoflow).
std::optional<Error> MakeSpec(const std::string& layout, const std::vector<int64_t>& shape, SampleSpec* out);
// Floats per returned sample (product of shape) and per target (1, H*W, 4).
size_t SampleElements(const SampleSpec& spec);
size_t TargetElements(const SampleSpec& spec);

struct Sample {
  std::vector<float> data;
  std::vector<float> target;
};

// Writes `count` samples (deterministic from `seed`) in `files` files under
// `dir` (many small files vs few packed files). Sample i is
// ExpectedSample(spec, i, count, seed) before any lossy encoding (JPEG).
// For kSynthetic only a small descriptor (dir/synthetic.txt: count and seed)
// is written; the samples are made in memory when read. The jpeg format
// writes one file per sample whatever `files` says; lmdb one database.
std::optional<Error> GenerateDataset(const std::string& dir, Format f, const SampleSpec& spec, size_t count,
                                     size_t files, uint64_t seed);

// The sample GenerateDataset means as sample `index` of `count`, as a Reader
// returns it (decoded, normalised).
Sample ExpectedSample(const SampleSpec& spec, size_t index, size_t count, uint64_t seed);

// A dataset opened for reading. Read is thread-safe: each worker thread may
// call it concurrently. bytes_read() counts the bytes read from storage so
// far (encoded, before decoding).
class Reader {
 public:
  virtual ~Reader() = default;
  virtual size_t size() const = 0;
  virtual std::variant<Sample, Error> Read(size_t index) = 0;
  virtual size_t bytes_read() const = 0;
  // Read into *out, reusing its buffers: no allocation or zeroing when the
  // sizes repeat (the Loader's workers read this way). The formats here
  // implement it; the default goes through Read.
  virtual std::optional<Error> ReadInto(size_t index, Sample* out) {
    auto r = Read(index);
    if (auto* e = std::get_if<Error>(&r)) return *e;
    *out = std::move(std::get<Sample>(r));
    return std::nullopt;
  }
};

// How a Reader reads. decode = false reads and checks the stored bytes
// (framing, CRCs, record structure) but does not decode them; samples come
// back empty. That measures the storage path alone, as DLIO does.
struct ReadOptions {
  bool decode = true;
};

std::variant<std::unique_ptr<Reader>, Error> OpenDataset(const std::string& dir, Format f, const SampleSpec& spec);
std::variant<std::unique_ptr<Reader>, Error> OpenDataset(const std::string& dir, Format f, const SampleSpec& spec,
                                                         const ReadOptions& options);
// A synthetic dataset of `count` samples without any descriptor on disk.
std::unique_ptr<Reader> OpenSynthetic(const SampleSpec& spec, size_t count, uint64_t seed);

struct Batch {
  std::vector<float> data;    // size * sample data, concatenated
  std::vector<float> target;  // size * sample target, concatenated
  size_t size = 0;
};

// Batches a Reader with `workers` threads, keeping up to `prefetch` batches
// ready ahead (0: reading only while Next() waits). Each epoch visits this
// rank's shard (indices i with i % world == rank) once, in an order shuffled
// from shuffle_seed and the epoch number (shuffle_seed 0: in order); the
// last batch may be short. A sample that fails to read makes its batch an
// Error; the batches after it come as usual.
// Next() blocks until the next batch is ready and reports how long it waited
// (the I/O wait of a training step). The first epoch starts at construction;
// after the epoch's last batch Next() returns an empty batch (size 0) until
// NewEpoch(), which may also be called early to drop the rest of an epoch.
// Owned by one consumer thread; the Reader must outlive it.
class Loader {
 public:
  Loader(Reader* r, size_t batch_size, int workers, int prefetch, uint64_t shuffle_seed, size_t rank = 0,
         size_t world = 1);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  std::variant<Batch, Error> Next(double* wait_seconds);
  size_t batches_per_epoch() const;
  void NewEpoch();
  // Gives a batch's buffers back for the next batches (optional: saves
  // allocating and zeroing them, which for large batches costs more than
  // reading them from the page cache).
  void Recycle(Batch&& batch);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hbw::data
