#include "model/setvar.h"

#include <gtest/gtest.h>

#include "model/test_loader.h"

namespace hb {
namespace {

const char* kTests = R"(
name: base
abstract: true
executable: ./a.out
parameters:
  threads: [1, 2]
sanity: [{exit_code: 0}]
---
name: stream
extends: base
num_tasks: 2
valid_systems: ['*']
---
name: other
executable: echo
sanity: [{exit_code: 0}]
)";

Result<TestSuite> Load(const std::vector<std::string>& args) {
  LoadOptions opts;
  for (const auto& a : args) {
    auto o = ParseSetvar(a);
    if (!o.ok()) return o.status();
    opts.setvars.push_back(*o);
  }
  return LoadTestsFromString(kTests, "t.yaml", opts);
}

std::string Error(const std::vector<std::string>& args) {
  auto s = Load(args);
  return s.ok() ? "" : s.status().str();
}

TEST(Setvar, ConvertsByTheFieldsType) {
  auto s = Load({"num_tasks=4", "exclusive_access=yes", "valid_systems=hpc:gpu,hpc:cpu", "executable_opts=-n,10",
                 "env_vars=OMP_NUM_THREADS:4,A:b", "time_limit=10m", "other.tags="});
  ASSERT_TRUE(s.ok()) << s.status().str();
  const TestSpec* st = s->Find("stream");
  EXPECT_EQ(st->num_tasks, 4);
  EXPECT_TRUE(st->exclusive_access);
  EXPECT_EQ(st->valid_systems, (std::vector<std::string>{"hpc:gpu", "hpc:cpu"}));
  EXPECT_EQ(st->executable_opts, (std::vector<std::string>{"-n", "10"}));
  EXPECT_EQ(st->env_vars, (StringPairs{{"OMP_NUM_THREADS", "4"}, {"A", "b"}}));
  EXPECT_EQ(st->time_limit_s, 600.0);
  EXPECT_EQ(s->Find("other")->num_tasks, 4) << "-S FIELD applies to every test";
  EXPECT_TRUE(s->Find("other")->tags.empty());
}

TEST(Setvar, LauncherAndBuildFields) {
  auto s = Load({"launcher=torchrun", "launcher_options=--master_port=29600,--max_restarts=1", "build_locally=no",
                 "build_time_limit=2m"});
  ASSERT_TRUE(s.ok()) << s.status().str();
  const TestSpec* st = s->Find("stream");
  EXPECT_EQ(st->launcher, "torchrun");
  EXPECT_EQ(st->launcher_options, (std::vector<std::string>{"--master_port=29600", "--max_restarts=1"}));
  EXPECT_FALSE(st->build_locally);
  EXPECT_EQ(st->build_time_limit_s, 120.0);
}

TEST(Setvar, TestSpecificAndParameters) {
  auto s = Load({"other.num_tasks=8", "threads=4,8,16"});
  ASSERT_TRUE(s.ok()) << s.status().str();
  EXPECT_EQ(s->Find("stream")->num_tasks, 2);
  EXPECT_EQ(s->Find("other")->num_tasks, 8);
  ASSERT_EQ(s->Find("stream")->parameters.size(), 1u);
  EXPECT_EQ(s->Find("stream")->parameters[0].second, (std::vector<std::string>{"4", "8", "16"}));
  // The base keeps its own values: the override went into a copy.
  auto plain = LoadTestsFromString(kTests, "t.yaml");
  EXPECT_EQ(plain->Find("stream")->parameters[0].second, (std::vector<std::string>{"1", "2"}));
}

TEST(Setvar, ErrorsNameTheOptionFieldAndType) {
  EXPECT_EQ(Error({"num_tasks=four"}), "-S num_tasks=four: num_tasks expects an integer, got 'four'");
  EXPECT_EQ(
      Error({"exclusive_access=maybe"}),
      "-S exclusive_access=maybe: exclusive_access expects a boolean (true, yes, y, 1, false, no, n, 0), got 'maybe'");
  EXPECT_EQ(Error({"env_vars=A=1"}), "-S env_vars=A=1: env_vars expects a mapping written k1:v1,k2:v2, got 'A=1'");
  EXPECT_EQ(Error({"num_tasks=0"}), "-S num_tasks=0: num_tasks: expected an integer >= 1, got 0");
  EXPECT_EQ(Error({"num_taks=4"}),
            "-S num_taks=4: no test has a field or parameter named 'num_taks', did you mean 'num_tasks'?");
  EXPECT_EQ(Error({"strem.num_tasks=4"}),
            "-S strem.num_tasks=4: there is no test named 'strem', did you mean 'stream'?");
  EXPECT_EQ(Error({"other.threads=1"}), "-S other.threads=1: test 'other' has no field or parameter named 'threads'");
  EXPECT_NE(Error({"sanity=x"}).find("-S sanity=x: sanity cannot be set from the command line"), std::string::npos);
  EXPECT_NE(Error({"num_tasks"}).find("expected [TEST.]FIELD=VALUE"), std::string::npos);
  EXPECT_NE(Error({"time_limit=soon"}).find("-S time_limit=soon: time_limit: 'soon' is not a duration"),
            std::string::npos)
      << Error({"time_limit=soon"});
}

}  // namespace
}  // namespace hb
