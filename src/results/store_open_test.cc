// The results store, part 2: bad stores, large and concurrent writes, a
// killed writer, and where the store is.
#include "results/store.h"

#include <gtest/gtest.h>

#include "results/store_test_util.h"

namespace hb {
namespace {

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
  EXPECT_EQ(s.status().message(), path +
                                      ": results store schema version 7 is newer than this hetbench "
                                      "understands (" +
                                      std::to_string(kStoreSchemaVersion) +
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
  SqlExec(rfm,
          "CREATE TABLE sessions(uuid TEXT PRIMARY KEY); CREATE TABLE testcases(name TEXT); "
          "CREATE TABLE metadata(schema_version TEXT)");
  auto r = Store::Open(rfm);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("this is a ReFrame results database, not a hetbench store; import it with "
                                      "`hetbench results import " +
                                      rfm + "`"),
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
