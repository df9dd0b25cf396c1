#include "results/importer.h"

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <cmath>

#include "results/perflog.h"
#include "results/run_report.h"
#include "results/store.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

StoreQuery Query(std::vector<std::string> names, const std::string& system, const std::string& partition = "") {
  StoreQuery q;
  q.names = std::move(names);
  q.system = system;
  q.partition = partition;
  return q;
}

AddOptions Imported(const std::string& source) {
  AddOptions o;
  o.source = source;
  o.hash_files = false;
  return o;
}

// A file under tests/data ("" when it cannot be read: the tests using it fail).
std::string ReadTestData(const std::string& name) {
  auto text = ReadFile(std::string(HB_SOURCE_DIR) + "/tests/data/" + name);
  return text.ok() ? *text : "";
}

// ReFrame's own perflog of its tutorial's stream_test (docs/tutorial.rst,
// "Performance logging"), as ReFrame 4 wrote it: the header and two lines
// (tests/data, shared with the end-to-end import test).
const std::string kReframePerflog = ReadTestData("reframe_stream_test.log");

TEST(StoreImport, ReframeTutorialPerflog) {
  TempDir dir;
  dir.Write("perflogs/pseudo-cluster/compute/stream_test.log", kReframePerflog);
  auto imported = ReadImports({dir / "perflogs"});
  ASSERT_TRUE(imported.ok()) << imported.status().str();
  ASSERT_EQ(imported->size(), 1u);
  const ImportedSession& s = (*imported)[0];
  EXPECT_EQ(s.source, "reframe-perflog");
  EXPECT_TRUE(StartsWith(s.session.session_id, "perflog-"));
  EXPECT_EQ(s.session.system, "pseudo-cluster");
  EXPECT_DOUBLE_EQ(s.session.start_time, 1708555876.746763);
  EXPECT_DOUBLE_EQ(s.session.end_time, 1708555879.4456542);
  ASSERT_EQ(s.cases.size(), 2u);
  const CaseResult& c = s.cases[0];
  EXPECT_EQ(c.name, "stream_test");
  EXPECT_EQ(c.display_name, "stream_test");
  EXPECT_EQ(c.id, "stream_test@pseudo-cluster:compute+gnu");
  EXPECT_EQ(c.system, "pseudo-cluster");
  EXPECT_EQ(c.partition, "compute");
  EXPECT_EQ(c.environ, "gnu");
  EXPECT_EQ(c.result, "pass");
  EXPECT_EQ(c.job_id, "65");
  EXPECT_EQ(c.exit_code, -1);
  EXPECT_TRUE(c.nodelist.empty());
  EXPECT_DOUBLE_EQ(c.job_submit_time, 1708555874.6122677);
  EXPECT_DOUBLE_EQ(c.end_time, 1708555876.746763);
  EXPECT_EQ(c.num_tasks, 1);
  ASSERT_EQ(c.perf.size(), 2u);
  EXPECT_EQ(c.perf[0].name, "copy_bw");
  EXPECT_DOUBLE_EQ(c.perf[0].value, 21116.7);
  EXPECT_EQ(c.perf[0].unit, "MB/s");
  EXPECT_FALSE(c.perf[0].reference);  // ReFrame writes 0|None|None without one
  EXPECT_EQ(c.perf[0].verdict, "none");
  EXPECT_EQ(c.perf[1].name, "triad_bw");
  EXPECT_DOUBLE_EQ(c.perf[1].value, 14813.0);
  EXPECT_EQ(s.cases[1].environ, "clang");

  // Into a store, where the cases can be found; importing again adds nothing.
  auto store = Store::Open(dir / "r.db");
  ASSERT_TRUE(store.ok()) << store.status().str();
  AddOptions opts;
  opts.source = s.source;
  opts.hash_files = false;
  opts.skip_existing = true;
  EXPECT_TRUE(*(*store)->Add(s.session, s.cases, opts));
  auto again = ReadImports({dir / "perflogs/pseudo-cluster/compute/stream_test.log"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].session.session_id, s.session.session_id);
  EXPECT_FALSE(*(*store)->Add((*again)[0].session, (*again)[0].cases, opts));
  auto cases = (*store)->Cases(Query({"stream"}, "pseudo-cluster"));
  ASSERT_TRUE(cases.ok());
  EXPECT_EQ(cases->size(), 2u);
}

// hetbench's perflogs are ReFrame's format: parameters come back from the
// display name, references and thresholds from their fields.
TEST(StoreImport, ParametersAndReferencesFromAPerflog) {
  TempDir dir;
  CaseResult c;
  c.name = "stream";
  c.display_name = "stream %threads=4 %size=large";
  c.parameters = {{"threads", "4"}, {"size", "large"}};
  c.system = "hpc";
  c.partition = "gpu";
  c.environ = "gnu";
  c.job_id = "77";
  c.exit_code = 0;
  c.nodelist = {"nid001", "nid002"};
  c.num_tasks = 8;
  c.end_time = 1714564800.5;
  PerfResult p;
  p.name = "triad";
  p.value = 9;
  p.unit = "GB/s";
  p.reference = Reference{10, -0.05, 0.1, "GB/s", {}};
  p.verdict = "fail";
  c.perf = {p};
  c.result = "fail";
  c.fail_stage = "performance";
  ASSERT_TRUE(AppendPerflog(dir / "perflogs", SessionInfo{}, c).ok());
  auto imported = ReadReframePerflogs({dir / "perflogs"});
  ASSERT_TRUE(imported.ok()) << imported.status().str();
  ASSERT_EQ(imported->cases.size(), 1u);
  const CaseResult& got = imported->cases[0];
  EXPECT_EQ(got.name, "stream");
  EXPECT_EQ(got.display_name, "stream %threads=4 %size=large");
  EXPECT_EQ(got.parameters, c.parameters);
  EXPECT_EQ(got.id, "stream%threads=4%size=large@hpc:gpu+gnu");
  EXPECT_EQ(got.result, "fail");
  EXPECT_EQ(got.fail_stage, "performance");
  EXPECT_EQ(got.nodelist, c.nodelist);
  EXPECT_EQ(got.exit_code, 0);
  EXPECT_EQ(got.num_tasks, 8);
  EXPECT_DOUBLE_EQ(got.end_time, 1714564800.5);
  ASSERT_EQ(got.perf.size(), 1u);
  ASSERT_TRUE(got.perf[0].reference);
  EXPECT_DOUBLE_EQ(got.perf[0].reference->value, 10);
  EXPECT_EQ(got.perf[0].reference->lower, -0.05);
  EXPECT_EQ(got.perf[0].reference->upper, 0.1);
  EXPECT_EQ(got.perf[0].verdict, "fail");  // computed: 9 is 10% below 10
  EXPECT_NE(got.perf[0].message.find("below reference 10"), std::string::npos) << got.perf[0].message;
}

TEST(StoreImport, MalformedPerflogLinesNameFileAndLine) {
  TempDir dir;
  std::string header = Split(kReframePerflog, '\n')[0];
  std::string good = Split(kReframePerflog, '\n')[1];
  std::string short_line = dir.Write("a/b/short.log", header + "\n" + good + "\npass|2024-02-21T22:51:16|x\n");
  auto r = ReadReframePerflogs({short_line});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str(), short_line + ":3: expected 35 '|'-separated fields as the header names, found 3");

  std::string bad_number = dir.Write("a/b/num.log", header + "\n" + ReplaceAll(good, "|21116.7|", "|fast|") + "\n");
  r = ReadReframePerflogs({bad_number});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str(), bad_number + ":2: copy_bw_value 'fast' is not a number");

  std::string bad_result = dir.Write("a/b/res.log", header + "\n" + "maybe" + good.substr(4) + "\n");
  r = ReadReframePerflogs({bad_result});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str(), bad_result + ":2: result 'maybe' is neither pass nor fail");

  std::string not_perflog = dir.Write("a/b/notes.log", "hello world\nsecond line\n");
  r = ReadReframePerflogs({not_perflog});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str(), not_perflog +
                                  ":1: not a ReFrame perflog header (no 'result' field and no "
                                  "performance variables VAR_value|VAR_unit)");
  auto empty = ReadImports({dir.path() + "/nothing-here"});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().str(), "cannot read '" + dir.path() + "/nothing-here': no such file or folder");
}

// ---- ReFrame's results database (reframe/frontend/reporting/storage.py) ----

// The statements of _SqliteStorage._db_create and _db_create_indexes,
// as ReFrame 4.7 runs them.
void CreateReframeDb(const std::string& path, const std::string& version = "1.0") {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* statements[] = {
      "CREATE TABLE IF NOT EXISTS sessions("
      "uuid TEXT PRIMARY KEY, "
      "session_start_unix REAL, "
      "session_end_unix REAL, "
      "json_blob TEXT, "
      "report_file TEXT)",
      "CREATE TABLE IF NOT EXISTS testcases("
      "name TEXT,"
      "system TEXT, "
      "partition TEXT, "
      "environ TEXT, "
      "job_completion_time_unix REAL, "
      "session_uuid TEXT, "
      "uuid TEXT, "
      "FOREIGN KEY(session_uuid) "
      "REFERENCES sessions(uuid) ON DELETE CASCADE)",
      "CREATE INDEX IF NOT EXISTS index_testcases_time "
      "on testcases(job_completion_time_unix)",
      "CREATE TABLE IF NOT EXISTS metadata("
      "schema_version TEXT)",
      "CREATE INDEX IF NOT EXISTS index_sessions_time "
      "on sessions(session_start_unix)",
  };
  for (const char* sql : statements) ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  std::string meta = "INSERT INTO metadata VALUES('" + version + "')";
  ASSERT_EQ(sqlite3_exec(db, meta.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

// What _db_store_report inserts for one report.
void StoreReframeReport(const std::string& path, const nlohmann::json& report) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  const auto& si = report["session_info"];
  sqlite3_prepare_v2(db,
                     "INSERT INTO sessions VALUES(:uuid, :session_start_unix, :session_end_unix, "
                     ":json_blob, :report_file)",
                     -1, &st, nullptr);
  std::string uuid = si["uuid"], blob = report.dump();
  sqlite3_bind_text(st, 1, uuid.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_double(st, 2, si["time_start_unix"]);
  sqlite3_bind_double(st, 3, si["time_end_unix"]);
  sqlite3_bind_text(st, 4, blob.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 5, "/home/alice/.reframe/reports/run-report-0.json", -1, SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  for (const auto& run : report["runs"]) {
    for (const auto& tc : run["testcases"]) {
      sqlite3_prepare_v2(db,
                         "INSERT INTO testcases VALUES(:name, :system, :partition, :environ, "
                         ":job_completion_time_unix, :session_uuid, :uuid)",
                         -1, &st, nullptr);
      std::string name = tc["name"], sys = tc["system"], part = tc["partition"], env = tc["environ"];
      std::string tc_uuid =
          uuid + ":" + std::to_string(int(tc["run_index"])) + ":" + std::to_string(int(tc["testcase_index"]));
      sqlite3_bind_text(st, 1, name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 2, sys.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 3, part.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 4, env.c_str(), -1, SQLITE_TRANSIENT);
      if (tc["job_completion_time_unix"].is_null())
        sqlite3_bind_null(st, 5);
      else
        sqlite3_bind_double(st, 5, tc["job_completion_time_unix"]);
      sqlite3_bind_text(st, 6, uuid.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 7, tc_uuid.c_str(), -1, SQLITE_TRANSIENT);
      ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
      sqlite3_finalize(st);
    }
  }
  sqlite3_close(db);
}

// A ReFrame 4.7 run report (RunReport.update_run_stats, data_version 4.x):
// a parameterised test that failed its performance check in run 0 and
// passed on the retry (run 1), and a test that failed sanity.
nlohmann::json ReframeReport() {
  return nlohmann::json::parse(R"json({
  "session_info": {
    "data_version": "4.1",
    "hostname": "daint101",
    "uuid": "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d",
    "time_start": "20241003T101500+0200",
    "time_start_unix": 1727943300.25,
    "time_end": "20241003T101910+0200",
    "time_end_unix": 1727943550.5,
    "time_elapsed": 250.25,
    "cmdline": "reframe -c checks/stream.py -r --max-retries=1",
    "config_files": ["<builtin>", "/home/alice/config/daint.py"],
    "log_files": ["/tmp/rfm-x.log"],
    "prefix_output": "/scratch/alice/output",
    "prefix_stage": "/scratch/alice/stage",
    "user": "alice",
    "version": "4.7.0",
    "workdir": "/home/alice",
    "num_cases": 2,
    "num_failures": 0,
    "num_aborted": 0,
    "num_skipped": 0
  },
  "runs": [
    {
      "num_cases": 2, "num_failures": 2, "num_aborted": 0, "num_skipped": 0, "run_index": 0,
      "testcases": [
        {
          "build_jobid": null, "build_stderr": "rfm_build.err", "build_stdout": "rfm_build.out",
          "dependencies_actual": [], "dependencies_conceptual": [],
          "environ": "gnu", "fail_phase": "performance",
          "fail_reason":
            "performance error: failed to meet reference: triad_bw=9000.0, expected 10000 (l=9500.0, u=11000.0)",
          "filename": "/home/alice/checks/stream.py", "fixture": false,
          "job_completion_time": "2024-10-03T10:16:40+02:00", "job_completion_time_unix": 1727943400.5,
          "job_stderr": "rfm_job.err", "job_stdout": "rfm_job.out",
          "partition": "mc", "result": "fail", "run_index": 0, "testcase_index": 0,
          "scheduler": "slurm", "session_uuid": "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d",
          "time_compile": 3.5, "time_performance": 0.01, "time_run": 60.2, "time_sanity": 0.02,
          "time_setup": 0.05, "time_total": 64.0,
          "uuid": "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d:0:0",
          "descr": "STREAM benchmark", "display_name": "stream_test %num_threads=8",
          "env_vars": {"OMP_NUM_THREADS": "8"}, "exclusive_access": true, "extra_resources": {},
          "hashcode": "a1b2c3d4", "job_exitcode": 0, "job_nodelist": ["nid00010"],
          "job_submit_time": 1727943330.0, "jobid": "5551234", "maintainers": ["alice"],
          "modules": ["PrgEnv-gnu"], "name": "stream_test %num_threads=8", "num_cpus_per_task": 8,
          "num_gpus_per_node": null, "num_tasks": 1, "num_tasks_per_core": null, "num_tasks_per_node": 1,
          "num_tasks_per_socket": null, "num_threads": 8,
          "outputdir": null, "perfvalues": {"daint:mc:triad_bw": [9000.0, 10000, -0.05, 0.1, "MB/s", "fail"]},
          "short_name": "stream_test_a1b2c3d4", "stagedir": "/scratch/alice/stage/daint/mc/gnu/stream_test_a1b2c3d4",
          "system": "daint", "tags": ["memory", "production"], "unique_name": "stream_test_1",
          "use_multithreading": null
        },
        {
          "build_jobid": null, "build_stderr": null, "build_stdout": null,
          "dependencies_actual": [], "dependencies_conceptual": [],
          "environ": "cray", "fail_phase": "sanity",
          "fail_reason": "sanity error: pattern 'Solution Validates' not found in 'rfm_job.out'",
          "filename": "/home/alice/checks/hpcg.py", "fixture": false,
          "job_completion_time": null, "job_completion_time_unix": null,
          "job_stderr": "rfm_job.err", "job_stdout": "rfm_job.out",
          "partition": "gpu", "result": "fail", "run_index": 0, "testcase_index": 1,
          "scheduler": "slurm", "session_uuid": "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d",
          "time_compile": null, "time_performance": null, "time_run": 10.0, "time_sanity": 0.01,
          "time_setup": 0.05, "time_total": 11.0,
          "uuid": "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d:0:1",
          "descr": "HPCG", "display_name": "hpcg_check", "env_vars": {}, "exclusive_access": false,
          "extra_resources": {}, "hashcode": "0f0f0f0f", "job_exitcode": 1, "job_nodelist": ["nid00020", "nid00021"],
          "job_submit_time": null, "jobid": "5551235", "maintainers": [], "modules": [], "name": "hpcg_check",
          "num_cpus_per_task": null, "num_gpus_per_node": 1, "num_tasks": 2, "num_tasks_per_core": null,
          "num_tasks_per_node": 1, "num_tasks_per_socket": null, "outputdir": null,
          "perfvalues": {"daint:gpu:gflops": [null, 500, -0.1, null, "GFlop/s", null]},
          "short_name": "hpcg_check", "stagedir": "/scratch/alice/stage/daint/gpu/cray/hpcg_check",
          "system": "daint", "tags": ["benchmark"], "unique_name": "hpcg_check", "use_multithreading": null
        }
      ]
    },
    {
      "num_cases": 1, "num_failures": 0, "num_aborted": 0, "num_skipped": 0, "run_index": 1,
      "testcases": [
        {
          "build_jobid": null, "build_stderr": "rfm_build.err", "build_stdout": "rfm_build.out",
          "dependencies_actual": [], "dependencies_conceptual": [],
          "environ": "gnu", "fail_phase": null, "fail_reason": null,
          "filename": "/home/alice/checks/stream.py", "fixture": false,
          "job_completion_time": "2024-10-03T10:19:00+02:00", "job_completion_time_unix": 1727943540.0,
          "job_stderr": "rfm_job.err", "job_stdout": "rfm_job.out",
          "partition": "mc", "result": "pass", "run_index": 1, "testcase_index": 0,
          "scheduler": "slurm", "session_uuid": "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d",
          "time_compile": 3.4, "time_performance": 0.01, "time_run": 59.8, "time_sanity": 0.02,
          "time_setup": 0.05, "time_total": 63.5,
          "uuid": "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d:1:0",
          "descr": "STREAM benchmark", "display_name": "stream_test %num_threads=8",
          "env_vars": {"OMP_NUM_THREADS": "8"}, "exclusive_access": true, "extra_resources": {},
          "hashcode": "a1b2c3d4", "job_exitcode": 0, "job_nodelist": ["nid00011"],
          "job_submit_time": 1727943470.0, "jobid": "5551240", "maintainers": ["alice"],
          "modules": ["PrgEnv-gnu"], "name": "stream_test %num_threads=8", "num_cpus_per_task": 8,
          "num_gpus_per_node": null, "num_tasks": 1, "num_tasks_per_core": null, "num_tasks_per_node": 1,
          "num_tasks_per_socket": null, "num_threads": 8,
          "outputdir": "/scratch/alice/output/daint/mc/gnu/stream_test_a1b2c3d4",
          "perfvalues": {"daint:mc:triad_bw": [10100.0, 10000, -0.05, 0.1, "MB/s", "pass"]},
          "short_name": "stream_test_a1b2c3d4", "stagedir": "/scratch/alice/stage/daint/mc/gnu/stream_test_a1b2c3d4",
          "system": "daint", "tags": ["memory", "production"], "unique_name": "stream_test_1",
          "use_multithreading": null
        }
      ]
    }
  ],
  "restored_cases": []
})json");
}

TEST(StoreImport, ReframeResultsDatabase) {
  TempDir dir;
  std::string db = dir / "results.db";
  CreateReframeDb(db);
  StoreReframeReport(db, ReframeReport());
  auto imported = ReadImports({db});
  ASSERT_TRUE(imported.ok()) << imported.status().str();
  ASSERT_EQ(imported->size(), 1u);
  const ImportedSession& s = (*imported)[0];
  EXPECT_EQ(s.source, "reframe-db");
  EXPECT_EQ(s.session.session_id, "7d2fb5e1-5b8c-4bd0-9b5e-3a8c1a2b4c6d");
  EXPECT_EQ(s.session.version, "4.7.0");
  EXPECT_EQ(s.session.hostname, "daint101");
  EXPECT_EQ(s.session.user, "alice");
  EXPECT_EQ(s.session.system, "daint");
  EXPECT_EQ(Join(s.session.argv, " "), "reframe -c checks/stream.py -r --max-retries=1");
  EXPECT_EQ(s.session.config_files.size(), 2u);
  EXPECT_DOUBLE_EQ(s.session.start_time, 1727943300.25);
  EXPECT_EQ(s.session.exit_code, 0);
  ASSERT_EQ(s.cases.size(), 3u);

  const CaseResult& first = s.cases[0];
  EXPECT_EQ(first.name, "stream_test");
  EXPECT_EQ(first.display_name, "stream_test %num_threads=8");
  EXPECT_EQ(first.parameters, (std::vector<std::pair<std::string, std::string>>{{"num_threads", "8"}}));
  EXPECT_EQ(first.unique_name, "stream_test_1");
  EXPECT_EQ(first.file, "/home/alice/checks/stream.py");
  EXPECT_EQ(first.system + ":" + first.partition + "+" + first.environ, "daint:mc+gnu");
  EXPECT_EQ(first.result, "fail");
  EXPECT_EQ(first.fail_stage, "performance");
  EXPECT_EQ(first.attempt, 0);
  EXPECT_EQ(first.job_id, "5551234");
  EXPECT_EQ(first.nodelist, std::vector<std::string>{"nid00010"});
  EXPECT_EQ(first.num_cpus_per_task, 8);
  EXPECT_TRUE(first.exclusive_access);
  EXPECT_EQ(first.tags, (std::vector<std::string>{"memory", "production"}));
  EXPECT_DOUBLE_EQ(first.end_time, 1727943400.5);
  EXPECT_DOUBLE_EQ(first.start_time, 1727943400.5 - 64.0);
  ASSERT_EQ(first.timings.size(), 5u);
  EXPECT_EQ(first.timings[1].stage, "build");
  ASSERT_EQ(first.perf.size(), 1u);
  EXPECT_EQ(first.perf[0].name, "triad_bw");
  EXPECT_DOUBLE_EQ(first.perf[0].value, 9000);
  EXPECT_EQ(first.perf[0].unit, "MB/s");
  ASSERT_TRUE(first.perf[0].reference);
  EXPECT_DOUBLE_EQ(first.perf[0].reference->value, 10000);
  EXPECT_EQ(first.perf[0].reference->lower, -0.05);
  EXPECT_EQ(first.perf[0].verdict, "fail");

  const CaseResult& hpcg = s.cases[1];
  EXPECT_EQ(hpcg.fail_stage, "sanity");
  EXPECT_EQ(hpcg.fail_reason, "sanity error: pattern 'Solution Validates' not found in 'rfm_job.out'");
  EXPECT_TRUE(hpcg.perf.empty());  // the value ReFrame could not extract (null) is left out
  EXPECT_EQ(hpcg.exit_code, 1);
  EXPECT_DOUBLE_EQ(hpcg.end_time, 1727943550.5);  // no completion time: the session's end

  const CaseResult& retry = s.cases[2];
  EXPECT_EQ(retry.result, "pass");
  EXPECT_EQ(retry.attempt, 1);
  EXPECT_EQ(retry.perf[0].verdict, "pass");

  // Into the store; `results cases` finds them by name and system.
  auto store = Store::Open(dir / "hb.db");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->Add(s.session, s.cases, Imported(s.source)).ok());
  auto stream = (*store)->Cases(Query({"^stream"}, "daint", "mc"));
  ASSERT_TRUE(stream.ok());
  EXPECT_EQ(stream->size(), 2u);
  EXPECT_EQ((*store)->FindSession("7d2f")->source, "reframe-db");
}

TEST(StoreImport, ReframeDatabaseOfAnotherSchemaVersion) {
  TempDir dir;
  std::string db = dir / "results.db";
  CreateReframeDb(db, "2.0");
  auto r = ReadImports({db});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), db + ": ReFrame results database schema version '2.0'; hetbench imports version 1.0");
  std::string other = dir / "other.db";
  sqlite3* h = nullptr;
  sqlite3_open(other.c_str(), &h);
  sqlite3_exec(h, "CREATE TABLE x(y)", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  r = ReadImports({other});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), other + ": not a ReFrame results database (no such table: metadata)");
}

TEST(StoreImport, ReportsOfReframeAndHetbench) {
  TempDir dir;
  std::string rfm = dir.Write("rfm-report.json", ReframeReport().dump(2));
  CaseResult c;
  c.id = "a@generic:local+builtin";
  c.name = c.display_name = "a";
  c.system = "generic";
  c.partition = "local";
  c.environ = "builtin";
  SessionInfo s;
  s.session_id = "20240501T120000-7";
  s.start_time = 1714564800;
  std::string hb = dir / "run-x.json";
  ASSERT_TRUE(WriteRunReport(hb, s, {c}).ok());
  auto imported = ReadImports({rfm, hb});
  ASSERT_TRUE(imported.ok()) << imported.status().str();
  ASSERT_EQ(imported->size(), 2u);
  EXPECT_EQ((*imported)[0].source, "reframe-report");
  EXPECT_EQ((*imported)[0].cases.size(), 3u);
  EXPECT_EQ((*imported)[1].source, "hetbench-report");
  EXPECT_EQ((*imported)[1].session.session_id, "20240501T120000-7");
  // A report with little more than names: the rest keeps its defaults.
  std::string bare = dir.Write("bare.json", R"({"session_info": {}, "runs": [{"testcases": [{"name": "x %p=1"}]}]})");
  auto minimal = ReadImports({bare});
  ASSERT_TRUE(minimal.ok()) << minimal.status().str();
  ASSERT_EQ((*minimal)[0].cases.size(), 1u);
  EXPECT_EQ((*minimal)[0].cases[0].name, "x");
  EXPECT_FALSE((*minimal)[0].cases[0].exclusive_access);
  EXPECT_TRUE(StartsWith((*minimal)[0].session.session_id, "reframe-"));
  std::string broken = dir.Write("broken.json", "{\"session_info\": {}}");
  auto r = ReadImports({broken});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), broken + ": not a ReFrame run report (no session_info and runs)");
}

}  // namespace
}  // namespace hb
