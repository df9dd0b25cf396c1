#include "results/perflog_handlers.h"

#include <gtest/gtest.h>

#include "net/test_http_server.h"

namespace hb {
namespace {

using Json = nlohmann::json;

std::string CreateError(const Json& handlers) {
  auto h = PerflogHandlers::Create(Json{{"handlers_perflog", handlers}});
  return h.ok() ? "" : h.status().str();
}

TEST(PerflogHandlers, BadSettingsAreErrorsNamingTheHandlerAndKey) {
  EXPECT_EQ(CreateError(Json::array({{{"type", "httpjson"}, {"url", "ftp://h:1/"}}})),
            "logging: handlers_perflog[0] (httpjson): url: invalid url scheme: use 'http' or 'https' ('ftp://h:1/')");
  EXPECT_NE(CreateError(Json::array({{{"type", "httpjson"}, {"url", "http://elastic/idx"}}})).find("no port given"),
            std::string::npos);
  EXPECT_NE(CreateError(Json::array({{{"type", "httpjson"}}})).find("'url' is required"), std::string::npos);
  EXPECT_NE(CreateError(Json::array({{{"type", "filelog"}}, {{"type", "httpjson"}, {"url", "http://h:1/"}, {"extra", 1}}}))
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

TEST(PerflogHandlers, SendsToHttpjsonAtLevelInfoOnly) {
  TestHttpServer server;
  Json handlers = Json::array({{{"type", "httpjson"}, {"url", server.url("/a")}, {"extras", {{"site", "x"}}}},
                               {{"type", "httpjson"}, {"url", server.url("/b")}, {"level", "warning"}},
                               {{"type", "filelog"}, {"basedir", "perflogs"}}});
  auto h = PerflogHandlers::Create(Json{{"handlers_perflog", handlers}});
  ASSERT_TRUE(h.ok()) << h.status().str();
  EXPECT_EQ((*h)->size(), 1u) << "a handler above info gets no performance records";
  CaseResult c;
  c.name = "t";
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
}

TEST(PerflogHandlers, UnreachableSyslogIsAWarningNotAnError) {
  auto h = PerflogHandlers::Create(
      Json{{"handlers_perflog", Json::array({{{"type", "syslog"}, {"address", "/nonexistent/log"}}})}});
  ASSERT_TRUE(h.ok()) << h.status().str();
  EXPECT_EQ((*h)->size(), 0u);
  auto w = (*h)->TakeWarnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("cannot connect to /nonexistent/log"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("left out"), std::string::npos);
}

}  // namespace
}  // namespace hb
