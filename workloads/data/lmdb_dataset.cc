// LMDB datasets, as Caffe's convert_imageset writes ImageNet: one database
// (dir/data.mdb), keys "%08d", values the encoded record (a caffe.Datum with
// the JPEG bytes for imagenet, a tf.train.Example otherwise; see record.h).
#include <lmdb.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "data/file_util.h"
#include "data/formats.h"
#include "data/record.h"

namespace hbw::data {
namespace {

std::string Key(size_t i) {
  char key[32];
  std::snprintf(key, sizeof key, "%08zu", i);
  return key;
}

std::string LmdbError(const std::string& where, int rc) { return where + ": " + mdb_strerror(rc); }

class LmdbReader : public Reader {
 public:
  LmdbReader(MDB_env* env, MDB_dbi dbi, size_t entries, std::string dir, const SampleSpec& spec, const ReadOptions& opt)
      : env_(env), dbi_(dbi), entries_(entries), dir_(std::move(dir)), spec_(spec), opt_(opt) {}
  ~LmdbReader() override { mdb_env_close(env_); }
  size_t size() const override { return entries_; }
  size_t bytes_read() const override { return bytes_.Get(); }

  std::variant<Sample, Error> Read(size_t index) override { return ReadVia(this, index); }
  std::optional<Error> ReadInto(size_t index, Sample* out) override {
    if (index >= entries_) return Error{"record index " + std::to_string(index) + " out of range"};
    std::string key = Key(index), where = dir_ + ": key " + key;
    thread_local std::string value;
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn);
    if (rc != 0) return Error{LmdbError(where, rc)};
    MDB_val k{key.size(), key.data()}, v{};
    rc = mdb_get(txn, dbi_, &k, &v);
    // Copied out of the map, as Caffe's data layer does: the copy is the read.
    if (rc == 0) value.assign(static_cast<const char*>(v.mv_data), v.mv_size);
    mdb_txn_abort(txn);
    if (rc != 0) return Error{LmdbError(where, rc)};
    bytes_.Add(value.size());
    std::string err;
    if (!DecodeRecord(spec_, value, true, opt_.decode, out, &err)) return Error{where + ": " + err};
    return std::nullopt;
  }

 private:
  MDB_env* env_;
  MDB_dbi dbi_;
  size_t entries_;
  std::string dir_;
  SampleSpec spec_;
  ReadOptions opt_;
  ByteCounter bytes_;
};

// Puts every sample in one write transaction; *err on failure.
bool PutAll(MDB_env* env, const SampleSpec& spec, size_t count, uint64_t seed, std::string* err) {
  MDB_txn* txn;
  MDB_dbi dbi;
  int rc = mdb_txn_begin(env, nullptr, 0, &txn);
  if (rc == 0) rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
  if (rc != 0) {
    *err = mdb_strerror(rc);
    return false;
  }
  std::string value;
  for (size_t i = 0; i < count; ++i) {
    if (!EncodeRecord(spec, MakeRawSample(spec, i, count, seed), i, true, &value, err)) {
      mdb_txn_abort(txn);
      return false;
    }
    std::string key = Key(i);
    MDB_val k{key.size(), key.data()}, v{value.size(), value.data()};
    if ((rc = mdb_put(txn, dbi, &k, &v, MDB_APPEND)) != 0) {
      *err = "key " + key + ": " + mdb_strerror(rc);
      mdb_txn_abort(txn);
      return false;
    }
  }
  if ((rc = mdb_txn_commit(txn)) != 0) *err = mdb_strerror(rc);
  return rc == 0;
}

}  // namespace

std::optional<Error> GenerateLmdb(const std::string& dir, const SampleSpec& spec, size_t count, uint64_t seed) {
  // A fresh database: appending to an old one would collide on the keys.
  for (const char* name : {"data.mdb", "lock.mdb"}) {
    std::string path = JoinPath(dir, name);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Error{path + ": " + ErrnoText(errno)};
  }
  MDB_env* env;
  int rc = mdb_env_create(&env);
  if (rc != 0) return Error{LmdbError(dir, rc)};
  // Room for the records and the B-tree; pages are only used as written.
  size_t map = 2 * count * (RawBytes(spec) + 4096) + (size_t(64) << 20);
  std::string err;
  if ((rc = mdb_env_set_mapsize(env, map)) == 0 && (rc = mdb_env_open(env, dir.c_str(), 0, 0644)) == 0)
    PutAll(env, spec, count, seed, &err);
  else
    err = mdb_strerror(rc);
  mdb_env_close(env);
  if (!err.empty()) return Error{dir + ": " + err};
  return std::nullopt;
}

OpenResult OpenLmdb(const std::string& dir, const SampleSpec& spec, const ReadOptions& opt) {
  MDB_env* env;
  int rc = mdb_env_create(&env);
  if (rc != 0) return Error{LmdbError(dir, rc)};
  // Read-only as Caffe opens it, and without the lock file so a read-only
  // file system works.
  rc = mdb_env_open(env, dir.c_str(), MDB_RDONLY | MDB_NOTLS | MDB_NOLOCK, 0);
  MDB_txn* txn = nullptr;
  MDB_dbi dbi = 0;
  MDB_stat st{};
  if (rc == 0) rc = mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn);
  if (rc == 0) rc = mdb_dbi_open(txn, nullptr, 0, &dbi);
  if (rc == 0) rc = mdb_stat(txn, dbi, &st);
  if (txn) mdb_txn_abort(txn);
  if (rc != 0) {
    mdb_env_close(env);
    return Error{LmdbError(JoinPath(dir, "data.mdb"), rc)};
  }
  if (st.ms_entries == 0) {
    mdb_env_close(env);
    return Error{JoinPath(dir, "data.mdb") + ": no records"};
  }
  return std::unique_ptr<Reader>(new LmdbReader(env, dbi, st.ms_entries, dir, spec, opt));
}

}  // namespace hbw::data
