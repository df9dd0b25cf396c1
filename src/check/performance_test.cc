#include "check/performance.h"

#include <gtest/gtest.h>

#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

PerfSpec Var(const std::string& name, const std::string& pattern, const std::string& reduce = "first") {
  PerfSpec p;
  p.name = name;
  p.pattern = pattern;
  p.reduce = reduce;
  p.unit = "MB/s";
  return p;
}

class PerformanceTest : public ::testing::Test {
 protected:
  PerformanceTest() {
    in_.stagedir = dir_.path();
    in_.stdout_path = dir_.Write("job.out", "Triad: 3.0\nTriad: 1.0\nTriad: 4.0\nTriad: 2.0\nCopy: abc\n");
    in_.stderr_path = dir_.Write("job.err", "");
    dir_.Write("rank0.log", "step 1 img/s=100\nstep 2 img/s=300\n");
  }
  std::string Extract(const PerfSpec& p) {
    Result<double> v = ExtractPerf(p, in_);
    return v.ok() ? FormatNumber(*v) : v.status().message();
  }
  TempDir dir_;
  CheckInput in_;
};

TEST_F(PerformanceTest, EveryReduce) {
  const std::string pat = "Triad:\\s+(\\S+)";
  EXPECT_EQ(Extract(Var("t", pat, "first")), "3");
  EXPECT_EQ(Extract(Var("t", pat, "last")), "2");
  EXPECT_EQ(Extract(Var("t", pat, "min")), "1");
  EXPECT_EQ(Extract(Var("t", pat, "max")), "4");
  EXPECT_EQ(Extract(Var("t", pat, "mean")), "2.5");
  EXPECT_EQ(Extract(Var("t", pat, "median")), "2.5");
  EXPECT_EQ(Extract(Var("t", pat, "sum")), "10");
}

TEST_F(PerformanceTest, NoMatchNamesTheVariable) {
  EXPECT_EQ(Extract(Var("triad", "Triad:\\s+(\\S+) GB/s")),
            "triad: pattern 'Triad:\\s+(\\S+) GB/s' not found in stdout");
}

TEST_F(PerformanceTest, OtherFilesAndNamedGroups) {
  PerfSpec p = Var("throughput", "img/s=(?P<ips>\\d+)", "mean");
  p.in = "rank0.log";
  p.group = "ips";
  p.type = "int";
  EXPECT_EQ(Extract(p), "200");
  p.in = "rank1.log";
  EXPECT_EQ(Extract(p), "throughput: file 'rank1.log' not found in the stage directory");
}

TEST_F(PerformanceTest, ConversionError) {
  EXPECT_EQ(Extract(Var("copy", "Copy: (\\S+)")), "copy: conversion: 'abc' is not a float");
}

TEST_F(PerformanceTest, ValueChecksApply) {
  PerfSpec p = Var("triad", "Triad:\\s+(\\S+)", "max");
  p.value_checks = {{"gt", "10"}};
  EXPECT_EQ(Extract(p), "triad: max of 'Triad:\\s+(\\S+)' group 1 in stdout: 4.0 is not gt 10");
  p.value_checks = {{"le", "4"}};
  EXPECT_EQ(Extract(p), "4");
}

TEST_F(PerformanceTest, ExtractPerformanceKeepsOrderAndUnits) {
  Result<std::vector<PerfValue>> vs =
      ExtractPerformance({Var("a", "Triad: (\\S+)", "max"), Var("b", "Triad: (\\S+)", "min")}, in_);
  ASSERT_TRUE(vs.ok()) << vs.status().str();
  ASSERT_EQ(vs->size(), 2u);
  EXPECT_EQ((*vs)[0].name, "a");
  EXPECT_EQ((*vs)[0].value, 4.0);
  EXPECT_EQ((*vs)[1].value, 1.0);
  EXPECT_EQ((*vs)[1].unit, "MB/s");
  EXPECT_EQ(ExtractPerformance({Var("a", "Triad: (\\S+)"), Var("c", "Copy: (\\S+)")}, in_).status().message(),
            "c: conversion: 'abc' is not a float");
}

}  // namespace
}  // namespace hb
