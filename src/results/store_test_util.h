// For the results store's unit tests (store_test.cc, store_open_test.cc):
// results, sessions and queries built in a line each, and raw SQL on a
// store file. A header for tests only.
#pragma once

#include "results/store.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "util/fs.h"
#include "util/sha256.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {

inline PerfResult Perf(const std::string& name, double value, const std::string& unit,
                       std::optional<Reference> ref = {}, const std::string& verdict = "none") {
  PerfResult p;
  p.name = name;
  p.value = value;
  p.unit = unit;
  p.reference = ref;
  p.verdict = verdict;
  return p;
}

inline CaseResult Case(const std::string& name, const std::string& system, const std::string& part, double start,
                       const std::string& result = "pass") {
  CaseResult c;
  c.name = name;
  c.display_name = name;
  c.id = name + "@" + system + ":" + part + "+builtin";
  c.system = system;
  c.partition = part;
  c.environ = "builtin";
  c.result = result;
  c.start_time = start;
  c.end_time = start + 1.5;
  return c;
}

inline SessionInfo Session(const std::string& id, double start) {
  SessionInfo s;
  s.session_id = id;
  s.version = "0.1.0";
  s.hostname = "login01";
  s.user = "alice";
  s.argv = {"hetbench", "run", "-c", "tests/"};
  s.system = "hpc";
  s.prefix = "/scratch/alice";
  s.config_files = {"site.yaml"};
  s.start_time = start;
  s.end_time = start + 60;
  return s;
}

// A fully filled case: every column of the cases table is exercised.
inline CaseResult FullCase(const std::string& file) {
  CaseResult c = Case("stream", "hpc", "gpu", 1000.25, "fail");
  c.display_name = "stream %threads=2 %size=big";
  c.unique_name = "stream_3";
  c.descr = "STREAM triad";
  c.file = file;
  c.parameters = {{"threads", "2"}, {"size", "big"}};
  c.tags = {"memory", "nightly"};
  c.maintainers = {"bob"};
  c.environ = "gnu";
  c.fail_stage = "performance";
  c.fail_reason = "triad 10 GB/s is 50% below reference 20 (allowed -10%)";
  c.repetition = 1;
  c.attempt = 2;
  c.timings = {{"setup", 0.01}, {"run", 1.25}};
  c.job_id = "4242";
  c.job_state = "COMPLETED";
  c.exit_code = 0;
  c.nodelist = {"nid001", "nid002"};
  c.job_submit_time = 999.5;
  c.job_completion_time = 1001.5;
  c.job_noticed_time = 1001.75;
  c.num_tasks = 8;
  c.num_tasks_per_node = 4;
  c.num_cpus_per_task = 2;
  c.num_gpus_per_node = 1;
  c.exclusive_access = true;
  c.env_vars = {{"OMP_NUM_THREADS", "2"}, {"A", "b c"}};
  c.modules = {"gcc/12", "cuda"};
  c.extra_resources = {{"gpu", {{"num_gpus_per_node", "1"}}}};
  c.stagedir = "/scratch/stage/x";
  c.outputdir = "/scratch/output/x";
  c.perf = {Perf("triad", 10, "GB/s", Reference{20, -0.1, std::nullopt, "GB/s", {}}, "fail"),
            Perf("copy", 12.5, "GB/s")};
  c.perf[0].message = "triad 10 GB/s is 50% below reference 20 (allowed -10%)";
  return c;
}

// Queries and options without designated initializers (GCC 12 warns
// about the members they leave out).
inline StoreQuery Names(std::vector<std::string> names) {
  StoreQuery q;
  q.names = std::move(names);
  return q;
}
inline StoreQuery Tags(std::vector<std::string> tags) {
  StoreQuery q;
  q.tags = std::move(tags);
  return q;
}
inline StoreQuery On(const std::string& system, const std::string& partition = "") {
  StoreQuery q;
  q.system = system;
  q.partition = partition;
  return q;
}
inline StoreQuery Between(std::optional<double> since, std::optional<double> until = std::nullopt) {
  StoreQuery q;
  q.since = since;
  q.until = until;
  return q;
}
inline StoreQuery InSession(const std::string& id) {
  StoreQuery q;
  q.session = id;
  return q;
}
inline StoreOptions Existing() {
  StoreOptions o;
  o.create = false;
  return o;
}
inline StoreOptions Steps(std::vector<std::string> steps) {
  StoreOptions o;
  o.migrations = std::move(steps);
  return o;
}
inline AddOptions SkipExisting() {
  AddOptions o;
  o.skip_existing = true;
  return o;
}

inline std::unique_ptr<Store> MustOpen(const std::string& path, const StoreOptions& opts = {}) {
  auto s = Store::Open(path, opts);
  EXPECT_TRUE(s.ok()) << s.status().str();
  return s.ok() ? std::move(s).value() : nullptr;
}

// A value from the file, read with plain SQLite (not through Store).
inline std::string Sql(const std::string& path, const std::string& query) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(st, 0);
    out = t ? reinterpret_cast<const char*>(t) : "NULL";
  } else {
    out = std::string("error: ") + sqlite3_errmsg(db);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

inline void SqlExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

}  // namespace hb
