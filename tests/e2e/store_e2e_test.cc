// End-to-end tests of the results store: `hetbench run` adds its session,
// `hetbench results` lists, shows, exports, deletes and imports. Every test
// names its own store (HETBENCH_STORE or --store) in a temporary folder.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <stdlib.h>

#include <algorithm>
#include <sstream>

#include "e2e_util.h"

namespace {

const char* kPerfTest = R"(
name: perf
tags: [demo, nightly]
parameters:
  n: [1, 2]
executable: echo
executable_opts: ['value {n}.5']
performance:
  value: {pattern: 'value (\S+)', group: 1, unit: GB/s}
reference:
  '*': {value: [1.5, -0.5, null, GB/s]}
sanity: [{exit_code: 0}]
)";

// ReFrame's perflog of its tutorial's stream_test (docs/tutorial.rst).
const std::string kReframePerflog = Read(std::string(HB_SOURCE_DIR) + "/tests/data/reframe_stream_test.log");

// Every `hetbench run` stores its session, by default under ~/.local.
// So that no test of hb_e2e_test (this file's or another's) writes there,
// the whole binary gets a throw-away store; tests here name their own.
class ThrowAwayStore : public ::testing::Environment {
 public:
  void SetUp() override { setenv("HETBENCH_STORE", (TempDir() + "/results.db").c_str(), 1); }
};
const auto* const kThrowAwayStore = ::testing::AddGlobalTestEnvironment(new ThrowAwayStore);

e2e::Env StoreEnv(const std::string& store) { return {{"HETBENCH_STORE", store}}; }

std::string SessionId(const std::string& dir) {
  auto files = e2e::Find(dir + "/reports", "run-*.json");
  EXPECT_EQ(files.size(), 1u);
  if (files.empty()) return "";
  std::string f = files[0].substr(files[0].rfind('/') + 5);
  return f.substr(0, f.size() - 5);
}

int Lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(StoreE2E, RunStoresTheSessionAndResultsQueriesIt) {
  std::string dir = TempDir(), store = dir + "/store/results.db";
  Write(dir + "/t.yaml", kPerfTest);
  auto run = Hetbench({"run", "-c", "t.yaml"}, dir, 60, StoreEnv(store));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("Stored in:  " + store), std::string::npos) << run.out;
  std::string id = SessionId(dir);

  auto sessions = Hetbench({"results", "sessions"}, dir, 30, StoreEnv(store));
  ASSERT_EQ(sessions.exit_code, 0) << sessions.err;
  std::istringstream lines(sessions.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(header.find("SESSION"), 0u) << sessions.out;
  EXPECT_EQ(row.find(id), 0u) << sessions.out;
  // Columns line up: CASES sits right-aligned under its header.
  EXPECT_EQ(header.find("CASES") + 5, row.find(" 2 ") + 2) << sessions.out;
  EXPECT_NE(sessions.out.find("1 session(s) in " + store), std::string::npos);

  auto cases = Hetbench({"results", "cases", "-n", "perf", "-t", "nightly", "--since", "1h"}, dir, 30, StoreEnv(store));
  ASSERT_EQ(cases.exit_code, 0) << cases.err;
  EXPECT_NE(cases.out.find("perf %n=1"), std::string::npos) << cases.out;
  EXPECT_NE(cases.out.find("value=2.5 GB/s"), std::string::npos) << cases.out;
  EXPECT_NE(cases.out.find("2 case(s)"), std::string::npos) << cases.out;
  auto none = Hetbench({"results", "cases", "--until", "2000-01-01"}, dir, 30, StoreEnv(store));
  EXPECT_NE(none.out.find("0 case(s)"), std::string::npos) << none.out;

  auto csv = Hetbench({"results", "export", "--csv"}, dir, 30, StoreEnv(store));
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.find("session_id,case_id,name,display_name,"), 0u) << csv.out;
  EXPECT_EQ(Lines(csv.out), 3);  // header + one row per performance value
  EXPECT_NE(csv.out.find(",value,1.5,GB/s,1.5,-0.5,,pass"), std::string::npos) << csv.out;

  auto json = Hetbench({"results", "export", "--json", "-o", "out.json", "--session", id}, dir, 30, StoreEnv(store));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::json::parse(Read(dir + "/out.json"));
  EXPECT_EQ(doc["schema"], "hetbench-results-export");
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["sessions"].size(), 1u);
  EXPECT_EQ(doc["sessions"][0]["session"]["session_id"], id);
  EXPECT_EQ(doc["sessions"][0]["session"]["source"], "hetbench");
  ASSERT_EQ(doc["sessions"][0]["cases"].size(), 2u);
  EXPECT_EQ(doc["sessions"][0]["cases"][0]["file_sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(doc["sessions"][0]["cases"][0]["tags"], nlohmann::json({"demo", "nightly"}));

  auto show = Hetbench({"results", "show", id.substr(0, id.size() - 2)}, dir, 30, StoreEnv(store));
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("Session   " + id + " (hetbench)"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("2 passed, 0 failed"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("perf %n=2 @generic:default+builtin  value"), std::string::npos) << show.out;

  auto del = Hetbench({"results", "delete", id}, dir, 30, StoreEnv(store));
  ASSERT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(del.out, "Deleted session " + id + "\n");
  auto after = Hetbench({"results", "sessions", "--store", store}, dir, 30);
  EXPECT_NE(after.out.find("0 session(s)"), std::string::npos) << after.out;
}

TEST(StoreE2E, StoreFlagNoStoreAndTheConfiguration) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kPerfTest);
  Write(dir + "/site.yaml", R"(
systems:
  - name: box
    hostnames: ['.*']
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: [builtin]}
environments:
  - {name: builtin}
storage:
  - enable: true
    sqlite_db_file: '${STORE_DIR}/rfm-style.db'
)");
  e2e::Env env = {{"HETBENCH_STORE", ""}, {"STORE_DIR", dir + "/cfg"}, {"HOME", dir + "/home"}, {"XDG_DATA_HOME", ""}};
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60, env);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_TRUE(Exists(dir + "/cfg/rfm-style.db"));
  auto s = Hetbench({"results", "sessions", "-C", "site.yaml"}, dir, 30, env);
  EXPECT_NE(s.out.find("1 session(s) in " + dir + "/cfg/rfm-style.db"), std::string::npos) << s.out << s.err;

  // --store wins; --no-store writes nowhere.
  o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--store", "flag.db"}, dir, 60, env);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_TRUE(Exists(dir + "/flag.db"));
  o = Hetbench({"run", "-c", "t.yaml", "--no-store"}, dir, 60, env);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(o.out.find("Stored in:"), std::string::npos) << o.out;
  EXPECT_FALSE(Exists(dir + "/home/.local/share/hetbench/results.db"));
  // Without a configuration entry: the default under HOME.
  o = Hetbench({"run", "-c", "t.yaml"}, dir, 60, env);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_TRUE(Exists(dir + "/home/.local/share/hetbench/results.db"));

  // enable: false turns it off.
  Write(dir + "/off.yaml", "storage:\n  - enable: false\n");
  o = Hetbench({"run", "-C", "site.yaml", "-C", "off.yaml", "-c", "t.yaml", "--prefix", "off"}, dir, 60,
               {{"HETBENCH_STORE", ""}, {"STORE_DIR", dir + "/off-store"}, {"HOME", dir + "/home"}});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_FALSE(Exists(dir + "/off-store/rfm-style.db"));
}

// A store that cannot be written costs one message: the run's results and
// report stay; the exit status is 3 when nothing else failed (issue 16).
TEST(StoreE2E, UnwritableStoreWarnsOnceAndKeepsTheRun) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml",
        "name: failing\nexecutable: sh\nexecutable_opts: ['-c', \"'exit 3'\"]\nsanity: [{exit_code: 0}]\n");
  Write(dir + "/plain", "not a folder");
  auto o = Hetbench({"run", "-c", "t.yaml"}, dir, 60, StoreEnv(dir + "/plain/results.db"));
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  std::string all = o.out + o.err;
  size_t first = all.find("hetbench: error: session not stored: cannot open results store '" + dir +
                          "/plain/results.db': Not a directory (the run report has every result: `hetbench results "
                          "import` adds it later)\n");
  EXPECT_NE(first, std::string::npos) << all;
  EXPECT_EQ(all.find("not stored", first + 40), std::string::npos) << "one message only:\n" << all;
  EXPECT_FALSE(e2e::Find(dir + "/reports", "run-*.json").empty());
  // A run whose cases pass but whose session is not stored exits 3.
  Write(dir + "/ok.yaml", "name: fine\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n");
  o = Hetbench({"run", "-c", "ok.yaml"}, dir, 60, StoreEnv(dir + "/plain/results.db"));
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;

  // The same for a file that is not a store; `results` refuses it (exit 2).
  Write(dir + "/text.db", std::string(300, 'x'));
  o = Hetbench({"run", "-c", "t.yaml"}, dir, 60, StoreEnv(dir + "/text.db"));
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE((o.out + o.err).find("text.db: not a hetbench results store (not an SQLite database)"), std::string::npos);
  auto r = Hetbench({"results", "cases", "--store", "text.db"}, dir, 30);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "hetbench: error: " + dir + "/text.db: not a hetbench results store (not an SQLite database)\n");
}

TEST(StoreE2E, RefusesANewerStoreAndBadArguments) {
  std::string dir = TempDir(), store = dir + "/r.db";
  Write(dir + "/t.yaml", kPerfTest);
  ASSERT_EQ(Hetbench({"run", "-c", "t.yaml"}, dir, 60, StoreEnv(store)).exit_code, 0);
  e2e::Shell("sqlite3 '" + store + "' \"UPDATE meta SET value = '9' WHERE key = 'schema_version'\"");
  auto r = Hetbench({"results", "sessions"}, dir, 30, StoreEnv(store));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("results store schema version 9 is newer than this hetbench understands (4)"), std::string::npos)
      << r.err;
  r = Hetbench({"results", "sessions", "--since", "yesterday"}, dir, 30, StoreEnv(store));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--since: 'yesterday' is neither a date"), std::string::npos) << r.err;
  r = Hetbench({"results", "export"}, dir, 30, StoreEnv(store));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give --csv or --json"), std::string::npos) << r.err;
  r = Hetbench({"results", "sessions"}, dir, 30, StoreEnv(dir + "/missing.db"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no results store at '" + dir + "/missing.db'"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dir + "/missing.db"));
  auto help = Hetbench({"results", "--help"}, dir, 30);
  EXPECT_EQ(help.exit_code, 0);
  for (const char* word : {"sessions", "cases", "show", "delete", "export", "import", "--store"})
    EXPECT_NE(help.out.find(word), std::string::npos) << word << "\n" << help.out;
}

TEST(StoreE2E, TwoConcurrentRunsBothLand) {
  std::string base = TempDir(), store = base + "/shared.db";
  std::string yaml = "name: many\nparameters:\n  i: [";
  for (int i = 0; i < 150; ++i) yaml += (i ? "," : "") + std::to_string(i);
  yaml +=
      "]\nexecutable: echo\nexecutable_opts: ['v {i}']\nperformance:\n  v: {pattern: 'v (\\S+)', group: 1}\nsanity: "
      "[{exit_code: 0}]\n";
  std::vector<std::string> dirs = {base + "/a", base + "/b"};
  std::vector<pid_t> pids;
  for (const auto& d : dirs) {
    Write(d + "/t.yaml", yaml);
    pids.push_back(e2e::StartHetbench({"run", "-c", "t.yaml"}, d, StoreEnv(store)));
  }
  for (size_t i = 0; i < pids.size(); ++i)
    EXPECT_EQ(e2e::WaitExit(pids[i], 120), 0) << Read(dirs[i] + "/hb.stdout") << Read(dirs[i] + "/hb.stderr");
  auto s = Hetbench({"results", "sessions"}, base, 30, StoreEnv(store));
  EXPECT_NE(s.out.find("2 session(s)"), std::string::npos) << s.out << s.err;
  for (const auto& d : dirs) EXPECT_NE(s.out.find(SessionId(d)), std::string::npos) << s.out;
  auto c = Hetbench({"results", "cases"}, base, 30, StoreEnv(store));
  EXPECT_NE(c.out.find("300 case(s)"), std::string::npos) << c.out.substr(c.out.size() > 200 ? c.out.size() - 200 : 0);
  EXPECT_EQ(e2e::Shell("sqlite3 '" + store + "' 'PRAGMA integrity_check'"), "ok\n");
}

TEST(StoreE2E, ImportsAReframePerflog) {
  std::string dir = TempDir(), store = dir + "/r.db";
  Write(dir + "/perflogs/pseudo-cluster/compute/stream_test.log", kReframePerflog);
  auto imp = Hetbench({"results", "import", "perflogs"}, dir, 30, StoreEnv(store));
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  EXPECT_EQ(imp.out.find("Imported session perflog-"), 0u) << imp.out;
  EXPECT_NE(imp.out.find("(reframe-perflog): 2 case(s), 4 performance value(s)"), std::string::npos) << imp.out;
  auto cases = Hetbench({"results", "cases", "--system", "pseudo-cluster:compute"}, dir, 30, StoreEnv(store));
  ASSERT_EQ(cases.exit_code, 0) << cases.err;
  EXPECT_NE(cases.out.find("stream_test  pseudo-cluster:compute  gnu      pass    copy_bw=21116.7 MB/s, "
                           "triad_bw=14813 MB/s"),
            std::string::npos)
      << cases.out;
  EXPECT_NE(cases.out.find("2 case(s)"), std::string::npos);
  auto again =
      Hetbench({"results", "import", "perflogs/pseudo-cluster/compute/stream_test.log"}, dir, 30, StoreEnv(store));
  EXPECT_NE(again.out.find("is already in the store; skipped"), std::string::npos) << again.out;

  Write(dir + "/bad/x/y/broken.log", Read(dir + "/perflogs/pseudo-cluster/compute/stream_test.log") + "pass|1|2\n");
  auto bad = Hetbench({"results", "import", "bad"}, dir, 30, StoreEnv(store));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "hetbench: error: bad/x/y/broken.log:4: expected 35 '|'-separated fields as the header names, "
            "found 3\n");
}

}  // namespace
