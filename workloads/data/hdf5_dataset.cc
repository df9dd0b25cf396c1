// HDF5 datasets. Per layout, each file holds two datasets:
//   imagenet:  "data" uint8 [3,H,W] (raw CHW RGB), "labels" int64 []
//   deepcam:   "climate/data" float32 [H,W,C], "climate/labels_0" int32 [H,W]
//   cosmoflow: "x" int16 [D,H,W,C], "y" float32 [4]
// A file with one sample has exactly these shapes (DeepCAM's one file per
// sample); a file with n samples has a leading dimension n on both.
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <list>
#include <map>
#include <mutex>

#include "data/file_util.h"
#include "data/formats.h"
#include "data/samples.h"

namespace hbw::data {
namespace {

struct Field {
  std::string name;
  hid_t type;  // native memory type
  size_t elem;
  std::vector<hsize_t> base;  // shape of one sample
  size_t bytes() const {
    size_t n = elem;
    for (hsize_t b : base) n *= b;
    return n;
  }
};

std::vector<Field> FieldsOf(const SampleSpec& spec) {
  Dims d = DimsOf(spec);
  auto u = [](int64_t v) { return static_cast<hsize_t>(v); };
  switch (LayoutOf(spec)) {
    case Layout::kImagenet:
      return {{"data", H5T_NATIVE_UINT8, 1, {3, u(d.h), u(d.w)}}, {"labels", H5T_NATIVE_INT64, 8, {}}};
    case Layout::kDeepcam:
      return {{"climate/data", H5T_NATIVE_FLOAT, 4, {u(d.h), u(d.w), u(d.c)}},
              {"climate/labels_0", H5T_NATIVE_INT32, 4, {u(d.h), u(d.w)}}};
    case Layout::kCosmoflow:
      return {{"x", H5T_NATIVE_INT16, 2, {u(d.d), u(d.h), u(d.w), u(d.c)}}, {"y", H5T_NATIVE_FLOAT, 4, {4}}};
  }
  return {};
}

// HDF5 prints its error stack unless told not to, per thread.
void Quiet() {
  thread_local bool quiet = false;
  if (!quiet) H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  quiet = true;
}

// Closes an HDF5 id when it leaves scope.
struct Id {
  hid_t id = -1;
  herr_t (*close)(hid_t) = nullptr;
  Id(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) {}
  ~Id() {
    if (id >= 0) close(id);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
};

// A dataspace of these dimensions (scalar when there are none).
hid_t MakeSpace(const std::vector<hsize_t>& dims) {
  if (dims.empty()) return H5Screate(H5S_SCALAR);
  return H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
}

// Selects sample j (of a file with n samples) in a dataset's file space.
bool SelectSample(hid_t space, const Field& f, size_t n, size_t j) {
  if (n == 1 && H5Sget_simple_extent_ndims(space) == static_cast<int>(f.base.size())) return H5Sselect_all(space) >= 0;
  std::vector<hsize_t> start(f.base.size() + 1, 0), count = start;
  start[0] = j;
  count[0] = 1;
  std::copy(f.base.begin(), f.base.end(), count.begin() + 1);
  return H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) >= 0;
}

// The buffers of one sample, in the stored layout.
std::vector<const void*> RawBuffers(const SampleSpec& spec, const RawSample& raw, std::vector<uint8_t>* chw) {
  switch (LayoutOf(spec)) {
    case Layout::kImagenet: {
      Dims d = DimsOf(spec);
      size_t plane = d.pixels();
      chw->resize(plane * 3);
      for (size_t i = 0; i < plane; ++i)
        for (size_t c = 0; c < 3; ++c) (*chw)[c * plane + i] = raw.image[i * 3 + c];
      return {chw->data(), &raw.label};
    }
    case Layout::kDeepcam:
      return {raw.climate.data(), raw.mask.data()};
    case Layout::kCosmoflow:
      return {raw.counts.data(), raw.y.data()};
  }
  return {};
}

std::optional<Error> WriteFile5(const std::string& path, const SampleSpec& spec, size_t first, size_t last,
                                size_t count, uint64_t seed) {
  size_t n = last - first;
  Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (file.id < 0) return Error{path + ": cannot create HDF5 file"};
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.id, 1);
  std::vector<Field> fields = FieldsOf(spec);
  std::vector<std::unique_ptr<Id>> sets;
  for (const Field& f : fields) {
    std::vector<hsize_t> dims = f.base;
    if (n > 1) dims.insert(dims.begin(), n);
    Id space(MakeSpace(dims), H5Sclose);
    sets.push_back(std::make_unique<Id>(
        H5Dcreate2(file.id, f.name.c_str(), f.type, space.id, lcpl.id, H5P_DEFAULT, H5P_DEFAULT), H5Dclose));
    if (sets.back()->id < 0) return Error{path + ": cannot create dataset '" + f.name + "'"};
  }
  std::vector<uint8_t> chw;
  for (size_t j = 0; j < n; ++j) {
    RawSample raw = MakeRawSample(spec, first + j, count, seed);
    std::vector<const void*> bufs = RawBuffers(spec, raw, &chw);
    for (size_t k = 0; k < fields.size(); ++k) {
      Id space(H5Dget_space(sets[k]->id), H5Sclose);
      Id mem(MakeSpace(fields[k].base), H5Sclose);
      if (!SelectSample(space.id, fields[k], n, j) ||
          H5Dwrite(sets[k]->id, fields[k].type, mem.id, space.id, H5P_DEFAULT, bufs[k]) < 0)
        return Error{path + ": sample " + std::to_string(j) + ": cannot write '" + fields[k].name + "'"};
    }
  }
  return std::nullopt;
}

// An open file and its two datasets.
struct OpenFile {
  hid_t file = -1;
  std::vector<hid_t> sets;
  ~OpenFile() {
    for (hid_t s : sets) H5Dclose(s);
    if (file >= 0) H5Fclose(file);
  }
};

// Opens a file and checks its datasets against the fields; *n is the
// number of samples in it.
std::unique_ptr<OpenFile> OpenChecked(const std::string& path, const std::vector<Field>& fields, size_t* n,
                                      std::string* err) {
  Quiet();
  auto of = std::make_unique<OpenFile>();
  of->file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (of->file < 0) {
    *err = path + ": not a readable HDF5 file";
    return nullptr;
  }
  *n = 0;
  for (const Field& f : fields) {
    hid_t set = H5Dopen2(of->file, f.name.c_str(), H5P_DEFAULT);
    if (set < 0) {
      *err = path + ": no dataset '" + f.name + "'";
      return nullptr;
    }
    of->sets.push_back(set);
    Id space(H5Dget_space(set), H5Sclose);
    int rank = H5Sget_simple_extent_ndims(space.id);
    std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
    if (rank >= 0) H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
    size_t samples = rank == static_cast<int>(f.base.size()) ? 1 : rank > 0 ? dims[0] : 0;
    if (rank == static_cast<int>(f.base.size()) + 1) dims.erase(dims.begin());
    if (dims != f.base || samples == 0 || (*n && samples != *n)) {
      *err = path + ": dataset '" + f.name + "' has the wrong shape for this layout and sample shape";
      return nullptr;
    }
    *n = samples;
  }
  return of;
}

class Hdf5Reader : public Reader {
 public:
  Hdf5Reader(std::vector<std::string> paths, std::vector<size_t> starts, const SampleSpec& spec, const ReadOptions& opt)
      : paths_(std::move(paths)), starts_(std::move(starts)), spec_(spec), opt_(opt), fields_(FieldsOf(spec)) {}
  size_t size() const override { return starts_.back(); }
  size_t bytes_read() const override { return bytes_.Get(); }

  std::variant<Sample, Error> Read(size_t index) override { return ReadVia(this, index); }
  std::optional<Error> ReadInto(size_t index, Sample* out) override {
    if (index >= size()) return Error{"sample index " + std::to_string(index) + " out of range"};
    size_t file = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), index) - starts_.begin()) - 1;
    size_t j = index - starts_[file];
    thread_local std::vector<std::vector<char>> bufs;
    bufs.resize(fields_.size());
    std::string err;
    if (!ReadSample(file, j, &bufs, &err)) return Error{err};
    if (opt_.decode)
      Decode(bufs, out);
    else
      *out = Sample();
    return std::nullopt;
  }

 private:
  static constexpr size_t kKeepOpen = 64;

  bool ReadSample(size_t file, size_t j, std::vector<std::vector<char>>* bufs, std::string* err) {
    std::lock_guard<std::mutex> lock(mu_);
    Quiet();
    OpenFile* of = Handle(file, err);
    if (!of) return false;
    size_t n = starts_[file + 1] - starts_[file];
    for (size_t k = 0; k < fields_.size(); ++k) {
      const Field& f = fields_[k];
      (*bufs)[k].resize(f.bytes());
      Id space(H5Dget_space(of->sets[k]), H5Sclose);
      Id mem(MakeSpace(f.base), H5Sclose);
      if (!SelectSample(space.id, f, n, j) ||
          H5Dread(of->sets[k], f.type, mem.id, space.id, H5P_DEFAULT, (*bufs)[k].data()) < 0) {
        *err = paths_[file] + ": sample " + std::to_string(j) + ": cannot read '" + f.name + "'";
        Drop(file);
        return false;
      }
      bytes_.Add(f.bytes());
    }
    return true;
  }

  // The open handle of a file (mu_ held), opening it and dropping the least
  // recently used beyond kKeepOpen.
  OpenFile* Handle(size_t file, std::string* err) {
    auto it = open_.find(file);
    if (it != open_.end()) {
      lru_.remove(file);
      lru_.push_front(file);
      return it->second.get();
    }
    size_t n;
    auto of = OpenChecked(paths_[file], fields_, &n, err);
    if (!of) return nullptr;
    if (lru_.size() >= kKeepOpen) Drop(lru_.back());
    lru_.push_front(file);
    return (open_[file] = std::move(of)).get();
  }
  void Drop(size_t file) {
    open_.erase(file);
    lru_.remove(file);
  }

  void Decode(const std::vector<std::vector<char>>& bufs, Sample* s) const {
    Dims d = DimsOf(spec_);
    switch (LayoutOf(spec_)) {
      case Layout::kImagenet: {
        int64_t label;
        std::memcpy(&label, bufs[1].data(), 8);
        DecodeImageChw(reinterpret_cast<const uint8_t*>(bufs[0].data()), label, d, s);
        break;
      }
      case Layout::kDeepcam:
        DecodeClimate(bufs[0].data(), bufs[1].data(), d, s);
        break;
      case Layout::kCosmoflow: {
        float y[4];
        std::memcpy(y, bufs[1].data(), 16);
        DecodeCounts(bufs[0].data(), y, d, s);
        break;
      }
    }
  }

  std::vector<std::string> paths_;
  std::vector<size_t> starts_;  // first sample of each file, then the total
  SampleSpec spec_;
  ReadOptions opt_;
  std::vector<Field> fields_;
  std::mutex mu_;  // HDF5 calls and the handle cache
  std::map<size_t, std::unique_ptr<OpenFile>> open_;
  std::list<size_t> lru_;
  ByteCounter bytes_;
};

}  // namespace

std::optional<Error> GenerateHdf5(const std::string& dir, const SampleSpec& spec, size_t count, size_t files,
                                  uint64_t seed) {
  Quiet();
  for (size_t k = 0; k < files; ++k) {
    std::string path = JoinPath(dir, ShardName(dir, k, files, ".h5"));
    if (auto e = WriteFile5(path, spec, FileFirst(k, count, files), FileFirst(k + 1, count, files), count, seed))
      return e;
  }
  return std::nullopt;
}

OpenResult OpenHdf5(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt) {
  std::vector<std::string> names, paths;
  std::string err;
  if (!ListDir(dir, false, ".h5", &names, &err)) return Error{err};
  if (names.empty()) return Error{dir + ": no *.h5 files"};
  std::vector<size_t> starts{0};
  std::vector<Field> fields = FieldsOf(spec);
  for (const auto& name : names) {
    paths.push_back(JoinPath(dir, name));
    size_t n;
    if (!OpenChecked(paths.back(), fields, &n, &err)) return Error{err};
    starts.push_back(starts.back() + n);
  }
  return std::unique_ptr<Reader>(new Hdf5Reader(std::move(paths), std::move(starts), spec, opt));
}

}  // namespace hbw::data
