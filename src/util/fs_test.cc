#include "util/fs.h"

#include <unistd.h>

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

}  // namespace
}  // namespace hb
