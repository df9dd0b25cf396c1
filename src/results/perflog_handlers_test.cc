#include "results/perflog_handlers.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>

#include <map>

#include "config/config_loader.h"
#include "net/test_http_server.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

using Json = nlohmann::json;

std::string CreateError(const Json& handlers, const PerflogHandlerOptions& opts = {}) {
  auto h = PerflogHandlers::Create(Json{{"handlers_perflog", handlers}}, opts);
  return h.ok() ? "" : h.status().str();
}

// The handler list of ExCALIBUR's ReFrame configuration, as it is there
// (ukri-excalibur/excalibur-tests, benchmarks/reframe_config.py, commit
// 8f763d5), written as JSON.
const char* kExcaliburPerflogHandlers = R"([{
  "type": "filelog",
  "prefix": "%(check_system)s/%(check_partition)s",
  "level": "info",
  "format": "%(check_job_completion_time)s|reframe %(version)s|%(check_info)s|%(check_jobid)s|%(check_num_tasks)s|%(check_num_cpus_per_task)s|%(check_num_tasks_per_node)s|%(check_num_gpus_per_node)s|%(check_perfvalues)s|%(check_spack_spec)s|%(check_display_name)s|%(check_system)s|%(check_partition)s|%(check_job_nodelist)s|%(check_environ)s|%(check_extra_resources)s|%(check_env_vars)s|%(check_spack_spec_dict)s|%(check_tags)s",
  "format_perfvars": "%(check_perf_value)s|%(check_perf_unit)s|%(check_perf_ref)s|%(check_perf_lower_thres)s|%(check_perf_upper_thres)s|",
  "append": true
}])";

// A perflog read as ReFrame documents its layout (docs/config_reference.rst,
// logging.handlers_perflog.format and format_perfvars): the first line
// names the fields, every other line is one record, the fields of both
// separated by the format's delimiter. Written for this test, from that
// text alone.
struct Perflog {
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
};

Perflog ParsePerflog(const std::string& text, char delim) {
  Perflog log;
  std::vector<std::string> lines = Split(text, '\n');
  if (lines.empty()) return log;
  log.columns = Split(lines[0], delim);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    std::vector<std::string> fields = Split(lines[i], delim);
    EXPECT_EQ(fields.size(), log.columns.size()) << "line " << i + 1 << ": " << lines[i];
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < fields.size() && k < log.columns.size(); ++k) row[log.columns[k]] = fields[k];
    log.rows.push_back(row);
  }
  return log;
}

// ReFrame's display_name (pipeline.py): the class name, then ' %NAME=VALUE'
// for each parameter; a value runs up to the next ' %'.
std::pair<std::string, std::map<std::string, std::string>> ParseDisplayName(const std::string& dn) {
  std::map<std::string, std::string> params;
  size_t at = dn.find(" %");
  std::string name = dn.substr(0, at);
  while (at != std::string::npos) {
    size_t next = dn.find(" %", at + 2);
    std::string p = dn.substr(at + 2, next == std::string::npos ? std::string::npos : next - at - 2);
    size_t eq = p.find('=');
    params[p.substr(0, eq)] = eq == std::string::npos ? "" : p.substr(eq + 1);
    at = next;
  }
  return {name, params};
}

class PerflogHandlersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = getenv("TZ");
    had_tz_ = tz != nullptr;
    saved_tz_ = tz ? tz : "";
    setenv("TZ", "UTC", 1);
    tzset();
    opts_.prefix = dir_.path();
    session_.version = "0.1.0";
    session_.hostname = "login1";
    session_.user = "alice";
  }
  void TearDown() override {
    if (had_tz_)
      setenv("TZ", saved_tz_.c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }
  std::unique_ptr<PerflogHandlers> Create(const Json& logging) {
    auto h = PerflogHandlers::Create(logging, opts_);
    EXPECT_TRUE(h.ok()) << h.status().str();
    return h.ok() ? std::move(h.value()) : nullptr;
  }

  TempDir dir_;
  PerflogHandlerOptions opts_;
  SessionInfo session_;
  bool had_tz_ = false;
  std::string saved_tz_;
};

// ExCALIBUR's STREAM benchmark on ARCHER2, with its Spack spec (spaces and
// '=') as a parameter, so that it is in the display name too.
CaseResult StreamCase(const std::string& spec, double copy) {
  CaseResult c;
  c.name = "StreamBenchmark";
  c.display_name = "StreamBenchmark %spack_spec=" + spec;
  c.parameters = {{"spack_spec", spec}};
  c.variables = {{"spack_spec_dict", R"({"stream": {"compiler": {"name": "gcc", "version": "11.2.0"}}})"}};
  c.system = "archer2";
  c.partition = "compute";
  c.environ = "PrgEnv-gnu";
  c.job_id = "4242";
  c.exit_code = 0;
  c.nodelist = {"nid001", "nid002"};
  c.num_cpus_per_task = 128;
  c.env_vars = {{"OMP_NUM_THREADS", "128"}, {"OMP_PLACES", "cores"}};
  c.tags = {"performance", "stream"};
  c.job_completion_time = 1708555876;  // 2024-02-21T22:51:16Z
  Reference copy_ref{260000, -0.25, 0.25, "MB/s", {}};
  Reference triad_ref{200000, -0.25, 0.25, "MB/s", {}};
  c.perf = {{"Copy", copy, "MB/s", copy_ref, "pass", ""}, {"Triad", 200001.5, "MB/s", triad_ref, "pass", ""}};
  return c;
}

TEST_F(PerflogHandlersTest, ExcaliburFormatReadByAnIndependentParser) {
  auto h = Create(Json{{"handlers_perflog", Json::parse(kExcaliburPerflogHandlers)}});
  ASSERT_TRUE(h);
  const std::string small = "stream@5.10 +openmp stream_array_size=64000000";
  const std::string large = "stream@5.10 +openmp stream_array_size=128000000";
  h->Log(session_, StreamCase(small, 260123.4));
  h->Log(session_, StreamCase(large, 250000.25));
  EXPECT_TRUE(h->TakeWarnings().empty());
  auto text = ReadFile(dir_ / "perflogs/archer2/compute/StreamBenchmark.log");
  ASSERT_TRUE(text.ok()) << text.status().str();
  Perflog log = ParsePerflog(*text, '|');
  // ReFrame names a column by its attribute less "check_", with the text up
  // to the next placeholder; each performance variable gives
  // <name>_value ... <name>_upper_thres.
  EXPECT_EQ(Join(log.columns, "|"),
            "job_completion_time|reframe version|info|jobid|num_tasks|num_cpus_per_task|num_tasks_per_node|"
            "num_gpus_per_node|Copy_value|Copy_unit|Copy_ref|Copy_lower_thres|Copy_upper_thres|Triad_value|"
            "Triad_unit|Triad_ref|Triad_lower_thres|Triad_upper_thres|spack_spec|display_name|system|partition|"
            "job_nodelist|environ|extra_resources|env_vars|spack_spec_dict|tags");
  ASSERT_EQ(log.rows.size(), 2u) << *text;
  const std::vector<std::pair<std::string, double>> want = {{small, 260123.4}, {large, 250000.25}};
  for (size_t i = 0; i < 2; ++i) {
    auto& row = log.rows[i];
    auto [name, params] = ParseDisplayName(row["display_name"]);
    EXPECT_EQ(name, "StreamBenchmark");
    EXPECT_EQ(params, (std::map<std::string, std::string>{{"spack_spec", want[i].first}}));
    EXPECT_EQ(row["spack_spec"], want[i].first);
    EXPECT_EQ(row["job_completion_time"], "2024-02-21T22:51:16");
    EXPECT_EQ(row["reframe version"], "reframe 0.1.0");
    EXPECT_EQ(row["info"].rfind(row["display_name"] + " /", 0), 0u) << row["info"];
    EXPECT_TRUE(EndsWith(row["info"], " @archer2:compute+PrgEnv-gnu")) << row["info"];
    EXPECT_EQ(row["jobid"], "4242");
    EXPECT_EQ(row["num_tasks"], "1");
    EXPECT_EQ(row["num_cpus_per_task"], "128");
    EXPECT_EQ(row["num_tasks_per_node"], "null");
    EXPECT_EQ(std::stod(row["Copy_value"]), want[i].second);
    EXPECT_EQ(row["Copy_unit"], "MB/s");
    EXPECT_EQ(row["Copy_ref"], "260000");
    EXPECT_EQ(row["Copy_lower_thres"], "-0.25");
    EXPECT_EQ(row["Copy_upper_thres"], "0.25");
    EXPECT_EQ(std::stod(row["Triad_value"]), 200001.5);
    EXPECT_EQ(row["system"], "archer2");
    EXPECT_EQ(row["partition"], "compute");
    EXPECT_EQ(row["environ"], "PrgEnv-gnu");
    EXPECT_EQ(row["job_nodelist"], "nid001,nid002");
    EXPECT_EQ(row["tags"], "performance,stream");
    // The columns ExCALIBUR's post-processing reads as JSON.
    EXPECT_EQ(Json::parse(row["extra_resources"]), Json::object());
    EXPECT_EQ(Json::parse(row["env_vars"]), (Json{{"OMP_NUM_THREADS", "128"}, {"OMP_PLACES", "cores"}}));
    EXPECT_EQ(Json::parse(row["spack_spec_dict"])["stream"]["compiler"]["version"], "11.2.0");
  }
}

TEST_F(PerflogHandlersTest, PerflogCompatWritesOneLinePerVariable) {
  // ReFrame's own test of this (unittests/test_perflogging.py,
  // test_perf_logging_multiline): its format, its test (perf0 = 100.0 and
  // perf1 = 50.0 against (100, -0.05, 0.05)) and the lines it expects.
  Json logging = {{"perflog_compat", true},
                  {"handlers_perflog",
                   {{{"type", "filelog"},
                     {"prefix", "%(check_system)s/%(check_partition)s"},
                     {"level", "info"},
                     {"format",
                      "%(check_job_completion_time)s|reframe %(version)s|%(check_name)s|"
                      "%(check_perf_var)s=%(check_perf_value)s|ref=%(check_perf_ref)s (l=%(check_perf_lower_thres)s, "
                      "u=%(check_perf_upper_thres)s)|%(check_perf_unit)s|%(check_perf_result)s"}}}}};
  auto h = Create(logging);
  ASSERT_TRUE(h);
  CaseResult c;
  c.name = "_MyPerfTest";
  c.system = "generic";
  c.partition = "default";
  c.environ = "builtin";
  c.job_completion_time = 1708555876;
  Reference ref{100, -0.05, 0.05, "", {}};
  c.perf = {{"perf0", 100.0, "unit0", ref, "pass", ""}, {"perf1", 50.0, "unit1", ref, "fail", "below"}};
  c.result = "fail";
  c.fail_stage = "performance";
  h->Log(session_, c);
  auto text = ReadFile(dir_ / "perflogs/generic/default/_MyPerfTest.log");
  ASSERT_TRUE(text.ok()) << text.status().str();
  EXPECT_EQ(*text,
            "job_completion_time|reframe version|name|perf_var=perf_value|ref=perf_ref "
            "(l=perf_lower_thres, u=perf_upper_thres)|perf_unit|perf_result\n"
            "2024-02-21T22:51:16|reframe 0.1.0|_MyPerfTest|perf0=100.0|ref=100 (l=-0.05, u=0.05)|unit0|pass\n"
            "2024-02-21T22:51:16|reframe 0.1.0|_MyPerfTest|perf1=50.0|ref=100 (l=-0.05, u=0.05)|unit1|fail\n");
}

TEST_F(PerflogHandlersTest, EveryFilelogHandlerWritesWithItsOwnSettings) {
  setenv("HB_TEST_PERFLOGS", (dir_ / "from-env").c_str(), 1);
  Json logging = {{"handlers_perflog",
                   {{{"type", "filelog"}, {"prefix", "%(check_system)s"}, {"format", "%(check_result)s"}},
                    {{"type", "filelog"},
                     {"basedir", "$HB_TEST_PERFLOGS"},
                     {"prefix", "%(check_environ)s-%(check_num_tasks)s"},
                     {"format", "%(check_name)s,%(check_perfvalues)s"},
                     {"format_perfvars", "%(check_perf_var)s=%(check_perf_value)s;"}},
                    {{"type", "filelog"}, {"prefix", "quiet"}, {"level", "warning"}}}}};
  auto h = Create(logging);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->size(), 2u) << "the warning-level handler receives nothing";
  EXPECT_EQ(h->FilelogDirs(), (std::vector<std::string>{dir_ / "perflogs", dir_ / "from-env"}));
  CaseResult c;
  c.name = "t";
  c.system = "box";
  c.partition = "p";
  c.environ = "gnu";
  c.num_tasks = 4;
  c.perf = {{"a", 1.5, "s", std::nullopt, "none", ""}, {"b", 2.0, "s", std::nullopt, "none", ""}};
  h->Log(session_, c);
  EXPECT_TRUE(h->TakeWarnings().empty());
  EXPECT_EQ(*ReadFile(dir_ / "perflogs/box/t.log"), "result\npass\n");
  // The header of format_perfvars: each name with check_perf replaced by the
  // variable's (logging.py __generate_header): check_perf_var -> a_var.
  EXPECT_EQ(*ReadFile(dir_ / "from-env/gnu-4/t.log"), "name,a_var=a_value;b_var=b_value\nt,a=1.5;b=2.0\n");
  EXPECT_FALSE(PathExists(dir_ / "perflogs/quiet"));
  unsetenv("HB_TEST_PERFLOGS");

  // --perflog-dir replaces every handler's basedir.
  opts_.basedir = dir_ / "flag";
  h = Create(logging);
  ASSERT_TRUE(h);
  h->Log(session_, c);
  EXPECT_EQ(*ReadFile(dir_ / "flag/box/t.log"), "result\npass\n");
  EXPECT_EQ(*ReadFile(dir_ / "flag/gnu-4/t.log"), "name,a_var=a_value;b_var=b_value\nt,a=1.5;b=2.0\n");
}

TEST_F(PerflogHandlersTest, LevelAboveInfoGetsNoRecords) {
  CaseResult c;
  c.name = "t";
  c.system = "box";
  c.partition = "p";
  c.perf = {{"x", 1.5, "s", std::nullopt, "none", ""}};
  auto h = Create(Json{{"handlers_perflog", {{{"type", "filelog"}, {"prefix", "x"}, {"level", "warning"}}}}});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->size(), 0u);
  h->Log(session_, c);
  // The logger's own level filters too, and then no builtin handler stands in.
  h = Create(Json{{"level", "error"}, {"handlers_perflog", Json::array()}});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->size(), 0u);
  h->Log(session_, c);
  EXPECT_FALSE(PathExists(dir_ / "perflogs"));
  EXPECT_FALSE(PathExists(dir_ / "x"));
  // With no filelog handler listed, hetbench writes ReFrame's builtin one.
  h = Create(Json{{"handlers_perflog", Json::array()}});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->FilelogDirs(), std::vector<std::string>{dir_ / "perflogs"});
  h->Log(session_, c);
  EXPECT_TRUE(PathExists(dir_ / "perflogs/box/p/t.log"));
}

TEST(PerflogHandlers, BadSettingsAreErrorsNamingTheHandlerAndKey) {
  EXPECT_EQ(CreateError(Json::array({{{"type", "httpjson"}, {"url", "ftp://h:1/"}}})),
            "logging: handlers_perflog[0] (httpjson): url: invalid url scheme: use 'http' or 'https' ('ftp://h:1/')");
  EXPECT_NE(CreateError(Json::array({{{"type", "httpjson"}, {"url", "http://elastic/idx"}}})).find("no port given"),
            std::string::npos);
  EXPECT_NE(CreateError(Json::array({{{"type", "httpjson"}}})).find("'url' is required"), std::string::npos);
  // issue 16, item 5: wrongly typed values are messages, not exceptions.
  auto typed = PerflogHandlers::Create(Json{{"perflog_multiline", "yes"}, {"handlers_perflog", Json::array()}}, {});
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.status().str(), "logging: perflog_multiline: expected true or false, got \"yes\"");
  std::string five = CreateError(Json::array({{{"type", 5}}}));
  EXPECT_NE(five.find("handlers_perflog[0]"), std::string::npos) << five;
  // issue 16, item 13: no header injection through extra_headers.
  EXPECT_EQ(
      CreateError(Json::array(
          {{{"type", "httpjson"}, {"url", "http://h:1/"}, {"extra_headers", {{"X-Token", "a\r\nX-Admin: yes"}}}}})),
      "logging: handlers_perflog[0] (httpjson): extra_headers: 'X-Token': a header value must not contain a "
      "line break (CR or LF) or NUL");
  EXPECT_NE(
      CreateError(Json::array({{{"type", "httpjson"}, {"url", "http://h:1/"}, {"extra_headers", {{"Bad Name", "x"}}}}}))
          .find("a header name is letters"),
      std::string::npos);
  EXPECT_NE(CreateError(Json::array({{{"type", "filelog"}, {"prefix", "p"}},
                                     {{"type", "httpjson"}, {"url", "http://h:1/"}, {"extra", 1}}}))
                .find("handlers_perflog[1] (httpjson): unknown key 'extra', did you mean 'extras'?"),
            std::string::npos);
  EXPECT_NE(CreateError(Json::array({{{"type", "httpjson"}, {"url", "http://h:1/"}, {"json_formatter", "f"}}}))
                .find("json_formatter: a Python callable"),
            std::string::npos);
  EXPECT_NE(CreateError(Json::array({{{"type", "httpjson"}, {"url", "http://h:1/"}, {"level", "loud"}}}))
                .find("level: expected a level name"),
            std::string::npos);
  EXPECT_NE(CreateError(Json::array({{{"type", "syslog"}, {"address", "h:1"}, {"facility", "usr"}}}))
                .find("handlers_perflog[0] (syslog): syslog handler: unknown facility 'usr'"),
            std::string::npos);
}

// issue 16, item 13: a bad handler is an error when the configuration
// loads (for `list` as for `run`), at the handler's file:line:column.
TEST(PerflogHandlers, BadHandlersAreConfigurationErrorsAtTheirPlace) {
  JinjaContext ctx;
  ctx.getenv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  auto load = [&](const std::string& logging) {
    auto cfg = LoadSiteConfigSources({{"site.yaml", "logging:\n" + logging}}, ctx);
    return cfg.ok() ? std::string("loaded") : cfg.status().str();
  };
  EXPECT_EQ(load("  - handlers_perflog:\n      - {type: filelog, prefix: x}\n      - {type: httpjson, url: "
                 "'https://h:9200/x', extra_headers: {X-A: \"b\\r\\nX-Injected: 1\"}}\n"),
            "site.yaml:4:9: logging: handlers_perflog[1] (httpjson): extra_headers: 'X-A': a header value must "
            "not contain a line break (CR or LF) or NUL");
  EXPECT_EQ(load("  - handlers_perflog: [{type: syslog, adress: x}]\n"),
            "site.yaml:2:24: logging: handlers_perflog[0] (syslog): unknown key 'adress', did you mean 'address'?");
  EXPECT_EQ(load("  - {level: loud}\n"), "site.yaml:2:5: logging: level: expected a level name, got \"loud\"");
  EXPECT_EQ(load("  - handlers_perflog: [{type: filelog, prefix: '%(check_system)s'}]\n"), "loaded");
}

TEST(PerflogHandlers, FilelogKeysHetbenchCannotHonourAreErrors) {
  auto filelog = [](Json more) {
    Json h = {{"type", "filelog"}, {"prefix", "%(check_system)s"}};
    h.update(more);
    return Json::array({h});
  };
  EXPECT_EQ(CreateError(filelog({{"formatt", "x"}})),
            "logging: handlers_perflog[0] (filelog): unknown key 'formatt', did you mean 'format'?");
  EXPECT_EQ(CreateError(Json::array({{{"type", "filelog"}}})),
            "logging: handlers_perflog[0] (filelog): 'prefix' is required");
  EXPECT_EQ(CreateError(filelog({{"perflog_compat", true}})),
            "logging: handlers_perflog[0] (filelog): perflog_compat: a key of the logging entry, beside "
            "handlers_perflog, not of a handler");
  EXPECT_EQ(CreateError(filelog({{"format", "%(check_result)s|%(check_executable)s"}})),
            "logging: handlers_perflog[0] (filelog): format: %(check_executable)s: hetbench does not record this "
            "attribute, so it cannot be written as ReFrame would; remove it");
  EXPECT_NE(
      CreateError(filelog({{"format", "%(check_#ALL)s"}}))
          .find("format: %(check_#ALL)s would include check_build_locally, check_build_time_limit, check_executable"),
      std::string::npos);
  EXPECT_NE(CreateError(filelog({{"format", "%(check_perfvalues)s"}, {"format_perfvars", "%(check_system)s|"}}))
                .find("format_perfvars: %(check_system)s: only check_perf_var, check_perf_value"),
            std::string::npos);
  EXPECT_NE(
      CreateError(filelog({{"format", "%(check_num_tasks)5s"}})).find("format: '%(check_num_tasks)5' at offset 0"),
      std::string::npos);
  EXPECT_NE(CreateError(filelog({{"prefix", "%(check_tags)s"}})).find("prefix: %(check_tags)s is a list or a mapping"),
            std::string::npos);
  EXPECT_NE(CreateError(filelog({{"prefix", "%(check_system)s/%(lineno)s"}}))
                .find("prefix: %(lineno)s: hetbench "
                      "does not record"),
            std::string::npos);
  EXPECT_NE(CreateError(filelog({{"append", "yes"}})).find("append: expected true or false"), std::string::npos);
  EXPECT_NE(CreateError(filelog({{"locking_file_mode", "rw"}})).find("locking_file_mode: expected an octal mode"),
            std::string::npos);
  EXPECT_EQ(CreateError(filelog({{"locking_enable", true}, {"locking_file_mode", "664"}})), "");
  EXPECT_EQ(CreateError(Json::array({{{"type", "filelogs"}}})),
            "logging: handlers_perflog[0]: unknown handler type 'filelogs', did you mean 'filelog'?");
  // The configuration file is named when there is one.
  PerflogHandlerOptions one_file;
  one_file.config_files = {"site.yaml"};
  EXPECT_EQ(CreateError(filelog({{"formatt", "x"}}), one_file),
            "site.yaml: logging: handlers_perflog[0] (filelog): unknown key 'formatt', did you mean 'format'?");
  // One record per variable reaches only filelog handlers here.
  auto h = PerflogHandlers::Create(
      Json{{"perflog_multiline", true}, {"handlers_perflog", {{{"type", "syslog"}, {"address", "h:1"}}}}});
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().str().find("handlers_perflog[0] (syslog): logging: perflog_multiline (perflog_compat)"),
            std::string::npos)
      << h.status().str();
  h = PerflogHandlers::Create(Json{{"perflog_compatt", true}});
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().str(), "logging: unknown key 'perflog_compatt', did you mean 'perflog_compat'?");
}

TEST(PerflogHandlers, SendsToHttpjsonAtLevelInfoOnly) {
  TempDir dir;
  TestHttpServer server;
  Json handlers = Json::array({{{"type", "httpjson"}, {"url", server.url("/a")}, {"extras", {{"site", "x"}}}},
                               {{"type", "httpjson"}, {"url", server.url("/b")}, {"level", "warning"}},
                               {{"type", "filelog"}, {"basedir", "perflogs"}, {"prefix", "%(check_system)s"}}});
  PerflogHandlerOptions opts;
  opts.prefix = dir.path();
  auto h = PerflogHandlers::Create(Json{{"handlers_perflog", handlers}}, opts);
  ASSERT_TRUE(h.ok()) << h.status().str();
  EXPECT_EQ((*h)->size(), 2u) << "a handler above info gets no performance records";
  CaseResult c;
  c.name = "t";
  c.system = "box";
  c.perf = {{"x", 1.5, "s", std::nullopt, "none", ""}};
  (*h)->Log(SessionInfo(), c);
  CaseResult failed_in_run = c;
  failed_in_run.result = "fail";
  failed_in_run.fail_stage = "run";
  (*h)->Log(SessionInfo(), failed_in_run);
  (*h)->Finish(10);
  EXPECT_TRUE((*h)->TakeWarnings().empty());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].head.rfind("POST /a ", 0), 0u);
  EXPECT_EQ(Json::parse(reqs[0].body)["site"], "x");
  EXPECT_EQ(*ReadFile(dir / "perflogs/box/t.log"), "message\nsent by \n") << "ReFrame's default format";
}

TEST(PerflogHandlers, UnreachableSyslogIsAWarningNotAnError) {
  auto h = PerflogHandlers::Create(
      Json{{"handlers_perflog", Json::array({{{"type", "syslog"}, {"address", "/nonexistent/log"}}})}});
  ASSERT_TRUE(h.ok()) << h.status().str();
  EXPECT_EQ((*h)->size(), 1u) << "the builtin filelog handler only";
  auto w = (*h)->TakeWarnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("cannot connect to /nonexistent/log"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("left out"), std::string::npos);
}

}  // namespace
}  // namespace hb
