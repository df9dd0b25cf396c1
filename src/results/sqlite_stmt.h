// SqliteStmt: one prepared SQLite statement, finalized when it goes. The
// results store and the ReFrame importer use it. Binding is by position
// (1-based, as SQLite counts); an empty optional binds NULL, and so does a
// NaN double (SQLite stores NaN as NULL anyway). Not thread-safe: like its
// connection, for one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace hb {

class SqliteStmt {
 public:
  // `where` names the database in messages (its path).
  static Result<SqliteStmt> Prepare(sqlite3* db, const std::string& sql, const std::string& where);
  SqliteStmt(SqliteStmt&& other) noexcept;
  SqliteStmt& operator=(SqliteStmt&& other) noexcept;
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;
  ~SqliteStmt();

  SqliteStmt& Bind(int i, const std::string& v);
  SqliteStmt& Bind(int i, int64_t v);
  SqliteStmt& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }
  SqliteStmt& Bind(int i, double v);
  SqliteStmt& Bind(int i, const std::optional<double>& v);

  // One step: true while a row is ready, false when done, an error else.
  // Errors carry SQLite's message; rc() keeps SQLite's result code.
  Result<bool> Step();
  // Steps to the end (for INSERT, UPDATE, DELETE).
  Status Run();
  // Rewinds for the next use; bindings are cleared.
  void Reset();
  int rc() const { return rc_; }

  std::string Text(int col) const;  // "" for NULL
  // The same without a copy; valid until the next Step, Reset or column call.
  std::string_view TextView(int col) const;
  int64_t Int(int col) const;
  double Double(int col) const;  // NaN for NULL
  std::optional<double> OptDouble(int col) const;
  bool IsNull(int col) const;

 private:
  SqliteStmt(sqlite3_stmt* s, std::string where) : stmt_(s), where_(std::move(where)) {}
  sqlite3_stmt* stmt_ = nullptr;
  std::string where_;
  int rc_ = 0;
};

}  // namespace hb
