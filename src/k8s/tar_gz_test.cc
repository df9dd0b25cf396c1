#include "k8s/tar_gz.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

namespace fs = std::filesystem;

// Every entry under dir: "d MODE", "f MODE CONTENT" or "l TARGET".
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string rel = e.path().lexically_relative(dir).string();
    struct stat st;
    EXPECT_EQ(lstat(e.path().c_str(), &st), 0);
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
    if (S_ISLNK(st.st_mode))
      out[rel] = "l " + fs::read_symlink(e.path()).string();
    else if (S_ISDIR(st.st_mode))
      out[rel] = std::string("d ") + mode;
    else
      out[rel] = std::string("f ") + mode + " " + ReadFile(e.path()).value();
  }
  return out;
}

void Chmod(const std::string& path, mode_t mode) { ASSERT_EQ(chmod(path.c_str(), mode), 0) << path; }

int Sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string Gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Gunzip(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
  std::string out;
  char buf[65536];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  } while (rc == Z_OK);
  EXPECT_EQ(rc, Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

// A folder tree with what a stage directory may hold.
struct Sample {
  TempDir tmp;
  std::string dir = tmp / "src";
  std::string long100 = "folder-" + std::string(60, 'p') + "/" + std::string(70, 'q') + ".txt";  // prefix + name
  std::string long155 = std::string(120, 'w') + "/" + std::string(150, 'n') + ".dat";            // GNU 'L'
  std::string long_split =
      std::string(80, 'a') + "/" + std::string(60, 'b') + "/" + std::string(90, 'c');  // prefix + name

  Sample() {
    umask(022);  // the modes below survive it
    std::string binary;
    for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
    std::mt19937 rng(7);
    for (int i = 0; i < 200000; ++i) binary += static_cast<char>(rng());
    tmp.Write("src/hb_job.sh", "#!/bin/bash\necho hi\n");
    Chmod(dir + "/hb_job.sh", 0755);
    tmp.Write("src/secret.txt", "only me\n");
    Chmod(dir + "/secret.txt", 0600);
    tmp.Write("src/empty", "");
    tmp.Write("src/data/blob.bin", binary);
    tmp.Write("src/with space & 'quote'.txt", "odd name\n");
    tmp.Write("src/" + long100, "long\n");
    tmp.Write("src/" + long155, "longer\n");
    tmp.Write("src/" + long_split, "split\n");
    EXPECT_TRUE(MakeDirs(dir + "/empty-folder/inner").ok());
    Chmod(dir + "/empty-folder", 0750);
  }
};

TEST(TarGzTest, RoundTripKeepsTheTree) {
  Sample s;
  struct timespec times[2] = {{0, UTIME_OMIT}, {1234567890, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, (s.dir + "/hb_job.sh").c_str(), times, 0), 0);
  auto packed = PackDirectoryTarGz(s.dir);
  ASSERT_TRUE(packed.ok()) << packed.status().str();
  std::string out = s.tmp / "out/nested";  // created
  Status st = ExtractTarGz(*packed, out);
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(Tree(out), Tree(s.dir));
  struct stat sb;
  ASSERT_EQ(stat((out + "/hb_job.sh").c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mtime, 1234567890);
  // Unpacking again replaces the files.
  ASSERT_TRUE(WriteFile(out + "/secret.txt", "changed").ok());
  ASSERT_TRUE(ExtractTarGz(*packed, out).ok());
  EXPECT_EQ(ReadFile(out + "/secret.txt").value(), "only me\n");
}

TEST(TarGzTest, PacksNamesSortedAndRelative) {
  TempDir t;
  t.Write("d/b", "");
  t.Write("d/a/z", "");
  t.Write("d/c", "");
  ASSERT_EQ(symlink("c", (t / "d/link").c_str()), 0);
  auto packed = PackDirectoryTarGz(t / "d");
  ASSERT_TRUE(packed.ok());
  ASSERT_TRUE(WriteFile(t / "a.tgz", *packed).ok());
  ASSERT_EQ(Sh("tar -t -z -f " + ShellQuote(t / "a.tgz") + " > " + ShellQuote(t / "list")), 0);
  EXPECT_EQ(ReadFile(t / "list").value(), "a/\na/z\nb\nc\nlink\n");
  EXPECT_FALSE(PackDirectoryTarGz(t / "missing").ok());
  EXPECT_FALSE(PackDirectoryTarGz(t / "d/b").ok());
}

TEST(TarGzTest, SystemTarReadsOurArchive) {
  Sample s;
  ASSERT_EQ(symlink("hb_job.sh", (s.dir + "/run.sh").c_str()), 0);                                 // kept as a link
  ASSERT_EQ(symlink(("/nowhere/" + std::string(120, 'x')).c_str(), (s.dir + "/far").c_str()), 0);  // GNU 'K'
  auto packed = PackDirectoryTarGz(s.dir);
  ASSERT_TRUE(packed.ok()) << packed.status().str();
  ASSERT_TRUE(WriteFile(s.tmp / "a.tgz", *packed).ok());
  ASSERT_TRUE(MakeDirs(s.tmp / "out").ok());
  // As the pod's bootstrap does it: from standard input, in the folder.
  EXPECT_EQ(Sh("cd " + ShellQuote(s.tmp / "out") + " && tar -x -z -o -f - < " + ShellQuote(s.tmp / "a.tgz")), 0);
  EXPECT_EQ(Tree(s.tmp / "out"), Tree(s.dir));
  // Python's tarfile agrees too (a stricter reader of ustar).
  std::string py = "import tarfile, sys\nn = len(tarfile.open(sys.argv[1]).getnames())\nassert n == " +
                   std::to_string(Tree(s.dir).size()) + ", (n, tarfile.open(sys.argv[1]).getnames())\n";
  EXPECT_EQ(Sh("/usr/bin/python3 -c " + ShellQuote(py) + " " + ShellQuote(s.tmp / "a.tgz")), 0);
}

TEST(TarGzTest, ReadsWhatSystemTarWrites) {
  Sample s;
  std::string src = ShellQuote(s.dir), file = ShellQuote(s.tmp / "a.tgz");
  for (std::string format : {"gnu", "pax", "posix", "oldgnu"}) {
    SCOPED_TRACE(format);
    ASSERT_EQ(Sh("tar -c -z --format=" + format + " -f " + file + " -C " + src + " ."), 0);
    std::string out = s.tmp / ("out-" + format);
    Status st = ExtractTarGz(ReadFile(s.tmp / "a.tgz").value(), out);
    ASSERT_TRUE(st.ok()) << st.str();
    EXPECT_EQ(Tree(out), Tree(s.dir));
  }
  // As the pod packs the result files: named files, links followed.
  ASSERT_EQ(symlink("hb_job.sh", (s.dir + "/run.sh").c_str()), 0);
  ASSERT_EQ(Sh("cd " + src + " && tar -c -z -h -f - run.sh data " + ShellQuote(s.long155) + " > " + file), 0);
  std::string out = s.tmp / "out-pod";
  Status st = ExtractTarGz(ReadFile(s.tmp / "a.tgz").value(), out);
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(ReadFile(out + "/run.sh").value(), "#!/bin/bash\necho hi\n");
  EXPECT_EQ(ReadFile(out + "/" + s.long155).value(), "longer\n");
  EXPECT_EQ(ReadFile(out + "/data/blob.bin").value(), ReadFile(s.dir + "/data/blob.bin").value());
}

TEST(TarGzTest, ReadsPythonFormatsAndGzipMembers) {
  Sample s;
  for (std::string format : {"GNU_FORMAT", "PAX_FORMAT"}) {
    SCOPED_TRACE(format);
    std::string py =
        "import tarfile, sys\n"
        "with tarfile.open(sys.argv[1], 'w:gz', format=tarfile." +
        format +
        ") as t:\n"
        "    t.add(sys.argv[2], arcname='.')\n";
    ASSERT_EQ(Sh("/usr/bin/python3 -c " + ShellQuote(py) + " " + ShellQuote(s.tmp / "a.tgz") + " " + ShellQuote(s.dir)),
              0);
    std::string out = s.tmp / ("out-" + format);
    Status st = ExtractTarGz(ReadFile(s.tmp / "a.tgz").value(), out);
    ASSERT_TRUE(st.ok()) << st.str();
    EXPECT_EQ(Tree(out), Tree(s.dir));
  }
  // The same tar stream cut into two gzip members, then zero padding.
  std::string tar = Gunzip(PackDirectoryTarGz(s.dir).value());
  std::string two = Gzip(tar.substr(0, 1000)) + Gzip(tar.substr(1000)) + std::string(100, '\0');
  Status st = ExtractTarGz(two, s.tmp / "out-two");
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(Tree(s.tmp / "out-two"), Tree(s.dir));
}

// An archive made by Python's tarfile from `py` (t is the TarFile; add(name,
// data) adds a file).
std::string PyArchive(const TempDir& t, const std::string& py,
                      const std::string& open_args = "format=tarfile.GNU_FORMAT") {
  std::string file = t / "py.tgz";
  std::string script =
      "import io, tarfile\n"
      "t = tarfile.open('" +
      file + "', 'w:gz', " + open_args +
      ")\n"
      "def add(name, data=b'x'):\n"
      "    i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
      "def special(name, kind, target=''):\n"
      "    i = tarfile.TarInfo(name); i.type = kind; i.linkname = target; t.addfile(i)\n" +
      py + "t.close()\n";
  EXPECT_EQ(Sh("/usr/bin/python3 -c " + ShellQuote(script)), 0) << script;
  return ReadFile(file).value();
}

TEST(TarGzTest, RefusesWhatWouldLeaveTheFolderOrIsNotAFile) {
  TempDir t;
  std::string out = t / "out";
  struct Case {
    std::string py, message;
  } cases[] = {
      {"add('ok.txt')\nadd('../evil.txt')\n", "'../evil.txt', which is outside the stage directory: refused"},
      {"add('ok.txt')\nadd('a/../../evil.txt')\n", "'a/../../evil.txt', which is outside the stage directory"},
      {"add('/tmp/abs.txt')\n", "'/tmp/abs.txt', which is outside the stage directory"},
      {"special('l', tarfile.SYMTYPE, '/etc')\n", "'l' is a symbolic link to '/etc': refused"},
      {"add('a')\nspecial('h', tarfile.LNKTYPE, 'a')\n", "'h' is a hard link to 'a': refused"},
      {"special('dev', tarfile.CHRTYPE)\n", "'dev' is a character device: refused"},
      {"special('pipe', tarfile.FIFOTYPE)\n", "'pipe' is a FIFO: refused"},
      {"add('ok.txt')\nspecial('odd', b'Z')\n", "'odd' is of entry type 'Z', which is not supported"},
  };
  for (const auto& c : cases) {
    Status st = ExtractTarGz(PyArchive(t, c.py), out);
    ASSERT_FALSE(st.ok()) << c.py;
    EXPECT_NE(st.message().find(c.message), std::string::npos) << st.str();
    EXPECT_FALSE(PathExists(out)) << "wrote before refusing: " << c.py;
    EXPECT_FALSE(PathExists(t / "evil.txt"));
  }
}

TEST(TarGzTest, NeverWritesThroughALinkInTheFolder) {
  TempDir t;
  ASSERT_TRUE(MakeDirs(t / "out").ok());
  ASSERT_TRUE(MakeDirs(t / "elsewhere").ok());
  ASSERT_EQ(symlink((t / "elsewhere").c_str(), (t / "out/sub").c_str()), 0);
  ASSERT_EQ(symlink((t / "elsewhere/f").c_str(), (t / "out/f").c_str()), 0);
  Status st = ExtractTarGz(PyArchive(t, "add('sub/x.txt')\n"), t / "out");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/out/sub is a link or a file, not a folder: refused"), std::string::npos) << st.str();
  EXPECT_FALSE(PathExists(t / "elsewhere/x.txt"));
  // A file replaces a link of its name; the link's target is left alone.
  st = ExtractTarGz(PyArchive(t, "add('f', b'new')\n"), t / "out");
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(ReadFile(t / "out/f").value(), "new");
  EXPECT_FALSE(PathExists(t / "elsewhere/f"));
}

TEST(TarGzTest, DamageIsAnErrorNamingWhere) {
  TempDir t;
  std::string good = PyArchive(t, "add('first.txt', b'1' * 3000)\nadd('second.txt', b'2' * 100)\n");
  ASSERT_TRUE(ExtractTarGz(good, t / "ok").ok());
  auto fails = [&](const std::string& archive, const std::string& message) {
    Status st = ExtractTarGz(archive, t / "out");
    ASSERT_FALSE(st.ok()) << message;
    EXPECT_NE(st.message().find(message), std::string::npos) << st.str() << "\nwanted: " << message;
    EXPECT_FALSE(PathExists(t / "out"));
  };
  fails("", "not a valid tar.gz: not gzip data");
  fails("not a tar", "not a valid tar.gz: not gzip data");
  fails(good.substr(0, good.size() - 4), "not a valid tar.gz: the gzip data ends early");
  std::string corrupt = good;
  corrupt[corrupt.size() - 6] ^= 0x55;  // the CRC
  fails(corrupt, "not a valid tar.gz: bad gzip data (incorrect data check)");
  corrupt = good;
  corrupt[corrupt.size() / 2] ^= 0x55;
  fails(corrupt, "not a valid tar.gz: ");
  fails(good + "junk", "trailing garbage");

  std::string tar = Gunzip(good);
  std::string bad = tar;
  bad[512 + 3072 + 10] ^= 1;  // the name in the second header
  fails(Gzip(bad), "not a valid tar.gz: a header has a bad checksum (after 'first.txt')");
  fails(Gzip(tar.substr(0, 512 + 1000)), "not a valid tar.gz: 'first.txt' is cut short");
  fails(Gzip(tar.substr(0, 512 + 3072 + 100)),
        "not a valid tar.gz: the archive ends inside a header (after 'first.txt')");
  bad = tar;
  std::memcpy(&bad[124], "9999999999\0", 12);  // size, checksum fixed below
  unsigned sum = 0;
  std::memset(&bad[148], ' ', 8);
  for (int i = 0; i < 512; ++i) sum += static_cast<unsigned char>(bad[i]);
  std::snprintf(&bad[148], 8, "%06o", sum);
  fails(Gzip(bad), "the header of 'first.txt' has a bad number in it");
}

TEST(TarGzTest, ReadsPaxPathAndSkipsGlobalHeaders) {
  TempDir t;
  const std::string pax = "format=tarfile.PAX_FORMAT, pax_headers={'comment': 'global'}";
  std::string archive = PyArchive(t,
                                  "i = tarfile.TarInfo('short'); i.pax_headers = {'path': 'dir/the real name'}\n"
                                  "i.size = 2; t.addfile(i, io.BytesIO(b'ok'))\n",
                                  pax);
  Status st = ExtractTarGz(archive, t / "out");
  ASSERT_TRUE(st.ok()) << st.str();
  EXPECT_EQ(ReadFile(t / "out/dir/the real name").value(), "ok");
  EXPECT_FALSE(PathExists(t / "out/short"));
  st = ExtractTarGz(PyArchive(t, "i = tarfile.TarInfo('fine'); i.pax_headers = {'path': '../up'}\nt.addfile(i)\n", pax),
                    t / "out");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'../up', which is outside"), std::string::npos) << st.str();
}

// Cut and flipped archives: errors or not, never a crash and never a file
// outside the folder.
TEST(TarGzTest, DamagedArchivesNeverCrash) {
  Sample s;
  std::string good = PackDirectoryTarGz(s.dir).value();
  std::string tar = Gunzip(good);
  std::mt19937 rng(42);
  std::string out = s.tmp / "fuzz/out";
  for (int i = 0; i < 200; ++i) {
    size_t cut = rng() % good.size();
    EXPECT_FALSE(ExtractTarGz(good.substr(0, cut), out).ok()) << cut;
  }
  for (int i = 0; i < 300; ++i) {
    std::string bad = tar;
    size_t block = (rng() % 4) * 512;  // the first headers, checksums kept right
    for (int k = 0; k < 4; ++k) bad[block + rng() % 512] = static_cast<char>(rng());
    if (i % 2 == 0) {
      std::memset(&bad[block + 148], ' ', 8);
      unsigned sum = 0;
      for (int j = 0; j < 512; ++j) sum += static_cast<unsigned char>(bad[block + j]);
      std::snprintf(&bad[block + 148], 8, "%06o", sum);
    }
    (void)ExtractTarGz(Gzip(bad.substr(0, rng() % 2 ? bad.size() : rng() % bad.size())), out);
  }
  for (const auto& e : fs::recursive_directory_iterator(s.tmp / "fuzz"))
    EXPECT_TRUE(StartsWith(e.path().string(), out)) << e.path();
  (void)RemoveTree(s.tmp / "fuzz");
}

}  // namespace
}  // namespace hb
