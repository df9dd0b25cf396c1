// RunReport: the JSON record of one `hetbench run`, a format hetbench owns
// and versions. Top level:
//   {"schema": "hetbench-run-report", "schema_version": 1,
//    "session": {...}, "cases": [...],
//    "summary": {"total", "passed", "failed", "skipped", "cancelled"}}
// Each case carries everything in CaseResult (identity, parameters,
// result and failure, timings, job, directories, performance values with
// their references and verdicts); times are seconds since the epoch.
// A reader refuses a file that is not a run report, or whose
// schema_version is newer than it reads, saying why (--restore-session
// relies on this). Bump kRunReportSchemaVersion on any change an older
// reader would misread.
//
// Pure functions apart from the file reads and writes.
#pragma once

#include <string>
#include <vector>

#include "results/case_result.h"
#include "util/status.h"

namespace hb {

inline constexpr const char* kRunReportSchema = "hetbench-run-report";
inline constexpr int kRunReportSchemaVersion = 1;

struct LoadedReport {
  int schema_version = 0;
  SessionInfo session;
  std::vector<CaseResult> cases;
};

// The fields of the case (or session) whose text is not valid UTF-8, as
// JSON pointers into its run-report entry ("/fail_reason",
// "/parameters/p"): where the report and the store replace bytes with
// U+FFFD. Empty for valid text.
std::vector<std::string> InvalidUtf8Fields(const CaseResult& c);
std::vector<std::string> InvalidUtf8Fields(const SessionInfo& s);

std::string RunReportToJson(const SessionInfo& session, const std::vector<CaseResult>& cases);
// Writes the report atomically (WriteFileAtomic).
Status WriteRunReport(const std::string& path, const SessionInfo& session, const std::vector<CaseResult>& cases);
// Errors name the file: "report.json: schema_version 2 is newer than this
// hetbench reads (1); upgrade hetbench".
Result<LoadedReport> ReadRunReport(const std::string& path);
// The same, from text already read; `name` is used in messages.
Result<LoadedReport> ParseRunReport(const std::string& text, const std::string& name);

}  // namespace hb
