// Store: the results store, one SQLite file that keeps every session
// `hetbench run` finished (and every one imported), its cases and their
// performance values, for later queries (`hetbench results`).
//
// A format hetbench owns, so it is versioned: the `meta` table holds
// schema_version. Opening a store of an older version migrates it, all
// steps in one transaction; a store of a newer version is refused with a
// message naming both versions. Tables (schema version 1):
//   meta(key, value)                 schema_version, created_by
//   sessions(id, session_id, source, version, hostname, user, argv,
//            system, prefix, config_files, start_time, end_time, exit_code)
//   cases(id, session_row -> sessions, case_id, name, display_name,
//         unique_name, descr, file, file_sha256, parameters, tags,
//         maintainers, system, partition, environ, result, fail_stage,
//         fail_reason, repetition, attempt, start_time, end_time, timings,
//         job_id, job_state, exit_code, nodelist, job_*_time, num_tasks,
//         num_tasks_per_node, num_cpus_per_task, num_gpus_per_node,
//         exclusive_access, env_vars, modules, extra_resources, stagedir,
//         outputdir)
//   perf(id, case_row -> cases, name, value, unit, reference, lower_thres,
//        upper_thres, result, message)
// Version 2 adds utf8_replaced to sessions and cases: a JSON list of the
// pointers ("/fail_reason") of the fields whose bytes were not UTF-8 and
// became U+FFFD. Version 3 adds figure_of_merit and better to perf: what
// the test declared of the variable (check/reference.h, PerfResult);
// version 4 adds scaling_axes to cases (the test's, a JSON list).
// Lists and maps are JSON text; times are seconds since the epoch. Deleting
// a session deletes its cases and their values (ON DELETE CASCADE).
//
// Several processes may write one store at once: the file is in WAL mode,
// every write is one BEGIN IMMEDIATE transaction that waits for the others
// (busy_timeout) and is retried if SQLite still answers SQLITE_BUSY. A
// process killed mid-write leaves the store as it was before its
// transaction. A Store object is one connection: use it from one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/case_result.h"
#include "util/status.h"

struct sqlite3;

namespace hb {

inline constexpr int kStoreSchemaVersion = 4;

// A session as the store lists it: what `hetbench run` knew, where it came
// from ("hetbench", "hetbench-report", "reframe-perflog", "reframe-db")
// and how its cases ended.
struct StoredSession {
  SessionInfo info;
  std::string source;
  int total = 0, passed = 0, failed = 0, skipped = 0, cancelled = 0;
  // JSON pointers of the fields whose bytes were not UTF-8 and became
  // U+FFFD when stored (run_report.h, InvalidUtf8Fields).
  std::vector<std::string> utf8_replaced;
};

struct StoredCase {
  std::string session_id;
  std::string file_sha256;  // of the test file when the case ran; "" = unknown
  CaseResult c;
  std::vector<std::string> utf8_replaced;  // as in StoredSession
};

// Filters of `hetbench results`; empty fields select everything.
struct StoreQuery {
  std::vector<std::string> names;      // regexes searched in the name or display name; any may match
  std::vector<std::string> tags;       // regexes; every one must match one of the case's tags
  std::string system, partition;       // exact names
  std::optional<double> since, until;  // [since, until) on the start time
  std::string session;                 // a session id or a unique prefix of one
  std::vector<std::string> sessions;   // more: any of these (ids or unique prefixes)
};

// Performance values flat, for analyses over many of them (`hetbench
// compare`, `hetbench report`): each value names its series (a test case's
// variable on one system, partition and environment) and its session by
// index, so a million values cost a million small structs.
struct PerfSeriesKey {
  std::string name, display_name;  // the test, and the case with its parameters
  std::string system, partition, environ;
  std::string var, unit;
  std::string parameters;  // the case's parameters as JSON text ({"n": "128"})
  // What the test declares of the variable, as its latest value says; not
  // part of the series' identity.
  std::string better;  // "higher", "lower" or "" (by the unit)
  bool figure_of_merit = false;
  std::vector<std::string> scaling_axes;  // the test's scaling_axes
  bool operator==(const PerfSeriesKey& o) const {
    return name == o.name && display_name == o.display_name && system == o.system && partition == o.partition &&
           environ == o.environ && var == o.var && unit == o.unit && parameters == o.parameters;
  }
};
struct PerfPoint {
  int series = 0;   // index into PerfTable::series
  int session = 0;  // index into PerfTable::sessions
  double time = 0;  // the case's start time
  double value = 0;
  double ref = 0, lower = 0, upper = 0;  // reference and thresholds (ReferenceBounds' meaning)
  bool has_ref = false, has_lower = false, has_upper = false;
  bool passed = false;  // the case passed
  int repetition = 0;
  int num_tasks = 1, num_gpus_per_node = 0;
};
struct PerfTableSession {
  std::string session_id, system, hostname;
  double start_time = 0;
};
struct PerfTable {
  std::vector<PerfTableSession> sessions;  // oldest first
  std::vector<PerfSeriesKey> series;       // in order of first appearance
  std::vector<PerfPoint> points;           // by time, then session and store order
};

struct StoreOptions {
  bool create = true;          // create the file (and its folder) when missing
  double busy_timeout_s = 60;  // how long a write waits for other writers
  // The schema as migration steps: step i takes version i to i+1. Empty:
  // the built-in steps. Tests give their own to act as another version.
  std::vector<std::string> migrations;
};

struct AddOptions {
  std::string source = "hetbench";
  bool hash_files = true;      // record the SHA-256 of each case's test file
  bool skip_existing = false;  // a session already stored is left alone (else an error)
};

class Store {
 public:
  // Errors name the path: "PATH: not an SQLite database", "PATH: results
  // store schema version 3 is newer than this hetbench understands (1)...".
  static Result<std::unique_ptr<Store>> Open(const std::string& path, const StoreOptions& opts = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const { return version_; }

  // Writes one session with its cases and values in one transaction.
  // Returns false when skip_existing is set and the session is stored.
  Result<bool> Add(const SessionInfo& session, const std::vector<CaseResult>& cases, const AddOptions& opts = {});
  // Sessions that started in [since, until) and, when the query names
  // cases (names, tags, system), have one such case; oldest first.
  Result<std::vector<StoredSession>> Sessions(const StoreQuery& q);
  // Cases matching the query, oldest first, with their performance values.
  Result<std::vector<StoredCase>> Cases(const StoreQuery& q);
  // The performance values of the cases matching the query.
  Result<PerfTable> Perf(const StoreQuery& q);
  // The session with this id, or the only one whose id starts with it.
  Result<StoredSession> FindSession(const std::string& id_or_prefix);
  // Deletes the sessions (ids or unique prefixes) in one transaction; an
  // unknown one is an error and nothing is deleted. Returns the full ids.
  Result<std::vector<std::string>> Delete(const std::vector<std::string>& ids);
  // PRAGMA integrity_check: OK, or what it found.
  Status CheckIntegrity();

 private:
  Store(std::string path, sqlite3* db, double busy_timeout_s)
      : path_(std::move(path)), db_(db), busy_timeout_s_(busy_timeout_s) {}
  Status Setup(const StoreOptions& opts);
  Status Migrate(const std::vector<std::string>& steps);
  // Runs `body` in BEGIN IMMEDIATE ... COMMIT, again while SQLite says busy.
  Status WriteTransaction(const std::function<Status()>& body);
  Status Exec(const std::string& sql);
  Status Newer(int found, int known) const;
  Result<int> ReadVersion();
  Result<std::string> ResolveSession(const std::string& id_or_prefix);
  // The full ids of q.session and q.sessions.
  Result<std::vector<std::string>> ResolveSessions(const StoreQuery& q);

  std::string path_;
  sqlite3* db_;
  double busy_timeout_s_;
  int version_ = 0;
};

// Where the store is, for `hetbench run` and `hetbench results`:
// --store PATH, else $HETBENCH_STORE, else the configuration's `storage`
// entry for the system (ReFrame's keys: `sqlite_db_file`, with $VAR and
// ${VAR} expanded, and `enable`; hetbench stores unless enable is false),
// else $XDG_DATA_HOME/hetbench/results.db (~/.local/share/hetbench/...).
struct StoreLocation {
  std::string path;            // absolute
  std::string origin;          // "--store", "HETBENCH_STORE", "configuration", "default"
  bool enabled = true;         // false after --no-store or `enable: false`
  double busy_timeout_s = 60;  // the entry's sqlite_conn_timeout, if any
};
using EnvLookup = std::function<std::string(const std::string&)>;  // "" = unset
// The process's environment as an EnvLookup.
std::string ProcessEnv(const std::string& name);
StoreLocation LocateStore(const std::string& flag, bool no_store, const nlohmann::json& storage_entry,
                          const EnvLookup& env);
// $VAR and ${VAR} replaced with their values ("" when unset), as Python's
// os.path.expandvars does except that it keeps unset names.
std::string ExpandVars(const std::string& text, const EnvLookup& env);

// A time for --since/--until: an ISO 8601 date or time (2024-05-01,
// 2024-05-01T12:30, 2024-05-01 12:30:00, with Z or +HH:MM, else local
// time), "now", or an age before `now` such as 7d, 24h, 30m, 1h30m.
Result<double> ParseTimeSpec(const std::string& text, double now);

}  // namespace hb
