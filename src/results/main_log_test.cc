#include "results/main_log.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/log.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

MainLogOptions Opts() {
  MainLogOptions o;
  o.hostname = "login1";
  o.user = "alice";
  o.version = "9.9";
  return o;
}

TEST(MainLog, FileHandlersTakeTheirLevelAndFormat) {
  TempDir dir;
  std::string debug = dir.path() + "/debug.log", info = dir.path() + "/sub/info.log";
  auto logging = nlohmann::json::parse(R"({"handlers": [
      {"type": "file", "name": ")" + debug +
                                       R"(", "level": "debug",
       "format": "%(levelname)s|%(hostname)s|%(osuser)s|%(version)s|%(check_info)s|%(message)s %%"},
      {"type": "file", "name": ")" + info +
                                       R"(", "level": "info", "format": "[%(asctime)s] %(message)s",
       "datefmt": "%Y"}]})");
  ASSERT_TRUE(SetUpMainLog(logging, Opts()).ok());
  LogRecord(kLogDebug, "a command");
  LogRecord(kLogVerbose, "a choice");
  LogRecord(kLogInfo, "news");
  LogRecord(kLogDebug2, "too fine");
  ClearLogSinks();
  EXPECT_EQ(Slurp(debug),
            "debug|login1|alice|9.9|hetbench|a command %\n"
            "verbose|login1|alice|9.9|hetbench|a choice %\n"
            "info|login1|alice|9.9|hetbench|news %\n");
  std::string year = Slurp(info).substr(1, 4);
  EXPECT_EQ(Slurp(info), "[" + year + "] news\n");
  EXPECT_GE(std::stoi(year), 2024);
}

TEST(MainLog, AppendTimestampAndTheLoggersLevel) {
  TempDir dir;
  std::string path = dir.path() + "/a.log";
  { std::ofstream(path) << "old\n"; }
  auto logging = nlohmann::json::parse(R"({"level": "info", "handlers": [
      {"type": "file", "name": ")" + path +
                                       R"(", "level": "debug", "append": true}]})");
  ASSERT_TRUE(SetUpMainLog(logging, Opts()).ok());
  LogRecord(kLogDebug, "below the logger's level");
  LogRecord(kLogInfo, "kept");
  ClearLogSinks();
  EXPECT_EQ(Slurp(path), "old\nkept\n");
  // append: false (ReFrame's default) starts the file afresh.
  logging["handlers"][0].erase("append");
  ASSERT_TRUE(SetUpMainLog(logging, Opts()).ok());
  LogRecord(kLogInfo, "new");
  ClearLogSinks();
  EXPECT_EQ(Slurp(path), "new\n");
  // timestamp: the name gets _<time> before the extension.
  logging["handlers"][0]["timestamp"] = "%Y";
  ASSERT_TRUE(SetUpMainLog(logging, Opts()).ok());
  LogRecord(kLogInfo, "stamped");
  ClearLogSinks();
  std::time_t now = std::time(nullptr);
  char year[8];
  std::strftime(year, sizeof year, "%Y", std::localtime(&now));
  EXPECT_EQ(Slurp(dir.path() + "/a_" + year + ".log"), "stamped\n");
}

TEST(MainLog, WithoutHandlersTheDefaultFileGetsEverythingFromDebug) {
  TempDir dir;
  MainLogOptions o = Opts();
  o.default_file = dir.path() + "/hetbench.log";
  ASSERT_TRUE(SetUpMainLog(nlohmann::json::object(), o).ok());
  LogRecord(kLogDebug, "command: sbatch job.sh -> exit 0 in 0.1 s");
  LogRecord(kLogDebug2, "not this");
  ClearLogSinks();
  std::string text = Slurp(o.default_file);
  ASSERT_EQ(text.substr(0, 1), "[");
  EXPECT_NE(text.find("] debug: command: sbatch job.sh -> exit 0 in 0.1 s\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("not this"), std::string::npos);
}

TEST(MainLog, WhatCannotBeHonouredIsAnError) {
  auto err = [](const std::string& json) {
    Status st = SetUpMainLog(nlohmann::json::parse(json), Opts());
    EXPECT_FALSE(st.ok()) << json;
    return st.message();
  };
  EXPECT_EQ(err(R"({"handlers": [{"type": "graylog", "address": "g:12201"}]})"),
            "logging: handlers[0] (graylog): hetbench cannot send to Graylog; remove this handler, or send "
            "performance records to an HTTP endpoint with an httpjson perflog handler");
  EXPECT_EQ(err(R"({"handlers": [{"type": "file", "name": "x.log", "format": "%(check_name)s"}]})"),
            "logging: handlers[0] (file): format: %(check_name)s: the main log's records are not about one test "
            "case, so hetbench knows only asctime, levelname, message, name, check_info, hostname, osuser, version");
  EXPECT_EQ(err(R"({"handlers": [{"type": "stream", "name": "stdout", "colour": true}]})"),
            "logging: handlers[0] (stream): unknown key 'colour' (keys: type, name, level, format, datefmt)");
  EXPECT_EQ(err(R"({"handlers": [{"type": "file", "level": "info"}]})"),
            "logging: handlers[0] (file): name: the log file is required");
  EXPECT_EQ(err(R"({"handlers": [{"type": "stream", "level": "loud"}]})"),
            "logging: handlers[0] (stream): level: expected one of critical, error, warning, info, verbose, debug, "
            "debug2");
  EXPECT_EQ(err(R"({"handlers": [{"type": "syslog"}]})"),
            "logging: handlers[0] (syslog): unknown handler type 'syslog' (the main log's handlers are file and "
            "stream; perflogs go under handlers_perflog)");
  EXPECT_FALSE(LogEnabled(kLogError));  // a failed set-up leaves no sink
}

}  // namespace
}  // namespace hb
