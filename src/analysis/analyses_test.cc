#include "analysis/analyses.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace hb {
namespace {

void Add(PerfTable* t, const PerfSeriesKey& k, int session, double value, int num_tasks = 1) {
  int s = -1;
  for (size_t i = 0; i < t->series.size(); ++i)
    if (t->series[i] == k) s = static_cast<int>(i);
  if (s < 0) {
    s = static_cast<int>(t->series.size());
    t->series.push_back(k);
  }
  while (static_cast<int>(t->sessions.size()) <= session)
    t->sessions.push_back({"s" + std::to_string(t->sessions.size()), "sys", "h", 1.0 * t->sessions.size()});
  PerfPoint p;
  p.series = s;
  p.session = session;
  p.value = value;
  p.num_tasks = num_tasks;
  t->points.push_back(p);
}

PerfSeriesKey Key(const std::string& var, const std::string& unit, const std::string& params,
                  const std::string& display) {
  return {"train", display, "sys", "gpu", "env", var, unit, params};
}

// The key of a test's figure of merit.
PerfSeriesKey Fom(PerfSeriesKey k) {
  k.figure_of_merit = true;
  return k;
}

bool TimeIsLower(const std::string&, const std::string& unit) { return unit == "s"; }

TEST(Scaling, SpeedupAndEfficiencyAgainstTheSmallestScale) {
  PerfTable t;
  // Throughput over a `nodes` parameter, with another parameter kept.
  Add(&t, Fom(Key("throughput", "samples/s", R"({"model":"resnet","nodes":"1"})", "train %model=resnet %nodes=1")), 0,
      100);
  Add(&t, Fom(Key("throughput", "samples/s", R"({"model":"resnet","nodes":"1"})", "train %model=resnet %nodes=1")), 1,
      102);
  Add(&t, Fom(Key("throughput", "samples/s", R"({"model":"resnet","nodes":"2"})", "train %model=resnet %nodes=2")), 0,
      190);
  Add(&t, Fom(Key("throughput", "samples/s", R"({"model":"resnet","nodes":"4"})", "train %model=resnet %nodes=4")), 0,
      300);
  // Time per step over the same: lower is better.
  Add(&t, Key("step_time", "s", R"({"model":"resnet","nodes":"1"})", "train %model=resnet %nodes=1"), 0, 1.0);
  Add(&t, Key("step_time", "s", R"({"model":"resnet","nodes":"4"})", "train %model=resnet %nodes=4"), 0, 0.5);
  // A lone series is no curve.
  Add(&t, Fom(Key("throughput", "samples/s", R"({"model":"cosmo","nodes":"1"})", "train %model=cosmo %nodes=1")), 0, 9);
  // The figure of merit (throughput) scales; step_time, not marked, does
  // not.
  auto curves = ScalingCurves(t, TimeIsLower);
  ASSERT_EQ(curves.size(), 1u);
  const ScalingCurve* thr = &curves[0];
  EXPECT_EQ(thr->var, "throughput");
  EXPECT_EQ(thr->parameter, "nodes");
  EXPECT_EQ(thr->label, "train %model=resnet");
  ASSERT_EQ(thr->points.size(), 3u);
  EXPECT_DOUBLE_EQ(thr->points[0].value, 101);  // median of 100 and 102
  EXPECT_EQ(thr->points[0].count, 2);
  EXPECT_DOUBLE_EQ(thr->points[2].ideal, 4);
  EXPECT_DOUBLE_EQ(thr->points[2].speedup, 300.0 / 101);
  EXPECT_DOUBLE_EQ(thr->points[2].efficiency, 300.0 / 101 / 4);
  // A test that marks step_time its figure of merit scales that alone.
  for (auto& k : t.series) k.figure_of_merit = k.var == "step_time";
  curves = ScalingCurves(t, TimeIsLower);
  ASSERT_EQ(curves.size(), 1u);
  const ScalingCurve* st = &curves[0];
  EXPECT_EQ(st->var, "step_time");
  EXPECT_TRUE(st->lower_is_better);
  EXPECT_DOUBLE_EQ(st->points[1].speedup, 2);
  EXPECT_DOUBLE_EQ(st->points[1].efficiency, 0.5);
}

// A test's scaling_axes choose the axes: here `batch`, which the names
// alone would not, and not `threads`.
TEST(Scaling, DeclaredAxesChooseTheParameter) {
  PerfTable t;
  for (const char* b : {"8", "16"})
    for (const char* n : {"1", "2"}) {
      std::string params = std::string(R"({"batch":")") + b + R"(","threads":")" + n + "\"}";
      PerfSeriesKey k = Fom(Key("tput", "samples/s", params, std::string("train %batch=") + b + " %threads=" + n));
      k.scaling_axes = {"batch"};
      Add(&t, k, 0, std::atoi(b) * 10.0 + std::atoi(n));
    }
  auto curves = ScalingCurves(t, TimeIsLower);
  ASSERT_EQ(curves.size(), 2u);  // one per thread count
  for (const auto& c : curves) {
    EXPECT_EQ(c.parameter, "batch");
    ASSERT_EQ(c.points.size(), 2u);
    EXPECT_DOUBLE_EQ(c.points[0].scale, 8);
  }
}

// `better: lower` on a variable whose unit says nothing of time: the
// speedup is v(N0) / v(N).
TEST(Scaling, TheDeclaredDirectionDecidesTheSpeedup) {
  PerfTable t;
  for (const char* n : {"1", "2"}) {
    PerfSeriesKey k = Fom(Key("energy", "J", std::string(R"({"ranks":")") + n + "\"}", std::string("e %ranks=") + n));
    k.better = "lower";
    Add(&t, k, 0, n[0] == '1' ? 100 : 50);
  }
  auto curves = ScalingCurves(t, TimeIsLower);
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_TRUE(curves[0].lower_is_better);
  EXPECT_DOUBLE_EQ(curves[0].points[1].speedup, 2);
}

TEST(Scaling, ThreadsIsAnAxisAndOnlyTheFigureOfMeritScales) {
  PerfTable t;
  for (const char* n : {"1", "2", "4"}) {
    std::string params = std::string(R"({"threads":")") + n + "\"}";
    Add(&t, Fom(Key("gflops", "GFLOP/s", params, std::string("gemm %threads=") + n)), 0, 10.0 * std::atoi(n));
    Add(&t, Key("delta_loss", "", params, std::string("gemm %threads=") + n), 0, 0.1);
  }
  auto curves = ScalingCurves(t, TimeIsLower);
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].var, "gflops");
  EXPECT_EQ(curves[0].parameter, "threads");
  EXPECT_DOUBLE_EQ(curves[0].points[2].efficiency, 1);
}

TEST(Scaling, NumTasksWhenNoParameterScales) {
  PerfTable t;
  Add(&t, Fom(Key("bw", "GB/s", "{}", "allreduce")), 0, 10, 2);
  Add(&t, Fom(Key("bw", "GB/s", "{}", "allreduce")), 1, 15, 4);
  auto curves = ScalingCurves(t, TimeIsLower);
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].parameter, "num_tasks");
  EXPECT_DOUBLE_EQ(curves[0].points[1].speedup, 1.5);
  EXPECT_DOUBLE_EQ(curves[0].points[1].efficiency, 0.75);
}

TEST(Variability, CvOfRepetitionsPerSession) {
  PerfTable t;
  for (double v : {10.0, 12.0, 14.0}) Add(&t, Key("bw", "GB/s", "{}", "x"), 0, v);
  Add(&t, Key("bw", "GB/s", "{}", "x"), 1, 11);  // one value: no CV
  auto v = RepetitionVariability(t);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].count, 3);
  EXPECT_DOUBLE_EQ(v[0].mean, 12);
  EXPECT_DOUBLE_EQ(v[0].cv, 2.0 / 12);
}

TEST(Breakdown, PartsOfTheLatestSessionInStepOrder) {
  PerfTable t;
  Add(&t, Key("forward", "s", "{}", "train"), 0, 9);  // older session: ignored
  Add(&t, Key("allreduce", "s", "{}", "train"), 1, 0.2);
  Add(&t, Key("data_wait", "s", "{}", "train"), 1, 0.1);
  Add(&t, Key("forward", "s", "{}", "train"), 1, 0.3);
  Add(&t, Key("forward", "s", "{}", "train"), 1, 0.5);            // repetition: median 0.4
  Add(&t, Key("throughput", "samples/s", "{}", "train"), 1, 50);  // not a part
  auto b = TimeBreakdowns(t);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].session, 1);
  ASSERT_EQ(b[0].parts.size(), 3u);
  EXPECT_EQ(b[0].parts[0].var, "data_wait");
  EXPECT_EQ(b[0].parts[0].group, "I/O");
  EXPECT_EQ(b[0].parts[1].var, "forward");
  EXPECT_DOUBLE_EQ(b[0].parts[1].seconds, 0.4);
  EXPECT_EQ(b[0].parts[2].group, "communication");
  EXPECT_DOUBLE_EQ(b[0].total, 0.7);
  // The groups: 0.1 s of I/O, 0.4 s of compute and 0.2 s of
  // communication in a step of 0.7 s.
  ASSERT_EQ(b[0].groups.size(), 5u);
  EXPECT_EQ(b[0].groups[0].group, "I/O");
  EXPECT_NEAR(b[0].groups[0].percent, 100 * 0.1 / 0.7, 1e-9);
  EXPECT_EQ(b[0].groups[1].group, "host-to-device");
  EXPECT_DOUBLE_EQ(b[0].groups[1].seconds, 0);
  EXPECT_NEAR(b[0].groups[2].percent, 100 * 0.4 / 0.7, 1e-9);
  EXPECT_EQ(b[0].groups[3].group, "wait");
  EXPECT_DOUBLE_EQ(b[0].groups[3].seconds, 0);
  EXPECT_NEAR(b[0].groups[4].percent, 100 * 0.2 / 0.7, 1e-9);
}

TEST(Breakdown, CasesOfOneModelStandTogetherInNumericOrder) {
  PerfTable t;
  for (const char* ranks : {"16", "2", "1"}) {
    std::string params = std::string("{\"ranks\":\"") + ranks + "\"}";
    Add(&t, Key("forward", "s", params, std::string("train %ranks=") + ranks), 0, 0.1);
  }
  Add(&t, Key("forward", "s", "{}", "deepcam"), 0, 0.1);
  auto b = TimeBreakdowns(t);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].label, "deepcam");
  EXPECT_EQ(b[1].label, "train %ranks=1");
  EXPECT_EQ(b[2].label, "train %ranks=2");
  EXPECT_EQ(b[3].label, "train %ranks=16");
  EXPECT_TRUE(NaturalLess("a9", "a10"));
  EXPECT_FALSE(NaturalLess("a10", "a9"));
  EXPECT_TRUE(NaturalLess("a", "a1"));
  EXPECT_TRUE(NaturalLess("x007", "x8"));
}

}  // namespace
}  // namespace hb
