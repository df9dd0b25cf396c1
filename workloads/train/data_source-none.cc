// Builds without the data library (workloads/data): synthetic data only.
#include "train/data_source.h"

namespace hbw::train {

namespace {
const char kWhy[] =
    "file formats need the data library (workloads/data, target hbw_data), which this build lacks; "
    "use --format synthetic";
}

bool FileFormatsAvailable() { return false; }

bool GenerateFiles(const DataSpec&, size_t, size_t, uint64_t, std::string* err) {
  *err = kWhy;
  return false;
}

std::unique_ptr<DataSource> OpenFileSource(const DataSpec&, std::string* err) {
  *err = kWhy;
  return nullptr;
}

}  // namespace hbw::train
