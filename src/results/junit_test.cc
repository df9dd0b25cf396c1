#include "results/junit.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>

#include "util/fs.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

CaseResult Case(const std::string& result, const std::string& stage = "", const std::string& reason = "") {
  CaseResult c;
  c.name = "stream";
  c.display_name = "stream %threads=2";
  c.system = "hpc";
  c.partition = "gpu";
  c.environ = "gnu";
  c.result = result;
  c.fail_stage = stage;
  c.fail_reason = reason;
  c.start_time = 100;
  c.end_time = 101.5;
  return c;
}

class JunitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
    session_.session_id = "s1";
    session_.version = "0.1.0";
    session_.hostname = "login1";
    session_.system = "hpc";
    session_.start_time = 1708555876;
    session_.end_time = 1708555888.25;
  }
  SessionInfo session_;
};

TEST_F(JunitTest, Structure) {
  CaseResult failed = Case("fail", "sanity", "pattern 'Solution Validates' not found in stdout");
  failed.job_id = "42";
  failed.job_state = "completed";
  failed.exit_code = 0;
  failed.stagedir = "/stage/stream";
  CaseResult retried = Case("pass");
  retried.repetition = 1;
  retried.attempt = 2;
  std::string xml = JunitXml(session_, {Case("pass"), failed, Case("skip", "setup", "not valid here"),
                                        Case("cancelled", "run", "interrupted"), retried});
  EXPECT_EQ(xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites>\n"
            "  <testsuite name=\"hetbench\" id=\"0\" package=\"hetbench\" tests=\"5\" failures=\"1\" errors=\"1\" "
            "skipped=\"1\" time=\"12.250\" timestamp=\"2024-02-21T22:51:16\" hostname=\"login1\">\n"
            "    <properties>\n"
            "      <property name=\"session_id\" value=\"s1\"/>\n"
            "      <property name=\"hetbench_version\" value=\"0.1.0\"/>\n"
            "      <property name=\"system\" value=\"hpc\"/>\n"
            "    </properties>\n"
            "    <testcase classname=\"stream\" name=\"stream %threads=2 @hpc:gpu+gnu\" time=\"1.500\"/>\n"
            "    <testcase classname=\"stream\" name=\"stream %threads=2 @hpc:gpu+gnu\" time=\"1.500\">\n"
            "      <failure type=\"sanity\" message=\"sanity: pattern &apos;Solution Validates&apos; not found in "
            "stdout\">sanity: pattern 'Solution Validates' not found in stdout\n"
            "job: 42 (completed), exit code 0\n"
            "stagedir: /stage/stream\n"
            "</failure>\n"
            "    </testcase>\n"
            "    <testcase classname=\"stream\" name=\"stream %threads=2 @hpc:gpu+gnu\" time=\"1.500\">\n"
            "      <skipped message=\"setup: not valid here\"/>\n"
            "    </testcase>\n"
            "    <testcase classname=\"stream\" name=\"stream %threads=2 @hpc:gpu+gnu\" time=\"1.500\">\n"
            "      <error type=\"cancelled\" message=\"run: interrupted\">run: interrupted\n"
            "</error>\n"
            "    </testcase>\n"
            "    <testcase classname=\"stream\" name=\"stream %threads=2 @hpc:gpu+gnu [rep 1] [retry 2]\" "
            "time=\"1.500\"/>\n"
            "    <system-out/>\n"
            "    <system-err/>\n"
            "  </testsuite>\n"
            "</testsuites>\n");
}

TEST_F(JunitTest, Escaping) {
  EXPECT_EQ(XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(XmlEscape("l1\nl2\tx\r"), "l1&#10;l2&#9;x&#13;");
  // Characters XML 1.0 cannot carry (an ANSI escape) and malformed UTF-8
  // become U+FFFD; valid UTF-8 passes through.
  EXPECT_EQ(XmlEscape("\x1b[31mred\xff caf\xc3\xa9"), "\xef\xbf\xbd[31mred\xef\xbf\xbd caf\xc3\xa9");
  CaseResult c = Case("fail", "sanity", "found \"<ERROR>\" & more\nsecond line");
  std::string xml = JunitXml(session_, {c});
  EXPECT_NE(xml.find("message=\"sanity: found &quot;&lt;ERROR&gt;&quot; &amp; more&#10;second line\""),
            std::string::npos);
  EXPECT_NE(xml.find(">sanity: found \"&lt;ERROR&gt;\" &amp; more\nsecond line\n</failure>"), std::string::npos);
}

TEST_F(JunitTest, WriteJunit) {
  TempDir dir;
  std::string path = dir.path() + "/junit.xml";
  ASSERT_TRUE(WriteJunit(path, session_, {Case("pass")}).ok());
  EXPECT_EQ(*ReadFile(path), JunitXml(session_, {Case("pass")}));
}

}  // namespace
}  // namespace hb
