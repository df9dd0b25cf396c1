#include "util/fs.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include <gtest/gtest.h>

#include "util/test_temp_dir.h"

namespace hb {
namespace {

// issue 16, item 2: a path made from a name stays in its folder.
TEST(Fs, IsWithinAndSafeJoinKeepNamesInTheirFolder) {
  TempDir d;
  std::string stage = d / "stage";
  ASSERT_TRUE(MakeDirs(stage + "/sub").ok());
  EXPECT_TRUE(IsWithin(stage + "/sub/x", stage));
  EXPECT_TRUE(IsWithin(stage, stage));
  EXPECT_FALSE(IsWithin(stage + "/../victim", stage));
  EXPECT_FALSE(IsWithin(d / "stagecoach", stage));  // a prefix of the name is not the folder
  ASSERT_EQ(::symlink("/etc", (stage + "/out").c_str()), 0);
  EXPECT_FALSE(IsWithin(stage + "/out/passwd", stage));  // a link out of the folder
  EXPECT_EQ(SafeJoin(stage, "sub/x").value(), stage + "/sub/x");
  EXPECT_FALSE(SafeJoin(stage, "../../victim").ok());
  EXPECT_EQ(SafeJoin(stage, "/etc/passwd").status().message(),
            "'/etc/passwd' is an absolute path; expected a path relative to " + stage);
  EXPECT_FALSE(SafeJoin(stage, std::string("a\0b", 3)).ok());
  EXPECT_EQ(SafePath(stage, {"sys", "part", "env"}).value(), stage + "/sys/part/env");
  for (const std::string& bad : std::vector<std::string>{"..", ".", "", "a/b", "../x", std::string("a\0b", 3)})
    EXPECT_FALSE(SafePath(stage, {"sys", bad}).ok()) << bad;
  EXPECT_EQ(SafePath(stage, {"x", ".."}).status().message(),
            "'..' cannot be a folder name (below " + stage + "): expected a name without '/', NUL or '..'");
  // A link out of the folder is not within it either.
  EXPECT_FALSE(SafePath(stage, {"out", "passwd"}).ok());  // the link to /etc made above
  EXPECT_FALSE(RemoveTreeWithin(stage, stage).ok());
  EXPECT_FALSE(RemoveTreeWithin(stage + "/../victim", stage).ok());
  ASSERT_TRUE(MakeDirs(stage + "/sub/deeper").ok());
  EXPECT_TRUE(RemoveTreeWithin(stage + "/sub", stage).ok());
  EXPECT_FALSE(PathExists(stage + "/sub"));
}

// issue 16, item 10: `sourcesdir: .` with the prefix inside it.
TEST(Fs, CopyTreeRefusesToCopyAFolderIntoItself) {
  TempDir d;
  d.Write("src/a.c", "int main(){}\n");
  Status st = CopyTree(d / "src", d / "src/out/stage/case");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("which is inside it"), std::string::npos) << st.str();
  EXPECT_FALSE(PathExists(d / "src/out"));  // nothing was made
  EXPECT_TRUE(CopyTree(d / "src", d / "stage").ok());
  EXPECT_TRUE(PathExists(d / "stage/a.c"));
}

// issue 16, "one safe-path function": nothing in src/ removes a file or a
// folder except through RemoveTreeWithin (a folder below the root it was
// made in), or where it removes what it made itself a moment before. A
// new call site must be one of those and be listed here with its reason.
TEST(Fs, EveryRemovalIsOfWhatHetbenchMadeBelowItsRoot) {
  namespace fs = std::filesystem;
  const std::map<std::string, std::string> allowed = {
      {"src/util/fs.cc", "the implementation"},
      {"src/k8s/kube_client.cc", "the capture files and folder of a kubectl call, made with mkdtemp"},
      {"src/sched/command_runner.cc", "the capture folder of one command, made with mkdtemp"},
      {"src/k8s/k8s_observe.cc", "the stderr file an archive from a pod brings, removed before the next pod's"},
      {"src/results/perflog.cc", "a perflog's own .tmp file when the rename over the log failed"},
      {"src/util/test_temp_dir.h", "a test's own temporary folder, made with mkdtemp"},
  };
  const std::regex removal(R"(\bRemoveTree\(|remove_all\(|fs::remove\(|filesystem::remove\(|\bunlink\(|\brmdir\()");
  std::string found;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(HB_SOURCE_DIR) / "src")) {
    const std::string rel = fs::relative(e.path(), HB_SOURCE_DIR).string();
    if (!e.is_regular_file() || rel.ends_with("_test.cc") || rel.ends_with("_test_util.h") ||
        !(rel.ends_with(".cc") || rel.ends_with(".h")))
      continue;
    if (rel == "src/util/fs.h") continue;  // the declarations
    std::ifstream in(e.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (std::regex_search(line.substr(0, line.find("//")), removal) && !allowed.count(rel))
        found += rel + ":" + std::to_string(n) + ": " + line + "\n";
  }
  EXPECT_EQ(found, "") << "removals that do not go through RemoveTreeWithin (util/fs.h)";
}

}  // namespace
}  // namespace hb
