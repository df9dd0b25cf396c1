// Pieces of the results store shared by store.cc (writing) and
// store_query.cc (reading): how a session and a case map to their table
// columns, both ways (store_rows.cc), and the SQL function regexp() that
// makes `x REGEXP pattern` work (store_query.cc). Not for other modules.
#pragma once

#include <string>
#include <vector>

#include "results/sqlite_stmt.h"
#include "results/store.h"

struct sqlite3;

namespace hb {

// Column names in the order BindSession/ReadSession and BindCase/ReadCase
// use them.
extern const std::vector<std::string> kSessionColumns;
extern const std::vector<std::string> kCaseColumns;

// Binds kSessionColumns from parameter 1.
void BindSession(SqliteStmt& st, const SessionInfo& s, const std::string& source, const StoredSession& counts);
// Binds kCaseColumns from parameter `first`.
void BindCase(SqliteStmt& st, int first, const CaseResult& c, const std::string& file_sha256);
// Read the columns back from result column `first` on. A JSON column that
// does not parse leaves its field empty.
StoredSession ReadSession(const SqliteStmt& st, int first);
CaseResult ReadCase(const SqliteStmt& st, int first, std::string* file_sha256, std::vector<std::string>* utf8_replaced);

// regexp(pattern, text): 1 when the PCRE2 pattern (util/regex.h) is found
// in text. The compiled pattern is cached per statement.
Status RegisterRegexp(sqlite3* db);

}  // namespace hb
