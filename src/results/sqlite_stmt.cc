#include "results/sqlite_stmt.h"

#include "util/strings.h"

#include <sqlite3.h>

#include <cmath>
#include <utility>

namespace hb {

Result<SqliteStmt> SqliteStmt::Prepare(sqlite3* db, const std::string& sql, const std::string& where) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &s, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(s);
    return Status::Error(where + ": " + sqlite3_errmsg(db));
  }
  return SqliteStmt(s, where);
}

SqliteStmt::SqliteStmt(SqliteStmt&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), where_(std::move(other.where_)), rc_(other.rc_) {}

SqliteStmt& SqliteStmt::operator=(SqliteStmt&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    where_ = std::move(other.where_);
    rc_ = other.rc_;
  }
  return *this;
}

SqliteStmt::~SqliteStmt() { sqlite3_finalize(stmt_); }

SqliteStmt& SqliteStmt::Bind(int i, const std::string& v) {
  // SQLite text is UTF-8; bytes that are not become U+FFFD (the run
  // report records where: utf8_replaced).
  std::string text = ValidUtf8(v);
  sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int i, double v) {
  if (std::isnan(v))
    sqlite3_bind_null(stmt_, i);
  else
    sqlite3_bind_double(stmt_, i, v);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int i, const std::optional<double>& v) {
  if (!v)
    sqlite3_bind_null(stmt_, i);
  else
    Bind(i, *v);
  return *this;
}

Result<bool> SqliteStmt::Step() {
  rc_ = sqlite3_step(stmt_);
  if (rc_ == SQLITE_ROW) return true;
  if (rc_ == SQLITE_DONE) return false;
  return Status::Error(where_ + ": " + sqlite3_errmsg(sqlite3_db_handle(stmt_)));
}

Status SqliteStmt::Run() {
  Result<bool> r = Step();
  while (r.ok() && *r) r = Step();
  return r.status();
}

void SqliteStmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string SqliteStmt::Text(int col) const {
  const unsigned char* t = sqlite3_column_text(stmt_, col);
  if (!t) return "";
  return std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::string_view SqliteStmt::TextView(int col) const {
  const unsigned char* t = sqlite3_column_text(stmt_, col);
  if (!t) return {};
  return std::string_view(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

int64_t SqliteStmt::Int(int col) const { return sqlite3_column_int64(stmt_, col); }

double SqliteStmt::Double(int col) const { return IsNull(col) ? std::nan("") : sqlite3_column_double(stmt_, col); }

std::optional<double> SqliteStmt::OptDouble(int col) const {
  if (IsNull(col)) return std::nullopt;
  return sqlite3_column_double(stmt_, col);
}

bool SqliteStmt::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

}  // namespace hb
