#include "results/store.h"

#include <gtest/gtest.h>

#include "results/store_test_util.h"

namespace hb {
namespace {

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
  for (const char* index :
       {"cases_by_name", "cases_by_system", "cases_by_time", "cases_by_session", "perf_by_case", "sessions_by_time"}) {
    EXPECT_EQ(
        Sql(path, std::string("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '") + index + "'"),
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
  latin1.fail_reason =
      "sanity: Gr\xfc\xdf"
      "e not found";
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
  EXPECT_EQ(Sql(path,
                "SELECT group_concat(name || ':' || figure_of_merit || ':' || better, ' ') FROM "
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
  SqlExec(path,
          "ALTER TABLE cases DROP COLUMN utf8_replaced; ALTER TABLE sessions DROP COLUMN utf8_replaced; "
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

}  // namespace
}  // namespace hb
