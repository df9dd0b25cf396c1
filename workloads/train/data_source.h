// Training batches from files: the data library's formats (workloads/data,
// target hbw_data) behind a small interface, so hetbench-train builds
// without it (data_source-none.cc) and the torch code does not see it.
//
// A DataSource is owned by the training loop (one consumer thread); its
// loader's worker threads belong to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hbw::train {

struct DataSpec {
  std::string format;  // jpeg, tfrecord, tfrecord-gz, hdf5, lmdb
  std::string dir;
  std::string layout;          // imagenet, deepcam, cosmoflow
  std::vector<int64_t> shape;  // one sample, CHW or CDHW
  int num_classes = 1000;
  size_t batch = 1;
  int workers = 1, prefetch = 2;
  uint64_t seed = 1;  // shuffling
  size_t rank = 0, world = 1;
  // Evaluation: the last batch of an epoch may be short, Next() says where
  // the epoch ends (a batch of size 0), and a rank's shard may be empty.
  bool keep_last = false;
};

struct HostBatch {
  std::vector<float> data;    // batch x sample, concatenated
  std::vector<float> target;  // batch x target, concatenated
  size_t size = 0;
};

class DataSource {
 public:
  virtual ~DataSource() = default;
  // Samples in the dataset (all ranks together).
  virtual size_t dataset_size() const = 0;
  // Full batches each rank reads per epoch: the same on every rank, so that
  // every rank takes the same number of steps (a short last batch is
  // dropped, as drop_last=True does).
  virtual size_t steps_per_epoch() const = 0;
  // The next batch of this epoch, and the seconds spent waiting for it.
  // With keep_last, a batch of size 0 ends the epoch.
  virtual bool Next(HostBatch* out, double* wait_seconds, std::string* err) = 0;
  // Starts the next epoch (drops what is left of this one).
  virtual void NewEpoch() = 0;
};

// Whether this build has the data library.
bool FileFormatsAvailable();

// Writes `samples` samples in `files` files under spec.dir (deterministic
// from seed). Run on one rank.
bool GenerateFiles(const DataSpec& spec, size_t samples, size_t files, uint64_t seed, std::string* err);

std::unique_ptr<DataSource> OpenFileSource(const DataSpec& spec, std::string* err);

}  // namespace hbw::train
