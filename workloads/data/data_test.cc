// Tests of the dataset formats: CRC and framing against hand-computed
// bytes, the protobuf encoding, every format's round trip, and the errors
// corrupt input gives.
#include <gtest/gtest.h>
#include <lmdb.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "data/crc32c.h"
#include "data/dataset.h"
#include "data/example.h"
#include "data/file_util.h"
#include "data/tfrecord.h"

namespace hbw::data {
namespace {

namespace fs = std::filesystem;

// A fresh temporary folder, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/hbw_data_test.XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

SampleSpec Spec(const std::string& layout) {
  SampleSpec s;
  if (layout == "imagenet") MakeSpec(layout, {3, 32, 32}, &s);
  if (layout == "deepcam") MakeSpec(layout, {16, 16, 24}, &s);
  if (layout == "cosmoflow") MakeSpec(layout, {4, 8, 8, 8}, &s);
  if (layout == "imagenet") s.num_classes = 4;
  return s;
}

std::unique_ptr<Reader> MustOpen(const std::string& dir, Format f, const SampleSpec& spec, bool decode = true) {
  auto r = OpenDataset(dir, f, spec, ReadOptions{decode});
  if (auto* e = std::get_if<Error>(&r)) ADD_FAILURE() << e->message;
  return r.index() == 0 ? std::move(std::get<0>(r)) : nullptr;
}

std::string ErrorOf(const std::variant<Sample, Error>& r) {
  return r.index() == 1 ? std::get<Error>(r).message : "(no error)";
}

// The error of reading sample i (or of opening the dataset).
std::string ReadError(const std::string& dir, Format f, const SampleSpec& spec, size_t i) {
  auto r = OpenDataset(dir, f, spec);
  if (auto* e = std::get_if<Error>(&r)) return "open: " + e->message;
  return ErrorOf(std::get<0>(r)->Read(i));
}

std::string OpenError(const std::string& dir, Format f, const SampleSpec& spec) {
  auto r = OpenDataset(dir, f, spec);
  return r.index() == 1 ? std::get<Error>(r).message : "(no error)";
}

void Corrupt(const std::string& path, size_t offset, char value) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(value);
}

// --- CRC, framing and protobuf --------------------------------------------

TEST(Crc32cTest, KnownVector) {
  EXPECT_EQ(Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32c("", 0), 0u);
  EXPECT_EQ(Crc32c("6789", 4, Crc32c("12345", 5)), 0xE3069283u);  // continued
}

TEST(Crc32cTest, LongInputAgreesWithBytewise) {
  std::string data(100003, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 131 + 7);
  uint32_t bytewise = Crc32c("abc", 3);
  for (char c : data) bytewise = Crc32c(&c, 1, bytewise);
  EXPECT_EQ(Crc32c(data.data(), data.size(), Crc32c("abc", 3)), bytewise);  // three streams, combined
  EXPECT_EQ(Crc32cPortable(data.data(), data.size(), Crc32c("abc", 3)), bytewise);
  EXPECT_EQ(Crc32cPortable("123456789", 9), 0xE3069283u);
}

TEST(TfrecordTest, FramingMatchesHandComputedBytes) {
  // uint64 5, masked CRC-32C of it, "hello", masked CRC-32C of "hello";
  // the CRCs computed bit by bit outside this code.
  const unsigned char expected[] = {0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xea, 0xb2, 0x04,
                                    0x3e, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xbb, 0x1f, 0x1c, 0x19};
  EXPECT_EQ(FrameRecord("hello"), std::string(reinterpret_cast<const char*>(expected), sizeof expected));
  std::string_view payload;
  std::string err;
  std::string framed = FrameRecord("hello");
  ASSERT_TRUE(CheckFrame(framed.data(), framed.size(), &payload, &err)) << err;
  EXPECT_EQ(payload, "hello");
  framed[13] ^= 1;
  EXPECT_FALSE(CheckFrame(framed.data(), framed.size(), &payload, &err));
  EXPECT_EQ(err, "data CRC mismatch");
}

TEST(ExampleTest, SerializesTheProtobufWireFormat) {
  // Example{features{feature{key:"a" value{int64_list{value:[1] packed}}}}}
  const unsigned char expected[] = {0x0a, 0x0c, 0x0a, 0x0a, 0x0a, 0x01, 0x61, 0x12, 0x05, 0x1a, 0x03, 0x0a, 0x01, 0x01};
  EXPECT_EQ(ExampleBuilder().Ints("a", {1}).Serialize(),
            std::string(reinterpret_cast<const char*>(expected), sizeof expected));
}

TEST(ExampleTest, ParsesUnpackedListsAndSkipsUnknownFields) {
  // int64_list with an unpacked value, then an unknown varint field 9.
  const unsigned char bytes[] = {0x0a, 0x0b, 0x0a, 0x09, 0x0a, 0x01, 0x61, 0x12,
                                 0x04, 0x1a, 0x02, 0x08, 0x07, 0x48, 0x05};
  Features f;
  std::string err;
  ASSERT_TRUE(ParseExample(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes), &f, &err)) << err;
  ASSERT_EQ(f.count("a"), 1u);
  EXPECT_EQ(f["a"].kind, Feature::kInt64);
  EXPECT_EQ(f["a"].ints, std::vector<int64_t>{7});
}

TEST(ExampleTest, RoundTripsEveryKind) {
  std::string blob("x\0y", 3);
  std::string s = ExampleBuilder().Bytes("b", blob).Floats("f", {1.5f, -2}).Ints("i", {-3, 1LL << 40}).Serialize();
  Features f;
  std::string err;
  ASSERT_TRUE(ParseExample(s, &f, &err)) << err;
  EXPECT_EQ(f["b"].bytes, std::vector<std::string_view>{blob});
  EXPECT_EQ(f["f"].floats, (std::vector<float>{1.5f, -2}));
  EXPECT_EQ(f["i"].ints, (std::vector<int64_t>{-3, 1LL << 40}));
}

TEST(ExampleTest, RejectsTruncatedInput) {
  std::string s = ExampleBuilder().Bytes("key", "value").Serialize();
  Features f;
  std::string err;
  for (size_t n = 1; n < s.size(); ++n) EXPECT_FALSE(ParseExample(s.substr(0, n), &f, &err)) << n;
  EXPECT_EQ(err, "malformed tf.train.Example");
}

TEST(DatumTest, RoundTrips) {
  Datum d;
  d.data = "jpegbytes";
  d.label = 42;
  d.encoded = true;
  Datum back;
  std::string err, s = SerializeDatum(d);
  ASSERT_TRUE(ParseDatum(s, &back, &err)) << err;
  EXPECT_EQ(back.data, "jpegbytes");
  EXPECT_EQ(back.label, 42);
  EXPECT_TRUE(back.encoded);
}

// --- Round trips -----------------------------------------------------------

struct Case {
  Format format;
  std::string layout;
  size_t files;
};

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  std::string n = FormatName(info.param.format) + "_" + info.param.layout + "_" + std::to_string(info.param.files);
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

class RoundTripTest : public testing::TestWithParam<Case> {};

TEST_P(RoundTripTest, ReadsBackWhatWasGenerated) {
  const Case& c = GetParam();
  TempDir dir;
  SampleSpec spec = Spec(c.layout);
  const size_t count = 7;
  ASSERT_FALSE(GenerateDataset(dir.path(), c.format, spec, count, c.files, 11).has_value());
  auto reader = MustOpen(dir.path(), c.format, spec);
  ASSERT_TRUE(reader);
  ASSERT_EQ(reader->size(), count);
  for (size_t i = 0; i < count; ++i) {
    auto r = reader->Read(i);
    ASSERT_EQ(r.index(), 0u) << ErrorOf(r);
    const Sample& got = std::get<Sample>(r);
    Sample want = ExpectedSample(spec, i, count, 11);
    ASSERT_EQ(got.data.size(), SampleElements(spec));
    ASSERT_EQ(got.target.size(), TargetElements(spec));
    EXPECT_EQ(got.target, want.target) << "sample " << i;
    if (c.layout == "imagenet" && c.format != Format::kHdf5 && c.format != Format::kSynthetic) {
      double sum = 0, worst = 0;  // JPEG is lossy: compare within its tolerance
      for (size_t k = 0; k < got.data.size(); ++k) {
        double d = std::fabs(got.data[k] - want.data[k]);
        sum += d;
        worst = std::max(worst, d);
      }
      // The images are noisy (as photographs): JPEG is off by ~3 levels on
      // average (3/255/0.226 after normalising), a few by much more.
      EXPECT_LT(sum / double(got.data.size()), 0.08) << "sample " << i;
      EXPECT_LT(worst, 0.8) << "sample " << i;
    } else {
      EXPECT_EQ(got.data, want.data) << "sample " << i;
    }
  }
  EXPECT_GT(reader->bytes_read(), 0u);
  // Without decoding, records are read and checked but come back empty.
  auto raw = MustOpen(dir.path(), c.format, spec, false);
  ASSERT_TRUE(raw);
  auto r = raw->Read(count - 1);
  ASSERT_EQ(r.index(), 0u) << ErrorOf(r);
  EXPECT_TRUE(std::get<Sample>(r).data.empty());
  EXPECT_GT(raw->bytes_read(), 0u);
}

std::vector<Case> AllCases() {
  std::vector<Case> cases{{Format::kJpegFolder, "imagenet", 7}};
  for (Format f : {Format::kSynthetic, Format::kTfrecord, Format::kTfrecordGzip, Format::kHdf5, Format::kLmdb})
    for (const char* layout : {"imagenet", "deepcam", "cosmoflow"})
      for (size_t files : {size_t(1), size_t(3), size_t(7)}) {
        if ((f == Format::kSynthetic || f == Format::kLmdb) && files != 1) continue;
        cases.push_back({f, layout, files});
      }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Formats, RoundTripTest, testing::ValuesIn(AllCases()), CaseName);

TEST(DatasetTest, GeneratesTheDescribedFiles) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kTfrecordGzip, spec, 4, 2, 1).has_value());
  EXPECT_TRUE(fs::exists(dir / "train-00000-of-00002.tfrecord.gz"));
  EXPECT_TRUE(fs::exists(dir / "train-00001-of-00002.tfrecord.gz.idx"));
  ASSERT_FALSE(GenerateDataset(dir / "jpeg", Format::kJpegFolder, Spec("imagenet"), 8, 1, 1).has_value());
  EXPECT_TRUE(fs::exists(dir / "jpeg/n00000003/n00000003_00000007.JPEG"));
  ASSERT_FALSE(GenerateDataset(dir / "lmdb", Format::kLmdb, spec, 4, 1, 1).has_value());
  EXPECT_TRUE(fs::exists(dir / "lmdb/data.mdb"));
}

TEST(DatasetTest, SpecsAndNames) {
  Format f;
  for (const char* n : {"synthetic", "jpeg", "tfrecord", "tfrecord-gz", "hdf5", "lmdb"}) {
    ASSERT_TRUE(ParseFormat(n, &f)) << n;
    EXPECT_EQ(FormatName(f), n);
  }
  EXPECT_FALSE(ParseFormat("tfrecords", &f));
  SampleSpec s;
  ASSERT_FALSE(MakeSpec("cosmoflow", {}, &s).has_value());
  EXPECT_EQ(s.shape, (std::vector<int64_t>{4, 128, 128, 128}));
  EXPECT_EQ(TargetElements(s), 4u);
  ASSERT_FALSE(MakeSpec("deepcam", {}, &s).has_value());
  EXPECT_EQ(SampleElements(s), 16u * 768 * 1152);
  EXPECT_EQ(TargetElements(s), 768u * 1152);
  EXPECT_EQ(MakeSpec("imagenet", {1, 32, 32}, &s)->message, "imagenet sample shape must be 3,H,W, not 1,32,32");
  EXPECT_EQ(MakeSpec("bert", {}, &s)->message, "unknown layout 'bert' (imagenet, deepcam, cosmoflow)");
  EXPECT_EQ(GenerateDataset("/tmp/x", Format::kJpegFolder, Spec("cosmoflow"), 1, 1, 1)->message,
            "format jpeg holds only the imagenet layout, not cosmoflow");
}

TEST(DatasetTest, OpenSyntheticNeedsNoFiles) {
  SampleSpec spec = Spec("deepcam");
  auto r = OpenSynthetic(spec, 5, 3);
  ASSERT_EQ(r->size(), 5u);
  auto s = r->Read(4);
  ASSERT_EQ(s.index(), 0u);
  EXPECT_EQ(std::get<Sample>(s).data, ExpectedSample(spec, 4, 5, 3).data);
  EXPECT_NE(ErrorOf(r->Read(5)).find("out of range"), std::string::npos);
}

// --- Corrupt input ---------------------------------------------------------

TEST(CorruptTest, TfrecordDataCrc) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kTfrecord, spec, 4, 1, 1).has_value());
  std::string file = dir / "train-00000-of-00001.tfrecord";
  size_t record = fs::file_size(file) / 4;
  Corrupt(file, 2 * record + 100, 'Z');  // inside record 2's data
  auto reader = MustOpen(dir.path(), Format::kTfrecord, spec);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->Read(1).index(), 0u);
  EXPECT_EQ(ErrorOf(reader->Read(2)), file + ": record 2: data CRC mismatch");
}

TEST(CorruptTest, TfrecordLengthCrc) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kTfrecord, spec, 4, 1, 1).has_value());
  std::string file = dir / "train-00000-of-00001.tfrecord";
  size_t record = fs::file_size(file) / 4;
  Corrupt(file, record + 9, 0);  // record 1's length CRC
  // With the index, the read finds it; scanning, opening does.
  auto reader = MustOpen(dir.path(), Format::kTfrecord, spec);
  ASSERT_TRUE(reader);
  EXPECT_EQ(ErrorOf(reader->Read(1)), file + ": record 1: length CRC mismatch");
  fs::remove(file + ".idx");
  EXPECT_EQ(OpenError(dir.path(), Format::kTfrecord, spec), file + ": record 1: length CRC mismatch");
}

TEST(CorruptTest, TfrecordTruncated) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kTfrecord, spec, 3, 1, 1).has_value());
  std::string file = dir / "train-00000-of-00001.tfrecord";
  auto reader = MustOpen(dir.path(), Format::kTfrecord, spec);
  ASSERT_TRUE(reader);
  fs::resize_file(file, fs::file_size(file) - 10);  // after opening: the read finds it
  EXPECT_EQ(reader->Read(1).index(), 0u);
  EXPECT_EQ(ErrorOf(reader->Read(2)).rfind(file + ": record 2: truncated", 0), 0u) << ErrorOf(reader->Read(2));
  // Before opening: the index no longer fits the file; without one, the scan.
  EXPECT_EQ(OpenError(dir.path(), Format::kTfrecord, spec).rfind(file + ": record 2: truncated", 0), 0u);
  fs::remove(file + ".idx");
  EXPECT_NE(OpenError(dir.path(), Format::kTfrecord, spec).find(file + ": record 2: truncated"), std::string::npos);
}

TEST(CorruptTest, TfrecordIndexOutsideTheFile) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kTfrecord, spec, 2, 1, 1).has_value());
  std::string file = dir / "train-00000-of-00001.tfrecord", err;
  ASSERT_TRUE(WriteFile(file + ".idx", "0 4200\n4200 18446744073709551615\n", &err));
  EXPECT_EQ(OpenError(dir.path(), Format::kTfrecord, spec).rfind(file + ": record 1: truncated (the index puts", 0),
            0u);
  ASSERT_TRUE(WriteFile(file + ".idx", "0 4200\nx\n", &err));
  EXPECT_EQ(OpenError(dir.path(), Format::kTfrecord, spec), file + ".idx: line 2: expected 'offset size'");
}

TEST(CorruptTest, TfrecordGzipTruncated) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kTfrecordGzip, spec, 3, 1, 1).has_value());
  std::string file = dir / "train-00000-of-00001.tfrecord.gz";
  fs::resize_file(file, fs::file_size(file) / 2);
  auto reader = MustOpen(dir.path(), Format::kTfrecordGzip, spec);
  ASSERT_TRUE(reader);
  EXPECT_EQ(ErrorOf(reader->Read(0)), file + ": record 0: " + file + ": gzip: unexpected end of compressed data");
  fs::remove(file + ".idx");
  EXPECT_NE(OpenError(dir.path(), Format::kTfrecordGzip, spec).find(file + ": record "), std::string::npos);
}

TEST(CorruptTest, TfrecordWrongShapeAndMissingFeature) {
  TempDir dir;
  SampleSpec small = Spec("cosmoflow"), big;
  MakeSpec("cosmoflow", {4, 16, 16, 16}, &big);
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kTfrecord, small, 2, 1, 1).has_value());
  std::string file = dir / "train-00000-of-00001.tfrecord";
  EXPECT_EQ(ReadError(dir.path(), Format::kTfrecord, big, 0),
            file + ": record 0: feature 'x' has 4096 bytes, expected 32768");
  // A record without "y", framed correctly.
  TfrecordWriter w;
  std::string err;
  ASSERT_TRUE(w.Open(file, false, &err) &&
              w.Write(ExampleBuilder().Bytes("x", std::string(4096, 0)).Serialize(), &err) && w.Close(&err))
      << err;
  EXPECT_EQ(ReadError(dir.path(), Format::kTfrecord, small, 0), file + ": record 0: missing feature 'y'");
}

TEST(CorruptTest, BadJpegInsideTfrecord) {
  TempDir dir;
  std::string file = dir / "train-00000-of-00001.tfrecord", err;
  TfrecordWriter w;
  std::string record = ExampleBuilder().Bytes("image/encoded", "not a jpeg").Ints("image/class/label", {1}).Serialize();
  ASSERT_TRUE(w.Open(file, false, &err) && w.Write(record, &err) && w.Close(&err)) << err;
  std::string e = ReadError(dir.path(), Format::kTfrecord, Spec("imagenet"), 0);
  EXPECT_EQ(e.rfind(file + ": record 0: JPEG: ", 0), 0u) << e;
}

TEST(CorruptTest, BadAndTruncatedJpegFiles) {
  TempDir dir;
  SampleSpec spec = Spec("imagenet");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kJpegFolder, spec, 4, 1, 1).has_value());
  std::string bad = dir / "n00000001/n00000001_00000001.JPEG";
  std::string cut = dir / "n00000002/n00000002_00000002.JPEG";
  std::string err;
  ASSERT_TRUE(WriteFile(bad, "garbage", &err));
  fs::resize_file(cut, fs::file_size(cut) / 2);
  auto reader = MustOpen(dir.path(), Format::kJpegFolder, spec);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->Read(0).index(), 0u);
  EXPECT_EQ(ErrorOf(reader->Read(1)).rfind(bad + ": JPEG: ", 0), 0u) << ErrorOf(reader->Read(1));
  EXPECT_EQ(ErrorOf(reader->Read(2)).rfind(cut + ": JPEG: ", 0), 0u) << ErrorOf(reader->Read(2));
}

TEST(CorruptTest, BadHdf5Files) {
  TempDir dir;
  SampleSpec spec = Spec("deepcam");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kHdf5, spec, 3, 3, 1).has_value());
  std::string err, file = dir / "train-00001-of-00003.h5";
  ASSERT_TRUE(WriteFile(file, std::string(4096, 'x'), &err));
  EXPECT_EQ(OpenError(dir.path(), Format::kHdf5, spec), file + ": not a readable HDF5 file");
  fs::remove(file);
  file = dir / "train-00002-of-00003.h5";
  fs::resize_file(file, fs::file_size(file) / 2);
  std::string e = OpenError(dir.path(), Format::kHdf5, spec);
  EXPECT_EQ(e.rfind(file + ": ", 0), 0u) << e;
  SampleSpec other;
  MakeSpec("deepcam", {16, 8, 8}, &other);
  fs::remove(file);
  EXPECT_EQ(
      OpenError(dir.path(), Format::kHdf5, other),
      dir / "train-00000-of-00003.h5: dataset 'climate/data' has the wrong shape for this layout and sample shape");
}

TEST(CorruptTest, Hdf5DataTruncatedAfterOpen) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kHdf5, spec, 4, 1, 1).has_value());
  std::string file = dir / "train-00000-of-00001.h5";
  auto reader = MustOpen(dir.path(), Format::kHdf5, spec);
  ASSERT_TRUE(reader);
  fs::resize_file(file, 4096);  // the data goes; the open reader notices on read
  std::string e = ErrorOf(reader->Read(3));
  EXPECT_EQ(e.rfind(file + ": ", 0), 0u) << e;
}

TEST(CorruptTest, BadLmdb) {
  TempDir dir;
  SampleSpec spec = Spec("imagenet");
  ASSERT_FALSE(GenerateDataset(dir.path(), Format::kLmdb, spec, 3, 1, 1).has_value());
  // A value that is not a Datum, under key 00000001.
  MDB_env* env;
  MDB_txn* txn;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_env_create(&env), 0);
  ASSERT_EQ(mdb_env_open(env, dir.path().c_str(), 0, 0644), 0);
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  ASSERT_EQ(mdb_dbi_open(txn, nullptr, 0, &dbi), 0);
  std::string key = "00000001", value = "\xff\xff\xff";
  MDB_val k{key.size(), key.data()}, v{value.size(), value.data()};
  ASSERT_EQ(mdb_put(txn, dbi, &k, &v, 0), 0);
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
  auto reader = MustOpen(dir.path(), Format::kLmdb, spec);
  ASSERT_TRUE(reader);
  auto first = reader->Read(0);
  EXPECT_EQ(first.index(), 0u) << ErrorOf(first);
  EXPECT_EQ(ErrorOf(reader->Read(1)), dir.path() + ": key 00000001: malformed caffe.Datum");
  std::string err;
  ASSERT_TRUE(WriteFile(dir / "data.mdb", std::string(16384, 'x'), &err));
  EXPECT_EQ(OpenError(dir.path(), Format::kLmdb, spec).rfind(dir / "data.mdb: ", 0), 0u);
}

TEST(CorruptTest, MissingDatasets) {
  TempDir dir;
  SampleSpec spec = Spec("cosmoflow");
  EXPECT_EQ(OpenError(dir.path(), Format::kTfrecord, spec), dir.path() + ": no *.tfrecord files");
  EXPECT_EQ(OpenError(dir.path(), Format::kHdf5, spec), dir.path() + ": no *.h5 files");
  EXPECT_EQ(OpenError(dir / "nope", Format::kTfrecord, spec), dir / "nope: No such file or directory");
  EXPECT_NE(OpenError(dir.path(), Format::kSynthetic, spec).find("synthetic.txt"), std::string::npos);
}

}  // namespace
}  // namespace hbw::data
