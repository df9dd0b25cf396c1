#include "run/ci_pipeline.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "model/expand.h"
#include "model/test_loader.h"

namespace hb {
namespace {

const char* kTests = R"(
name: build
executable: echo
sanity: [{exit_code: 0}]
---
name: run
executable: echo
parameters:
  n: [1, 2]
depends_on: [build]
sanity: [{exit_code: 0}]
---
name: report
executable: echo
depends_on: [{test: run, variants: all}]
sanity: [{exit_code: 0}]
)";

std::vector<TestCase> Cases(const TestSuite& suite) {
  PartitionView p{"hpc", "gpu", {}, {{"gnu", {}}}};
  auto cases = ExpandCases(suite, {p}, CaseFilter());
  EXPECT_TRUE(cases.ok()) << cases.status().str();
  return *cases;
}

TEST(CiPipeline, StagesFollowDependenciesAndNeedsNameEarlierJobs) {
  auto suite = LoadTestsFromString(kTests, "t.yaml");
  ASSERT_TRUE(suite.ok());
  CiOptions o;
  o.test_paths = {"tests/t.yaml"};
  o.run_args = {"-C", "site.yaml", "-S", "num_tasks=2"};
  auto text = GitlabPipeline(Cases(*suite), o);
  ASSERT_TRUE(text.ok()) << text.status().str();
  YAML::Node y = YAML::Load(*text);
  ASSERT_EQ(y["stages"].size(), 3u);
  EXPECT_EQ(y["stages"][0].as<std::string>(), "hb-stage-0");
  EXPECT_EQ(y["stages"][2].as<std::string>(), "hb-stage-2");
  YAML::Node build = y["build@hpc:gpu+gnu"];
  ASSERT_TRUE(build) << *text;
  EXPECT_EQ(build["stage"].as<std::string>(), "hb-stage-0");
  EXPECT_EQ(build["needs"].size(), 0u);
  YAML::Node run = y["run%n=2@hpc:gpu+gnu"];
  ASSERT_TRUE(run) << *text;
  EXPECT_EQ(run["stage"].as<std::string>(), "hb-stage-1");
  EXPECT_EQ(run["needs"][0].as<std::string>(), "build@hpc:gpu+gnu");
  EXPECT_EQ(run["script"][0].as<std::string>(),
            "hetbench run -c tests/t.yaml -C site.yaml -S num_tasks=2 --system hpc:gpu -p '^gnu$' "
            "-n '^run %n=2$' --report-file run%n=2@hpc:gpu+gnu-report.json "
            "--report-junit run%n=2@hpc:gpu+gnu-report.xml");
  EXPECT_EQ(run["artifacts"]["reports"]["junit"].as<std::string>(), "run%n=2@hpc:gpu+gnu-report.xml");
  YAML::Node report = y["report@hpc:gpu+gnu"];
  EXPECT_EQ(report["stage"].as<std::string>(), "hb-stage-2");
  EXPECT_EQ(report["needs"].size(), 2u) << "both variants of run";
}

TEST(CiPipeline, JobNamesAreSafeAndBounded) {
  EXPECT_EQ(CiJobName("hello %who=two words@generic:local+builtin"), "hello_%who=two_words@generic:local+builtin");
  EXPECT_EQ(CiJobName(".hidden@a:b+c"), "hb-.hidden@a:b+c");
  std::string longid(400, 'x');
  std::string name = CiJobName(longid);
  EXPECT_EQ(name.size(), 255u);
  EXPECT_NE(name, CiJobName(longid + "y"));
}

TEST(CiPipeline, AMissingDependencyIsAnError) {
  auto suite = LoadTestsFromString(R"(
name: a
executable: echo
valid_prog_environs: [intel]
sanity: [{exit_code: 0}]
---
name: b
executable: echo
depends_on: [a]
sanity: [{exit_code: 0}]
)",
                                   "t.yaml");
  ASSERT_TRUE(suite.ok());
  auto text = GitlabPipeline(Cases(*suite), CiOptions());
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().str().find("case 'b@hpc:gpu+gnu' depends on a"), std::string::npos) << text.status().str();
}

}  // namespace
}  // namespace hb
