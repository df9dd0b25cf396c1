#include "k8s/tar_gz.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

constexpr size_t kBlock = 512;
constexpr size_t kChunk = 64 * 1024;
// Extended headers (GNU long names, pax records) are read into memory.
constexpr uint64_t kMaxExtendedHeader = 1 << 20;

std::string Errno() { return std::strerror(errno); }

// ------------------------------------------------------------------ header

// Offsets and widths of the ustar header fields (POSIX.1-2001, "ustar
// Interchange Format").
struct Field {
  size_t off, len;
};
constexpr Field kName{0, 100}, kMode{100, 8}, kUid{108, 8}, kGid{116, 8}, kSize{124, 12}, kMtime{136, 12},
    kChksum{148, 8}, kLinkname{157, 100}, kMagic{257, 6}, kVersion{263, 2}, kDevmajor{329, 8}, kDevminor{337, 8},
    kPrefix{345, 155};
constexpr size_t kTypeflag = 156;

using Block = std::array<char, kBlock>;

void PutString(Block* h, Field f, std::string_view s) {
  std::memcpy(h->data() + f.off, s.data(), std::min(s.size(), f.len));
}

// Octal with a NUL terminator when it fits, else GNU's base-256 (the first
// byte 0x80, then the value big-endian).
void PutNumber(Block* h, Field f, uint64_t v) {
  char* p = h->data() + f.off;
  if (f.len - 1 >= 22 || v < (uint64_t{1} << (3 * (f.len - 1)))) {
    for (size_t i = f.len - 1; i-- > 0; v >>= 3) p[i] = static_cast<char>('0' + (v & 7));
    p[f.len - 1] = '\0';
    return;
  }
  for (size_t i = f.len; i-- > 1; v >>= 8) p[i] = static_cast<char>(v & 0xff);
  p[0] = static_cast<char>(0x80);
}

// The sum of the header's bytes with the checksum field counted as spaces;
// `as_signed` gives the sum some old tars wrote.
int64_t HeaderSum(const Block& h, bool as_signed) {
  int64_t sum = 0;
  for (size_t i = 0; i < kBlock; ++i) {
    bool in_chksum = i >= kChksum.off && i < kChksum.off + kChksum.len;
    char c = in_chksum ? ' ' : h[i];
    sum += as_signed ? static_cast<signed char>(c) : static_cast<unsigned char>(c);
  }
  return sum;
}

void PutChecksum(Block* h) {
  std::memset(h->data() + kChksum.off, ' ', kChksum.len);
  int64_t sum = HeaderSum(*h, false);
  for (size_t i = 6; i-- > 0; sum >>= 3) (*h)[kChksum.off + i] = static_cast<char>('0' + (sum & 7));
  (*h)[kChksum.off + 6] = '\0';
}

// An octal field (leading spaces, digits, then NUL or space) or a positive
// base-256 one; nullopt when it is neither or does not fit 63 bits.
std::optional<uint64_t> GetNumber(const Block& h, Field f) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(h.data() + f.off);
  uint64_t v = 0;
  if (p[0] == 0x80) {
    for (size_t i = 1; i < f.len; ++i) {
      if (v >> 55) return std::nullopt;
      v = (v << 8) | p[i];
    }
    return v;
  }
  size_t i = 0;
  while (i < f.len && p[i] == ' ') ++i;
  for (; i < f.len && p[i] >= '0' && p[i] <= '7'; ++i) {
    if (v >> 60) return std::nullopt;
    v = (v << 3) | (p[i] - '0');
  }
  if (i < f.len && p[i] != '\0' && p[i] != ' ') return std::nullopt;
  return v;
}

std::string GetString(const Block& h, Field f) {
  const char* p = h.data() + f.off;
  return std::string(p, strnlen(p, f.len));
}

bool IsZero(const Block& h) {
  return std::all_of(h.begin(), h.end(), [](char c) { return c == 0; });
}

// ------------------------------------------------------------------- gzip

// Compresses into a string as gzip (one member, zlib's default level).
class Deflater {
 public:
  Deflater() { ok_ = deflateInit2(&z_, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK; }
  ~Deflater() {
    if (ok_) deflateEnd(&z_);
  }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  Status Write(std::string_view in) { return Run(in, Z_NO_FLUSH); }
  Result<std::string> Finish() {
    Status st = Run({}, Z_FINISH);
    if (!st.ok()) return st;
    return std::move(out_);
  }

 private:
  Status Run(std::string_view in, int flush) {
    if (!ok_) return Status::Error("cannot start zlib's compressor");
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(in.size());
    char buf[kChunk];
    int rc;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(buf);
      z_.avail_out = sizeof(buf);
      rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) return Status::Error("zlib's compressor failed");
      out_.append(buf, sizeof(buf) - z_.avail_out);
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return Status::OK();
  }

  z_stream z_{};
  bool ok_ = false;
  std::string out_;
};

// Decompresses gzip data (concatenated members, then optionally zero bytes
// of padding) on demand, checking each member's CRC and length.
class Inflater {
 public:
  explicit Inflater(std::string_view in) : in_(in) {
    ok_ = inflateInit2(&z_, 15 + 16) == Z_OK;
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_.data()));
  }
  ~Inflater() {
    if (ok_) inflateEnd(&z_);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Fills buf with up to n bytes: fewer only at the end of the data.
  Result<size_t> Read(char* buf, size_t n) {
    if (!ok_) return Status::Error("cannot start zlib's decompressor");
    if (in_.size() < 2 || in_[0] != '\x1f' || in_[1] != '\x8b') return Status::Error("not gzip data");
    size_t got = 0;
    while (got < n && !done_) {
      Status st = Step(buf + got, n - got, &got);
      if (!st.ok()) return st;
    }
    return got;
  }

 private:
  size_t Consumed() const { return reinterpret_cast<const char*>(z_.next_in) - in_.data(); }

  Status Step(char* out, size_t n, size_t* got) {
    z_.avail_in = static_cast<uInt>(std::min<size_t>(in_.size() - Consumed(), UINT_MAX));
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, UINT_MAX));
    int rc = inflate(&z_, Z_NO_FLUSH);
    *got += std::min<size_t>(n, UINT_MAX) - z_.avail_out;
    if (rc == Z_STREAM_END) return NextMember();
    if (rc == Z_OK) return Status::OK();
    if (rc == Z_BUF_ERROR && Consumed() == in_.size()) return Status::Error("the gzip data ends early");
    return Status::Error(std::string("bad gzip data (") + (z_.msg ? z_.msg : "zlib error " + std::to_string(rc)) + ")");
  }

  Status NextMember() {
    std::string_view rest = in_.substr(Consumed());
    if (std::all_of(rest.begin(), rest.end(), [](char c) { return c == 0; })) {
      done_ = true;
      return Status::OK();
    }
    if (rest.size() < 2 || rest[0] != '\x1f' || rest[1] != '\x8b')
      return Status::Error("bad gzip data (trailing garbage)");
    inflateReset(&z_);
    return Status::OK();
  }

  std::string_view in_;
  z_stream z_{};
  bool ok_ = false, done_ = false;
};

// ----------------------------------------------------------------- packing

// Appends tar entries to a gzip stream, a chunk at a time.
class TarWriter {
 public:
  Status AddHeader(const std::string& name, char type, const struct stat& st, uint64_t size,
                   const std::string& link = "") {
    Status s = AddLongRecord(name, kName.len, 'L');
    if (s.ok()) s = AddLongRecord(link, kLinkname.len, 'K');
    if (!s.ok()) return s;
    Block h{};
    if (!SplitName(name, &h)) PutString(&h, kName, name);
    PutNumber(&h, kMode, st.st_mode & 07777);
    PutNumber(&h, kUid, st.st_uid);
    PutNumber(&h, kGid, st.st_gid);
    PutNumber(&h, kSize, size);
    PutNumber(&h, kMtime, st.st_mtime > 0 ? static_cast<uint64_t>(st.st_mtime) : 0);
    h[kTypeflag] = type;
    PutString(&h, kLinkname, link);
    return Append(Stamp(&h));
  }

  // Data of the entry just added, in pieces, then Pad().
  Status Append(std::string_view data) {
    pending_.append(data);
    written_ += data.size();
    if (pending_.size() < kChunk) return Status::OK();
    Status st = gz_.Write(pending_);
    pending_.clear();
    return st;
  }
  Status Pad() { return Append(std::string((kBlock - written_ % kBlock) % kBlock, '\0')); }

  Result<std::string> Finish() {
    Status st = Append(std::string(2 * kBlock, '\0'));  // the end-of-archive marker
    if (st.ok()) st = gz_.Write(pending_);
    if (!st.ok()) return st;
    return gz_.Finish();
  }

 private:
  // ustar's magic, version, the unused device numbers and the checksum.
  static std::string_view Stamp(Block* h) {
    PutString(h, kMagic, std::string_view("ustar\0", 6));
    PutString(h, kVersion, "00");
    PutNumber(h, kDevmajor, 0);
    PutNumber(h, kDevminor, 0);
    PutChecksum(h);
    return std::string_view(h->data(), kBlock);
  }

  // A name over 100 bytes split into prefix "/" name at a '/'.
  static bool SplitName(const std::string& name, Block* h) {
    if (name.size() <= kName.len) return false;
    for (size_t i = name.find('/'); i != std::string::npos && i <= kPrefix.len; i = name.find('/', i + 1)) {
      std::string_view rest = std::string_view(name).substr(i + 1);
      if (rest.empty() || rest.size() > kName.len) continue;
      PutString(h, kPrefix, std::string_view(name).substr(0, i));
      PutString(h, kName, rest);
      return true;
    }
    return false;
  }

  // GNU's record for a name (type 'L') or link target ('K') that fits
  // neither the name field nor, for a name, the prefix and name fields.
  Status AddLongRecord(const std::string& s, size_t field_len, char type) {
    Block probe{};
    if (s.size() <= field_len || (type == 'L' && SplitName(s, &probe))) return Status::OK();
    Block h{};
    PutString(&h, kName, "././@LongLink");
    PutNumber(&h, kMode, 0644);
    PutNumber(&h, kUid, 0);
    PutNumber(&h, kGid, 0);
    PutNumber(&h, kSize, s.size() + 1);
    PutNumber(&h, kMtime, 0);
    h[kTypeflag] = type;
    Status st = Append(Stamp(&h));
    if (st.ok()) st = Append(std::string_view(s.c_str(), s.size() + 1));
    return st.ok() ? Pad() : st;
  }

  Deflater gz_;
  std::string pending_;
  uint64_t written_ = 0;
};

class DirReader {
 public:
  explicit DirReader(const std::string& path) : d_(opendir(path.c_str())), err_(d_ ? 0 : errno) {}
  ~DirReader() {
    if (d_) closedir(d_);
  }
  DirReader(const DirReader&) = delete;
  DirReader& operator=(const DirReader&) = delete;

  // The entries' names, less "." and "..", sorted.
  Result<std::vector<std::string>> Names(const std::string& path) {
    if (!d_) return Status::Error("cannot read the folder " + path + ": " + std::strerror(err_));
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* e = readdir(d_)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(std::move(n));
      errno = 0;
    }
    if (errno != 0) return Status::Error("cannot read the folder " + path + ": " + Errno());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  DIR* d_;
  int err_;
};

Status AddFileData(TarWriter* w, const std::string& path, const std::string& name) {
  // O_NONBLOCK: should the file have become a FIFO since lstat, fail
  // rather than wait for a writer.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return Status::Error("cannot read " + path + ": " + Errno());
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) return Status::Error("cannot read " + path + ": " + Errno());
  if (!S_ISREG(st.st_mode)) return Status::Error("cannot pack " + path + ": it changed while it was read");
  Status s = w->AddHeader(name, '0', st, static_cast<uint64_t>(st.st_size));
  std::vector<char> buf(kChunk);
  for (uint64_t left = static_cast<uint64_t>(st.st_size); s.ok() && left > 0;) {
    ssize_t n = read(fd, buf.data(), std::min<uint64_t>(left, buf.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Error("cannot read " + path + ": " + Errno());
    if (n == 0) return Status::Error("cannot pack " + path + ": it shrank while it was read");
    left -= static_cast<uint64_t>(n);
    s = w->Append(std::string_view(buf.data(), static_cast<size_t>(n)));
  }
  return s.ok() ? w->Pad() : s;
}

Result<std::string> ReadLink(const std::string& path, size_t hint) {
  std::string target(std::max<size_t>(hint, 64) + 1, '\0');
  for (;;) {
    ssize_t n = readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return Status::Error("cannot read the link " + path + ": " + Errno());
    if (static_cast<size_t>(n) < target.size()) return target.substr(0, static_cast<size_t>(n));
    target.resize(target.size() * 2);
  }
}

// Adds the entries of folder `path` (named `prefix` in the archive).
Status AddTree(TarWriter* w, const std::string& path, const std::string& prefix) {
  DirReader dir(path);
  auto names = dir.Names(path);
  if (!names.ok()) return names.status();
  for (const auto& n : *names) {
    std::string full = path + "/" + n, name = prefix + n;
    struct stat st;
    if (lstat(full.c_str(), &st) != 0) return Status::Error("cannot read " + full + ": " + Errno());
    Status s;
    if (S_ISDIR(st.st_mode)) {
      s = w->AddHeader(name + "/", '5', st, 0);
      if (s.ok()) s = AddTree(w, full, name + "/");
    } else if (S_ISREG(st.st_mode)) {
      s = AddFileData(w, full, name);
    } else if (S_ISLNK(st.st_mode)) {
      auto target = ReadLink(full, static_cast<size_t>(st.st_size));
      s = target.ok() ? w->AddHeader(name, '2', st, 0, *target) : target.status();
    }
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// ----------------------------------------------------------------- reading

struct Entry {
  std::string name;  // as written in the archive
  char type = '0';
  uint32_t mode = 0;
  int64_t mtime = 0;
  uint64_t size = 0;
  std::string link;
};

// Walks the entries of a tar.gz, following GNU long-name records and pax
// extended headers. Any damage is an error "not a valid tar.gz: ...".
class TarReader {
 public:
  explicit TarReader(const std::string& archive) : gz_(archive) {}

  // The next entry; false at the end of the archive. Skips what is left of
  // the previous entry's data.
  Result<bool> Next(Entry* e) {
    Status st = SkipData();
    if (!st.ok()) return st;
    for (;;) {
      Block h{};
      auto got = ReadFull(h.data(), kBlock);
      if (!got.ok()) return got.status();
      if (*got > 0 && *got < kBlock) return Damaged("the archive ends inside a header" + After());
      if (*got == 0 || IsZero(h)) return Drain();
      st = ParseHeader(h, e);
      if (!st.ok()) return st;
      if (!IsExtension(e->type)) return true;
      st = ReadExtension(*e);
      if (!st.ok()) return st;
    }
  }

  // Passes the current entry's data to `sink` in pieces.
  Status ReadData(const std::function<Status(std::string_view)>& sink) {
    std::vector<char> buf(kChunk);
    while (left_ > 0) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(left_, buf.size()));
      auto got = ReadFull(buf.data(), want);
      if (!got.ok()) return got.status();
      if (*got < want) return Damaged("'" + last_ + "' is cut short");
      left_ -= want;
      Status st = sink(std::string_view(buf.data(), want));
      if (!st.ok()) return st;
    }
    return SkipPadding();
  }

 private:
  static bool IsExtension(char type) { return type == 'L' || type == 'K' || type == 'x' || type == 'g'; }

  static Status Damaged(const std::string& why) { return Status::Error("not a valid tar.gz: " + why); }
  std::string After() const { return last_.empty() ? " (at its start)" : " (after '" + last_ + "')"; }

  Result<size_t> ReadFull(char* buf, size_t n) {
    auto got = gz_.Read(buf, n);
    if (!got.ok()) return Damaged(got.status().message() + After());
    return got;
  }

  // After the end-of-archive marker: the rest is read only so that the gzip
  // checksums are checked.
  Result<bool> Drain() {
    std::vector<char> buf(kChunk);
    for (;;) {
      auto got = ReadFull(buf.data(), buf.size());
      if (!got.ok()) return got.status();
      if (*got < buf.size()) return false;
    }
  }

  Status SkipData() {
    return ReadData([](std::string_view) { return Status::OK(); });
  }

  Status SkipPadding() {
    char pad[kBlock];
    auto got = ReadFull(pad, padding_);
    if (!got.ok()) return got.status();
    if (*got < padding_) return Damaged("'" + last_ + "' is cut short");
    padding_ = 0;
    return Status::OK();
  }

  Status ParseHeader(const Block& h, Entry* e) {
    auto chksum = GetNumber(h, kChksum);
    if (!chksum ||
        (*chksum != static_cast<uint64_t>(HeaderSum(h, false)) && static_cast<int64_t>(*chksum) != HeaderSum(h, true)))
      return Damaged("a header has a bad checksum" + After());
    std::string name = GetString(h, kName);
    bool posix = std::memcmp(h.data() + kMagic.off, "ustar\0", 6) == 0;
    if (posix && h[kPrefix.off] != '\0') name = GetString(h, kPrefix) + "/" + name;
    e->name = pax_path_ ? *pax_path_ : long_name_ ? *long_name_ : name;
    e->link = pax_link_ ? *pax_link_ : long_link_ ? *long_link_ : GetString(h, kLinkname);
    e->type = h[kTypeflag];
    auto mode = GetNumber(h, kMode), size = GetNumber(h, kSize);
    if (!mode || !size) return Damaged("the header of '" + e->name + "' has a bad number in it");
    e->mode = static_cast<uint32_t>(*mode & 07777);
    e->size = pax_size_ && !IsExtension(e->type) ? *pax_size_ : *size;
    e->mtime =
        static_cast<int64_t>(GetNumber(h, kMtime).value_or(0));  // GNU writes times before 1970 as negative base-256
    if (!IsExtension(e->type)) {
      last_ = e->name;
      pax_path_ = pax_link_ = long_name_ = long_link_ = std::nullopt;
      pax_size_ = std::nullopt;
    }
    // Links, devices and folders carry no data whatever their size says.
    bool data = e->type == '0' || e->type == '\0' || e->type == '7' || IsExtension(e->type);
    left_ = data ? e->size : 0;
    padding_ = (kBlock - left_ % kBlock) % kBlock;
    return Status::OK();
  }

  Status ReadExtension(const Entry& e) {
    if (e.size > kMaxExtendedHeader)
      return Damaged("an extended header of " + std::to_string(e.size) + " bytes" + After());
    std::string data;
    Status st = ReadData([&](std::string_view piece) {
      data.append(piece);
      return Status::OK();
    });
    if (!st.ok()) return st;
    if (e.type == 'L' || e.type == 'K') {
      std::string s = data.substr(0, data.find('\0'));
      (e.type == 'L' ? long_name_ : long_link_) = s;
      return Status::OK();
    }
    return e.type == 'x' ? ParsePax(data) : Status::OK();  // global ('g') records change nothing here
  }

  // Records "LENGTH KEY=VALUE\n" (POSIX.1-2001, pax Extended Header).
  Status ParsePax(std::string_view data) {
    while (!data.empty()) {
      size_t sp = data.find(' ');
      size_t len = 0;
      for (size_t i = 0; sp != std::string_view::npos && i < sp && len <= data.size(); ++i)
        len = std::isdigit(static_cast<unsigned char>(data[i])) ? len * 10 + (data[i] - '0') : SIZE_MAX;
      if (sp == std::string_view::npos || sp == 0 || len > data.size() || len <= sp + 1 || data[len - 1] != '\n')
        return Damaged("a bad pax extended header" + After());
      std::string_view rec = data.substr(sp + 1, len - sp - 2);
      data.remove_prefix(len);
      size_t eq = rec.find('=');
      if (eq == std::string_view::npos) return Damaged("a bad pax extended header" + After());
      Status st = PaxRecord(rec.substr(0, eq), rec.substr(eq + 1));
      if (!st.ok()) return st;
    }
    return Status::OK();
  }

  Status PaxRecord(std::string_view key, std::string_view value) {
    if (value.find('\0') != std::string_view::npos) return Damaged("a NUL in a pax extended header" + After());
    if (key == "path") pax_path_ = std::string(value);
    if (key == "linkpath") pax_link_ = std::string(value);
    if (key == "size") {
      uint64_t v = 0;
      for (char c : value) {
        if (!std::isdigit(static_cast<unsigned char>(c)) || (v >> 59)) return Damaged("a bad pax size" + After());
        v = v * 10 + static_cast<uint64_t>(c - '0');
      }
      pax_size_ = v;
    }
    return Status::OK();
  }

  Inflater gz_;
  uint64_t left_ = 0;   // data of the current entry not read yet
  size_t padding_ = 0;  // then this much up to the next block
  std::string last_;    // the last entry's name, for messages
  std::optional<std::string> pax_path_, pax_link_, long_name_, long_link_;
  std::optional<uint64_t> pax_size_;
};

// --------------------------------------------------------------- unpacking

// The entry's name as path components below the stage directory; an error
// when it is absolute or climbs out with "..". Empty: the folder itself.
Result<std::vector<std::string>> SafeName(const std::string& name) {
  if (name.empty()) return Status::Error("not a valid tar.gz: an entry has no name");
  auto outside = Status::Error("'" + name + "', which is outside the stage directory: refused");
  if (name[0] == '/') return outside;
  std::vector<std::string> parts;
  for (auto& p : Split(name, '/')) {
    if (p == "..") return outside;
    if (!p.empty() && p != ".") parts.push_back(std::move(p));
  }
  return parts;
}

bool IsDir(const Entry& e) { return e.type == '5' || ((e.type == '0' || e.type == '\0') && EndsWith(e.name, "/")); }

// What the first pass refuses.
Status Check(const Entry& e) {
  auto parts = SafeName(e.name);
  if (!parts.ok()) return parts.status();
  auto refused = [&](const std::string& what) {
    return Status::Error("'" + e.name + "' is " + what + ": refused (only files and folders are unpacked)");
  };
  switch (e.type) {
    case '0':
    case '\0':
    case '7':
    case '5':
      if (parts->empty() && !IsDir(e)) return Status::Error("not a valid tar.gz: a file named '" + e.name + "'");
      return Status::OK();
    case '1':
      return refused("a hard link to '" + e.link + "'");
    case '2':
      return refused("a symbolic link to '" + e.link + "'");
    case '3':
      return refused("a character device");
    case '4':
      return refused("a block device");
    case '6':
      return refused("a FIFO");
    default:
      return refused(std::string("of entry type '") + e.type + "', which is not supported");
  }
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(-1); }
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Opens (creating it when missing) folder `name` in `at`, never through a
// symbolic link.
Result<Fd> OpenDir(int at, const std::string& name, mode_t mode, const std::string& shown) {
  if (mkdirat(at, name.c_str(), mode) != 0 && errno != EEXIST)
    return Status::Error("cannot create the folder " + shown + ": " + Errno());
  int fd = openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return Fd(fd);
  if (errno == ELOOP || errno == ENOTDIR)
    return Status::Error(shown + " is a link or a file, not a folder: refused (unpacking never follows links)");
  return Status::Error("cannot open the folder " + shown + ": " + Errno());
}

Status WriteAll(int fd, std::string_view data, const std::string& shown) {
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Error("cannot write " + shown + ": " + Errno());
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::OK();
}

// Replaces file `name` in folder `at` with the entry's data.
Status WriteFileAt(int at, const std::string& name, const Entry& e, TarReader* r, const std::string& shown) {
  if (unlinkat(at, name.c_str(), 0) != 0 && errno != ENOENT)
    return Status::Error("cannot replace " + shown + ": " + Errno());
  Fd fd(openat(at, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, e.mode & 0777));
  if (fd.get() < 0) return Status::Error("cannot create " + shown + ": " + Errno());
  Status st = r->ReadData([&](std::string_view piece) { return WriteAll(fd.get(), piece, shown); });
  if (!st.ok()) return st;
  struct timespec times[2] = {{0, UTIME_NOW}, {e.mtime, 0}};
  if (futimens(fd.get(), times) != 0) return Status::Error("cannot set the time of " + shown + ": " + Errno());
  if (close(fd.release()) != 0) return Status::Error("cannot write " + shown + ": " + Errno());
  return Status::OK();
}

Status Unpack(int root, const std::string& dir, const Entry& e, TarReader* r) {
  auto parts = SafeName(e.name);
  if (!parts.ok()) return parts.status();
  if (parts->empty()) return Status::OK();  // the stage directory itself
  Fd at;
  int cur = root;
  std::string shown = dir;
  size_t folders = IsDir(e) ? parts->size() : parts->size() - 1;
  for (size_t i = 0; i < folders; ++i) {
    shown += "/" + (*parts)[i];
    mode_t mode = i + 1 == parts->size() ? (e.mode & 0777) | 0700 : 0777;
    auto fd = OpenDir(cur, (*parts)[i], mode, shown);
    if (!fd.ok()) return fd.status();
    at = std::move(*fd);
    cur = at.get();
  }
  if (IsDir(e)) return Status::OK();
  return WriteFileAt(cur, parts->back(), e, r, shown + "/" + parts->back());
}

}  // namespace

Result<std::string> PackDirectoryTarGz(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return Status::Error("cannot read " + dir + ": " + Errno());
  if (!S_ISDIR(st.st_mode)) return Status::Error(dir + " is not a folder");
  TarWriter w;
  Status s = AddTree(&w, dir, "");
  if (!s.ok()) return s;
  return w.Finish();
}

Status ExtractTarGz(const std::string& archive, const std::string& dir) {
  Entry e;
  TarReader check(archive);
  for (;;) {
    auto more = check.Next(&e);
    if (!more.ok()) return more.status();
    if (!*more) break;
    Status st = Check(e);
    if (!st.ok()) return st;
  }
  Status st = MakeDirs(dir);
  if (!st.ok()) return st;
  Fd root(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return Status::Error("cannot open the folder " + dir + ": " + Errno());
  TarReader r(archive);
  for (;;) {
    auto more = r.Next(&e);
    if (!more.ok()) return more.status();
    if (!*more) return Status::OK();
    st = Unpack(root.get(), dir, e, &r);
    if (!st.ok()) return st;
  }
}

}  // namespace hb
