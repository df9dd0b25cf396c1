// End to end: real `hetbench run` sessions into a store, then `hetbench
// compare` and `hetbench report`, and the report opened in real headless
// Chromium (Debian's `chromium`): it loads without console errors, every
// chart draws, and a screenshot is kept as a test artefact
// (build/test-artifacts/report.png).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "../e2e/e2e_util.h"

namespace {

// A throughput that is 100 for the first runs and 80 after, a scaling test
// over `nodes`, a training-like case with a time breakdown, and a failure.
const char kTests[] = R"yaml(name: bw
descr: a throughput read from level.txt
tags: [rep]
executable: sh
executable_opts: ['-c', '"echo bw: $(cat {level}) GB/s"']
parameters:
  level: ['LEVEL']
sanity:
  - {pattern: 'bw: '}
performance:
  bw: {pattern: 'bw: (\S+)', unit: GB/s}
reference:
  '*': {bw: [100, -0.1, 0.1, GB/s]}
---
name: scale
descr: throughput over nodes
parameters:
  nodes: [1, 2, 4]
executable: sh
executable_opts: ['-c', '"echo thr: $((100 * {nodes} * 9 / 10 + 10))"']
sanity:
  - {pattern: 'thr: '}
performance:
  throughput: {pattern: 'thr: (\S+)', unit: samples/s, figure_of_merit: true}
---
name: train
descr: the per-step parts hetbench-train prints
executable: printf
executable_opts: ['"data_wait: 0.05 s\nforward: 0.2 s\nbackward: 0.4 s\nallreduce: 0.1 s\noptimizer: 0.02 s\n"']
sanity:
  - {pattern: 'optimizer'}
performance:
  data_wait: {pattern: 'data_wait: (\S+)', unit: s}
  forward: {pattern: 'forward: (\S+)', unit: s}
  backward: {pattern: 'backward: (\S+)', unit: s}
  allreduce: {pattern: 'allreduce: (\S+)', unit: s}
  optimizer: {pattern: 'optimizer: (\S+)', unit: s}
---
name: broken
descr: fails its sanity check
executable: echo
executable_opts: [nothing]
sanity:
  - {pattern: 'this text never appears'}
)yaml";

class ReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(e2e::TempDir());
    std::string tests = std::regex_replace(kTests, std::regex("LEVEL"), *dir_ + "/level.txt");
    e2e::Write(*dir_ + "/t.yaml", tests);
    // 6 runs at 100 GB/s, then 6 at 80, each with 2 repetitions.
    for (int i = 0; i < 12; ++i) {
      e2e::Write(*dir_ + "/level.txt", i < 6 ? (i % 2 ? "101\n" : "99\n") : (i % 2 ? "81\n" : "79\n"));
      Output o = Hetbench({"run", "-c", "t.yaml", "--repeat", "2", "--store", "r.db"}, *dir_);
      ASSERT_EQ(o.exit_code, 1) << o.out << o.err;  // `broken` fails
    }
  }
  static std::string* dir_;
};
std::string* ReportTest::dir_ = nullptr;

TEST_F(ReportTest, CompareFindsTheSlowdownAndGatesOnIt) {
  Output o = Hetbench({"compare", "runs:7-12", "last:6", "--store", "r.db", "-n", "^bw"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("-20.0%"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("worse"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("12/12"), std::string::npos) << o.out;  // 6 runs x 2 repetitions a side
  o = Hetbench({"compare", "runs:7-12", "last:6", "--store", "r.db", "--fail-on-regression", "5"}, *dir_);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("REGRESSION: bw"), std::string::npos) << o.out;
  o = Hetbench({"compare", "runs:7-12", "last:6", "--store", "r.db", "--fail-on-regression", "25"}, *dir_);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  // The same in JSON, for scripts.
  o = Hetbench({"compare", "runs:7-12", "last:6", "--store", "r.db", "-n", "^bw", "--json"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("\"schema\": \"hetbench-compare\""), std::string::npos);
  EXPECT_NE(o.out.find("\"verdict\": \"worse\""), std::string::npos) << o.out;
}

// issue 17, item 5: the change with its interval and each side's CV; a
// filter for changes; what the sample sizes cannot tell is said; untested
// series can fail the gate.
TEST_F(ReportTest, CompareGivesTheChangeWithItsIntervalAndSaysWhatItCannotTell) {
  Output o = Hetbench({"compare", "runs:7-12", "last:6", "--store", "r.db", "-n", "^bw", "--json"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["schema_version"], 2);
  ASSERT_EQ(j["rows"].size(), 1u);
  const nlohmann::json& row = j["rows"][0];
  // 99/101 against 79/81: every difference is -18, -20 or -22 GB/s of a
  // base median of 100.
  EXPECT_DOUBLE_EQ(row["shift_pct"].get<double>(), -20);
  EXPECT_GE(row["ci_low_pct"].get<double>(), -22);
  EXPECT_LE(row["ci_high_pct"].get<double>(), -18);
  // 36 of the 144 differences are -22 and 36 are -18: the interval's
  // ends, the 38th from each end (k = 38 for 12 and 12 values), are -20.
  EXPECT_DOUBLE_EQ(row["ci_low_pct"].get<double>(), -20);
  EXPECT_DOUBLE_EQ(row["ci_high_pct"].get<double>(), -20);
  EXPECT_NEAR(row["cv_base_pct"].get<double>(), 100 * std::sqrt(12.0 / 11) / 100, 1e-9);  // std of 6x99, 6x101
  EXPECT_EQ(j["summary"]["worse"], 1);

  o = Hetbench({"compare", "runs:7-12", "last:6", "--store", "r.db", "--changes-only"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("bw"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("not significant  "), std::string::npos) << o.out;  // no such row listed
  EXPECT_NE(o.out.find("CHANGE [95% CI]"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("changes shown"), std::string::npos) << o.out;

  // Last night against the 4 before: 2 values against 8, too few to test.
  o = Hetbench({"compare", "runs:2-5", "last:1", "--store", "r.db", "-n", "^bw"}, *dir_);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.err.find("hetbench: warning: 1 series was not tested: 8 base and 2 target values, fewer than "
                       "--min-samples 5"),
            std::string::npos)
      << o.err;
  o = Hetbench({"compare", "runs:2-5", "last:1", "--store", "r.db", "-n", "^bw", "--fail-on-untested"}, *dir_);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("UNTESTED: 1 series"), std::string::npos) << o.out;
  // An alpha no sample size here can reach.
  o = Hetbench(
      {"compare", "runs:2-3", "last:2", "--store", "r.db", "-n", "^bw", "--min-samples", "2", "--alpha", "0.001"},
      *dir_);
  EXPECT_NE(o.err.find("the smallest possible p is"), std::string::npos) << o.err;
  // A usage error has the common prefix.
  o = Hetbench({"compare", "last:5"}, *dir_);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_EQ(o.err.rfind("hetbench: error: ", 0), 0u) << o.err;
}

// issue 17, item 6: the change points on the command line.
TEST_F(ReportTest, ResultsChangesNamesTheSessionOfTheDrop) {
  Output o = Hetbench({"results", "changes", "--store", "r.db", "-n", "^bw", "--json"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["schema"], "hetbench-changes");
  ASSERT_EQ(j["changes"].size(), 1u) << o.out;
  const nlohmann::json& c = j["changes"][0];
  EXPECT_EQ(c["test"], "bw");
  EXPECT_EQ(c["variable"], "bw");
  EXPECT_EQ(c["index"], 6);  // the 7th session is the first at 80 GB/s
  EXPECT_EQ(c["verdict"], "regression");
  EXPECT_DOUBLE_EQ(c["before"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(c["after"].get<double>(), 80);
  EXPECT_DOUBLE_EQ(c["change_pct"].get<double>(), -20);
  // The session is the 7th of the store, oldest first.
  Output sessions = Hetbench({"results", "sessions", "--store", "r.db"}, *dir_);
  std::vector<std::string> ids;
  std::smatch m;
  std::string text = sessions.out;
  for (std::regex id(R"((\d{8}T\d{6}-\d+))"); std::regex_search(text, m, id); text = m.suffix()) ids.push_back(m[1]);
  ASSERT_GE(ids.size(), 7u) << sessions.out;
  EXPECT_EQ(c["session"], ids[6]);

  o = Hetbench({"results", "changes", "--store", "r.db", "--fail-on-regression", "5"}, *dir_);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("REGRESSION: bw %level="), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("change point"), std::string::npos) << o.out;
  o = Hetbench({"results", "changes", "--store", "r.db", "--fail-on-regression", "25"}, *dir_);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

TEST_F(ReportTest, CompareBadSelectionsAreExplained) {
  Output o = Hetbench({"compare", "last:0", "last:1", "--store", "r.db"}, *dir_);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("BASE: selection 'last:0'"), std::string::npos) << o.err;
  o = Hetbench({"compare", "nosuchsession", "last:1", "--store", "r.db"}, *dir_);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("no session 'nosuchsession'"), std::string::npos) << o.err;
  o = Hetbench({"compare", "last:2", "last:1", "--store", "r.db", "--aggregate", "avg"}, *dir_);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("unknown aggregate 'avg'"), std::string::npos) << o.err;
}

std::string Chromium(const std::string& args) {
  return e2e::Shell(
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
      "--hide-scrollbars --virtual-time-budget=10000 " +
      args + " 2>/dev/null");
}

TEST_F(ReportTest, ReportDrawsEveryChartInChromium) {
  Output o = Hetbench({"report", "--store", "r.db", "-o", "report.html", "--title", "Nightly <suite>"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::string html = e2e::Read(*dir_ + "/report.html");
  // Self-contained: no script or style is fetched from anywhere.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link "), std::string::npos);
  EXPECT_NE(html.find("Chart.js v3"), std::string::npos);
  // The data names the slowdown of `bw` as a change point at run 7.
  EXPECT_NE(html.find("\"kind\":\"regression\""), std::string::npos);
  EXPECT_NE(html.find("this text never appears"), std::string::npos);  // the failure's reason

  ASSERT_EQ(std::system("command -v chromium >/dev/null"), 0) << "chromium is not installed (scripts/deps installs it)";
  std::string url = "file://" + *dir_ + "/report.html#expand-all";
  std::string dom = Chromium("--window-size=1280,1600 --dump-dom '" + url + "'");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("<body[^>]*>"))) << dom.substr(0, 2000);
  std::string body = m.str();
  EXPECT_NE(body.find("data-ready=\"1\""), std::string::npos) << body;
  EXPECT_NE(body.find("data-errors=\"\""), std::string::npos) << body;
  std::smatch e, d;
  ASSERT_TRUE(std::regex_search(body, e, std::regex("data-charts-expected=\"(\\d+)\""))) << body;
  ASSERT_TRUE(std::regex_search(body, d, std::regex("data-charts-drawn=\"(\\d+)\""))) << body;
  // 1 history chart per series (bw, 3 x throughput, 5 parts, none for
  // broken) + the breakdown + 1 scaling curve.
  EXPECT_EQ(std::stoi(e[1]), 9 + 1 + 1) << body;
  EXPECT_EQ(e[1], d[1]) << body;
  EXPECT_NE(dom.find("Nightly &lt;suite&gt;"), std::string::npos);  // the title as text, not markup
  EXPECT_NE(dom.find("badge worse"), std::string::npos);            // the change point is listed
  EXPECT_NE(dom.find("Failures"), std::string::npos);
  // issue 17, item 3: the breakdown as shares of the step, in the page as
  // Chromium built it: data_wait 0.05 + forward 0.2 + backward 0.4 +
  // optimizer 0.02 + allreduce 0.1 = a step of 0.77 s, of which I/O is
  // 6.5 %, compute 80.5 %, wait 0 and communication 13.0 %.
  std::smatch row;
  ASSERT_TRUE(std::regex_search(dom, row, std::regex("<table id=\"breakdown-table\">.*?</table>")))
      << dom.substr(0, 3000);
  std::string bt = row.str();
  EXPECT_TRUE(std::regex_search(
      bt, std::regex("<td class=\"\">train</td>.*?<td class=\"num\">770 ms</td><td class=\"num\">6.5 %</td>"
                     "<td class=\"num\">0.0 %</td><td class=\"num\">80.5 %</td>"
                     "<td class=\"num\">0.0 %</td><td class=\"num\">13.0 %</td>")))
      << bt;
  // issue 17, item 4: the 12 values at 79/81 GB/s are outside bw's band
  // (100 GB/s -10 %/+10 %) and are drawn red; the 12 at 99/101 are not.
  std::smatch failing;
  ASSERT_TRUE(std::regex_search(dom, failing, std::regex("data-name=\"bw [^\"]* bw\"[^>]*data-failing=\"(\\d+)\"")))
      << dom.substr(0, 3000);
  EXPECT_EQ(failing[1], "12");
  // issue 17: the first screen (1280x800) holds the regression: the test's
  // case and its percentage; the breakdown and scaling follow it.
  std::string first = Chromium("--window-size=1280,800 --dump-dom 'file://" + *dir_ + "/report.html'");
  std::smatch seen;
  ASSERT_TRUE(std::regex_search(first, seen, std::regex("data-first-screen-changes=\"([^\"]*)\"")))
      << first.substr(0, 2000);
  EXPECT_NE(seen[1].str().find("bw %level="), std::string::npos) << seen[1];
  EXPECT_NE(seen[1].str().find("-20.0%"), std::string::npos) << seen[1];
  EXPECT_NE(seen[1].str().find("regression"), std::string::npos) << seen[1];
  size_t changes = first.find("id=\"changes\""), breakdown = first.find("id=\"breakdown\""),
         scaling = first.find("id=\"scaling\""), latest = first.find("id=\"references\"");
  EXPECT_LT(changes, breakdown);
  EXPECT_LT(breakdown, scaling);
  EXPECT_LT(scaling, latest);
  // The scaling card of `scale`: throughput 100, 190, 370 samples/s on 1,
  // 2 and 4 nodes, efficiency 95 % and 92.5 %; no badge above 50 %.
  std::smatch card;
  ASSERT_TRUE(std::regex_search(
      dom, card, std::regex("<div class=\"chart tall\" data-name=\"scaling scale nodes\"[^>]*>.*?</table>")))
      << dom.substr(0, 3000);
  std::string sc = card.str();
  EXPECT_NE(sc.find("data-variants=\"1\""), std::string::npos) << sc;
  EXPECT_NE(sc.find("data-min-efficiency=\"0.925\""), std::string::npos) << sc;
  EXPECT_NE(sc.find(">92.5%<"), std::string::npos) << sc;
  EXPECT_EQ(sc.find("badge worse"), std::string::npos) << sc;
  // Every bar has its label (the chart is told not to skip any).
  EXPECT_NE(dom.find("data-labels=\"train\""), std::string::npos) << dom.substr(0, 3000);

  std::string artefacts = std::string(HB_BINARY_DIR) + "/test-artifacts";
  e2e::Shell("mkdir -p " + artefacts);
  std::string shot = artefacts + "/report.png";
  std::remove(shot.c_str());
  Chromium("--window-size=1280,3200 --screenshot=" + shot + " '" + url + "'");
  ASSERT_TRUE(e2e::Exists(shot));
  EXPECT_GT(e2e::Read(shot).size(), 20000u);  // a real page, not a blank image
}

// issue 17, item 4: the selection applies to every section, the summary
// cards included, and "Latest results" lists every series of it with its
// last value, its band, its verdict and a trend line.
TEST_F(ReportTest, TheSelectionAppliesToEverySection) {
  Output o = Hetbench({"report", "--store", "r.db", "-n", "^bw", "-o", "bw.html"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::string dom = Chromium("--window-size=1280,1600 --dump-dom 'file://" + *dir_ + "/bw.html'");
  EXPECT_NE(dom.find("data-errors=\"\""), std::string::npos) << dom.substr(0, 2000);
  // The latest session has 12 cases (6 tests' cases, 2 repetitions); 2 are bw's.
  EXPECT_NE(dom.find("The counts are of the 2 of its 12 cases in this selection."), std::string::npos)
      << dom.substr(0, 4000);
  EXPECT_TRUE(std::regex_search(dom, std::regex("<div class=\"n \">2</div><div class=\"l\">total</div>")))
      << dom.substr(0, 4000);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("<table id=\"latest-table\">.*?</table>"))) << dom.substr(0, 4000);
  std::string latest = m.str();
  // One series, bw: its last value (79 or 81) is below the band 90-110.
  const std::regex tr("<tr>");
  auto rows = std::distance(std::sregex_iterator(latest.begin(), latest.end(), tr), std::sregex_iterator());
  EXPECT_EQ(rows, 2) << "the header and bw's row: " << latest;
  EXPECT_TRUE(std::regex_search(latest, std::regex("<td class=\"\">bw</td><td class=\"num\">(79|81) GB/s</td>"
                                                   "<td class=\"num\">12</td><td class=\"num\">90 \u2013 110</td>"
                                                   "<td><span class=\"fail\">fail</span></td><td><svg")))
      << latest;
  EXPECT_NE(latest.find("<circle"), std::string::npos) << "the failing values are red dots on the trend";
  EXPECT_EQ(latest.find("throughput"), std::string::npos) << "other tests are not in the selection";
}

TEST_F(ReportTest, ReportOfOneSessionAndBadOptions) {
  std::string sessions = e2e::Shell("sqlite3 " + *dir_ + "/r.db 'SELECT session_id FROM sessions ORDER BY start_time'");
  std::string third = sessions.substr(0, sessions.find('\n'));
  Output o = Hetbench({"report", "--store", "r.db", "--session", third, "-o", "one.html"}, *dir_);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("(1 sessions"), std::string::npos) << o.out;  // the first session has no history
  o = Hetbench({"report", "--store", "missing.db", "-o", "x.html"}, *dir_);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_FALSE(e2e::Exists(*dir_ + "/x.html"));
  o = Hetbench({"report", "--store", "r.db", "-o", "/nonexistent/dir/x.html"}, *dir_);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("/nonexistent/dir/x.html"), std::string::npos) << o.err;
}

}  // namespace
