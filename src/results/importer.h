// Importer: results recorded elsewhere turned into sessions for the results
// store (`hetbench results import`), so users moving from ReFrame keep
// their history:
//   - ReFrame perflogs in the default `filelog` format (perflog.h): a header
//     line naming the `|`-separated fields, then one line per test case;
//     one file per test under perflogs/SYSTEM/PARTITION/ (and the rotated
//     TEST.log.hN). All perflogs of one import form one session whose id
//     is derived from their contents, so importing them again adds nothing.
//   - A ReFrame results database (results.db, ReFrame 4.7+'s `storage`,
//     reframe/frontend/reporting/storage.py, schema version 1.0): each row
//     of its `sessions` table holds a whole run report as JSON; each of
//     those becomes a session (ReFrame's uuid is the session id).
//   - A ReFrame run report (JSON with session_info and runs), or a hetbench
//     run report (run_report.h).
// ReFrame's names map to hetbench's: a test's `name` is its display name
// ("stream %threads=2": base name and parameters), runs are attempts,
// `abort` is cancelled, fail phase `compile` is build; performance values
// keep their references and thresholds, and a verdict ReFrame did not
// record is computed as check/reference.h does.
// Pure apart from reading the files; errors name file:line (perflogs) or
// the session and JSON path (reports).
#pragma once

#include <string>
#include <vector>

#include "results/case_result.h"
#include "util/status.h"

namespace hb {

struct ImportedSession {
  SessionInfo session;
  std::vector<CaseResult> cases;
  std::string source;  // "reframe-perflog", "reframe-db", "reframe-report", "hetbench-report"
};

// Reads every path (a perflog, a folder of perflogs, a results.db, a
// report) into sessions, by what each file is.
Result<std::vector<ImportedSession>> ReadImports(const std::vector<std::string>& paths);

// One perflog's text; `path` names it in messages and gives the system and
// partition when the header has no such fields (.../SYSTEM/PARTITION/x.log).
Result<std::vector<CaseResult>> ParseReframePerflog(const std::string& text, const std::string& path);
// The perflog files given (folders searched recursively) as one session.
Result<ImportedSession> ReadReframePerflogs(const std::vector<std::string>& paths);
// Every stored session of a ReFrame results database, oldest first.
Result<std::vector<ImportedSession>> ReadReframeDatabase(const std::string& path);
// A ReFrame run report; `name` is used in messages.
Result<ImportedSession> ParseReframeReport(const std::string& json_text, const std::string& name);

}  // namespace hb
