// hetbench-io end to end: the real binary on a tiny dataset of every format.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

namespace {

namespace fs = std::filesystem;

struct Output {
  int code = -1;
  std::string out;
};

Output RunIo(const std::string& args, const std::string& launcher = "") {
  Output r;
  std::string cmd = launcher + " " + HBW_IO_BIN + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

double Value(const std::string& out, const std::string& name, const std::string& unit) {
  std::smatch m;
  std::regex re("(^|\n)" + name + ": (\\S+) " + unit + "\n");
  if (!std::regex_search(out, m, re)) return -1;
  return std::stod(m[2]);
}

class IoTest : public testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hbw_io_test.XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

struct FormatCase {
  const char* format;
  const char* layout;
  const char* shape;
  int files;
};

class IoFormatTest : public IoTest, public testing::WithParamInterface<FormatCase> {};

TEST_P(IoFormatTest, RunsAndReports) {
  const FormatCase& c = GetParam();
  Output r = RunIo(std::string("--format ") + c.format + " --layout " + c.layout + " --sample-shape " + c.shape +
                   " --dir " + dir_ + "/d --generate --samples 24 --files " + std::to_string(c.files) +
                   " --batch-size 4 --readers 2 --epochs 2 --compute-time 0.002 --shuffle-seed 3");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("epoch 1: 6 steps, 24 samples"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 2: 6 steps, 24 samples"), std::string::npos) << r.out;
  EXPECT_GT(Value(r.out, "samples_per_second", "samples/s"), 0) << r.out;
  EXPECT_GT(Value(r.out, "bandwidth", "MiB/s"), 0) << r.out;
  double au = Value(r.out, "au", "%");
  EXPECT_GT(au, 0) << r.out;
  EXPECT_LE(au, 100.5) << r.out;
  EXPECT_GE(Value(r.out, "io_wait_total", "s"), 0) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Formats, IoFormatTest,
    testing::Values(FormatCase{"synthetic", "imagenet", "3,32,32", 1}, FormatCase{"jpeg", "imagenet", "3,32,32", 24},
                    FormatCase{"tfrecord", "imagenet", "3,32,32", 1},
                    FormatCase{"tfrecord", "cosmoflow", "4,8,8,8", 24},
                    FormatCase{"tfrecord-gz", "cosmoflow", "4,8,8,8", 2}, FormatCase{"hdf5", "deepcam", "16,16,24", 24},
                    FormatCase{"hdf5", "cosmoflow", "4,8,8,8", 1}, FormatCase{"lmdb", "imagenet", "3,32,32", 1}),
    [](const testing::TestParamInfo<FormatCase>& info) {
      std::string n = std::string(info.param.format) + "_" + info.param.layout + "_" + std::to_string(info.param.files);
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

TEST_F(IoTest, NoComputeMeansZeroAuAndRawReadsWork) {
  Output r = RunIo("--format tfrecord --layout cosmoflow --sample-shape 4,8,8,8 --dir " + dir_ +
                   " --generate 1 --samples 16 --decode 0");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(Value(r.out, "au", "%"), 0) << r.out;
  // 16 records of 4096 bytes of counts plus framing and protobuf.
  double read = Value(r.out, "read_total", "MiB") * 1048576;
  EXPECT_GT(read, 16 * 4096);
  EXPECT_LT(read, 16 * 4200);
}

TEST_F(IoTest, BadUsageExitsTwo) {
  Output r = RunIo("--format parquet --dir /tmp");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("hetbench-io: error: --format: unknown format 'parquet'"), std::string::npos) << r.out;
  r = RunIo("--format tfrecord");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--dir is needed"), std::string::npos) << r.out;
  r = RunIo("--format tfrecord --dir " + dir_ + "/empty --layout cosmoflow");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("hetbench-io: error: " + dir_ + "/empty: No such file or directory"), std::string::npos)
      << r.out;
}

TEST_F(IoTest, CorruptRecordNamesFileAndRecord) {
  Output r =
      RunIo("--format tfrecord --layout cosmoflow --sample-shape 4,8,8,8 --dir " + dir_ + " --generate --samples 4");
  ASSERT_EQ(r.code, 0) << r.out;
  std::string file = dir_ + "/train-00000-of-00001.tfrecord";
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file) / 4 * 3 + 50));
    f.put('!');
  }
  r = RunIo("--format tfrecord --layout cosmoflow --sample-shape 4,8,8,8 --dir " + dir_);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("hetbench-io: error: " + file + ": record 3: data CRC mismatch"), std::string::npos) << r.out;
}

TEST_F(IoTest, MpiRanksReadTheirShards) {
  if (std::string(HBW_IO_MPIRUN).empty()) GTEST_SKIP() << "built without MPI";
  Output r = RunIo("--mpi 1 --format hdf5 --layout cosmoflow --sample-shape 4,8,8,8 --dir " + dir_ +
                       " --generate --samples 40 --files 5 --batch-size 4 --compute-time 0.001",
                   std::string(HBW_IO_MPIRUN) + " -np 2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 rank(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1: 5 steps, 20 samples"), std::string::npos) << r.out;  // rank 0's half
  // Both ranks' bytes: all 40 samples of 4096 bytes plus the labels.
  EXPECT_NEAR(Value(r.out, "read_total", "MiB") * 1048576, 40 * (4096 + 16), 1) << r.out;
}

}  // namespace
