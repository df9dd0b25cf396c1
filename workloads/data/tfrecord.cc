#include "data/tfrecord.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "data/crc32c.h"
#include "data/file_util.h"

namespace hbw::data {
namespace {

void PutFixed(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t GetFixed(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

std::string RecordPrefix(uint32_t record) { return "record " + std::to_string(record) + ": "; }

// Checks a 12-byte header; *length is the data length it announces.
bool CheckHeader(const char* p, uint64_t* length, std::string* err) {
  *length = GetFixed(p, 8);
  if (GetFixed(p + 8, 4) != MaskCrc(Crc32c(p, 8))) {
    *err = "length CRC mismatch";
    return false;
  }
  return true;
}

// Reads "<file>.idx". For a plain file every record must lie inside it.
bool ReadIndexFile(const std::string& path, uint32_t file, uint64_t file_size, std::vector<RecordRef>* refs,
                   std::string* err) {
  std::string idx = path + ".idx", text;
  if (!ReadFile(idx, &text, err)) return false;
  uint32_t record = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    unsigned long long offset, size;
    if (std::sscanf(text.substr(pos, end - pos).c_str(), "%llu %llu", &offset, &size) != 2 || size < kFrameOverhead) {
      *err = idx + ": line " + std::to_string(record + 1) + ": expected 'offset size'";
      return false;
    }
    if (offset > file_size || size > file_size - offset) {
      *err = path + ": " + RecordPrefix(record) + "truncated (the index puts it at bytes " + std::to_string(offset) +
             "+" + std::to_string(size) + ", the file has " + std::to_string(file_size) + ")";
      return false;
    }
    refs->push_back({file, record++, offset, size - kFrameOverhead});
    pos = end + 1;
  }
  return true;
}

// Scans the framing of a plain file with positioned reads of the headers.
bool ScanPlain(const std::string& path, uint32_t file, std::vector<RecordRef>* refs, std::string* err) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    *err = path + ": " + ErrnoText(errno);
    if (fd >= 0) ::close(fd);
    return false;
  }
  uint64_t size = static_cast<uint64_t>(st.st_size), offset = 0;
  bool ok = true;
  for (uint32_t record = 0; ok && offset < size; ++record) {
    char header[12];
    size_t got = 0;
    uint64_t length = 0;
    std::string e;
    ok = PreadFull(fd, header, 12, static_cast<off_t>(offset), &got, &e);
    if (ok && got < 12) ok = (e = "truncated header (" + std::to_string(got) + " of 12 bytes)", false);
    if (ok) ok = CheckHeader(header, &length, &e);
    if (ok && (size - offset < kFrameOverhead || length > size - offset - kFrameOverhead))
      ok = (e = "truncated (record needs " + std::to_string(length + kFrameOverhead) + " bytes, file has " +
                std::to_string(size - offset) + " left)",
            false);
    if (!ok) *err = path + ": " + RecordPrefix(record) + e;
    if (ok) refs->push_back({file, record, offset, length});
    offset += length + kFrameOverhead;
  }
  ::close(fd);
  return ok;
}

// Scans the framing of a gzip file, decompressing it as a stream.
bool ScanGzip(const std::string& path, uint32_t file, std::vector<RecordRef>* refs, std::string* err) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) {
    *err = path + ": " + ErrnoText(errno);
    return false;
  }
  gzbuffer(gz, 1 << 20);
  std::vector<char> skip(1 << 20);
  uint64_t offset = 0;
  std::string e;
  for (uint32_t record = 0; e.empty(); ++record) {
    char header[12];
    int got = gzread(gz, header, 12);
    if (got == 0) break;
    uint64_t length = 0;
    if (got < 0 || got < 12) {
      int code;
      const char* msg = gzerror(gz, &code);
      e = RecordPrefix(record) + (got < 0 || code != Z_OK ? std::string("gzip: ") + msg : "truncated header");
      break;
    }
    if (!CheckHeader(header, &length, &e)) {
      e = RecordPrefix(record) + e;
      break;
    }
    for (uint64_t left = length + 4; left > 0;) {
      int want = static_cast<int>(std::min<uint64_t>(left, skip.size()));
      int n = gzread(gz, skip.data(), static_cast<unsigned>(want));
      if (n <= 0) {
        int code;
        const char* msg = gzerror(gz, &code);
        e = RecordPrefix(record) + (code != Z_OK ? std::string("gzip: ") + msg : "truncated record");
        break;
      }
      left -= static_cast<uint64_t>(n);
    }
    if (e.empty()) refs->push_back({file, record, offset, length});
    offset += length + kFrameOverhead;
  }
  gzclose(gz);
  if (!e.empty()) *err = path + ": " + e;
  return e.empty();
}

}  // namespace

std::string FrameRecord(std::string_view data) {
  std::string out;
  out.reserve(data.size() + kFrameOverhead);
  PutFixed(&out, data.size(), 8);
  PutFixed(&out, MaskCrc(Crc32c(out.data(), 8)), 4);
  out.append(data);
  PutFixed(&out, MaskCrc(Crc32c(data.data(), data.size())), 4);
  return out;
}

bool CheckFrame(const char* p, size_t n, std::string_view* payload, std::string* err, const uint32_t* data_crc) {
  uint64_t length;
  if (n < 12) {
    *err = "truncated header (" + std::to_string(n) + " of 12 bytes)";
    return false;
  }
  if (!CheckHeader(p, &length, err)) return false;
  if (n < kFrameOverhead || length > n - kFrameOverhead) {
    *err = "truncated (record needs " + std::to_string(length + kFrameOverhead) + " bytes, " + std::to_string(n) +
           " there)";
    return false;
  }
  uint32_t crc = data_crc ? *data_crc : Crc32c(p + 12, length);
  if (GetFixed(p + 12 + length, 4) != MaskCrc(crc)) {
    *err = "data CRC mismatch";
    return false;
  }
  *payload = std::string_view(p + 12, length);
  return true;
}

bool ReadFrame(int fd, uint64_t offset, uint64_t length, std::vector<char>* buf, std::string_view* payload,
               std::string* err) {
  // Read in pieces and checksum each while it is still in the cache.
  constexpr size_t kPiece = 256 << 10;
  const size_t n = length + kFrameOverhead;
  if (buf->size() < n) buf->resize(n);
  char* p = buf->data();
  size_t got = 0;
  uint32_t crc = 0;
  while (got < n) {
    size_t piece = 0;
    if (!PreadFull(fd, p + got, std::min(kPiece, n - got), static_cast<off_t>(offset + got), &piece, err)) return false;
    size_t from = std::max<size_t>(got, 12), to = std::min<size_t>(got + piece, 12 + length);
    if (to > from) crc = Crc32c(p + from, to - from, crc);
    got += piece;
    if (piece == 0) break;
  }
  // The data CRC covers `length` bytes: usable only if the header agrees.
  uint64_t announced = 0;
  if (got >= 12 && CheckHeader(p, &announced, err) && announced != length) {
    *err = "length " + std::to_string(announced) + " does not match the index (" + std::to_string(length) + ")";
    return false;
  }
  return CheckFrame(p, got, payload, err, got == n ? &crc : nullptr);
}

TfrecordWriter::~TfrecordWriter() {
  if (file_) std::fclose(file_);
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

bool TfrecordWriter::Open(const std::string& path, bool gzip, std::string* err) {
  path_ = path;
  gzip_ = gzip;
  if (gzip)
    gz_ = gzopen(path.c_str(), "wb6");
  else
    file_ = std::fopen(path.c_str(), "wb");
  if (!gz_ && !file_) *err = path + ": " + ErrnoText(errno);
  return gz_ || file_;
}

bool TfrecordWriter::Write(std::string_view data, std::string* err) {
  std::string framed = FrameRecord(data);
  bool ok = gzip_ ? gzwrite(static_cast<gzFile>(gz_), framed.data(), static_cast<unsigned>(framed.size())) ==
                        static_cast<int>(framed.size())
                  : std::fwrite(framed.data(), 1, framed.size(), file_) == framed.size();
  if (!ok) {
    *err = path_ + ": write failed: " + ErrnoText(errno);
    return false;
  }
  index_ += std::to_string(offset_) + " " + std::to_string(framed.size()) + "\n";
  offset_ += framed.size();
  return true;
}

bool TfrecordWriter::Close(std::string* err) {
  bool ok = gzip_ ? gzclose(static_cast<gzFile>(gz_)) == Z_OK : std::fclose(file_) == 0;
  gz_ = nullptr;
  file_ = nullptr;
  if (!ok) {
    *err = path_ + ": close failed: " + ErrnoText(errno);
    return false;
  }
  return WriteFile(path_ + ".idx", index_, err);
}

bool IndexTfrecord(const std::string& path, uint32_t file, bool gzip, std::vector<RecordRef>* refs, std::string* err) {
  std::string idx = path + ".idx";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    *err = path + ": " + ErrnoText(errno);
    return false;
  }
  // A gzip file's offsets are in its uncompressed stream: bounded by reads.
  uint64_t bound = gzip ? UINT64_MAX : static_cast<uint64_t>(st.st_size);
  if (::access(idx.c_str(), R_OK) == 0) return ReadIndexFile(path, file, bound, refs, err);
  return gzip ? ScanGzip(path, file, refs, err) : ScanPlain(path, file, refs, err);
}

bool GunzipFile(const std::string& path, std::string* out, size_t* compressed_bytes, std::string* err) {
  std::string in;
  if (!ReadFile(path, &in, err)) return false;
  *compressed_bytes = in.size();
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) {
    *err = path + ": gzip: cannot start zlib";
    return false;
  }
  z.next_in = reinterpret_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  out->clear();
  int rc = Z_OK;
  while (rc != Z_STREAM_END || z.avail_in > 0) {
    if (rc == Z_STREAM_END) inflateReset(&z);  // another gzip member follows
    size_t have = out->size();
    out->resize(have + std::max<size_t>(1 << 20, in.size()));
    z.next_out = reinterpret_cast<Bytef*>(out->data() + have);
    z.avail_out = static_cast<uInt>(out->size() - have);
    rc = inflate(&z, Z_NO_FLUSH);
    out->resize(out->size() - z.avail_out);
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) rc = Z_BUF_ERROR;  // input ended mid-stream
    if (rc != Z_OK && rc != Z_STREAM_END) break;
  }
  std::string msg = rc == Z_BUF_ERROR ? "unexpected end of compressed data" : z.msg ? z.msg : "corrupt data";
  inflateEnd(&z);
  if (rc != Z_STREAM_END) *err = path + ": gzip: " + msg;
  return rc == Z_STREAM_END;
}

}  // namespace hbw::data
