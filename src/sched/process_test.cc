#include "sched/process.h"

#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "sched/sched_test_util.h"
#include "util/fs.h"
#include "util/signals.h"

namespace hb {
namespace {

using testing::TempDir;

int WaitExit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(SpawnProcess, RunsInFolderWithEnvAndOutputFiles) {
  TempDir dir;
  ASSERT_TRUE(MakeDirs(dir / "work").ok());
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "echo \"$HB_TEST_VAR\"; pwd; cat; echo oops >&2; exit 7"};
  o.cwd = dir / "work";
  o.env = {{"HB_TEST_VAR", "hello world"}, {"HOME", "/nowhere"}};
  o.stdout_path = "out.txt";  // relative to cwd
  o.stderr_path = dir / "err.txt";
  auto pid = SpawnProcess(o);
  ASSERT_TRUE(pid.ok()) << pid.status().str();
  EXPECT_EQ(WaitExit(*pid), 7);
  EXPECT_EQ(*ReadFile(dir / "work/out.txt"), "hello world\n" + (dir / "work") + "\n");
  EXPECT_EQ(*ReadFile(dir / "err.txt"), "oops\n");
}

TEST(SpawnProcess, ReplacesExistingVariables) {
  TempDir dir;
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "env | grep -c '^HOME='; echo $HOME"};
  o.env = {{"HOME", "/nowhere"}};
  o.stdout_path = dir / "out";
  auto pid = SpawnProcess(o);
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(WaitExit(*pid), 0);
  EXPECT_EQ(*ReadFile(dir / "out"), "1\n/nowhere\n");
}

TEST(SpawnProcess, ChildLeadsItsOwnProcessGroup) {
  SpawnOptions o;
  o.argv = {"sleep", "5"};  // found in PATH
  auto pid = SpawnProcess(o);
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(::getpgid(*pid), *pid);
  ASSERT_EQ(::kill(*pid, SIGKILL), 0);
  EXPECT_EQ(WaitExit(*pid), 128 + SIGKILL);
}

TEST(SpawnProcess, ChildGetsTheOriginalSignalState) {
  EventWaiter waiter;  // blocks SIGCHLD, SIGINT, SIGTERM, SIGHUP here
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &old), 0);
  TempDir dir;
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", "grep -E '^Sig(Blk|Ign)' /proc/self/status"};
  o.stdout_path = dir / "out";
  auto pid = SpawnProcess(o);
  ASSERT_EQ(::sigaction(SIGPIPE, &old, nullptr), 0);
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(WaitExit(*pid), 0);
  auto out = ReadFile(dir / "out");
  // Nothing blocked; SIGPIPE (bit 13, 0x1000) not ignored.
  EXPECT_NE(out->find("SigBlk:\t0000000000000000"), std::string::npos) << *out;
  size_t ign = out->find("SigIgn:\t");
  ASSERT_NE(ign, std::string::npos);
  unsigned long long mask = std::stoull(out->substr(ign + 8, 16), nullptr, 16);
  EXPECT_EQ(mask & (1ULL << (SIGPIPE - 1)), 0u) << *out;
}

TEST(SpawnProcess, ReportsExecFailure) {
  SpawnOptions o;
  o.argv = {"/nonexistent/program"};
  auto pid = SpawnProcess(o);
  ASSERT_FALSE(pid.ok());
  EXPECT_NE(pid.status().message().find("/nonexistent/program"), std::string::npos);
  EXPECT_NE(pid.status().message().find("No such file"), std::string::npos) << pid.status().str();
}

TEST(SpawnProcess, ReportsMissingFolder) {
  SpawnOptions o;
  o.argv = {"/bin/true"};
  o.cwd = "/nonexistent/folder";
  auto pid = SpawnProcess(o);
  ASSERT_FALSE(pid.ok());
  EXPECT_NE(pid.status().message().find("/nonexistent/folder"), std::string::npos);
}

TEST(SpawnProcess, ReportsUnwritableOutput) {
  SpawnOptions o;
  o.argv = {"/bin/true"};
  o.stdout_path = "/nonexistent/folder/out";
  EXPECT_FALSE(SpawnProcess(o).ok());
}

TEST(SpawnProcess, RejectsEmptyCommand) { EXPECT_FALSE(SpawnProcess(SpawnOptions{}).ok()); }

}  // namespace
}  // namespace hb
