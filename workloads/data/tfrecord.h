// TFRecord files: the framing, a writer (plain or whole-file gzip) and the
// record index a reader needs for random access.
//
// Framing of one record (TensorFlow's record_writer.cc):
//   uint64 length (little-endian)
//   uint32 masked CRC-32C of the 8 length bytes
//   byte   data[length]
//   uint32 masked CRC-32C of the data
// An index file "<file>.idx" beside each file lists "offset size" per
// record (DALI's tfrecord2idx format; for .gz files, offsets in the
// uncompressed stream). Without one, opening scans the framing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace hbw::data {

constexpr size_t kFrameOverhead = 16;

std::string FrameRecord(std::string_view data);

// Checks one framed record at p (n bytes available). On success *payload is
// the data. Errors: "truncated ...", "length CRC mismatch", "data CRC
// mismatch". `data_crc`, when given, is the CRC-32C of the data, already
// computed.
bool CheckFrame(const char* p, size_t n, std::string_view* payload, std::string* err,
                const uint32_t* data_crc = nullptr);

// Reads and checks the framed record of `length` data bytes at `offset` of
// fd into *buf (grown as needed); *payload points into it.
bool ReadFrame(int fd, uint64_t offset, uint64_t length, std::vector<char>* buf, std::string_view* payload,
               std::string* err);

// Writes framed records to one file, gzip-compressed or not, and its index.
// Owned by one thread.
class TfrecordWriter {
 public:
  ~TfrecordWriter();
  bool Open(const std::string& path, bool gzip, std::string* err);
  bool Write(std::string_view data, std::string* err);
  bool Close(std::string* err);  // also writes path + ".idx"

 private:
  std::string path_, index_;
  bool gzip_ = false;
  FILE* file_ = nullptr;
  void* gz_ = nullptr;  // gzFile
  uint64_t offset_ = 0;
};

struct RecordRef {
  uint32_t file = 0;    // position in the file list
  uint32_t record = 0;  // position in its file
  uint64_t offset = 0;  // of the frame, in the (uncompressed) stream
  uint64_t length = 0;  // of the data
};

// Appends the records of `path` (file number `file`) to *refs, from its
// index file when there is one, else by scanning the framing.
bool IndexTfrecord(const std::string& path, uint32_t file, bool gzip, std::vector<RecordRef>* refs, std::string* err);

// The whole uncompressed content of a gzip file.
bool GunzipFile(const std::string& path, std::string* out, size_t* compressed_bytes, std::string* err);

}  // namespace hbw::data
