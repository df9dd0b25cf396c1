#include "sched/proc_tree.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "sched/process.h"

namespace hb {
namespace {

TEST(ProcTree, BecomesSubreaper) { EXPECT_TRUE(BecomeSubreaper().ok()); }

TEST(ProcTree, ListsChildrenAndReadsTheirEnvironment) {
  SpawnOptions o;
  o.argv = {"sleep", "5"};
  o.env = {{"HB_PROC_TREE_TEST", "a,b=c"}};
  auto pid = SpawnProcess(o);
  ASSERT_TRUE(pid.ok());
  auto children = ListChildren(::getpid());
  EXPECT_NE(std::find(children.begin(), children.end(), *pid), children.end());
  // Right after exec the kernel may not have set up the new environment.
  std::optional<std::string> value;
  for (int i = 0; i < 100 && !value; ++i, ::usleep(10000)) value = ReadProcessEnv(*pid, "HB_PROC_TREE_TEST");
  EXPECT_EQ(value, "a,b=c");
  EXPECT_EQ(ReadProcessEnv(*pid, "HB_PROC_TREE"), std::nullopt);  // a prefix is not a name
  EXPECT_EQ(ReadProcessEnv(*pid, "HB_NOT_SET_ANYWHERE"), std::nullopt);
  ASSERT_EQ(::kill(*pid, SIGKILL), 0);
  ASSERT_EQ(::waitpid(*pid, nullptr, 0), *pid);
  children = ListChildren(::getpid());
  EXPECT_EQ(std::find(children.begin(), children.end(), *pid), children.end());
  EXPECT_EQ(ReadProcessEnv(*pid, "HB_PROC_TREE_TEST"), std::nullopt);  // gone
}

}  // namespace
}  // namespace hb
