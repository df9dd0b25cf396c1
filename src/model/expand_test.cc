#include "model/expand.h"

#include <gtest/gtest.h>

#include "model/test_loader.h"

namespace hb {
namespace {

const char* kSuite = R"(name: stream
tags: [memory, quick]
parameters: {threads: [1, 2, 4]}
executable: ./stream
num_tasks: '{threads * 2}'
sanity: [{exit_code: 0}]
---
name: gemm
tags: [compute]
parameters: {gpus: [1, 8]}
num_gpus_per_node: '{gpus}'
executable: ./gemm
sanity: [{exit_code: 0}]
)";

struct Fixture {
  TestSuite suite;
  std::vector<PartitionView> parts = {{"hpc", "gpu", {}, {{"gnu", {}}, {"nvhpc", {}}}, {"local"}}};
};

Fixture Load() {
  auto r = LoadTestsFromString(kSuite, "t.yaml");
  EXPECT_TRUE(r.ok()) << r.status().str();
  return Fixture{std::move(r).value()};
}

std::vector<std::string> Names(const std::vector<TestCase>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases) out.push_back(c.display_name + "+" + c.environ);
  return out;
}

TEST(Expand, HashcodeIsReframesAndSelectsOneVariant) {
  Fixture f = Load();
  auto all = ExpandCases(f.suite, f.parts, {});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 10u);
  // hashlib.sha256(b'stream' + b'threads=2').hexdigest()[:8], as ReFrame's
  // RegressionTest.hashcode computes it from the display name.
  EXPECT_EQ((*all)[2].display_name, "stream %threads=2");
  EXPECT_EQ((*all)[2].hashcode, "d1de718e");
  EXPECT_EQ((*all)[3].hashcode, "d1de718e");  // the same in every environment
  CaseFilter by_hash;
  by_hash.names = {"/d1de718e"};
  auto one = ExpandCases(f.suite, f.parts, by_hash);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Names(*one), (std::vector<std::string>{"stream %threads=2+gnu", "stream %threads=2+nvhpc"}));
  CaseFilter exclude;
  exclude.excludes = {"/d1de718e"};
  EXPECT_EQ(ExpandCases(f.suite, f.parts, exclude)->size(), 8u);
  CaseFilter bad;
  bad.names = {"/d1de71"};
  auto err = ExpandCases(f.suite, f.parts, bad);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.status().message().find("a hashcode is 8 hexadecimal digits"), std::string::npos);
}

// issue 16, item 7: 10 parameters of 10 values are refused before any of
// the 10^10 combinations is made, with the test's place.
TEST(Expand, MaxCasesIsCheckedBeforeTheProductIsMade) {
  std::string text = "name: huge\nexecutable: x\nsanity: [{exit_code: 0}]\nparameters:\n";
  for (int i = 0; i < 10; ++i) text += "  p" + std::to_string(i) + ": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
  auto suite = LoadTestsFromString(text, "huge.yaml");
  ASSERT_TRUE(suite.ok()) << suite.status().str();
  std::vector<PartitionView> parts = {{"hpc", "cpu", {}, {{"gnu", {}}}, {}}};
  auto r = ExpandCases(*suite, parts, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str(),
            "huge.yaml:4:1: test 'huge': its 10 parameters make 10000000000 combinations, more than general: "
            "max_cases (1000000); use fewer values, select some with -n or -E, or raise general: max_cases in the "
            "site configuration");
  // The cases of all tests on all partitions count too.
  Fixture f = Load();
  auto total = ExpandCases(f.suite, f.parts, {}, nullptr, 9);
  ASSERT_FALSE(total.ok());
  EXPECT_NE(total.status().message().find("the tests make more than 9 cases"), std::string::npos);
  EXPECT_EQ(ExpandCases(f.suite, f.parts, {}, nullptr, 10)->size(), 10u);
}

TEST(Expand, FilterExpressionReadsBoundValues) {
  Fixture f = Load();
  CaseFilter e;
  e.expr = "num_gpus_per_node > 4";  // bound from '{gpus}'
  auto big = ExpandCases(f.suite, f.parts, e);
  ASSERT_TRUE(big.ok()) << big.status().str();
  EXPECT_EQ(Names(*big), (std::vector<std::string>{"gemm %gpus=8+gnu", "gemm %gpus=8+nvhpc"}));
  e.expr = "num_tasks == 4 and environ == 'nvhpc'";  // num_tasks: '{threads * 2}'
  EXPECT_EQ(Names(*ExpandCases(f.suite, f.parts, e)), std::vector<std::string>{"stream %threads=2+nvhpc"});
  // A name one test lacks leaves that test's cases out.
  e.expr = "threads >= 2";
  EXPECT_EQ(ExpandCases(f.suite, f.parts, e)->size(), 4u);
  e.expr = "threads >=";
  auto err = ExpandCases(f.suite, f.parts, e);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.status().message(), "-E 'threads >=': expected a value at offset 10");
}

std::string WhyEmpty(const CaseFilter& filter) {
  Fixture f = Load();
  SelectionReport rep;
  auto cases = ExpandCases(f.suite, f.parts, filter, &rep);
  EXPECT_TRUE(cases.ok()) << cases.status().str();
  EXPECT_TRUE(cases->empty());
  return ExplainEmptySelection(f.suite, f.parts, filter, rep);
}

TEST(Expand, AnEmptySelectionSaysWhichOptionMatchedNothing) {
  CaseFilter f;
  f.tags = {"qiuck"};
  EXPECT_EQ(WhyEmpty(f),
            "-t 'qiuck' matches no tag of the 2 loaded tests, did you mean 'quick'? (tags: compute, memory, quick)");
  f = CaseFilter();
  f.tags = {"memory", "compute"};  // each matches a test, no test has both
  EXPECT_EQ(WhyEmpty(f),
            "no selected test has tags matching all of -t 'memory', 'compute' (tags: compute, memory, quick)");
  f = CaseFilter();
  f.names = {"gemn"};
  EXPECT_EQ(WhyEmpty(f), "-n 'gemn' matches no test name of the 2 loaded tests, did you mean 'gemm'?");
  f.names = {"/0123abcd"};
  EXPECT_EQ(WhyEmpty(f),
            "-n '/0123abcd' is the hashcode of none of the 2 loaded tests (`hetbench list` prints each "
            "case's after its name)");
  f = CaseFilter();
  f.excludes = {"."};
  EXPECT_EQ(WhyEmpty(f), "-x '.' excludes every test");
  f = CaseFilter();
  f.environs = {"gun"};
  EXPECT_EQ(WhyEmpty(f),
            "-p 'gun' matches no environment of the selected tests on hpc:gpu (environments: gnu, "
            "nvhpc), did you mean 'gnu'?");
  f = CaseFilter();
  f.expr = "num_gpu > 1";
  std::string why = WhyEmpty(f);
  EXPECT_EQ(why.substr(0, 52), "-E 'num_gpu > 1': no case defines 'num_gpu' (names: ") << why;
  EXPECT_NE(why.find(", gpus, "), std::string::npos) << why;
  EXPECT_NE(why.find(", num_gpus_per_node, "), std::string::npos) << why;
  f.expr = "gpus > 8";
  EXPECT_EQ(WhyEmpty(f),
            "-E 'gpus > 8' is false for the 4 case(s) it could be evaluated on; on 6 other case(s) it "
            "failed: unknown name 'gpus'");
}

TEST(Expand, PartitionAliasesMatchValidSystems) {
  auto r =
      LoadTestsFromString("name: a\nvalid_systems: ['hpc:local']\nexecutable: x\nsanity: [{exit_code: 0}]\n", "t.yaml");
  ASSERT_TRUE(r.ok());
  Fixture f = Load();
  EXPECT_EQ(ExpandCases(*r, f.parts, {})->size(), 2u);  // hpc:gpu answers to 'local'
  f.parts[0].aliases.clear();
  EXPECT_EQ(ExpandCases(*r, f.parts, {})->size(), 0u);
}

}  // namespace
}  // namespace hb
