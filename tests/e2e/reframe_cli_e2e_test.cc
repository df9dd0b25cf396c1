// What a ReFrame user does in the first hour (issue 14), with the real
// binary: selections that select nothing, hashcodes, --describe, -E,
// ReFrame's generic:default, --skip-sanity-check and
// --skip-performance-check, skip_if, local: true, prebuild/postbuild_cmds
// and -R over folders that hold more than tests.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace {

const char* kStream = R"(name: stream
tags: [memory, quick]
parameters: {threads: [1, 2]}
executable: echo
executable_opts: ['bw=100']
env_vars: {OMP_NUM_THREADS: '{threads}'}
sanity: [{pattern: 'bw='}]
performance:
  bw: {pattern: 'bw=(\d+)', group: 1, unit: MB/s}
reference:
  'generic:default': {bw: [1000, -0.1, null]}
)";

nlohmann::json Report(const std::string& dir) {
  auto files = e2e::Find(dir + "/reports", "run-*.json");
  EXPECT_EQ(files.size(), 1u);
  if (files.empty()) return nlohmann::json::object();
  return nlohmann::json::parse(Read(files[0]));
}

TEST(ReframeCli, ASelectionThatSelectsNothingIsExit2WithADidYouMean) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kStream);
  for (std::string cmd : {"list", "run"}) {
    std::vector<std::string> args = {cmd, "-c", "t.yaml", "-t", "memroy"};
    if (cmd == "run") args.push_back("--no-store");
    auto o = Hetbench(args, dir);
    EXPECT_EQ(o.exit_code, 2) << cmd << o.out << o.err;
    EXPECT_EQ(o.err,
              "hetbench: error: no test case matches the selection: -t 'memroy' matches no tag of the 1 loaded "
              "test, did you mean 'memory'? (tags: memory, quick) (--allow-empty makes an empty selection exit 0)\n")
        << cmd;
  }
  EXPECT_FALSE(Exists(dir + "/reports"));
  EXPECT_FALSE(Exists(dir + "/stage"));
  auto o = Hetbench({"run", "-c", "t.yaml", "-n", "nothing", "--allow-empty", "--no-store"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  o = Hetbench({"list", "-c", "t.yaml", "-x", "stream"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("-x 'stream' excludes every test"), std::string::npos) << o.err;
}

TEST(ReframeCli, ListPrintsHashcodesAndMinusNSelectsOne) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kStream);
  // ReFrame's hashcode, computed here with Python's hashlib.
  std::string hash = e2e::Shell(
      "/usr/bin/python3 -c \"import hashlib; print(hashlib.sha256(b'stream' + b'threads=2').hexdigest()[:8], "
      "end='')\"");
  ASSERT_EQ(hash.size(), 8u);
  auto o = Hetbench({"list", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_NE(o.out.find("- stream %threads=2 /" + hash + " @generic:default+builtin\n"), std::string::npos) << o.out;
  o = Hetbench({"run", "-c", "t.yaml", "-n", "/" + hash, "--no-store", "--skip-performance-check"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto cases = Report(dir)["cases"];
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0]["display_name"], "stream %threads=2");
}

TEST(ReframeCli, DescribePrintsTheBoundCases) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kStream);
  auto o = Hetbench({"list", "-c", "t.yaml", "--describe", "-E", "threads == 2"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto d = nlohmann::json::parse(o.out);
  ASSERT_TRUE(d.is_array());
  ASSERT_EQ(d.size(), 1u);
  const auto& c = d[0];
  EXPECT_EQ(c["name"], "stream");
  EXPECT_EQ(c["display_name"], "stream %threads=2");
  EXPECT_EQ(c["hashcode"].get<std::string>().size(), 8u);
  EXPECT_EQ(c["system"], "generic");
  EXPECT_EQ(c["partition"], "default");
  EXPECT_EQ(c["environ"], "builtin");
  EXPECT_EQ(c["parameters"]["threads"], 2);
  EXPECT_EQ(c["env_vars"]["OMP_NUM_THREADS"], "2");  // bound, not '{threads}'
  EXPECT_EQ(c["executable"], "echo");
  EXPECT_EQ(c["tags"], nlohmann::json({"memory", "quick"}));
}

TEST(ReframeCli, GenericDefaultIsReframesNameAndLocalStaysAnAlias) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kStream);
  // The reference for 'generic:default' applies: 100 is below 1000 - 10%.
  auto o = Hetbench({"run", "-c", "t.yaml", "-n", "threads=1", "--no-store"}, dir);
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("performance: bw 100 MB/s is 90% below reference 1000"), std::string::npos) << o.out;
  std::string old = dir + "/old";
  std::string text = kStream;
  text.replace(text.find("generic:default"), 15, "generic:local");
  text += "valid_systems: ['generic:local']\n";
  Write(old + "/t.yaml", text);
  o = Hetbench({"run", "-c", "t.yaml", "--system", "generic:local", "-n", "threads=1", "--no-store", "-v"}, old);
  EXPECT_NE(o.err.find("test stream: 'generic:local' in valid_systems is partition 'default' (its old name; "
                       "ReFrame's is 'default')"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("@generic:default+builtin"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("is 90% below reference 1000"), std::string::npos) << o.out;
}

TEST(ReframeCli, SkipSanityAndPerformanceChecks) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", std::string(kStream) +
                             "---\nname: crash\nexecutable: sh\nexecutable_opts: ['-c', \"'exit 4'\"]\n"
                             "sanity: [{pattern: never}]\n");
  auto o = Hetbench({"run", "-c", "t.yaml", "-n", "threads=1", "--skip-performance-check", "--no-store"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out;
  auto c = Report(dir)["cases"][0];
  EXPECT_EQ(c["result"], "pass");
  ASSERT_TRUE(c.contains("perf")) << c.dump();
  EXPECT_TRUE(c["perf"].empty()) << c.dump();  // no performance stage
  std::string d2 = dir + "/2";
  Write(d2 + "/t.yaml", "name: nosan\nexecutable: echo\nexecutable_opts: [hello]\nsanity: [{pattern: never}]\n");
  o = Hetbench({"run", "-c", "t.yaml", "--no-store"}, d2);
  EXPECT_EQ(o.exit_code, 1);
  o = Hetbench({"run", "-c", "t.yaml", "--skip-sanity-check", "--no-store"}, d2);
  EXPECT_EQ(o.exit_code, 0) << o.out;
  // A failing exit code still fails without the sanity stage.
  o = Hetbench({"run", "-c", "t.yaml", "-n", "crash", "--skip-sanity-check", "--no-store"}, dir);
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("run: exit code 4"), std::string::npos) << o.out;
}

TEST(ReframeCli, SkipIfSkipsWithTheReason) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml",
        "name: gpu\nparameters: {n: [0, 2]}\nnum_gpus_per_node: '{n}'\nexecutable: echo\n"
        "skip_if: {expr: 'num_gpus_per_node == 0', reason: 'needs GPUs'}\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-c", "t.yaml", "--no-store"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto cases = Report(dir)["cases"];
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]["result"], "skip");
  EXPECT_EQ(cases[0]["fail_reason"], "needs GPUs");
  EXPECT_EQ(cases[1]["result"], "pass");
  // A reason that is not UTF-8 reaches the report and the store as U+FFFD.
  std::string latin = dir + "/latin";
  Write(latin + "/t.yaml",
        "name: l\nexecutable: echo\nskip_if: {expr: '1 == 1', reason: \"caf\xe9\"}\n"
        "sanity: [{exit_code: 0}]\n");
  o = e2e::Hetbench({"run", "-c", "t.yaml"}, latin, 60, {{"HETBENCH_STORE", latin + "/r.db"}});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto latin_cases = Report(latin)["cases"];
  ASSERT_EQ(latin_cases.size(), 1u);
  EXPECT_EQ(latin_cases[0]["fail_reason"], "caf\xef\xbf\xbd");
  EXPECT_NE(o.out.find("Stored in:"), std::string::npos) << o.out;
  Write(dir + "/bad.yaml", "name: b\nexecutable: echo\nskip_if: {expr: 'num_gpu == 0'}\nsanity: [{exit_code: 0}]\n");
  o = Hetbench({"list", "-c", "bad.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("bad.yaml:3:1: skip_if: num_gpu == 0: unknown name 'num_gpu'"), std::string::npos) << o.err;
}

TEST(ReframeCli, LocalRunsOnThisHostOnABatchPartition) {
  std::string dir = TempDir();
  // PBS is not installed here: a batch job could not even be submitted.
  Write(dir + "/site.yaml", R"(
systems:
  - name: hpc
    hostnames: ['.*']
    partitions:
      - {name: batch, scheduler: pbs, launcher: mpirun, access: [-q debug], environs: [gnu]}
environments:
  - {name: gnu, cc: gcc}
)");
  Write(dir + "/t.yaml", "name: login\nlocal: true\nlauncher: local\nexecutable: hostname\nsanity: [{pattern: '.'}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--no-store", "--keep-stage-files"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto scripts = e2e::Find(dir + "/output", "hb_job.sh");
  ASSERT_EQ(scripts.size(), 1u);
  std::string script = Read(scripts[0]);
  EXPECT_EQ(script.find("#PBS"), std::string::npos) << script;
  EXPECT_EQ(script.find("mpirun"), std::string::npos) << script;
}

TEST(ReframeCli, PrebuildAndPostbuildCommandsRunAroundTheBuild) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", R"(name: b
build_system: {type: CustomBuild, commands: ['echo build >> order']}
prebuild_cmds: ['echo pre > order']
postbuild_cmds: ['echo post >> order']
executable: cat
executable_opts: [order]
sanity: [{pattern: "^pre\nbuild\npost$"}]
)");
  auto o = Hetbench({"run", "-c", "t.yaml", "--no-store"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  Write(dir + "/nobuild.yaml", "name: n\nexecutable: echo\nprebuild_cmds: [x]\nsanity: [{exit_code: 0}]\n");
  o = Hetbench({"list", "-c", "nobuild.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("nobuild.yaml:3:1: prebuild_cmds: the test has no build_system"), std::string::npos) << o.err;
}

TEST(ReframeCli, RecursiveSearchSkipsSiteConfigurationsAndHetbenchOutput) {
  std::string dir = TempDir();
  Write(dir + "/suite/t.yaml", kStream);
  Write(dir + "/suite/site.yaml", "systems:\n  - {name: s, hostnames: [x], partitions: []}\n");
  Write(dir + "/suite/k8s/kubeconfig.yaml", "apiVersion: v1\nkind: Config\nclusters: []\n");
  // A run leaves output/<session>/.../run_config.yaml-like YAML behind.
  auto o = Hetbench(
      {"run", "-c", "t.yaml", "-n", "threads=1", "--no-store", "--skip-performance-check", "--keep-stage-files"},
      dir + "/suite");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  Write(dir + "/suite/stage/20261202T010203-42/x/copy.yaml", "name: copy\nexecutable: x\nsanity: [{exit_code: 0}]\n");
  o = Hetbench({"list", "-c", "suite", "-R"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("Found 2 test case(s) from 1 test(s) in 1 file(s)"), std::string::npos) << o.out;
  // A YAML file that is neither tests nor one of those is still an error.
  Write(dir + "/suite/notes.yaml", "title: my notes\n");
  o = Hetbench({"list", "-c", "suite", "-R"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("notes.yaml:1:1"), std::string::npos) << o.err;
}

TEST(ReframeCli, CheckSearchPathFromTheConfiguration) {
  std::string dir = TempDir();
  Write(dir + "/checks/top.yaml", "name: top\nexecutable: echo\nsanity: [{exit_code: 0}]\n");
  Write(dir + "/checks/deep/deeper.yaml", "name: deeper\nexecutable: echo\nsanity: [{exit_code: 0}]\n");
  auto site = [&](bool recursive) {
    return std::string(
               "systems:\n  - name: box\n    hostnames: ['.*']\n    partitions:\n"
               "      - {name: p, scheduler: local, launcher: local, environs: [gnu]}\n"
               "environments:\n  - {name: gnu}\ngeneral:\n  - check_search_path: ['$HB_CHECKS']\n"
               "    check_search_recursive: ") +
           (recursive ? "true" : "false") + "\n";
  };
  Write(dir + "/flat.yaml", site(false));
  Write(dir + "/deep.yaml", site(true));
  e2e::Env env = {{"HB_CHECKS", dir + "/checks"}};
  auto o = e2e::Hetbench({"list", "-C", "flat.yaml"}, dir, 60, env);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("Found 1 test case(s) from 1 test(s) in 1 file(s)"), std::string::npos) << o.out;
  o = e2e::Hetbench({"list", "-C", "deep.yaml"}, dir, 60, env);
  EXPECT_NE(o.out.find("Found 2 test case(s) from 2 test(s) in 2 file(s)"), std::string::npos) << o.out;
  o = e2e::Hetbench({"list", "-C", "flat.yaml", "-R"}, dir, 60, env);
  EXPECT_NE(o.out.find("Found 2 test case(s)"), std::string::npos) << o.out;
}

TEST(ReframeCli, PerformanceReportShowsThePreviousStoredValues) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml",
        "name: bw\nvariables: {bw: {type: int, default: 100}}\nexecutable: echo\n"
        "executable_opts: ['bw={bw}']\nsanity: [{pattern: 'bw='}]\n"
        "performance:\n  bw: {pattern: 'bw=(\\d+)', group: 1, unit: MB/s}\n");
  e2e::Env env = {{"HETBENCH_STORE", dir + "/results.db"}};
  auto o = e2e::Hetbench({"run", "-c", "t.yaml", "--performance-report"}, dir, 60, env);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  // Nothing stored before: the columns are there, empty.
  EXPECT_NE(o.out.find("verdict  previous  change"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("none            -       -"), std::string::npos) << o.out;
  o = e2e::Hetbench({"run", "-c", "t.yaml", "-S", "bw=110", "--performance-report"}, dir, 60, env);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("bw @generic:default+builtin  bw          110  MB/s"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("none          100    +10%"), std::string::npos) << o.out;
  // Without the option the table is as before.
  o = e2e::Hetbench({"run", "-c", "t.yaml"}, dir, 60, env);
  EXPECT_EQ(o.out.find("previous"), std::string::npos) << o.out;
}

TEST(ReframeCli, VerboseAndTheLogFileSayWhy) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kStream);
  Write(dir + "/site.yaml", "systems:\n  - {name: s, hostnames: [x], partitions: []}\n");
  auto o = Hetbench({"list", "-c", ".", "-t", "memory", "-p", "builtin", "-v"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("hetbench: configuration: the embedded generic system"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("hetbench: system: generic (its hostnames match this host"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("hetbench: skipped ./site.yaml: a site configuration, not tests"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("hetbench: selection: 1 test(s); 1 kept by -n/-x; 2 case(s) valid on default; dropped: 0 by "
                       "-p, 0 by -t, 0 by -E; 2 selected, 2 with their dependencies"),
            std::string::npos)
      << o.err;
  o = Hetbench({"list", "-c", "t.yaml"}, dir);
  EXPECT_TRUE(o.err.empty()) << o.err;  // quiet without -v
  o = Hetbench({"list", "-c", "t.yaml", "--system", "generic:local", "-v"}, dir);
  EXPECT_NE(o.err.find("partition 'local' is an alias of 'default' (ReFrame's name is 'default')"), std::string::npos)
      << o.err;
  // `run` keeps the log in <prefix>/hetbench.log, -v or not.
  o = Hetbench({"run", "-c", "t.yaml", "-n", "threads=1", "--no-store", "--skip-performance-check", "--prefix", "p"},
               dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::string log = Read(dir + "/p/hetbench.log");
  EXPECT_NE(log.find("] verbose: system: generic (its hostnames match"), std::string::npos) << log;
  EXPECT_NE(log.find("] verbose: selection: 1 test(s)"), std::string::npos) << log;
  // A configuration's own handlers replace that file.
  Write(dir + "/cfg.yaml", e2e::LocalSite(R"(logging:
  - handlers:
      - {type: file, name: mine.log, level: verbose, format: '%(levelname)s %(message)s'}
)"));
  Write(dir + "/u.yaml", "name: u\nexecutable: echo\nsanity: [{exit_code: 0}]\n");
  o = Hetbench({"run", "-C", "cfg.yaml", "-c", "u.yaml", "--no-store", "--prefix", "q"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_FALSE(Exists(dir + "/q/hetbench.log"));
  EXPECT_NE(Read(dir + "/mine.log").find("verbose system: box (its hostnames match"), std::string::npos)
      << Read(dir + "/mine.log");
}

}  // namespace
