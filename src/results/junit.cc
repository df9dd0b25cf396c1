#include "results/junit.h"

#include <cmath>
#include <cstdio>
#include <ctime>

#include "results/pyformat.h"
#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

bool IsXmlChar(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
         (cp >= 0x10000 && cp <= 0x10FFFF);
}

// Attribute values also escape \t, \n and \r, which attribute-value
// normalisation would otherwise turn into spaces.
std::string Escape(const std::string& s, bool attribute) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = DecodeUtf8(s, i);
    switch (cp) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += attribute ? "&quot;" : "\"";
        break;
      case '\'':
        out += attribute ? "&apos;" : "'";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        AppendUtf8(out, IsXmlChar(cp) ? cp : 0xFFFD);
    }
  }
  return out;
}

std::string Attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + Escape(value, true) + "\"";
}

std::string Seconds(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", std::isfinite(s) && s > 0 ? s : 0.0);
  return buf;
}

std::string Timestamp(double t) {
  time_t secs = static_cast<time_t>(t);
  struct tm tm {};
  localtime_r(&secs, &tm);
  char buf[64];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string CaseName(const CaseResult& c) {
  std::string name =
      (c.display_name.empty() ? c.name : c.display_name) + " @" + c.system + ":" + c.partition + "+" + c.environ;
  if (c.repetition > 0) name += " [rep " + std::to_string(c.repetition) + "]";
  if (c.attempt > 0) name += " [retry " + std::to_string(c.attempt) + "]";
  return name;
}

// The text of a <failure> or <error>: the message, then where to look.
std::string Details(const CaseResult& c) {
  std::string d = c.fail_stage + ": " + c.fail_reason + "\n";
  if (!c.job_id.empty()) {
    d += "job: " + c.job_id + (c.job_state.empty() ? "" : " (" + c.job_state + ")");
    if (c.exit_code != -1) d += ", exit code " + std::to_string(c.exit_code);
    d += "\n";
  }
  if (!c.nodelist.empty()) d += "nodes: " + Join(c.nodelist, ",") + "\n";
  if (!c.stagedir.empty()) d += "stagedir: " + c.stagedir + "\n";
  return d;
}

// The element inside a <testcase> that says how it did not pass, or "".
std::string Outcome(const CaseResult& c) {
  std::string message = c.fail_stage.empty() ? c.fail_reason : c.fail_stage + ": " + c.fail_reason;
  if (c.result == "fail") {
    return "      <failure" + Attr("type", c.fail_stage) + Attr("message", message) + ">" + Escape(Details(c), false) +
           "</failure>\n";
  }
  if (c.result == "cancelled") {
    return "      <error" + Attr("type", "cancelled") + Attr("message", message) + ">" + Escape(Details(c), false) +
           "</error>\n";
  }
  if (c.result == "dry-run") return "      <skipped" + Attr("message", "dry run: " + message) + "/>\n";
  if (c.result == "skip") return "      <skipped" + Attr("message", message) + "/>\n";
  return "";
}

std::string Testcase(const CaseResult& c) {
  std::string head = "    <testcase" + Attr("classname", c.name) + Attr("name", CaseName(c)) +
                     Attr("time", Seconds(c.end_time - c.start_time));
  std::string body = Outcome(c);
  return body.empty() ? head + "/>\n" : head + ">\n" + body + "    </testcase>\n";
}

std::string SuiteAttrs(const SessionInfo& s, const std::vector<CaseResult>& cases) {
  int failures = 0, errors = 0, skipped = 0;
  for (const auto& c : cases) {
    failures += c.result == "fail";
    errors += c.result == "cancelled";
    skipped += c.result == "skip" || c.result == "dry-run";
  }
  return Attr("name", "hetbench") + Attr("id", "0") + Attr("package", "hetbench") +
         Attr("tests", std::to_string(cases.size())) + Attr("failures", std::to_string(failures)) +
         Attr("errors", std::to_string(errors)) + Attr("skipped", std::to_string(skipped)) +
         Attr("time", Seconds(s.end_time - s.start_time)) + Attr("timestamp", Timestamp(s.start_time)) +
         Attr("hostname", s.hostname);
}

}  // namespace

std::string XmlEscape(const std::string& s) { return Escape(s, true); }

std::string JunitXml(const SessionInfo& session, const std::vector<CaseResult>& cases) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  xml += "  <testsuite" + SuiteAttrs(session, cases) + ">\n";
  xml += "    <properties>\n";
  xml += "      <property" + Attr("name", "session_id") + Attr("value", session.session_id) + "/>\n";
  xml += "      <property" + Attr("name", "hetbench_version") + Attr("value", session.version) + "/>\n";
  xml += "      <property" + Attr("name", "system") + Attr("value", session.system) + "/>\n";
  xml += "    </properties>\n";
  for (const auto& c : cases) xml += Testcase(c);
  xml += "    <system-out/>\n    <system-err/>\n  </testsuite>\n</testsuites>\n";
  return xml;
}

Status WriteJunit(const std::string& path, const SessionInfo& session, const std::vector<CaseResult>& cases) {
  return WriteFileAtomic(path, JunitXml(session, cases));
}

}  // namespace hb
