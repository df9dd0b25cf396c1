#include "results/httpjson.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "net/test_http_server.h"
#include "util/fs.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

using Json = nlohmann::ordered_json;

SessionInfo Session() {
  SessionInfo s;
  s.version = "0.1.0";
  s.hostname = "login1";
  s.user = "alice";
  return s;
}

CaseResult StreamCase() {
  CaseResult c;
  c.name = "stream";
  c.display_name = "stream %threads=2";
  c.parameters = {{"threads", "2"}};
  c.system = "hpc";
  c.partition = "gpu";
  c.environ = "gnu";
  c.tags = {"memory", "quick"};
  c.job_id = "4242";
  c.exit_code = 0;
  c.end_time = 1708555876.5;
  Reference ref;
  ref.value = 1000;
  ref.lower = -0.05;
  c.perf = {{"triad", 21116.7, "MB/s", ref, "pass", ""}, {"copy rate", 5.5, "GB/s", std::nullopt, "none", ""}};
  return c;
}

TEST(HttpJson, RecordHasReframesFieldsAndTypes) {
  Json r = HttpJsonRecord(Session(), StreamCase(), Json::object(), {});
  EXPECT_EQ(r["check_name"], "stream %threads=2");
  EXPECT_EQ(r["check_system"], "hpc");
  EXPECT_EQ(r["check_partition"], "gpu");
  EXPECT_EQ(r["check_environ"], "gnu");
  EXPECT_EQ(r["check_result"], "pass");
  EXPECT_EQ(r["check_jobid"], "4242");
  EXPECT_EQ(r["check_job_exitcode"], 0);
  EXPECT_EQ(r["check_tags"], Json({"memory", "quick"}));
  EXPECT_EQ(r["check_threads"], "2");
  EXPECT_EQ(r["check_num_tasks"], 1);
  EXPECT_TRUE(r["check_num_gpus_per_node"].is_null());
  EXPECT_EQ(r["check_job_completion_time_unix"], 1708555876.5);
  EXPECT_EQ(r["osuser"], "alice");
  EXPECT_EQ(r["hostname"], "login1");
  EXPECT_EQ(r["version"], "0.1.0");
  // The per-variable fields are null; each variable is flattened.
  EXPECT_TRUE(r.contains("check_perf_value") && r["check_perf_value"].is_null());
  EXPECT_EQ(r["check_perf_triad_value"], 21116.7);
  EXPECT_EQ(r["check_perf_triad_ref"], 1000.0);
  EXPECT_EQ(r["check_perf_triad_lower_thres"], -0.05);
  EXPECT_TRUE(r["check_perf_triad_upper_thres"].is_null());
  EXPECT_EQ(r["check_perf_triad_unit"], "MB/s");
  EXPECT_EQ(r["check_perf_triad_result"], "pass");
  EXPECT_EQ(r["check_perf_copy_rate_value"], 5.5) << "non-word characters become '_'";
  EXPECT_EQ(r["check_perf_copy_rate_ref"], 0);
  EXPECT_FALSE(r.contains("check_perfvalues"));
  EXPECT_FALSE(r.contains("message"));
}

TEST(HttpJson, ExtrasWinAndIgnoreKeysDrop) {
  Json extras = {{"facility", "reframe"}, {"data-version", "1.0"}, {"check_system", "renamed"}, {"_private", 1}};
  Json r = HttpJsonRecord(Session(), StreamCase(), extras, {"check_tags", "check_perfvalues", "facility"});
  EXPECT_EQ(r["data-version"], "1.0");
  EXPECT_EQ(r["check_system"], "renamed");
  EXPECT_FALSE(r.contains("facility"));
  EXPECT_FALSE(r.contains("_private"));
  EXPECT_FALSE(r.contains("check_tags"));
  EXPECT_FALSE(r.contains("check_perf_triad_value")) << "ignoring check_perfvalues drops the flattened values";
}

HttpJsonConfig Config(const std::string& url) {
  HttpJsonConfig cfg;
  cfg.url = url;
  cfg.extra_headers = {"Authorization: Token T"};
  cfg.retry.first_backoff_s = 0.01;
  return cfg;
}

std::unique_ptr<HttpTransport> Curl() { return std::move(MakeCurlTransport().value()); }

TEST(HttpJson, PostsEachRecordRetryingA503) {
  TestHttpServer server({503});
  HttpJsonHandler h(Config(server.url("/rfm")), Curl());
  h.Log(Session(), StreamCase());
  h.Finish(10);
  EXPECT_TRUE(h.TakeWarnings().empty());
  EXPECT_EQ(h.delivered(), 1);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].body, reqs[1].body);
  EXPECT_NE(reqs[1].head.find("Content-type: application/json"), std::string::npos);
  EXPECT_NE(reqs[1].head.find("Authorization: Token T"), std::string::npos);
  auto body = nlohmann::json::parse(reqs[1].body);
  EXPECT_EQ(body["check_perf_triad_value"], 21116.7);
  EXPECT_EQ(body["check_name"], "stream %threads=2");
}

TEST(HttpJson, ServerDownIsOneWarningAndTheRestIsNotSent) {
  HttpJsonConfig cfg = Config("http://127.0.0.1:9/rfm");  // discard port: nobody listens
  cfg.retry.max_attempts = 2;
  HttpJsonHandler h(cfg, Curl());
  for (int i = 0; i < 3; ++i) h.Log(Session(), StreamCase());
  h.Finish(10);
  auto w = h.TakeWarnings();
  ASSERT_EQ(w.size(), 2u) << ::testing::PrintToString(w);
  EXPECT_NE(w[0].find("to http://127.0.0.1:9/rfm: connection failed: Couldn't connect"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("(2 attempts)"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("3 of 3 performance records were not delivered"), std::string::npos) << w[1];
}

TEST(HttpJson, FinishIsBoundedWhenTheServerKeepsFailing) {
  TestHttpServer server({503, 503, 503, 503, 503, 503, 503, 503});
  HttpJsonConfig cfg = Config(server.url());
  cfg.retry.first_backoff_s = 5;
  HttpJsonHandler h(cfg, Curl());
  h.Log(Session(), StreamCase());
  auto start = std::chrono::steady_clock::now();
  h.Finish(0.5);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 3.0);
  auto w = h.TakeWarnings();
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w.back().find("1 of 1 performance records were not delivered"), std::string::npos);
}

TEST(HttpJson, DebugWritesRecordsInsteadOfSending) {
  TempDir dir;
  HttpJsonConfig cfg = Config("http://127.0.0.1:9/rfm");
  cfg.debug = true;
  cfg.debug_dir = dir.path();
  HttpJsonHandler h(cfg, Curl());
  h.Log(Session(), StreamCase());
  h.Log(Session(), StreamCase());
  h.Finish(1);
  EXPECT_TRUE(h.TakeWarnings().empty());
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) files.push_back(e.path().filename());
  ASSERT_EQ(files.size(), 2u);
  for (const auto& f : files) {
    EXPECT_EQ(f.rfind("httpjson_record_", 0), 0u) << f;
    auto text = ReadFile(JoinPath(dir.path(), f));
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(nlohmann::json::parse(*text)["check_system"], "hpc");
  }
}

}  // namespace
}  // namespace hb
