// File datasets through the data library (workloads/data/dataset.h).
#include <variant>

#include "data/dataset.h"
#include "train/data_source.h"

namespace hbw::train {

namespace {

bool ToLibrary(const DataSpec& spec, data::Format* format, data::SampleSpec* sample, std::string* err) {
  if (!data::ParseFormat(spec.format, format)) {
    *err = "--format: unknown format '" + spec.format + "' (synthetic, jpeg, tfrecord, tfrecord-gz, hdf5, lmdb)";
    return false;
  }
  sample->layout = spec.layout;
  sample->shape = spec.shape;
  sample->num_classes = spec.num_classes;
  return true;
}

class LibrarySource : public DataSource {
 public:
  LibrarySource(std::unique_ptr<data::Reader> reader, const DataSpec& spec)
      : reader_(std::move(reader)),
        loader_(reader_.get(), spec.batch, spec.workers, spec.prefetch, spec.seed, spec.rank, spec.world),
        steps_(reader_->size() / spec.world / spec.batch),
        keep_last_(spec.keep_last) {}

  size_t dataset_size() const override { return reader_->size(); }
  size_t steps_per_epoch() const override { return steps_; }

  bool Next(HostBatch* out, double* wait_seconds, std::string* err) override {
    auto r = loader_.Next(wait_seconds);
    if (auto* e = std::get_if<data::Error>(&r)) {
      *err = e->message;
      return false;
    }
    data::Batch& b = std::get<data::Batch>(r);
    if (b.size == 0 && !keep_last_) {
      *err = "the loader ran out of batches before the end of the epoch";
      return false;
    }
    out->data = std::move(b.data);
    out->target = std::move(b.target);
    out->size = b.size;
    return true;
  }

  void NewEpoch() override { loader_.NewEpoch(); }

 private:
  std::unique_ptr<data::Reader> reader_;
  data::Loader loader_;
  size_t steps_;
  bool keep_last_;
};

}  // namespace

bool FileFormatsAvailable() { return true; }

bool GenerateFiles(const DataSpec& spec, size_t samples, size_t files, uint64_t seed, std::string* err) {
  data::Format format;
  data::SampleSpec sample;
  if (!ToLibrary(spec, &format, &sample, err)) return false;
  if (auto e = data::GenerateDataset(spec.dir, format, sample, samples, files, seed)) {
    *err = e->message;
    return false;
  }
  return true;
}

std::unique_ptr<DataSource> OpenFileSource(const DataSpec& spec, std::string* err) {
  data::Format format;
  data::SampleSpec sample;
  if (!ToLibrary(spec, &format, &sample, err)) return nullptr;
  auto r = data::OpenDataset(spec.dir, format, sample);
  if (auto* e = std::get_if<data::Error>(&r)) {
    *err = e->message;
    return nullptr;
  }
  auto reader = std::move(std::get<std::unique_ptr<data::Reader>>(r));
  if (reader->size() == 0) {
    *err = spec.dir + ": the dataset has no samples";
    return nullptr;
  }
  if (!spec.keep_last && reader->size() / spec.world / spec.batch == 0) {
    *err = spec.dir + ": " + std::to_string(reader->size()) + " samples are less than one batch of " +
           std::to_string(spec.batch) + " per rank on " + std::to_string(spec.world) + " ranks";
    return nullptr;
  }
  return std::make_unique<LibrarySource>(std::move(reader), spec);
}

}  // namespace hbw::train
