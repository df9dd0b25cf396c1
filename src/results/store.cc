// The results store: opening (checks, WAL, migrations), the write
// transaction with its busy retries, adding and deleting sessions.
// Queries are in store_query.cc.
#include "results/store.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "results/sqlite_stmt.h"
#include "results/store_internal.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/strings.h"
#include "version.h"

namespace hb {

namespace {

// Schema version 1. Later versions append steps; a step must turn the
// previous version into the next one (ALTER TABLE, CREATE INDEX, ...).
const char* kSchemaV1 = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE,
  source TEXT NOT NULL,
  version TEXT NOT NULL,
  hostname TEXT NOT NULL,
  user TEXT NOT NULL,
  argv TEXT NOT NULL,
  system TEXT NOT NULL,
  prefix TEXT NOT NULL,
  config_files TEXT NOT NULL,
  start_time REAL NOT NULL,
  end_time REAL NOT NULL,
  exit_code INTEGER NOT NULL,
  num_cases INTEGER NOT NULL,
  num_passed INTEGER NOT NULL,
  num_failed INTEGER NOT NULL,
  num_skipped INTEGER NOT NULL,
  num_cancelled INTEGER NOT NULL);
CREATE INDEX sessions_by_time ON sessions(start_time);
CREATE TABLE cases (
  id INTEGER PRIMARY KEY,
  session_row INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  case_id TEXT NOT NULL,
  name TEXT NOT NULL,
  display_name TEXT NOT NULL,
  unique_name TEXT NOT NULL,
  descr TEXT NOT NULL,
  file TEXT NOT NULL,
  file_sha256 TEXT NOT NULL,
  parameters TEXT NOT NULL,
  tags TEXT NOT NULL,
  maintainers TEXT NOT NULL,
  system TEXT NOT NULL,
  partition TEXT NOT NULL,
  environ TEXT NOT NULL,
  result TEXT NOT NULL,
  fail_stage TEXT NOT NULL,
  fail_reason TEXT NOT NULL,
  repetition INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  start_time REAL NOT NULL,
  end_time REAL NOT NULL,
  timings TEXT NOT NULL,
  job_id TEXT NOT NULL,
  job_state TEXT NOT NULL,
  exit_code INTEGER NOT NULL,
  nodelist TEXT NOT NULL,
  job_submit_time REAL NOT NULL,
  job_completion_time REAL NOT NULL,
  job_noticed_time REAL NOT NULL,
  num_tasks INTEGER NOT NULL,
  num_tasks_per_node INTEGER NOT NULL,
  num_cpus_per_task INTEGER NOT NULL,
  num_gpus_per_node INTEGER NOT NULL,
  exclusive_access INTEGER NOT NULL,
  env_vars TEXT NOT NULL,
  modules TEXT NOT NULL,
  extra_resources TEXT NOT NULL,
  stagedir TEXT NOT NULL,
  outputdir TEXT NOT NULL);
CREATE INDEX cases_by_session ON cases(session_row);
CREATE INDEX cases_by_name ON cases(name, start_time);
CREATE INDEX cases_by_system ON cases(system, partition, start_time);
CREATE INDEX cases_by_time ON cases(start_time);
CREATE TABLE perf (
  id INTEGER PRIMARY KEY,
  case_row INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value REAL,
  unit TEXT NOT NULL,
  reference REAL,
  lower_thres REAL,
  upper_thres REAL,
  result TEXT NOT NULL,
  message TEXT NOT NULL);
CREATE INDEX perf_by_case ON perf(case_row);
CREATE INDEX perf_by_name ON perf(name);
)sql";

// Version 2: where a session's or case's text held bytes that are not
// UTF-8, replaced by U+FFFD (run_report.h, InvalidUtf8Fields).
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE sessions ADD COLUMN utf8_replaced TEXT NOT NULL DEFAULT '[]';
ALTER TABLE cases ADD COLUMN utf8_replaced TEXT NOT NULL DEFAULT '[]';
)sql";

// Version 3: a performance variable's figure_of_merit and better.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE perf ADD COLUMN figure_of_merit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE perf ADD COLUMN better TEXT NOT NULL DEFAULT '';
)sql";

// Version 4: a case's scaling axes (the test's scaling_axes).
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE cases ADD COLUMN scaling_axes TEXT NOT NULL DEFAULT '[]';
)sql";

const std::vector<std::string>& BuiltinMigrations() {
  static const std::vector<std::string> steps = {kSchemaV1, kSchemaV2, kSchemaV3, kSchemaV4};
  return steps;
}

bool IsBusy(int rc) {
  rc &= 0xff;
  return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

std::string Placeholders(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += i ? ",?" : "?";
  return s;
}

// The SHA-256 of each distinct test file that can be read now.
std::map<std::string, std::string> HashFiles(const std::vector<CaseResult>& cases) {
  std::map<std::string, std::string> out;
  for (const auto& c : cases) {
    if (c.file.empty() || out.count(c.file)) continue;
    Result<std::string> text = ReadFile(c.file);
    out[c.file] = text.ok() ? Sha256Hex(*text) : "";
  }
  return out;
}

void Count(const std::vector<CaseResult>& cases, StoredSession* s) {
  s->total = static_cast<int>(cases.size());
  for (const auto& c : cases) {
    s->passed += c.result == "pass";
    s->failed += c.result == "fail";
    s->skipped += c.result == "skip";
    s->cancelled += c.result == "cancelled";
  }
}

void BindPerf(SqliteStmt& st, int64_t case_row, const PerfResult& p) {
  const std::optional<Reference>& r = p.reference;
  st.Bind(1, case_row).Bind(2, p.name).Bind(3, p.value).Bind(4, p.unit);
  st.Bind(5, r ? std::optional<double>(r->value) : std::nullopt);
  st.Bind(6, r ? r->lower : std::nullopt).Bind(7, r ? r->upper : std::nullopt);
  st.Bind(8, p.verdict).Bind(9, p.message).Bind(10, static_cast<int64_t>(p.figure_of_merit ? 1 : 0)).Bind(11, p.better);
}

}  // namespace

// ---- opening ----

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, const StoreOptions& opts) {
  struct stat sb {};
  bool exists = ::stat(path.c_str(), &sb) == 0;
  if (!exists && errno != ENOENT)
    return Status::Error("cannot open results store '" + path + "': " + std::strerror(errno));
  if (exists && S_ISDIR(sb.st_mode)) return Status::Error(path + ": is a folder, not a results store");
  if (exists && ::access(path.c_str(), R_OK | W_OK) != 0)
    return Status::Error("cannot open results store '" + path + "': " + std::strerror(errno));
  if (!exists && !opts.create)
    return Status::Error("no results store at '" + path + "' (`hetbench run` creates it; see --store)");
  if (!exists) {
    Status st = MakeDirs(DirName(path));
    if (!st.ok()) return st.Prefixed("cannot create results store '" + path + "'");
  }
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | (opts.create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    int err = db ? sqlite3_system_errno(db) : 0;
    sqlite3_close(db);
    if (err) msg += std::string(" (") + std::strerror(err) + ")";
    return Status::Error("cannot open results store '" + path + "': " + msg);
  }
  std::unique_ptr<Store> store(new Store(path, db, opts.busy_timeout_s));
  Status st = store->Setup(opts);
  if (!st.ok()) return st;
  return store;
}

Store::~Store() { sqlite3_close_v2(db_); }

Status Store::Exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  if (rc == SQLITE_OK) return Status::OK();
  return Status::Error(path_ + ": " + msg);
}

// What kind of file this is, from its tables: a hetbench store (version
// from `meta`, 0 when empty), or an error that says what it is instead.
Result<int> Store::ReadVersion() {
  auto tables = SqliteStmt::Prepare(db_, "SELECT name FROM sqlite_master WHERE type = 'table'", path_);
  if (!tables.ok()) {
    if ((sqlite3_errcode(db_) & 0xff) == SQLITE_NOTADB)
      return Status::Error(path_ + ": not a hetbench results store (not an SQLite database)");
    return tables.status();
  }
  std::set<std::string> names;
  for (;;) {
    Result<bool> row = tables->Step();
    if (!row.ok() && (tables->rc() & 0xff) == SQLITE_NOTADB)
      return Status::Error(path_ + ": not a hetbench results store (not an SQLite database)");
    if (!row.ok()) return row.status();
    if (!*row) break;
    names.insert(tables->Text(0));
  }
  if (names.empty()) return 0;
  if (!names.count("meta")) {
    if (names.count("metadata") && names.count("testcases"))
      return Status::Error(path_ +
                           ": this is a ReFrame results database, not a hetbench store; "
                           "import it with `hetbench results import " +
                           path_ + "`");
    return Status::Error(path_ + ": not a hetbench results store (an SQLite database without a `meta` table)");
  }
  auto v = SqliteStmt::Prepare(db_, "SELECT value FROM meta WHERE key = 'schema_version'", path_);
  if (!v.ok()) return v.status();
  Result<bool> row = v->Step();
  if (!row.ok()) return row.status();
  std::string text = *row ? v->Text(0) : "";
  char* end = nullptr;
  long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || n < 1)
    return Status::Error(path_ + ": not a hetbench results store (schema_version is '" + text + "')");
  return static_cast<int>(n);
}

Status Store::Setup(const StoreOptions& opts) {
  sqlite3_busy_timeout(db_, static_cast<int>(busy_timeout_s_ * 1000));
  Status st = RegisterRegexp(db_);
  if (!st.ok()) return st;
  const std::vector<std::string>& steps = opts.migrations.empty() ? BuiltinMigrations() : opts.migrations;
  Result<int> version = ReadVersion();
  if (!version.ok()) return version.status();
  int known = static_cast<int>(steps.size());
  if (*version > known) return Newer(*version, known);
  // WAL: readers do not block the writer, and a killed writer's partial
  // transaction is ignored. NORMAL sync is safe against process crashes.
  for (int i = 0;; ++i) {
    st = Exec("PRAGMA journal_mode = WAL");
    if (st.ok() || !IsBusy(sqlite3_errcode(db_)) || i >= 50) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // A 10,000-case session is ~10 MB of pages: keep them in memory until
  // COMMIT instead of spilling them to the WAL mid-transaction.
  if (st.ok()) st = Exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -65536");
  if (!st.ok()) return st;
  version_ = *version;
  return *version < known ? Migrate(steps) : Status::OK();
}

Status Store::Newer(int found, int known) const {
  return Status::Error(path_ + ": results store schema version " + std::to_string(found) +
                       " is newer than this hetbench understands (" + std::to_string(known) +
                       "); upgrade hetbench, or use another store (--store)");
}

// Brings the store to steps.size() in one transaction; another process
// may have done it meanwhile, so the version is read again inside.
Status Store::Migrate(const std::vector<std::string>& steps) {
  int known = static_cast<int>(steps.size());
  return WriteTransaction([&]() -> Status {
    Result<int> v = ReadVersion();
    if (!v.ok()) return v.status();
    if (*v > known) return Newer(*v, known);
    for (int i = *v; i < known; ++i) {
      Status st = Exec(steps[i]);
      if (!st.ok()) return st.Prefixed("migrating to schema version " + std::to_string(i + 1));
    }
    std::string sql = "INSERT INTO meta(key, value) VALUES ('schema_version', '" + std::to_string(known) +
                      "') ON CONFLICT(key) DO UPDATE SET value = excluded.value;"
                      "INSERT OR IGNORE INTO meta(key, value) VALUES ('created_by', 'hetbench " +
                      std::string(HETBENCH_VERSION) + "')";
    Status st = Exec(sql);
    if (st.ok()) version_ = known;
    return st;
  });
}

// ---- writing ----

Status Store::WriteTransaction(const std::function<Status()>& body) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(busy_timeout_s_);
  std::minstd_rand jitter(static_cast<unsigned>(::getpid()));
  for (int attempt = 0;; ++attempt) {
    Status st = Exec("BEGIN IMMEDIATE");
    if (st.ok()) {
      st = body();
      if (st.ok()) st = Exec("COMMIT");
    }
    int rc = sqlite3_errcode(db_);
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    if (st.ok() || !IsBusy(rc) || Clock::now() > deadline) return st;
    int ms = std::min(500, 5 << std::min(attempt, 7)) + static_cast<int>(jitter() % 10);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
}

Result<bool> Store::Add(const SessionInfo& s, const std::vector<CaseResult>& cases, const AddOptions& opts) {
  std::map<std::string, std::string> sha = opts.hash_files ? HashFiles(cases) : std::map<std::string, std::string>();
  StoredSession counts;
  Count(cases, &counts);
  bool skipped = false;
  Status st = WriteTransaction([&]() -> Status {
    auto exists = SqliteStmt::Prepare(db_, "SELECT 1 FROM sessions WHERE session_id = ?", path_);
    if (!exists.ok()) return exists.status();
    Result<bool> found = exists->Bind(1, s.session_id).Step();
    if (!found.ok()) return found.status();
    if (*found && opts.skip_existing) {
      skipped = true;
      return Status::OK();
    }
    if (*found) return Status::Error(path_ + ": session " + s.session_id + " is already in the store");
    auto ins = SqliteStmt::Prepare(db_,
                                   "INSERT INTO sessions(" + Join(kSessionColumns, ",") + ") VALUES (" +
                                       Placeholders(kSessionColumns.size()) + ")",
                                   path_);
    if (!ins.ok()) return ins.status();
    BindSession(*ins, s, opts.source, counts);
    Status done = ins->Run();
    if (!done.ok()) return done;
    int64_t session_row = sqlite3_last_insert_rowid(db_);
    auto ci = SqliteStmt::Prepare(db_,
                                  "INSERT INTO cases(session_row," + Join(kCaseColumns, ",") + ") VALUES (?," +
                                      Placeholders(kCaseColumns.size()) + ")",
                                  path_);
    auto pi = SqliteStmt::Prepare(db_,
                                  "INSERT INTO perf(case_row, name, value, unit, reference, lower_thres, "
                                  "upper_thres, result, message, figure_of_merit, better) "
                                  "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                                  path_);
    if (!ci.ok()) return ci.status();
    if (!pi.ok()) return pi.status();
    for (const auto& c : cases) {
      ci->Bind(1, session_row);
      auto it = sha.find(c.file);
      BindCase(*ci, 2, c, it == sha.end() ? "" : it->second);
      if (Status r = ci->Run(); !r.ok()) return r;
      ci->Reset();
      int64_t case_row = sqlite3_last_insert_rowid(db_);
      for (const auto& p : c.perf) {
        BindPerf(*pi, case_row, p);
        if (Status r = pi->Run(); !r.ok()) return r;
        pi->Reset();
      }
    }
    return Status::OK();
  });
  if (!st.ok()) return st;
  return !skipped;
}

Result<std::vector<std::string>> Store::Delete(const std::vector<std::string>& ids) {
  std::vector<std::string> deleted;
  Status st = WriteTransaction([&]() -> Status {
    deleted.clear();
    auto del = SqliteStmt::Prepare(db_, "DELETE FROM sessions WHERE session_id = ?", path_);
    if (!del.ok()) return del.status();
    for (const auto& id : ids) {
      Result<std::string> full = ResolveSession(id);
      if (!full.ok()) return full.status();
      if (Status r = del->Bind(1, *full).Run(); !r.ok()) return r;
      del->Reset();
      deleted.push_back(*full);
    }
    return Status::OK();
  });
  if (!st.ok()) return st;
  return deleted;
}

Status Store::CheckIntegrity() {
  auto q = SqliteStmt::Prepare(db_, "PRAGMA integrity_check", path_);
  if (!q.ok()) return q.status();
  std::vector<std::string> problems;
  for (Result<bool> row = q->Step();; row = q->Step()) {
    if (!row.ok()) return row.status();
    if (!*row) break;
    if (q->Text(0) != "ok") problems.push_back(q->Text(0));
  }
  if (problems.empty()) return Status::OK();
  return Status::Error(path_ + ": integrity check failed: " + Join(problems, "; "));
}

}  // namespace hb
