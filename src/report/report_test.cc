#include "report/report.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

ReportInput Input() {
  ReportInput in;
  PerfTable& t = in.table;
  t.series.push_back({"bw", "bw %n=1", "sys", "part", "env", "bw", "GB/s", R"({"n":"1"})"});
  t.series.push_back({"gone", "gone", "sys", "part", "env", "x", "s", "{}"});  // no values left
  for (int i = 0; i < 12; ++i) {
    t.sessions.push_back({"s" + std::to_string(i), "sys", "host", 1000.0 * i});
    PerfPoint p;
    p.series = 0;
    p.session = i;
    p.time = 1000.0 * i + 1;
    p.value = (i < 6 ? 100 : 80) + (i % 2);
    p.has_ref = p.has_lower = true;
    p.ref = 100;
    p.lower = -0.1;
    t.points.push_back(p);
    StoredSession s;
    s.info.session_id = "s" + std::to_string(i);
    s.info.start_time = 1000.0 * i;
    s.total = 2;
    s.passed = 1;
    s.failed = 1;
    in.sessions.push_back(s);
  }
  StoredCase c;
  c.c.name = "broken";
  c.c.result = "fail";
  c.c.fail_stage = "sanity";
  c.c.fail_reason = "pattern 'x' not found </script><b>";
  in.latest_cases.push_back(c);
  in.title = "T </script>";
  in.max_points = 5;
  return in;
}

TEST(ReportData, SeriesChangePointsFailuresAndLimits) {
  auto j = ReportData(Input());
  EXPECT_EQ(j["schema"], "hetbench-report");
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["series"].size(), 1u);  // the series without values is left out
  const auto& s = j["series"][0];
  EXPECT_EQ(s["total"], 12);
  EXPECT_EQ(s["points"].size(), 5u);  // max_points, the latest
  // [run, value, time, ok]: the 8th session of 12, at 7001 s, below the
  // lower bound (90 GB/s).
  EXPECT_EQ(s["points"][0][0], 8);
  EXPECT_EQ(s["points"][0][2], 7001.0);
  EXPECT_EQ(s["points"][0][3], 0);
  // Bounded below only (no upper threshold): a value above 90 is inside.
  ReportInput above = Input();
  above.table.points.back().value = 95;
  auto k = ReportData(above);
  EXPECT_EQ(k["series"][0]["points"][4][1], 95.0);
  EXPECT_EQ(k["series"][0]["points"][4][3], 1);
  // Lower bound 90 GB/s; the unbounded upper side ends above the values.
  ASSERT_EQ(s["band"].size(), 2u);  // a step line: the start and the end of one level
  EXPECT_DOUBLE_EQ(s["band"][0][1].get<double>(), 90);
  EXPECT_GT(s["band"][0][2].get<double>(), 81);
  ASSERT_EQ(s["changes"].size(), 1u);
  EXPECT_EQ(s["changes"][0]["session"], "s6");
  EXPECT_EQ(s["changes"][0]["kind"], "regression");
  EXPECT_NEAR(s["changes"][0]["rel_change"].get<double>(), -0.2, 0.01);
  EXPECT_EQ(j["tests"][0]["series"][0], 0);
  EXPECT_EQ(j["latest"]["session_id"], "s11");
  EXPECT_EQ(j["latest"]["counts"]["failed"], 1);
  EXPECT_EQ(j["latest"]["failures"][0]["stage"], "sanity");
}

TEST(RenderReport, InlinesChartJsAndEscapesTheData) {
  std::string html = RenderReport(Input());
  EXPECT_EQ(html.find("/*HB_DATA*/"), std::string::npos);
  EXPECT_EQ(html.find("/*HB_CHARTJS*/"), std::string::npos);
  EXPECT_NE(html.find("Chart.js v3"), std::string::npos);
  // The data cannot close its <script> element early.
  size_t data = html.find("id=\"hb-data\">");
  ASSERT_NE(data, std::string::npos);
  size_t end = html.find("</script>", data);
  std::string json = html.substr(data + 13, end - data - 13);
  EXPECT_NE(json.find("T <\\/script>"), std::string::npos);
  EXPECT_NE(json.find("not found <\\/script><b>"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(json, nullptr, false).is_object());
}

}  // namespace
}  // namespace hb
