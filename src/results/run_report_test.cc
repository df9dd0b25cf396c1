#include "results/run_report.h"

#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

SessionInfo Session() {
  SessionInfo s;
  s.session_id = "20240221T225116-ab12";
  s.version = "0.1.0";
  s.hostname = "login1";
  s.user = "alice";
  s.argv = {"hetbench", "run", "-c", "tests/"};
  s.system = "hpc";
  s.prefix = "/scratch/hb";
  s.config_files = {"site.yaml"};
  s.start_time = 1708555876.25;
  s.end_time = 1708555999.5;
  s.exit_code = 1;
  return s;
}

CaseResult FullCase() {
  CaseResult c;
  c.id = "stream%threads=2@hpc:gpu+gnu";
  c.name = "stream";
  c.display_name = "stream %threads=2";
  c.unique_name = "stream_1";
  c.descr = "STREAM \"triad\"\n";
  c.file = "/t/stream.yaml";
  c.parameters = {{"threads", "2"}, {"a", "x"}};  // file order, not sorted
  c.tags = {"memory", "quick"};
  c.maintainers = {"bob"};
  c.system = "hpc";
  c.partition = "gpu";
  c.environ = "gnu";
  c.result = "fail";
  c.fail_stage = "performance";
  c.fail_reason = "triad 10 MB/s is 50% below reference 20 (allowed -10%)";
  c.repetition = 2;
  c.attempt = 1;
  c.start_time = 1708555877.125;
  c.end_time = 1708555880.0000002;
  c.timings = {{"setup", 0.01}, {"run", 2.5}};
  c.job_id = "4242";
  c.job_state = "completed";
  c.exit_code = 0;
  c.nodelist = {"n1", "n2"};
  c.job_submit_time = 1708555877.5;
  c.job_completion_time = 1708555879.75;
  c.env_vars = {{"OMP_NUM_THREADS", "2"}};
  c.modules = {"gcc"};
  c.extra_resources = {{"gpu", {{"count", "2"}}}};
  c.exclusive_access = true;
  c.num_tasks = 4;
  c.num_tasks_per_node = 2;
  c.num_cpus_per_task = 8;
  c.num_gpus_per_node = 1;
  c.stagedir = "/s/stage";
  c.outputdir = "/s/out";
  PerfResult p;
  p.name = "triad";
  p.value = 10;
  p.unit = "MB/s";
  Reference r;
  r.value = 20;
  r.lower = -0.1;
  r.unit = "MB/s";
  p.reference = r;
  p.verdict = "fail";
  p.message = c.fail_reason;
  PerfResult q;
  q.name = "copy";
  q.value = 0.1 + 0.2;
  c.perf = {p, q};
  return c;
}

TEST(RunReport, TopLevelShape) {
  CaseResult skipped;
  skipped.result = "skip";
  CaseResult passed;
  nlohmann::json doc = nlohmann::json::parse(RunReportToJson(Session(), {FullCase(), skipped, passed}));
  EXPECT_EQ(doc["schema"], "hetbench-run-report");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["session"]["hostname"], "login1");
  EXPECT_EQ(
      doc["summary"],
      nlohmann::json::parse(R"({"total": 3, "passed": 1, "failed": 1, "skipped": 1, "cancelled": 0, "dry_run": 0})"));
  const auto& c = doc["cases"][0];
  EXPECT_EQ(c["job"]["exit_code"], 0);
  EXPECT_EQ(c["perf"][0]["reference"]["upper"], nullptr);
  EXPECT_EQ(c["perf"][1]["reference"], nullptr);
  EXPECT_EQ(c["parameters"]["threads"], "2");
}

TEST(RunReport, RoundTrip) {
  TempDir dir;
  std::string path = dir.path() + "/report.json";
  ASSERT_TRUE(WriteRunReport(path, Session(), {FullCase(), CaseResult()}).ok());
  Result<LoadedReport> r = ReadRunReport(path);
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->schema_version, 1);
  // Writing what was read gives the same text: nothing lost, nothing reordered.
  EXPECT_EQ(RunReportToJson(r->session, r->cases), *ReadFile(path));
  const CaseResult& c = r->cases[0];
  EXPECT_EQ(c.parameters, (std::vector<std::pair<std::string, std::string>>{{"threads", "2"}, {"a", "x"}}));
  EXPECT_EQ(c.end_time, 1708555880.0000002);
  EXPECT_EQ(c.perf[1].value, 0.1 + 0.2);
  EXPECT_EQ(c.perf[0].reference->lower, -0.1);
  EXPECT_FALSE(c.perf[0].reference->upper);
  EXPECT_FALSE(c.perf[1].reference);
  EXPECT_EQ(c.extra_resources.at("gpu").at("count"), "2");
  EXPECT_EQ(r->session.argv, Session().argv);
}

TEST(RunReport, NonFiniteNumbersBecomeNull) {
  CaseResult c;
  PerfResult p;
  p.name = "x";
  p.value = std::nan("");
  c.perf = {p};
  Result<LoadedReport> r = ParseRunReport(RunReportToJson(Session(), {c}), "r.json");
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_TRUE(std::isnan(r->cases[0].perf[0].value));
}

// issue 16, item 1: bytes that are not UTF-8 (a job's Latin-1 stderr in
// the failure reason, a perf variable named in ISO-8859-1) do not lose the
// session: they are written as U+FFFD and the case says where.
TEST(RunReport, BytesThatAreNotUtf8BecomeReplacementCharactersAndAreRecorded) {
  CaseResult c;
  c.result = "fail";
  c.fail_reason =
      "exit code 1 (stderr: Gr\xFC\xDF"
      "e)";
  c.parameters = {{"city", "M\xFCnchen"}};
  PerfResult p;
  p.name = "\xB5s";
  c.perf = {p};
  CaseResult clean;
  clean.fail_reason = "caf\xC3\xA9 \xEF\xBF\xBD";  // valid UTF-8, a U+FFFD of its own included
  SessionInfo s = Session();
  s.argv.push_back("-n\xFF");
  std::string text = RunReportToJson(s, {c, clean});
  nlohmann::json doc = nlohmann::json::parse(text);  // strict: throws on invalid UTF-8
  const auto& j = doc["cases"][0];
  EXPECT_EQ(j["fail_reason"], "exit code 1 (stderr: Gr\uFFFD\uFFFDe)");
  EXPECT_EQ(j["parameters"]["city"], "M\uFFFDnchen");
  EXPECT_EQ(j["utf8_replaced"], nlohmann::json::parse(R"(["/parameters/city", "/fail_reason", "/perf/0/name"])"));
  EXPECT_FALSE(doc["cases"][1].contains("utf8_replaced"));
  EXPECT_EQ(doc["cases"][1]["fail_reason"], "caf\u00E9 \uFFFD");
  EXPECT_EQ(doc["session"]["utf8_replaced"], nlohmann::json::parse(R"(["/argv/4"])"));
  // Overlong forms and surrogates are not UTF-8 either.
  bool replaced = false;
  EXPECT_EQ(ValidUtf8("\xC0\x80|\xED\xA0\x80", &replaced), "\uFFFD\uFFFD|\uFFFD\uFFFD\uFFFD");
  EXPECT_TRUE(replaced);
}

TEST(RunReport, RefusesNewerVersions) {
  std::string text = R"({"schema": "hetbench-run-report", "schema_version": 2, "cases": []})";
  EXPECT_EQ(ParseRunReport(text, "report.json").status().message(),
            "report.json: schema_version 2 is newer than this hetbench reads (1); upgrade hetbench");
}

TEST(RunReport, RefusesWhatIsNotARunReport) {
  EXPECT_EQ(ParseRunReport(R"({"session_info": {}})", "r.json").status().message(),
            "r.json: not a hetbench run report (no \"schema\" field)");
  EXPECT_EQ(ParseRunReport(R"({"schema": "reframe", "schema_version": 1})", "r.json").status().message(),
            "r.json: not a hetbench run report (schema is 'reframe')");
  EXPECT_EQ(ParseRunReport(R"([1])", "r.json").status().message(),
            "r.json: not a hetbench run report (not a JSON object)");
  EXPECT_EQ(ParseRunReport(R"({"schema": "hetbench-run-report"})", "r.json").status().message(),
            "r.json: schema_version is missing or not an integer");
  std::string bad = ParseRunReport("{\"schema\": ", "r.json").status().message();
  EXPECT_EQ(bad.rfind("r.json: not valid JSON: parse error at line 1, column 12", 0), 0u) << bad;
  std::string wrong = R"({"schema": "hetbench-run-report", "schema_version": 1, "cases": [{}, {"name": 3}]})";
  EXPECT_EQ(ParseRunReport(wrong, "r.json").status().message(),
            "r.json: cases[1]: name: expected a string, got a number");
  EXPECT_FALSE(ReadRunReport("/nonexistent/report.json").ok());
}

}  // namespace
}  // namespace hb
