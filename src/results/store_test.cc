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

#include "util/sha256.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

PerfResult Perf(const std::string& name, double value, const std::string& unit, std::optional<Reference> ref = {},
                const std::string& verdict = "none") {
  PerfResult p;
  p.name = name;
  p.value = value;
  p.unit = unit;
  p.reference = ref;
  p.verdict = verdict;
  return p;
}

CaseResult Case(const std::string& name, const std::string& system, const std::string& part, double start,
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

SessionInfo Session(const std::string& id, double start) {
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
CaseResult FullCase(const std::string& file) {
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
StoreQuery Names(std::vector<std::string> names) {
  StoreQuery q;
  q.names = std::move(names);
  return q;
}
StoreQuery Tags(std::vector<std::string> tags) {
  StoreQuery q;
  q.tags = std::move(tags);
  return q;
}
StoreQuery On(const std::string& system, const std::string& partition = "") {
  StoreQuery q;
  q.system = system;
  q.partition = partition;
  return q;
}
StoreQuery Between(std::optional<double> since, std::optional<double> until = std::nullopt) {
  StoreQuery q;
  q.since = since;
  q.until = until;
  return q;
}
StoreQuery InSession(const std::string& id) {
  StoreQuery q;
  q.session = id;
  return q;
}
StoreOptions Existing() {
  StoreOptions o;
  o.create = false;
  return o;
}
StoreOptions Steps(std::vector<std::string> steps) {
  StoreOptions o;
  o.migrations = std::move(steps);
  return o;
}
AddOptions SkipExisting() {
  AddOptions o;
  o.skip_existing = true;
  return o;
}

std::unique_ptr<Store> MustOpen(const std::string& path, const StoreOptions& opts = {}) {
  auto s = Store::Open(path, opts);
  EXPECT_TRUE(s.ok()) << s.status().str();
  return s.ok() ? std::move(s).value() : nullptr;
}

// A value from the file, read with plain SQLite (not through Store).
std::string Sql(const std::string& path, const std::string& query) {
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

void SqlExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

TEST(Store, NewStoreIsWalWithSchemaVersion) {
  TempDir dir;
  std::string path = dir / "sub/dir/results.db";
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->schema_version(), kStoreSchemaVersion);
  EXPECT_EQ(Sql(path, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(Sql(path, "SELECT value FROM meta WHERE key = 'schema_version'"), std::to_string(kStoreSchemaVersion));
  EXPECT_TRUE(StartsWith(Sql(path, "SELECT value FROM meta WHERE key = 'created_by'"), "hetbench "));
  // The indexes the queries use.
  for (const char* index : {"cases_by_name", "cases_by_system", "cases_by_time", "cases_by_session", "perf_by_case",
                            "sessions_by_time"}) {
    EXPECT_EQ(Sql(path, std::string("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '") + index +
                            "'"),
              "1")
        << index;
  }
}

// issue 16: bytes that are not UTF-8 (a job's Latin-1 stderr in the
// failure reason, a system name with 0xFF) are stored as U+FFFD, and the
// store says which fields were changed.
TEST(Store, InvalidUtf8IsReplacedAndRecorded) {
  TempDir dir;
  std::string path = dir / "results.db";
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  SessionInfo session = Session("s1", 1000);
  session.system = "box\xff";
  CaseResult latin1 = Case("latin1", "box\xff", "cpu", 1001, "fail");
  latin1.fail_reason = "sanity: Gr\xfc\xdf" "e not found";
  CaseResult clean = Case("clean", "box", "cpu", 1002);
  ASSERT_TRUE(store->Add(session, {latin1, clean}).ok());
  EXPECT_EQ(Sql(path, "SELECT utf8_replaced FROM sessions"), "[\"/system\"]");
  EXPECT_EQ(Sql(path, "SELECT fail_reason FROM cases WHERE name = 'latin1'"), "sanity: Gr\uFFFD\uFFFDe not found");
  EXPECT_EQ(Sql(path, "SELECT utf8_replaced FROM cases WHERE name = 'clean'"), "[]");
  auto cases = store->Cases({});
  ASSERT_TRUE(cases.ok()) << cases.status().str();
  ASSERT_EQ(cases->size(), 2u);
  std::vector<std::string> replaced = (*cases)[0].utf8_replaced;
  std::sort(replaced.begin(), replaced.end());
  EXPECT_EQ(replaced, (std::vector<std::string>{"/fail_reason", "/id", "/system"}));
  EXPECT_TRUE((*cases)[1].utf8_replaced.empty());
  auto sessions = store->Sessions({});
  ASSERT_TRUE(sessions.ok());
  EXPECT_EQ((*sessions)[0].utf8_replaced, std::vector<std::string>{"/system"});
}

// issue 17: what the test declared of a variable is kept, and the value
// series carry it.
TEST(Store, FigureOfMeritAndBetterAreKept) {
  TempDir dir;
  std::string path = dir / "results.db";
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  CaseResult c = Case("train", "x", "y", 1001);
  PerfResult tput, loss;
  tput.name = "throughput";
  tput.value = 120;
  tput.unit = "samples/s";
  tput.figure_of_merit = true;
  loss.name = "loss";
  loss.value = 0.5;
  loss.better = "lower";
  c.perf = {tput, loss};
  c.scaling_axes = {"ranks"};
  ASSERT_TRUE(store->Add(Session("s1", 1000), {c}).ok());
  EXPECT_EQ(Sql(path, "SELECT group_concat(name || ':' || figure_of_merit || ':' || better, ' ') FROM "
                      "(SELECT * FROM perf ORDER BY id)"),
            "throughput:1: loss:0:lower");
  auto cases = store->Cases({});
  ASSERT_TRUE(cases.ok());
  EXPECT_TRUE((*cases)[0].c.perf[0].figure_of_merit);
  EXPECT_EQ((*cases)[0].c.perf[1].better, "lower");
  auto table = store->Perf({});
  ASSERT_TRUE(table.ok()) << table.status().str();
  ASSERT_EQ(table->series.size(), 2u);
  EXPECT_TRUE(table->series[0].figure_of_merit);
  EXPECT_EQ(table->series[1].better, "lower");
  EXPECT_EQ(table->series[0].scaling_axes, std::vector<std::string>{"ranks"});
  EXPECT_EQ((*cases)[0].c.scaling_axes, std::vector<std::string>{"ranks"});
}

// A store of schema version 1 (before utf8_replaced and figure_of_merit) is migrated when
// opened: its rows are kept and read as having nothing replaced.
TEST(Store, VersionOneStoresAreMigrated) {
  TempDir dir;
  std::string path = dir / "results.db";
  {
    auto store = MustOpen(path);
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->Add(Session("s1", 1000), {Case("a", "x", "y", 1001)}).ok());
  }
  SqlExec(path, "ALTER TABLE cases DROP COLUMN utf8_replaced; ALTER TABLE sessions DROP COLUMN utf8_replaced; "
                "ALTER TABLE perf DROP COLUMN figure_of_merit; ALTER TABLE perf DROP COLUMN better; "
                "ALTER TABLE cases DROP COLUMN scaling_axes; "
                "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
  auto store = MustOpen(path, Existing());
  ASSERT_TRUE(store);
  EXPECT_EQ(store->schema_version(), kStoreSchemaVersion);
  EXPECT_EQ(Sql(path, "SELECT value FROM meta WHERE key = 'schema_version'"), std::to_string(kStoreSchemaVersion));
  auto cases = store->Cases({});
  ASSERT_TRUE(cases.ok()) << cases.status().str();
  ASSERT_EQ(cases->size(), 1u);
  EXPECT_EQ((*cases)[0].c.name, "a");
  EXPECT_TRUE((*cases)[0].utf8_replaced.empty());
}

TEST(Store, RoundTripsEveryField) {
  TempDir dir;
  std::string test_file = dir.Write("stream.yaml", "name: stream\n");
  std::string path = dir / "results.db";
  {
    auto store = MustOpen(path);
    ASSERT_TRUE(store);
    auto added = store->Add(Session("s1", 1000), {FullCase(test_file), Case("hello", "hpc", "cpu", 1002)});
    ASSERT_TRUE(added.ok()) << added.status().str();
    EXPECT_TRUE(*added);
  }
  auto store = MustOpen(path, Existing());
  ASSERT_TRUE(store);
  auto sessions = store->Sessions({});
  ASSERT_TRUE(sessions.ok()) << sessions.status().str();
  ASSERT_EQ(sessions->size(), 1u);
  const StoredSession& s = (*sessions)[0];
  EXPECT_EQ(s.info.session_id, "s1");
  EXPECT_EQ(s.source, "hetbench");
  EXPECT_EQ(s.info.argv, (std::vector<std::string>{"hetbench", "run", "-c", "tests/"}));
  EXPECT_EQ(s.info.config_files, std::vector<std::string>{"site.yaml"});
  EXPECT_EQ(s.info.hostname, "login01");
  EXPECT_EQ(s.info.user, "alice");
  EXPECT_EQ(s.info.prefix, "/scratch/alice");
  EXPECT_DOUBLE_EQ(s.info.end_time, 1060);
  EXPECT_EQ(s.total, 2);
  EXPECT_EQ(s.passed, 1);
  EXPECT_EQ(s.failed, 1);

  auto cases = store->Cases({});
  ASSERT_TRUE(cases.ok()) << cases.status().str();
  ASSERT_EQ(cases->size(), 2u);
  const StoredCase& sc = (*cases)[0];
  const CaseResult want = FullCase(test_file);
  const CaseResult& c = sc.c;
  EXPECT_EQ(sc.session_id, "s1");
  EXPECT_EQ(sc.file_sha256, Sha256Hex("name: stream\n"));
  EXPECT_EQ(c.id, want.id);
  EXPECT_EQ(c.display_name, want.display_name);
  EXPECT_EQ(c.unique_name, "stream_3");
  EXPECT_EQ(c.parameters, want.parameters);  // in their order
  EXPECT_EQ(c.tags, want.tags);
  EXPECT_EQ(c.maintainers, want.maintainers);
  EXPECT_EQ(c.environ, "gnu");
  EXPECT_EQ(c.result, "fail");
  EXPECT_EQ(c.fail_stage, "performance");
  EXPECT_EQ(c.fail_reason, want.fail_reason);
  EXPECT_EQ(c.repetition, 1);
  EXPECT_EQ(c.attempt, 2);
  EXPECT_DOUBLE_EQ(c.start_time, 1000.25);
  ASSERT_EQ(c.timings.size(), 2u);
  EXPECT_EQ(c.timings[1].stage, "run");
  EXPECT_DOUBLE_EQ(c.timings[1].seconds, 1.25);
  EXPECT_EQ(c.job_id, "4242");
  EXPECT_EQ(c.job_state, "COMPLETED");
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.nodelist, want.nodelist);
  EXPECT_DOUBLE_EQ(c.job_submit_time, 999.5);
  EXPECT_DOUBLE_EQ(c.job_completion_time, 1001.5);
  EXPECT_DOUBLE_EQ(c.job_noticed_time, 1001.75);
  EXPECT_EQ(c.num_tasks, 8);
  EXPECT_EQ(c.num_tasks_per_node, 4);
  EXPECT_EQ(c.num_cpus_per_task, 2);
  EXPECT_EQ(c.num_gpus_per_node, 1);
  EXPECT_TRUE(c.exclusive_access);
  EXPECT_EQ(c.env_vars, want.env_vars);
  EXPECT_EQ(c.modules, want.modules);
  EXPECT_EQ(c.extra_resources, want.extra_resources);
  EXPECT_EQ(c.stagedir, want.stagedir);
  EXPECT_EQ(c.outputdir, want.outputdir);
  ASSERT_EQ(c.perf.size(), 2u);
  EXPECT_EQ(c.perf[0].name, "triad");
  EXPECT_DOUBLE_EQ(c.perf[0].value, 10);
  EXPECT_EQ(c.perf[0].unit, "GB/s");
  ASSERT_TRUE(c.perf[0].reference);
  EXPECT_DOUBLE_EQ(c.perf[0].reference->value, 20);
  EXPECT_EQ(c.perf[0].reference->lower, -0.1);
  EXPECT_FALSE(c.perf[0].reference->upper);
  EXPECT_EQ(c.perf[0].verdict, "fail");
  EXPECT_EQ(c.perf[0].message, want.perf[0].message);
  EXPECT_FALSE(c.perf[1].reference);
  EXPECT_EQ(c.perf[1].verdict, "none");
  EXPECT_EQ((*cases)[1].c.name, "hello");
  EXPECT_TRUE(store->CheckIntegrity().ok());
}

TEST(Store, SessionAlreadyStored) {
  TempDir dir;
  auto store = MustOpen(dir / "r.db");
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Add(Session("s1", 1), {Case("a", "x", "y", 1)}).ok());
  auto again = store->Add(Session("s1", 1), {Case("a", "x", "y", 1)});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("session s1 is already in the store"), std::string::npos);
  auto skipped = store->Add(Session("s1", 1), {Case("a", "x", "y", 1)}, SkipExisting());
  ASSERT_TRUE(skipped.ok());
  EXPECT_FALSE(*skipped);
  EXPECT_EQ(store->Cases({})->size(), 1u);
}

class StoreQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = MustOpen(dir_ / "r.db");
    ASSERT_TRUE(store_);
    CaseResult a = Case("stream", "hpc", "gpu", 1000);
    a.tags = {"memory", "nightly"};
    CaseResult b = Case("stream", "hpc", "cpu", 1100);
    b.tags = {"memory"};
    CaseResult c = Case("osu_latency", "hpc", "cpu", 1200, "fail");
    c.display_name = "osu_latency %size=8";
    c.tags = {"network", "nightly"};
    ASSERT_TRUE(store_->Add(Session("20240501T100000-1", 1000), {a, b}).ok());
    ASSERT_TRUE(store_->Add(Session("20240502T100000-2", 1200), {c}).ok());
    ASSERT_TRUE(store_->Add(Session("20240503T100000-3", 1300), {}).ok());
  }
  std::vector<std::string> CaseKeys(const StoreQuery& q) {
    auto cases = store_->Cases(q);
    EXPECT_TRUE(cases.ok()) << cases.status().str();
    std::vector<std::string> out;
    if (cases.ok())
      for (const auto& c : *cases) out.push_back(c.c.name + "@" + c.c.partition);
    return out;
  }
  std::vector<std::string> SessionIds(const StoreQuery& q) {
    auto s = store_->Sessions(q);
    EXPECT_TRUE(s.ok()) << s.status().str();
    std::vector<std::string> out;
    if (s.ok())
      for (const auto& x : *s) out.push_back(x.info.session_id);
    return out;
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

using Keys = std::vector<std::string>;

TEST_F(StoreQueryTest, ByNameRegexSearchedInNameOrDisplayName) {
  EXPECT_EQ(CaseKeys(Names({"^str"})), (Keys{"stream@gpu", "stream@cpu"}));
  EXPECT_EQ(CaseKeys(Names({"size=8"})), Keys{"osu_latency@cpu"});
  EXPECT_EQ(CaseKeys(Names({"nomatch", "osu"})), Keys{"osu_latency@cpu"});
}

TEST_F(StoreQueryTest, ByTagsAllMustMatch) {
  EXPECT_EQ(CaseKeys(Tags({"nightly"})), (Keys{"stream@gpu", "osu_latency@cpu"}));
  EXPECT_EQ(CaseKeys(Tags({"nightly", "^mem"})), Keys{"stream@gpu"});
}

TEST_F(StoreQueryTest, BySystemPartitionTimeAndSession) {
  EXPECT_EQ(CaseKeys(On("hpc", "cpu")), (Keys{"stream@cpu", "osu_latency@cpu"}));
  EXPECT_EQ(CaseKeys(On("other")), Keys{});
  EXPECT_EQ(CaseKeys(Between(1100)), (Keys{"stream@cpu", "osu_latency@cpu"}));
  EXPECT_EQ(CaseKeys(Between(1000, 1100)), Keys{"stream@gpu"});
  EXPECT_EQ(CaseKeys(InSession("20240502")), Keys{"osu_latency@cpu"});
}

TEST_F(StoreQueryTest, SessionsByTimeAndByTheirCases) {
  EXPECT_EQ(SessionIds({}), (Keys{"20240501T100000-1", "20240502T100000-2", "20240503T100000-3"}));
  EXPECT_EQ(SessionIds(Between(1200)), (Keys{"20240502T100000-2", "20240503T100000-3"}));
  EXPECT_EQ(SessionIds(Tags({"nightly"})), (Keys{"20240501T100000-1", "20240502T100000-2"}));
  EXPECT_EQ(SessionIds(On("hpc", "gpu")), Keys{"20240501T100000-1"});
}

TEST_F(StoreQueryTest, SessionByUniquePrefix) {
  auto s = store_->FindSession("20240502");
  ASSERT_TRUE(s.ok()) << s.status().str();
  EXPECT_EQ(s->info.session_id, "20240502T100000-2");
  EXPECT_EQ(s->total, 1);
  EXPECT_EQ(s->failed, 1);
  auto ambiguous = store_->FindSession("2024050");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("session '2024050' is ambiguous: it starts 20240501T100000-1, "),
            std::string::npos)
      << ambiguous.status().message();
  auto missing = store_->FindSession("1999");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no session '1999' in the results store"), std::string::npos);
}

TEST_F(StoreQueryTest, BadRegexIsNamed) {
  auto r = store_->Cases(Names({"a("}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(StartsWith(r.status().message(), "-n/--name: invalid regex 'a('")) << r.status().message();
  auto t = store_->Sessions(Tags({"[x"}));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(StartsWith(t.status().message(), "-t/--tag: invalid regex '[x'")) << t.status().message();
}

TEST_F(StoreQueryTest, PerfTableFlatWithSeriesAndSessionsInTimeOrder) {
  // Added out of time order: the later session first.
  CaseResult late = Case("stream", "hpc", "gpu", 3000);
  late.perf = {Perf("bw", 11, "GB/s", Reference{10, -0.1, std::nullopt, "GB/s", {}}, "pass")};
  late.num_tasks = 4;
  ASSERT_TRUE(store_->Add(Session("20240506T100000-6", 3000), {late}).ok());
  CaseResult early = Case("stream", "hpc", "gpu", 2000, "fail");
  early.perf = {Perf("bw", 9, "GB/s"), Perf("lat", 2, "us")};
  early.parameters = {{"n", "8"}};
  early.display_name = "stream %n=8";
  ASSERT_TRUE(store_->Add(Session("20240505T100000-5", 2000), {early}).ok());
  auto t = store_->Perf(Between(1900));
  ASSERT_TRUE(t.ok()) << t.status().str();
  ASSERT_EQ(t->sessions.size(), 2u);
  EXPECT_EQ(t->sessions[0].session_id, "20240505T100000-5");
  EXPECT_EQ(t->sessions[1].session_id, "20240506T100000-6");
  ASSERT_EQ(t->series.size(), 3u);  // stream bw, stream %n=8 bw and lat
  ASSERT_EQ(t->points.size(), 3u);
  const PerfPoint& a = t->points[0];
  EXPECT_EQ(t->series[a.series].var, "bw");
  EXPECT_EQ(t->series[a.series].unit, "GB/s");
  EXPECT_EQ(t->series[a.series].system, "hpc");
  EXPECT_EQ(t->series[a.series].parameters, R"({"n":"8"})");
  EXPECT_EQ(a.session, 0);
  EXPECT_DOUBLE_EQ(a.value, 9);
  EXPECT_FALSE(a.passed);
  EXPECT_FALSE(a.has_ref);
  const PerfPoint& b = t->points[2];
  EXPECT_EQ(b.session, 1);
  EXPECT_EQ(t->series[b.series].var, "bw");
  EXPECT_NE(b.series, a.series);  // other parameters: another series
  EXPECT_TRUE(b.passed);
  EXPECT_TRUE(b.has_ref && b.has_lower && !b.has_upper);
  EXPECT_DOUBLE_EQ(b.lower, -0.1);
  EXPECT_EQ(b.num_tasks, 4);
  StoreQuery two;
  two.sessions = {"20240506", "20240505T100000-5"};
  EXPECT_EQ(store_->Perf(two)->points.size(), 3u);
  two.sessions = {"nope"};
  EXPECT_FALSE(store_->Perf(two).ok());
}

TEST_F(StoreQueryTest, DeleteTakesCasesAndValuesAlong) {
  std::string path = dir_ / "r.db";
  CaseResult p = Case("perf", "hpc", "gpu", 1400);
  p.perf = {Perf("bw", 1, "GB/s"), Perf("lat", 2, "us")};
  ASSERT_TRUE(store_->Add(Session("20240504T100000-4", 1400), {p}).ok());
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM perf"), "2");
  auto deleted = store_->Delete({"20240504", "20240501T100000-1"});
  ASSERT_TRUE(deleted.ok()) << deleted.status().str();
  EXPECT_EQ(*deleted, (Keys{"20240504T100000-4", "20240501T100000-1"}));
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM perf"), "0");
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM cases"), "1");
  EXPECT_EQ(SessionIds({}), (Keys{"20240502T100000-2", "20240503T100000-3"}));
}

TEST_F(StoreQueryTest, DeleteOfAnUnknownSessionDeletesNothing) {
  auto deleted = store_->Delete({"20240501T100000-1", "nope"});
  ASSERT_FALSE(deleted.ok());
  EXPECT_NE(deleted.status().message().find("no session 'nope'"), std::string::npos);
  EXPECT_EQ(SessionIds({}).size(), 3u);
}

// ---- bad stores ----

TEST(StoreOpen, RefusesAFileThatIsNotSqlite) {
  TempDir dir;
  std::string path = dir.Write("results.db", "this is a text file, not a database\n" + std::string(200, 'x'));
  auto s = Store::Open(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), path + ": not a hetbench results store (not an SQLite database)");
}

TEST(StoreOpen, RefusesANewerSchemaSayingBothVersions) {
  TempDir dir;
  std::string path = dir / "r.db";
  ASSERT_TRUE(MustOpen(path));
  SqlExec(path, "UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  auto s = Store::Open(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), path + ": results store schema version 7 is newer than this hetbench "
                                         "understands (" + std::to_string(kStoreSchemaVersion) +
                                         "); upgrade hetbench, or use another store (--store)");
}

TEST(StoreOpen, RefusesAnSqliteFileOfSomethingElse) {
  TempDir dir;
  std::string other = dir / "other.db";
  SqlExec(other, "CREATE TABLE t(x)");
  auto s = Store::Open(other);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), other + ": not a hetbench results store (an SQLite database without a `meta` table)");
  std::string rfm = dir / "rfm.db";
  SqlExec(rfm, "CREATE TABLE sessions(uuid TEXT PRIMARY KEY); CREATE TABLE testcases(name TEXT); "
               "CREATE TABLE metadata(schema_version TEXT)");
  auto r = Store::Open(rfm);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("this is a ReFrame results database, not a hetbench store; import it with "
                                      "`hetbench results import " + rfm + "`"),
            std::string::npos);
}

TEST(StoreOpen, UnusablePaths) {
  TempDir dir;
  auto folder = Store::Open(dir.path());
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.status().message(), dir.path() + ": is a folder, not a results store");
  std::string file = dir.Write("plain", "x");
  auto under_file = Store::Open(file + "/results.db");
  ASSERT_FALSE(under_file.ok());
  EXPECT_EQ(under_file.status().message(), "cannot open results store '" + file + "/results.db': Not a directory");
  auto missing = Store::Open(dir / "none.db", Existing());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "no results store at '" + (dir / "none.db") + "' (`hetbench run` creates it; see --store)");
  EXPECT_FALSE(PathExists(dir / "none.db"));
}

// A newer hetbench (more migration steps) upgrades the store in one
// transaction; a failing step leaves it as it was.
TEST(StoreOpen, MigratesAnOlderStoreInOneTransaction) {
  TempDir dir;
  std::string path = dir / "r.db";
  const std::string v1 = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); CREATE TABLE t (a)";
  const std::string v2 = "ALTER TABLE t ADD COLUMN b DEFAULT 7";
  {
    auto old = MustOpen(path, Steps({v1}));
    ASSERT_TRUE(old);
    EXPECT_EQ(old->schema_version(), 1);
  }
  SqlExec(path, "INSERT INTO t(a) VALUES (1)");
  {
    auto s = Store::Open(path, Steps({v1, v2, "CREATE TABLE u (x); NOT SQL"}));
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("migrating to schema version 3"), std::string::npos) << s.status().message();
    EXPECT_EQ(Sql(path, "SELECT value FROM meta WHERE key = 'schema_version'"), "1");
    EXPECT_EQ(Sql(path, "SELECT count(*) FROM sqlite_master WHERE name = 'u'"), "0");
    EXPECT_EQ(Sql(path, "SELECT count(*) FROM pragma_table_info('t') WHERE name = 'b'"), "0");
  }
  auto newer = MustOpen(path, Steps({v1, v2}));
  ASSERT_TRUE(newer);
  EXPECT_EQ(newer->schema_version(), 2);
  EXPECT_EQ(Sql(path, "SELECT a || ',' || b FROM t"), "1,7");
  // ... and the older hetbench now refuses it.
  auto older = Store::Open(path, Steps({v1}));
  ASSERT_FALSE(older.ok());
  EXPECT_NE(older.status().message().find("schema version 2 is newer than this hetbench understands (1)"),
            std::string::npos);
}

// ---- many cases, many writers, killed writers ----

std::vector<CaseResult> ManyCases(int n, double start) {
  std::vector<CaseResult> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    CaseResult c = Case("gen_" + std::to_string(i / 100), "bench", "local", start + i * 0.001);
    c.display_name = c.name + " %v=" + std::to_string(i % 100);
    c.parameters = {{"v", std::to_string(i % 100)}};
    c.id = c.display_name + "@bench:local+builtin";
    c.tags = {"bench", "gen"};
    c.file = "/tests/gen_" + std::to_string(i / 100) + ".yaml";
    c.timings = {{"setup", 0.001}, {"run", 0.01}, {"sanity", 0.0001}, {"performance", 0.0001}};
    c.job_id = std::to_string(10000 + i);
    c.nodelist = {"localhost"};
    c.perf = {Perf("value", 1.5, "s", Reference{1.5, -0.5, 0.5, "s", {}}, "pass")};
    out.push_back(std::move(c));
  }
  return out;
}

// The speed of this insert is measured by bench/store_bench.sh; here only
// that a session that large lands whole.
TEST(StoreLarge, OneSessionOf10000CasesLands) {
  TempDir dir;
  auto store = MustOpen(dir / "r.db");
  ASSERT_TRUE(store);
  std::vector<CaseResult> cases = ManyCases(10000, 5000);
  auto added = store->Add(Session("big", 5000), cases);
  ASSERT_TRUE(added.ok()) << added.status().str();
  EXPECT_EQ(store->Cases(InSession("big"))->size(), 10000u);
}

// Two cases far apart in a large session: their values are found by the
// binary search over case rows (the row ids are not dense), not by offset.
TEST(StoreLarge, PerfOfSparseCasesFindsTheirValues) {
  TempDir dir;
  auto store = MustOpen(dir / "r.db");
  ASSERT_TRUE(store);
  std::vector<CaseResult> cases = ManyCases(3000, 5000);
  cases[2999].perf[0].value = 7;
  ASSERT_TRUE(store->Add(Session("big", 5000), cases).ok());
  StoreQuery q;
  q.names = {"^gen_0 %v=0$", "^gen_29 %v=99$"};
  auto t = store->Perf(q);
  ASSERT_TRUE(t.ok()) << t.status().str();
  ASSERT_EQ(t->points.size(), 2u);
  EXPECT_EQ(t->series[t->points[0].series].display_name, "gen_0 %v=0");
  EXPECT_DOUBLE_EQ(t->points[0].value, 1.5);
  EXPECT_EQ(t->series[t->points[1].series].display_name, "gen_29 %v=99");
  EXPECT_DOUBLE_EQ(t->points[1].value, 7);
  EXPECT_EQ(store->Perf({})->points.size(), 3000u);
}

// Reads what a child wrote on the pipe so far (non-blocking after close).
std::string Drain(int fd) {
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

TEST(StoreConcurrency, ProcessesWritingAtOnceAllLand) {
  TempDir dir;
  std::string path = dir / "r.db";
  const int kProcs = 6, kSessions = 5, kCases = 300;
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(gate[1]);
      char ch;
      (void)::read(gate[0], &ch, 1);  // everyone starts when the gate closes
      auto store = Store::Open(path);
      if (!store.ok()) {
        std::fprintf(stderr, "child %d: %s\n", p, store.status().str().c_str());
        ::_exit(1);
      }
      std::vector<CaseResult> cases = ManyCases(kCases, 100 * p);
      for (int s = 0; s < kSessions; ++s) {
        auto added = (*store)->Add(Session("p" + std::to_string(p) + "-s" + std::to_string(s), 100 * p + s), cases);
        if (!added.ok()) {
          std::fprintf(stderr, "child %d: %s\n", p, added.status().str().c_str());
          ::_exit(1);
        }
      }
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  auto store = MustOpen(path);
  ASSERT_TRUE(store);
  EXPECT_EQ(store->Sessions({})->size(), static_cast<size_t>(kProcs * kSessions));
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM cases"), std::to_string(kProcs * kSessions * kCases));
  EXPECT_EQ(Sql(path, "SELECT count(*) FROM perf"), std::to_string(kProcs * kSessions * kCases));
  EXPECT_TRUE(store->CheckIntegrity().ok());
}

// A writer killed with SIGKILL in the middle of a big transaction, while
// its pages are being written to the WAL: what was committed before is all
// there, the partial session is not, and the store takes new sessions.
TEST(StoreCrash, KilledWriterLeavesEarlierSessionsIntact) {
  TempDir dir;
  bool killed_mid_write = false;
  for (int round = 0; round < 5 && !killed_mid_write; ++round) {
    std::string path = dir / ("r" + std::to_string(round) + ".db");
    int msgs[2];
    ASSERT_EQ(::pipe(msgs), 0);
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(msgs[0]);
      auto store = Store::Open(path);
      if (!store.ok()) ::_exit(1);
      for (int i = 0; i < 3; ++i)
        if (!(*store)->Add(Session("before-" + std::to_string(i), i), ManyCases(50, i)).ok()) ::_exit(1);
      std::vector<CaseResult> big = ManyCases(40000, 10000);
      (void)!::write(msgs[1], "A", 1);  // the first sessions are committed
      if (!(*store)->Add(Session("big", 10000), big).ok()) ::_exit(1);
      (void)!::write(msgs[1], "C", 1);  // the big one too
      ::_exit(0);
    }
    ::close(msgs[1]);
    char ch = 0;
    ASSERT_EQ(::read(msgs[0], &ch, 1), 1);
    // Kill it once the big transaction has written 4 MB of pages to the WAL.
    auto wal_size = [&] {
      struct stat sb {};
      return ::stat((path + "-wal").c_str(), &sb) == 0 ? sb.st_size : 0;
    };
    off_t start = wal_size();
    int status = 0;
    bool exited = false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (wal_size() < start + (4 << 20) && std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (!exited) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    std::string said = Drain(msgs[0]);
    ::close(msgs[0]);
    ASSERT_TRUE(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) << "status " << status;
    killed_mid_write = WIFSIGNALED(status) && said.find('C') == std::string::npos;
    if (killed_mid_write)
      std::printf("killed the writer with %.1f MB of its transaction in the WAL (round %d)\n",
                  static_cast<double>(wal_size() - start) / (1 << 20), round);

    auto store = MustOpen(path);
    ASSERT_TRUE(store);
    Status integrity = store->CheckIntegrity();
    EXPECT_TRUE(integrity.ok()) << integrity.str();
    for (int i = 0; i < 3; ++i) {
      auto s = store->FindSession("before-" + std::to_string(i));
      ASSERT_TRUE(s.ok()) << s.status().str();
      EXPECT_EQ(s->total, 50);
    }
    if (killed_mid_write) {
      EXPECT_FALSE(store->FindSession("big").ok()) << "the session being written when killed must not be there";
      EXPECT_EQ(Sql(path, "SELECT count(*) FROM cases"), "150");
      EXPECT_EQ(Sql(path, "SELECT count(*) FROM perf"), "150");
    }
    // The store takes new writes.
    EXPECT_TRUE(store->Add(Session("after", 1), ManyCases(10, 1)).ok());
    EXPECT_EQ(store->Sessions({})->size(), killed_mid_write ? 4u : 5u);
  }
  EXPECT_TRUE(killed_mid_write) << "no round killed the writer inside its transaction";
}

// ---- where the store is ----

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::string() : it->second;
  };
}

TEST(StoreLocation, FlagThenEnvironmentThenConfigurationThenDefault) {
  auto env = FakeEnv({{"HOME", "/home/alice"}, {"HETBENCH_STORE", "/env/r.db"}, {"SCRATCH", "/scratch"}});
  nlohmann::json entry = {{"sqlite_db_file", "${SCRATCH}/rfm/$USER_NOT_SET/results.db"}, {"sqlite_conn_timeout", 5}};
  StoreLocation flag = LocateStore("/flag/r.db", false, entry, env);
  EXPECT_EQ(flag.path, "/flag/r.db");
  EXPECT_EQ(flag.origin, "--store");
  EXPECT_TRUE(flag.enabled);
  EXPECT_EQ(flag.busy_timeout_s, 5);
  StoreLocation from_env = LocateStore("", false, entry, env);
  EXPECT_EQ(from_env.path, "/env/r.db");
  EXPECT_EQ(from_env.origin, "HETBENCH_STORE");
  auto no_env = FakeEnv({{"HOME", "/home/alice"}, {"SCRATCH", "/scratch"}});
  StoreLocation from_config = LocateStore("", false, entry, no_env);
  EXPECT_EQ(from_config.path, "/scratch/rfm/$USER_NOT_SET/results.db");
  EXPECT_EQ(from_config.origin, "configuration");
  StoreLocation dflt = LocateStore("", false, nlohmann::json::object(), no_env);
  EXPECT_EQ(dflt.path, "/home/alice/.local/share/hetbench/results.db");
  EXPECT_EQ(dflt.origin, "default");
  EXPECT_EQ(dflt.busy_timeout_s, 60);
  auto xdg = FakeEnv({{"HOME", "/home/alice"}, {"XDG_DATA_HOME", "/data"}});
  EXPECT_EQ(LocateStore("", false, {}, xdg).path, "/data/hetbench/results.db");
}

TEST(StoreLocation, NoStoreAndEnableFalseTurnItOff) {
  auto env = FakeEnv({{"HOME", "/h"}});
  EXPECT_FALSE(LocateStore("/x.db", true, {}, env).enabled);
  EXPECT_FALSE(LocateStore("", false, {{"enable", false}}, env).enabled);
  EXPECT_TRUE(LocateStore("", false, {{"enable", true}}, env).enabled);
  // --store and HETBENCH_STORE ask for the store in so many words.
  EXPECT_TRUE(LocateStore("/x.db", false, {{"enable", false}}, env).enabled);
}

TEST(StoreLocation, ExpandVarsAsPython) {
  auto env = FakeEnv({{"HOME", "/home/a"}, {"X_1", "v"}});
  EXPECT_EQ(ExpandVars("${HOME}/.reframe/results.db", env), "/home/a/.reframe/results.db");
  EXPECT_EQ(ExpandVars("$HOME/$X_1-$NOPE/${X_1}${", env), "/home/a/v-$NOPE/v${");
  EXPECT_EQ(ExpandVars("cost $5 $", env), "cost $5 $");
}

TEST(StoreTimeSpec, AgesDatesAndErrors) {
  const double now = 1714564800;  // 2024-05-01T12:00:00Z
  EXPECT_EQ(*ParseTimeSpec("now", now), now);
  EXPECT_EQ(*ParseTimeSpec("7d", now), now - 7 * 86400);
  EXPECT_EQ(*ParseTimeSpec("24h", now), now - 86400);
  EXPECT_EQ(*ParseTimeSpec("1h30m", now), now - 5400);
  EXPECT_EQ(*ParseTimeSpec("2024-05-01T12:00:00Z", now), now);
  EXPECT_EQ(*ParseTimeSpec("2024-05-01T14:00+02:00", now), now);
  EXPECT_EQ(*ParseTimeSpec("2024-05-01 11:00:30.5-0100", now), now + 30.5);
  struct tm tm {};
  tm.tm_year = 124;
  tm.tm_mon = 4;
  tm.tm_mday = 1;
  tm.tm_isdst = -1;
  EXPECT_EQ(*ParseTimeSpec("2024-05-01", now), static_cast<double>(mktime(&tm)));  // local midnight
  for (const char* bad : {"yesterday", "2024-13-01", "2024-05-01T25:00", "2024-05-01Tx", "7x", "2024", ""}) {
    auto r = ParseTimeSpec(bad, now);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message(), "'" + std::string(bad) +
                                        "' is neither a date (2024-05-01, 2024-05-01T12:30[:00][Z|+02:00]) nor an "
                                        "age (7d, 24h, 30m)");
  }
}

}  // namespace
}  // namespace hb
