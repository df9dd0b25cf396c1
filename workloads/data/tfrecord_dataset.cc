// TFRecord datasets (plain and whole-file gzip): generation and the Reader.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <list>
#include <map>
#include <mutex>

#include "data/file_util.h"
#include "data/formats.h"
#include "data/record.h"
#include "data/tfrecord.h"

namespace hbw::data {
namespace {

const char* Suffix(bool gzip) { return gzip ? ".tfrecord.gz" : ".tfrecord"; }

// Decompressed gzip files, least recently used dropped beyond a budget.
// Thread-safe; two threads missing on the same file both decompress it.
class GunzipCache {
 public:
  using Content = std::shared_ptr<const std::string>;
  Content Get(uint32_t file) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(file);
    if (it == entries_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second.second);
    return it->second.first;
  }
  void Put(uint32_t file, Content c) {
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.count(file)) return;
    lru_.push_front(file);
    entries_[file] = {c, lru_.begin()};
    bytes_ += c->size();
    while (bytes_ > kBudget && lru_.size() > 1) {
      auto last = entries_.find(lru_.back());
      bytes_ -= last->second.first->size();
      entries_.erase(last);
      lru_.pop_back();
    }
  }

 private:
  static constexpr size_t kBudget = size_t(1) << 30;
  std::mutex mu_;
  std::list<uint32_t> lru_;
  std::map<uint32_t, std::pair<Content, std::list<uint32_t>::iterator>> entries_;
  size_t bytes_ = 0;
};

class TfrecordReader : public Reader {
 public:
  TfrecordReader(std::vector<std::string> paths, std::vector<RecordRef> refs, const SampleSpec& spec,
                 const ReadOptions& opt, bool gzip)
      : paths_(std::move(paths)), refs_(std::move(refs)), spec_(spec), opt_(opt), gzip_(gzip) {
    // Packed datasets keep their files open; many small files are opened
    // per read, as a framework reading them would.
    if (!gzip_ && paths_.size() <= kKeepOpen)
      for (const auto& p : paths_) fds_.push_back(::open(p.c_str(), O_RDONLY | O_CLOEXEC));
  }
  ~TfrecordReader() override {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }
  size_t size() const override { return refs_.size(); }
  size_t bytes_read() const override { return bytes_.Get(); }

  std::variant<Sample, Error> Read(size_t index) override { return ReadVia(this, index); }
  std::optional<Error> ReadInto(size_t index, Sample* out) override {
    if (index >= refs_.size()) return Error{"record index " + std::to_string(index) + " out of range"};
    const RecordRef& ref = refs_[index];
    std::string err;
    std::string_view payload;
    GunzipCache::Content content;  // keeps a gzip file's content alive
    bool ok = gzip_ ? FrameFromGzip(ref, &content, &payload, &err) : FrameFromFile(ref, &payload, &err);
    if (ok) ok = DecodeRecord(spec_, payload, false, opt_.decode, out, &err);
    if (!ok) return Error{paths_[ref.file] + ": record " + std::to_string(ref.record) + ": " + err};
    return std::nullopt;
  }

 private:
  static constexpr size_t kKeepOpen = 256;

  bool FrameFromFile(const RecordRef& ref, std::string_view* payload, std::string* err) {
    thread_local std::vector<char> buf;
    bool cached = ref.file < fds_.size() && fds_[ref.file] >= 0;
    int fd = cached ? fds_[ref.file] : ::open(paths_[ref.file].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *err = ErrnoText(errno);
      return false;
    }
    bool ok = ReadFrame(fd, ref.offset, ref.length, &buf, payload, err);
    if (!cached) ::close(fd);
    bytes_.Add(ok ? ref.length + kFrameOverhead : 0);
    return ok;
  }

  bool FrameFromGzip(const RecordRef& ref, GunzipCache::Content* content, std::string_view* payload, std::string* err) {
    *content = cache_.Get(ref.file);
    if (!*content) {
      auto data = std::make_shared<std::string>();
      size_t compressed = 0;
      if (!GunzipFile(paths_[ref.file], data.get(), &compressed, err)) return false;
      bytes_.Add(compressed);
      cache_.Put(ref.file, data);
      *content = data;
    }
    const std::string& c = **content;
    if (ref.offset >= c.size()) {
      *err = "truncated (file ends before the record)";
      return false;
    }
    return CheckFrame(c.data() + ref.offset, c.size() - ref.offset, payload, err) && CheckLength(ref, *payload, err);
  }

  // The index and the framing must agree.
  static bool CheckLength(const RecordRef& ref, std::string_view payload, std::string* err) {
    if (payload.size() == ref.length) return true;
    *err =
        "length " + std::to_string(payload.size()) + " does not match the index (" + std::to_string(ref.length) + ")";
    return false;
  }

  std::vector<std::string> paths_;
  std::vector<RecordRef> refs_;
  SampleSpec spec_;
  ReadOptions opt_;
  bool gzip_;
  std::vector<int> fds_;
  GunzipCache cache_;
  ByteCounter bytes_;
};

}  // namespace

std::string ShardName(const std::string& dir, size_t k, size_t files, const std::string& suffix) {
  const std::string base = std::filesystem::path(dir).filename().string();
  const char* split = base == "validation" || base == "val" ? "validation" : "train";
  char name[64];
  std::snprintf(name, sizeof name, "%s-%05zu-of-%05zu", split, k, files);
  return name + suffix;
}

std::optional<Error> GenerateTfrecord(const std::string& dir, const SampleSpec& spec, size_t count, size_t files,
                                      uint64_t seed, bool gzip) {
  std::string err, record;
  for (size_t k = 0; k < files; ++k) {
    std::string path = JoinPath(dir, ShardName(dir, k, files, Suffix(gzip)));
    TfrecordWriter w;
    if (!w.Open(path, gzip, &err)) return Error{err};
    for (size_t i = FileFirst(k, count, files); i < FileFirst(k + 1, count, files); ++i) {
      if (!EncodeRecord(spec, MakeRawSample(spec, i, count, seed), i, false, &record, &err) || !w.Write(record, &err))
        return Error{path + ": sample " + std::to_string(i) + ": " + err};
    }
    if (!w.Close(&err)) return Error{err};
  }
  return std::nullopt;
}

OpenResult OpenTfrecord(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt, bool gzip) {
  std::vector<std::string> names, paths;
  std::vector<RecordRef> refs;
  std::string err;
  if (!ListDir(dir, false, Suffix(gzip), &names, &err)) return Error{err};
  if (names.empty()) return Error{dir + ": no *" + std::string(Suffix(gzip)) + " files"};
  for (const auto& n : names) {
    paths.push_back(JoinPath(dir, n));
    if (!IndexTfrecord(paths.back(), static_cast<uint32_t>(paths.size() - 1), gzip, &refs, &err)) return Error{err};
  }
  return std::unique_ptr<Reader>(new TfrecordReader(std::move(paths), std::move(refs), spec, opt, gzip));
}

}  // namespace hbw::data
