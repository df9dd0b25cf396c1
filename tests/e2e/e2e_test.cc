// End-to-end tests: the real hetbench binary, real processes, real files.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>

#include "e2e_util.h"

namespace {

const std::string kExamples = std::string(HB_SOURCE_DIR) + "/examples/suite";

nlohmann::json Report(const std::string& dir) {
  auto files = e2e::Find(dir + "/reports", "run-*.json");
  EXPECT_EQ(files.size(), 1u);
  if (files.empty()) return nlohmann::json::object();
  return nlohmann::json::parse(Read(files[0]));
}

// Runs one test file (given as YAML text) in a fresh folder.
struct Run {
  std::string dir;
  e2e::Output o;
};
Run RunYaml(const std::string& yaml, std::vector<std::string> extra = {}, double timeout = 60) {
  Run r;
  r.dir = TempDir();
  Write(r.dir + "/t.yaml", yaml);
  std::vector<std::string> args = {"run", "-c", "t.yaml"};
  args.insert(args.end(), extra.begin(), extra.end());
  r.o = Hetbench(args, r.dir, timeout);
  return r;
}

TEST(E2E, ExampleSuitePasses) {
  std::string dir = TempDir();
  auto o = Hetbench({"run", "-c", kExamples, "-t", "example", "--report-junit", "junit.xml"}, dir, 300);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("[       OK ]"), std::string::npos);
  EXPECT_NE(o.out.find("PERFORMANCE"), std::string::npos);
  EXPECT_NE(o.out.find("triad"), std::string::npos);
  EXPECT_EQ(o.out.find("expected_failure"), std::string::npos) << "the failing demo must need its own tag";
  auto rep = Report(dir);
  EXPECT_EQ(rep["schema_version"], 1);
  ASSERT_EQ(rep["cases"].size(), 7u);
  for (const auto& c : rep["cases"]) EXPECT_EQ(c["result"], "pass") << c.dump();
  // Output folders keep the job script and outputs; passing stage folders go.
  EXPECT_FALSE(e2e::Find(dir + "/output", "hb_job.sh").empty());
  EXPECT_FALSE(e2e::Find(dir + "/output", "hb_build.out").empty());
  EXPECT_TRUE(e2e::Find(dir + "/stage", "hb_job.sh").empty());
  // ReFrame-style perflogs, one per test.
  EXPECT_TRUE(Exists(dir + "/perflogs/generic/default/stream.log"));
  EXPECT_TRUE(Exists(dir + "/junit.xml"));
  // Parameter values reach the program literally.
  EXPECT_NE(o.out.find("hello_run %who=two words"), std::string::npos);
}

// Jobs find hetbench's own benchmark programs (built next to it) by name.
TEST(E2E, JobsFindTheBenchmarkProgramsInPath) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml",
        "name: where\nexecutable: sh\nsanity: [{exit_code: 0}]\n"
        "executable_opts: ['-c', '\"echo bindir=$HETBENCH_BIN_DIR; command -v hetbench\"']\n");
  auto o = Hetbench({"run", "-c", "t.yaml", "--keep-stage-files"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  auto outs = e2e::Find(dir + "/output", "hb_job.out");
  ASSERT_EQ(outs.size(), 1u);
  std::string bin = HETBENCH_BIN;
  std::string bindir = bin.substr(0, bin.rfind('/'));
  EXPECT_EQ(Read(outs[0]), "bindir=" + bindir + "\n" + bindir + "/hetbench\n");
}

TEST(E2E, FailingDemoNamesStageAndReason) {
  std::string dir = TempDir();
  auto o = Hetbench({"run", "-c", kExamples, "-t", "demo_failure"}, dir);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("sanity: pattern 'Processing Speed: (\\d+)' not found in stdout"), std::string::npos) << o.out;
  // The failed case keeps its stage folder.
  EXPECT_FALSE(e2e::Find(dir + "/stage", "hb_job.out").empty());
}

TEST(E2E, ExitCodeFailure) {
  auto r = RunYaml(
      "name: ex\nexecutable: sh\nexecutable_opts: ['-c', \"'echo oops >&2; exit 3'\"]\nsanity: [{pattern: oops, in: "
      "stderr}]\n");
  EXPECT_EQ(r.o.exit_code, 1);
  EXPECT_NE(r.o.out.find("run: exit code 3 (stderr: oops)"), std::string::npos) << r.o.out;
}

TEST(E2E, ExitCodeAllowedBySanity) {
  auto r = RunYaml("name: ex\nexecutable: sh\nexecutable_opts: ['-c', \"'exit 3'\"]\nsanity:\n  - {exit_code: 3}\n");
  EXPECT_EQ(r.o.exit_code, 0) << r.o.out;
}

TEST(E2E, PerformanceBelowReference) {
  auto r = RunYaml(R"(
name: perf
executable: echo
executable_opts: ['throughput 10.2']
performance:
  throughput: {pattern: 'throughput (\S+)', group: 1, unit: images/s}
reference:
  '*': {throughput: [12.0, -0.1, null, images/s]}
sanity: [{exit_code: 0}]
)");
  EXPECT_EQ(r.o.exit_code, 1);
  EXPECT_NE(r.o.out.find("performance: throughput 10.2 images/s is 15% below reference 12"), std::string::npos)
      << r.o.out;
  auto rep = Report(r.dir);
  auto& p = rep["cases"][0]["perf"][0];
  EXPECT_EQ(p["value"], 10.2);
  EXPECT_EQ(p["verdict"], "fail");
}

TEST(E2E, TimeLimitKillsTheJob) {
  auto start = std::chrono::steady_clock::now();
  auto r =
      RunYaml("name: slow\nexecutable: sleep\nexecutable_opts: ['30']\ntime_limit: 1s\nsanity: [{exit_code: 0}]\n");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.o.exit_code, 1);
  EXPECT_NE(r.o.out.find("run: time limit"), std::string::npos) << r.o.out;
  EXPECT_LT(secs, 15);
}

TEST(E2E, SigintCancelsJobsWritesReportAndExits130) {
  std::string dir = TempDir();
  // The job starts a grandchild that escapes the process group with setsid.
  Write(dir + "/t.yaml", R"(
name: long
executable: sh
executable_opts: ['-c', "'setsid sleep 300 & echo started; sleep 300'"]
parameters: {i: [1, 2]}
sanity: [{exit_code: 0}]
)");
  pid_t pid = e2e::StartHetbench({"run", "-c", "t.yaml"}, dir);
  ASSERT_TRUE(e2e::WaitForText(dir + "/hb.stdout", "[ RUN      ] long %i=2", 20));
  ASSERT_FALSE(e2e::Find(dir + "/stage", "hb_job.out").empty());
  // Give the jobs a moment to print (so the grandchildren exist).
  for (auto& out : e2e::Find(dir + "/stage", "hb_job.out")) {
    for (int i = 0; i < 200 && Read(out).find("started") == std::string::npos; ++i) usleep(20000);
  }
  kill(pid, SIGINT);
  EXPECT_EQ(e2e::WaitExit(pid, 30), 130);
  std::string out = Read(dir + "/hb.stdout");
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  auto rep = Report(dir);
  ASSERT_EQ(rep["cases"].size(), 2u);
  for (const auto& c : rep["cases"]) EXPECT_EQ(c["result"], "cancelled") << c.dump();
  // No job process, not even the setsid one, is left.
  auto left = e2e::ProcessesWithEnv("HETBENCH_JOB_MARK=" + std::to_string(pid) + ".");
  EXPECT_TRUE(left.empty()) << left.size() << " stray process(es), first pid " << (left.empty() ? 0 : left[0]);
  for (pid_t p : left) kill(p, SIGKILL);
}

TEST(E2E, SigtermAlsoCancelsAndExits130) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", "name: long\nexecutable: sleep\nexecutable_opts: ['300']\nsanity: [{exit_code: 0}]\n");
  pid_t pid = e2e::StartHetbench({"run", "-c", "t.yaml"}, dir);
  ASSERT_TRUE(e2e::WaitForText(dir + "/hb.stdout", "[ RUN      ] long", 20));
  kill(pid, SIGTERM);
  EXPECT_EQ(e2e::WaitExit(pid, 30), 130);
  EXPECT_EQ(Report(dir)["cases"][0]["result"], "cancelled");
}

// Each job appends "+" when it starts and "-" when it ends; the most "+"
// not yet matched by "-" is the concurrency reached.
int MaxConcurrency(const std::string& events) {
  int now = 0, most = 0;
  for (char c : events) {
    if (c == '+') most = std::max(most, ++now);
    if (c == '-') --now;
  }
  return most;
}

const char* kConcurrencyTest = R"(
name: busy
parameters: {i: [1, 2, 3, 4, 5, 6]}
executable: sh
executable_opts: ['-c', "'echo + >> {prefix}/events; sleep 0.3; echo - >> {prefix}/events'"]
sanity: [{exit_code: 0}]
)";

TEST(E2E, MaxJobsBoundsConcurrency) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: box
    hostnames: ['.*']
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: [gnu], max_jobs: 2}
environments:
  - {name: gnu, cc: gcc}
)");
  Write(dir + "/t.yaml", kConcurrencyTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(MaxConcurrency(Read(dir + "/events")), 2) << Read(dir + "/events");
}

TEST(E2E, SerialPolicyRunsOneAtATime) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kConcurrencyTest);
  auto o = Hetbench({"run", "-c", "t.yaml", "--exec-policy", "serial"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(MaxConcurrency(Read(dir + "/events")), 1) << Read(dir + "/events");
}

TEST(E2E, RetriesThenPasses) {
  // Fails on the first attempt, passes on the second (a counter outside the stage).
  std::string yaml = R"(
name: flaky
executable: sh
executable_opts: ['-c', "'n=$(cat {prefix}/count 2>/dev/null || echo 0); echo $((n+1)) > {prefix}/count; test $n -ge 1'"]
sanity: [{exit_code: 0}]
)";
  auto r = RunYaml(yaml, {"--max-retries", "2"});
  EXPECT_EQ(r.o.exit_code, 0) << r.o.out;
  EXPECT_NE(r.o.out.find("RETRY"), std::string::npos) << r.o.out;
  EXPECT_EQ(Report(r.dir)["cases"][0]["attempt"], 1);
}

TEST(E2E, RepeatKeepsEveryRepetition) {
  auto r = RunYaml(
      "name: rep\nexecutable: echo\nexecutable_opts: ['v=1.5']\nperformance:\n  v: {pattern: 'v=(\\S+)'}\nsanity: "
      "[{exit_code: 0}]\n",
      {"--repeat", "3"});
  EXPECT_EQ(r.o.exit_code, 0) << r.o.out;
  auto rep = Report(r.dir);
  ASSERT_EQ(rep["cases"].size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(rep["cases"][i]["repetition"], i);
  // Each repetition appends its perflog record.
  std::string log = Read(r.dir + "/perflogs/generic/default/rep.log");
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 4) << log;
}

TEST(E2E, FailedDependencySkipsDependent) {
  auto r = RunYaml(R"(
name: build
executable: 'false'
sanity: [{exit_code: 0}]
---
name: use
depends_on: [build]
executable: 'true'
sanity: [{exit_code: 0}]
)");
  EXPECT_EQ(r.o.exit_code, 1);
  EXPECT_NE(r.o.out.find("[     SKIP ]"), std::string::npos) << r.o.out;
  EXPECT_NE(r.o.out.find("dependency 'build' did not pass"), std::string::npos) << r.o.out;
}

TEST(E2E, DependentReadsTargetStageDir) {
  auto r = RunYaml(R"(
name: make_data
executable: sh
executable_opts: ['-c', "'echo payload > data.txt'"]
sanity: [{exit_code: 0}]
---
name: use_data
depends_on: [make_data]
executable: cat
executable_opts: ['{deps.make_data.stagedir}/data.txt']
sanity:
  - {pattern: payload}
)");
  EXPECT_EQ(r.o.exit_code, 0) << r.o.out;
  EXPECT_TRUE(e2e::Find(r.dir + "/stage", "data.txt").empty()) << "stage removed once the dependent finished";
}

TEST(E2E, MaxfailStopsTheSession) {
  auto r = RunYaml("name: f\nexecutable: 'false'\nparameters: {i: [1, 2, 3, 4, 5, 6]}\nsanity: [{exit_code: 0}]\n",
                   {"--maxfail", "1", "--exec-policy", "serial"});
  EXPECT_EQ(r.o.exit_code, 1);
  EXPECT_NE(r.o.out.find("--maxfail 1 reached"), std::string::npos) << r.o.out;
  auto rep = Report(r.dir);
  int cancelled = 0;
  for (const auto& c : rep["cases"]) cancelled += c["result"] == "cancelled";
  EXPECT_EQ(cancelled, 5);
}

TEST(E2E, DryRunWritesScriptsOnly) {
  auto r = RunYaml("name: d\nexecutable: touch\nexecutable_opts: [ran]\nsanity: [{exit_code: 0}]\n", {"--dry-run"});
  EXPECT_EQ(r.o.exit_code, 0) << r.o.out;
  auto scripts = e2e::Find(r.dir + "/output", "hb_job.sh");
  ASSERT_EQ(scripts.size(), 1u);
  EXPECT_NE(Read(scripts[0]).find("touch ran"), std::string::npos);
  EXPECT_TRUE(e2e::Find(r.dir, "ran").empty());
}

TEST(E2E, RestoreSessionRerunsOnlyFailed) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml",
        "name: good\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n---\nname: bad\nexecutable: 'false'\nsanity: "
        "[{exit_code: 0}]\n");
  auto first = Hetbench({"run", "-c", "t.yaml", "--report-file", "first.json"}, dir);
  EXPECT_EQ(first.exit_code, 1);
  Write(dir + "/t.yaml",
        "name: good\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n---\nname: bad\nexecutable: 'true'\nsanity: "
        "[{exit_code: 0}]\n");
  auto second = Hetbench({"run", "--restore-session", "first.json", "--failed", "--report-file", "second.json"}, dir);
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  auto rep = nlohmann::json::parse(Read(dir + "/second.json"));
  ASSERT_EQ(rep["cases"].size(), 1u);
  EXPECT_EQ(rep["cases"][0]["name"], "bad");
}

TEST(E2E, ConcurrentSessionsShareAPrefix) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml",
        "name: c\nexecutable: echo\nexecutable_opts: ['v=2']\nperformance:\n  v: {pattern: 'v=(\\S+)'}\nsanity: "
        "[{exit_code: 0}]\n");
  pid_t a = e2e::StartHetbench({"run", "-c", "t.yaml"}, dir);
  pid_t b = e2e::StartHetbench({"run", "-c", "t.yaml"}, dir);
  EXPECT_EQ(e2e::WaitExit(a, 60), 0);
  EXPECT_EQ(e2e::WaitExit(b, 60), 0);
  EXPECT_EQ(e2e::Find(dir + "/reports", "run-*.json").size(), 2u);
  std::string log = Read(dir + "/perflogs/generic/default/c.log");
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 3) << log;
}

// ---- Bad input: one message with file:line:column, exit 2, nothing runs.

struct BadInput {
  const char* name;
  const char* yaml;
  const char* where;    // "t.yaml:L:C"
  const char* message;  // a part of the message
};

void PrintTo(const BadInput& b, std::ostream* os) { *os << b.name; }

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, OneClearMessageAndNothingRuns) {
  const BadInput& b = GetParam();
  auto r = RunYaml(b.yaml);
  EXPECT_EQ(r.o.exit_code, 2) << r.o.out << r.o.err;
  EXPECT_NE(r.o.err.find(std::string("hetbench: error: ") + b.where), std::string::npos) << "stderr: " << r.o.err;
  EXPECT_NE(r.o.err.find(b.message), std::string::npos) << "stderr: " << r.o.err;
  EXPECT_EQ(std::count(r.o.err.begin(), r.o.err.end(), '\n'), 1) << r.o.err;
  EXPECT_FALSE(Exists(r.dir + "/stage"));
  EXPECT_FALSE(Exists(r.dir + "/reports"));
}

INSTANTIATE_TEST_SUITE_P(
    E2E, BadInputTest,
    ::testing::Values(
        BadInput{"malformed_yaml", "name: a\nexecutable: [x\n", "t.yaml:3:1", "invalid YAML"},
        BadInput{"unknown_key", "name: a\nexecutabel: x\n", "t.yaml:2:1", "did you mean 'executable'?"},
        BadInput{"no_sanity", "name: a\nexecutable: x\n", "t.yaml:1:7",
                 "test 'a' has no sanity check: add one that its output shows success, e.g. sanity: [{pattern: "
                 "'Solution Validates'}], or, to rely on the exit code alone, sanity: [{exit_code: 0}]"},
        BadInput{"wrong_type", "name: a\nexecutable: x\nnum_tasks: [1]\nsanity: [{exit_code: 0}]\n", "t.yaml:3:12",
                 "expected an integer"},
        BadInput{"bad_duration", "name: a\nexecutable: x\ntime_limit: 5 minutes\nsanity: [{exit_code: 0}]\n",
                 "t.yaml:3:13", "'5 minutes' is not a duration"},
        BadInput{"invalid_regex", "name: a\nexecutable: x\nsanity:\n  - {pattern: 'a(b'}\n", "t.yaml:4:15", "a(b"},
        BadInput{"unknown_placeholder",
                 "name: a\nexecutable: x\nexecutable_opts: ['{thraeds}']\nsanity: [{exit_code: 0}]\n", "t.yaml:3:19",
                 "unknown placeholder '{thraeds}'"},
        BadInput{
            "duplicate_name",
            "name: a\nexecutable: x\nsanity: [{exit_code: 0}]\n---\nname: a\nexecutable: y\nsanity: [{exit_code: 0}]\n",
            "t.yaml:5:7", "duplicate test name 'a'"},
        BadInput{"extends_unknown", "name: a\nextends: base\n", "t.yaml:2:10", "no test named 'base'"},
        BadInput{"dependency_cycle",
                 "name: a\nexecutable: x\ndepends_on: [b]\nsanity: [{exit_code: 0}]\n---\nname: b\nexecutable: "
                 "x\ndepends_on: [a]\nsanity: [{exit_code: 0}]\n",
                 "t.yaml:8:1", "dependency cycle a -> b -> a"}),
    [](const ::testing::TestParamInfo<BadInput>& i) { return std::string(i.param.name); });

TEST(E2E, ReferenceToUndefinedPartition) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: mysys
    hostnames: ['.*']
    partitions:
      - name: cpu
        scheduler: local
        launcher: local
        environs: [gnu]
environments:
  - name: gnu
    cc: gcc
)");
  Write(dir + "/t.yaml", R"(
name: a
executable: echo
performance: {v: {pattern: 'v=(\d+)'}}
reference:
  'othersite:gpu': {v: [1, null, null]}
  'mysys:gpu': {v: [1, null, null]}
sanity: [{exit_code: 0}]
)");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("t.yaml:7:3: reference: system 'mysys' has no partition 'gpu' (it has: cpu)"), std::string::npos)
      << o.err;
}

TEST(E2E, MissingSchedulerCommandsAreOneErrorBeforeAnySubmission) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: cluster
    hostnames: ['.*']
    partitions:
      - {name: batch, scheduler: slurm, launcher: srun, environs: [gnu]}
environments:
  - {name: gnu, cc: gcc}
)");
  Write(dir + "/t.yaml", "name: a\nexecutable: hostname\nparameters: {i: [1, 2, 3]}\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60, {{"PATH", dir + "/nothing-here"}});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_EQ(o.err,
            "hetbench: error: partition 'cluster:batch': scheduler 'slurm' needs the command 'sbatch', which is not "
            "in PATH on this host (needed: sbatch, squeue, scontrol, scancel, sacct)\n");
  EXPECT_FALSE(Exists(dir + "/stage"));
}

// ---- The command line.

TEST(E2E, ListAndDetails) {
  std::string dir = TempDir();
  auto o = Hetbench({"list", "-c", kExamples}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("- stream %threads=1 /821482af @generic:default+builtin"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("Found "), std::string::npos);
  o = Hetbench({"list", "-c", kExamples, "-n", "matmul", "-L"}, dir);
  EXPECT_NE(o.out.find("performance: gflops (GFLOP/s)"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("stream"), std::string::npos);
}

TEST(E2E, UsageErrorsExit2) {
  std::string dir = TempDir();
  EXPECT_EQ(Hetbench({"run", "--exec-policy", "sometimes", "-c", "x"}, dir).exit_code, 2);
  EXPECT_EQ(Hetbench({"frobnicate"}, dir).exit_code, 2);
  auto o = Hetbench({"run", "-c", "missing.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("'missing.yaml' does not exist"), std::string::npos) << o.err;
}

TEST(E2E, VersionHelpDetectShowConfig) {
  std::string dir = TempDir();
  auto o = Hetbench({"--version"}, dir);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("hetbench "), std::string::npos);
  o = Hetbench({"run", "--help"}, dir);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("--exec-policy"), std::string::npos);
  o = Hetbench({"detect"}, dir);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("processor:"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("num_cpus:"), std::string::npos) << o.out;
  o = Hetbench({"show-config"}, dir);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("generic"), std::string::npos) << o.out;
}

TEST(E2E, SiteConfigSystemSelectionAndMode) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: laptop
    descr: 'on {{ hostname }}'
    hostnames: ['.*']
    partitions:
      - name: default
        scheduler: local
        launcher: local
        environs: [gnu]
        max_jobs: 2
      - name: other
        scheduler: local
        launcher: local
        environs: [gnu]
environments:
  - name: gnu
    cc: gcc
    env_vars: [[GREETING, hello]]
modes:
  - name: quick
    options: ['-n', 'say']
)");
  Write(dir + "/t.yaml",
        "name: say\nexecutable: sh\nexecutable_opts: ['-c', \"'echo $GREETING'\"]\nsanity:\n  - {pattern: hello}\n"
        "---\nname: other\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "laptop:default", "--mode", "quick"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("say @laptop:default+gnu"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.find("other @"), std::string::npos) << o.out;
  o = Hetbench({"list", "-C", "site.yaml", "-c", "t.yaml", "--system", "laptp"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("laptop"), std::string::npos) << o.err;
}

}  // namespace
