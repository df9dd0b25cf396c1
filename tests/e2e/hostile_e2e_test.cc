// End to end, issue 16 (hostile input): what the real binary does with
// names that would leave the prefix, a prefix that is a file, keep_files
// outside the stage, a sourcesdir that holds the prefix, a regex PCRE2
// gives up on, and the system's prefix, stagedir and outputdir.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "e2e_util.h"

namespace {

const char* kTest = R"(
name: t
executable: echo
executable_opts: [hello]
sanity: [{pattern: hello}]
)";

// The shared one-partition local site with `general` entries as given.
std::string LocalSite(const std::string& general) { return e2e::LocalSite("general:\n" + general); }

TEST(HostileE2E, EnvironmentNameWithDotDotStopsTheLoadAndDeletesNothing) {
  std::string dir = TempDir();
  Write(dir + "/victim/perfcase/keep.txt", "precious\n");
  Write(dir + "/work/site.yaml", R"(
systems:
  - name: s
    hostnames: ['.*']
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: ['../../../victim']}
environments:
  - {name: '../../../victim', cc: gcc}
)");
  Write(dir + "/work/t.yaml", kTest);
  Output o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--prefix", "out"}, dir + "/work");
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("site.yaml:8:12: the name '../../../victim' of environment is not valid"), std::string::npos)
      << o.err;
  EXPECT_EQ(Read(dir + "/victim/perfcase/keep.txt"), "precious\n");
}

TEST(HostileE2E, APrefixThatIsAFileIsRefusedBeforeAnythingRuns) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kTest);
  Write(dir + "/file", "not a folder\n");
  Output o = Hetbench({"run", "-c", "t.yaml", "--prefix", "file"}, dir);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("the prefix " + dir + "/file (--prefix) is a file, not a folder"), std::string::npos) << o.err;
  EXPECT_EQ(o.out.find("Run report"), std::string::npos) << o.out;
}

TEST(HostileE2E, TheSystemsPrefixStagedirAndOutputdirAreHonoured) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: s
    hostnames: ['.*']
    prefix: $HB_TEST_ROOT/pfx
    outputdir: $HB_TEST_ROOT/outs
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: [e]}
environments:
  - {name: e}
)");
  Write(dir + "/t.yaml", std::string(kTest) + "keep_files: [kept.txt]\nprerun_cmds: ['echo k > kept.txt']\n");
  Output o =
      Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--keep-stage-files"}, dir, 60, {{"HB_TEST_ROOT", dir}});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(e2e::Find(dir + "/outs", "kept.txt").size(), 1u) << o.out;
  EXPECT_EQ(e2e::Find(dir + "/pfx/stage", "hb_job.sh").size(), 1u);
  EXPECT_FALSE(e2e::Exists(dir + "/pfx/output"));
  EXPECT_TRUE(e2e::Exists(dir + "/pfx/reports"));
}

TEST(HostileE2E, SourcesdirHoldingThePrefixFailsTheCaseClearly) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", std::string(kTest) + "sourcesdir: .\n");
  Output o = Hetbench({"run", "-c", "t.yaml", "--prefix", "out"}, dir, 60);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  nlohmann::json r = e2e::ReportOf(o);
  ASSERT_EQ(r["cases"].size(), 1u) << o.out;
  EXPECT_EQ(r["cases"][0]["fail_stage"], "setup");
  EXPECT_NE(r["cases"][0]["fail_reason"].get<std::string>().find("which is inside it"), std::string::npos)
      << r["cases"][0].dump(1);
  // No tree hundreds of levels deep.
  size_t depth = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(dir + "/out");
       it != std::filesystem::recursive_directory_iterator(); ++it)
    depth = std::max<size_t>(depth, static_cast<size_t>(it.depth()));
  EXPECT_LT(depth, 12u);
}

TEST(HostileE2E, ARegexPcreGivesUpOnFailsTheCaseNotPasses) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", LocalSite("  - regex_match_limit: 100000\n"));
  Write(dir + "/t.yaml", R"(
name: t
executable: printf
executable_opts: ['"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\nERROR\n"']
sanity: [{not_pattern: '^(a+)+$|ERROR'}]
)");
  Output o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--prefix", "out"}, dir, 60);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  nlohmann::json r = e2e::ReportOf(o);
  ASSERT_EQ(r["cases"].size(), 1u) << o.out;
  EXPECT_EQ(r["cases"][0]["result"], "fail");
  EXPECT_NE(r["cases"][0]["fail_reason"].get<std::string>().find("regex too expensive"), std::string::npos)
      << r["cases"][0].dump(1);
}

// issue 16, items 4 and 12: SIGQUIT and SIGUSR1 are handled like SIGTERM
// (jobs cancelled, report written, exit 130), not a core dump or a kill
// that leaves the jobs running.
TEST(HostileE2E, SigquitAndSigusr1CancelLikeSigterm) {
  for (int sig : {SIGQUIT, SIGUSR1}) {
    std::string dir = TempDir();
    Write(dir + "/t.yaml", "name: long\nexecutable: sleep\nexecutable_opts: ['300']\nsanity: [{exit_code: 0}]\n");
    pid_t pid = e2e::StartHetbench({"run", "-c", "t.yaml"}, dir);
    ASSERT_TRUE(e2e::WaitForText(dir + "/hb.stdout", "[ RUN      ] long", 20));
    kill(pid, sig);
    EXPECT_EQ(e2e::WaitExit(pid, 30), 130) << "signal " << sig;
    EXPECT_EQ(e2e::LatestReport(dir)["cases"][0]["result"], "cancelled") << "signal " << sig;
  }
}

// issue 16, item 4: `hetbench run | head -1` loses nothing: the run goes
// on after the reader is gone, its report is written, its exit status is
// the run's.
TEST(HostileE2E, AClosedStdoutLosesNothing) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml",
        "name: t\nexecutable: echo\nexecutable_opts: [hi]\nparameters: {i: [1, 2, 3, 4]}\n"
        "sanity: [{pattern: hi}]\n");
  e2e::Shell("cd '" + dir + "' && { HETBENCH_STORE='" + dir + "/r.db' '" + HETBENCH_BIN +
             "' run -c t.yaml --prefix out; echo \"rc=$?\" > rc; } | head -c 1 >/dev/null");
  std::string out = Read(dir + "/rc");
  EXPECT_EQ(out, "rc=0\n");
  nlohmann::json r = e2e::LatestReport(dir + "/out");
  ASSERT_EQ(r["cases"].size(), 4u) << out;
  for (const auto& c : r["cases"]) EXPECT_EQ(c["result"], "pass");
  EXPECT_TRUE(e2e::Exists(dir + "/r.db"));
}

// issue 16, item 12: a report that cannot be written is exit status 3,
// says so instead of printing a path, and leaves no temporary file.
TEST(HostileE2E, AnUnwritableReportIsExit3AndLeavesNoTemporaryFile) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kTest);
  Write(dir + "/reports", "a file where the reports folder would be\n");
  Output o = Hetbench({"run", "-c", "t.yaml", "--report-file", "reports/r.json"}, dir, 60,
                      {{"HETBENCH_STORE", dir + "/r.db"}});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.out.find("Run report: not written ("), std::string::npos) << o.out;
  EXPECT_NE((o.out + o.err).find("hetbench: error: cannot write the run report"), std::string::npos) << o.out << o.err;
  EXPECT_TRUE(e2e::Find(dir, "*.tmp.*").empty());
}

// issue 16, item 12: bad module mappings stop the run before any case
// (exit 2), not as a failure of every case (exit 1).
TEST(HostileE2E, BadModuleMappingsAreAConfigurationError) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", e2e::LocalSite("general:\n  - module_mappings: ['no colon here']\n"));
  Write(dir + "/t.yaml", kTest);
  Output o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--prefix", "out"}, dir, 60,
                      {{"HETBENCH_STORE", dir + "/r.db"}});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("general: module_mappings"), std::string::npos) << o.err;
  EXPECT_FALSE(e2e::Exists(dir + "/out/stage"));
}

// issue 15, item 3: a test's Kubernetes context is checked against the
// kubeconfig when the tests load, so `list` reports it too.
TEST(HostileE2E, ATestsUnknownKubernetesContextIsALoadError) {
  std::string dir = TempDir();
  Write(dir + "/kubeconfig",
        "apiVersion: v1\nkind: Config\nclusters:\n  - {name: c, cluster: {server: "
        "'https://k.invalid'}}\nusers:\n  - {name: u, user: {token: t}}\ncontexts:\n"
        "  - {name: gpu, context: {cluster: c, user: u}}\n");
  Write(dir + "/site.yaml",
        "systems:\n  - name: s\n    hostnames: ['.*']\n    partitions:\n"
        "      - {name: kube, scheduler: kubernetes, launcher: local, environs: [e],\n"
        "         sched_options: {kubeconfig: " +
            dir +
            "/kubeconfig, context: gpu}}\n"
            "environments:\n  - {name: e}\n");
  Write(dir + "/t.yaml", std::string(kTest) + "k8s: {context: ipu}\n");
  Output o = Hetbench({"list", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("t.yaml:6:1: test 't' on partition 's:kube': "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("context 'ipu' not found (contexts: gpu)"), std::string::npos) << o.err;
  Write(dir + "/t.yaml", std::string(kTest) + "k8s: {context: gpu, namespace: team-b}\n");
  o = Hetbench({"list", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

// issue 16, item 4: every scheduler's sched_options are checked when the
// configuration loads, `list` too, with the value's file:line:column.
TEST(HostileE2E, BadSchedOptionsAreLoadErrorsAtTheirPlace) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", kTest);
  Write(dir + "/site.yaml",
        "systems:\n  - name: s\n    hostnames: ['.*']\n    partitions:\n"
        "      - name: kube\n        scheduler: kubernetes\n        launcher: local\n"
        "        environs: [e]\n        sched_options:\n          namespace: team\n"
        "          memory_limit: [8Gi]\n"
        "environments:\n  - {name: e}\n");
  Output o = Hetbench({"list", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("site.yaml:11:25: partition 's:kube': "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("memory_limit"), std::string::npos) << o.err;
  Write(dir + "/site.yaml",
        "systems:\n  - name: s\n    hostnames: ['.*']\n    partitions:\n"
        "      - {name: b, scheduler: slurm, launcher: srun, environs: [e],\n"
        "         sched_options: {lost_after: soon}}\n"
        "environments:\n  - {name: e}\n");
  o = Hetbench({"list", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("site.yaml:6:38: partition 's:b': sched_options: "), std::string::npos) << o.err;
}

const std::string kLimitedSite = LocalSite("  - {max_output_per_case: 1MiB, max_cases: 50}\n");

// issue 16, items 7 and 5: a job that prints without end (`yes` for its
// whole time limit) is stopped once its output passes
// general: max_output_per_case; the file is cut there with a marker, the
// case fails saying so, and the other case of the run still passes.
TEST(HostileE2E, OutputBeyondTheLimitStopsTheJobAndCutsTheFile) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kLimitedSite);
  Write(dir + "/t.yaml", R"(
name: chatty
executable: yes
time_limit: 120
sanity: [{pattern: y}]
---
name: quiet
executable: echo
executable_opts: [hello]
sanity: [{pattern: hello}]
)");
  auto t0 = std::chrono::steady_clock::now();
  Output o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--prefix", "out", "--keep-stage-files"}, dir, 100);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_LT(took, 60) << "the job ran to its time limit";
  nlohmann::json r = e2e::ReportOf(o);
  ASSERT_EQ(r["cases"].size(), 2u) << o.out;
  for (const auto& c : r["cases"]) {
    if (c["name"] == "quiet") {
      EXPECT_EQ(c["result"], "pass");
      continue;
    }
    EXPECT_EQ(c["result"], "fail");
    EXPECT_EQ(c["fail_stage"], "run");
    EXPECT_NE(c["fail_reason"].get<std::string>().find("output limit: hb_job.out grew beyond 1 MiB "
                                                       "(general: max_output_per_case)"),
              std::string::npos)
        << c.dump(1);
  }
  std::vector<std::string> outs = e2e::Find(dir + "/out/output", "hb_job.out");
  std::string kept;
  for (const auto& f : outs)
    if (f.find("chatty") != std::string::npos) kept = Read(f);
  ASSERT_FALSE(kept.empty()) << "no copy of chatty's output";
  std::string marker = "\n[hetbench: output cut here at 1 MiB (general: max_output_per_case)]\n";
  EXPECT_EQ(kept.size(), (1u << 20) + marker.size());
  EXPECT_EQ(kept.substr(kept.size() - marker.size()), marker);
}

// issue 16, item 7: a test whose parameters would make 10^10 cases is
// refused by `list` at once, naming the limit, instead of filling memory.
TEST(HostileE2E, AHugeParameterProductIsRefusedBeforeExpansion) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kLimitedSite);
  std::string t = "name: huge\nexecutable: 'true'\nsanity: [{exit_code: 0}]\nparameters:\n";
  for (int i = 0; i < 10; ++i) t += "  p" + std::to_string(i) + ": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
  Write(dir + "/t.yaml", t);
  Output o = Hetbench({"list", "-c", "t.yaml"}, dir, 30);
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("its 10 parameters make 10000000000 combinations, more than general: max_cases (1000000)"),
            std::string::npos)
      << o.err;
  Output limited = Hetbench({"list", "-C", "site.yaml", "-c", "t.yaml"}, dir, 30);
  EXPECT_NE(limited.err.find("more than general: max_cases (50)"), std::string::npos) << limited.err;
}

// issue 16, item 8: a slow sanity check (a pattern that backtracks on
// every line of a long output) stops at SIGINT between lines: the run ends
// interrupted (exit 130) with its report written, well before the check
// would have finished.
TEST(HostileE2E, ASlowSanityCheckStopsAtAnInterrupt) {
  std::string dir = TempDir();
  Write(dir + "/t.yaml", R"(
name: slow
executable: sh
executable_opts: ['-c', "'i=0; while [ $i -lt 20000 ]; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaab; i=$((i+1)); done'"]
sanity: [{not_pattern: '^(a|aa)+$'}]
)");
  pid_t pid = e2e::StartHetbench({"run", "-c", "t.yaml", "--prefix", "out"}, dir);
  // The job ends in well under a second; then the check runs for minutes.
  ASSERT_TRUE(e2e::WaitForText(dir + "/hb.stdout", "[ RUN      ] slow", 20));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto t0 = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  EXPECT_EQ(e2e::WaitExit(pid, 30), 130);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 5);
  nlohmann::json r = e2e::LatestReport(dir + "/out");
  ASSERT_EQ(r["cases"].size(), 1u);
  EXPECT_EQ(r["cases"][0]["result"], "cancelled") << r["cases"][0].dump(1);
}

// issue 16, item 11: the system's resourcesdir is honoured, as ReFrame's
// current_system.resourcesdir: tests read it as {system.resourcesdir}.
TEST(HostileE2E, TheSystemsResourcesdirIsAPlaceholder) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: s
    hostnames: ['.*']
    resourcesdir: $HB_TEST_ROOT/res
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: [e]}
environments:
  - {name: e}
)");
  Write(dir + "/res/input.txt", "big input\n");
  Write(dir + "/t.yaml",
        "name: t\nexecutable: cat\nexecutable_opts: ['{system.resourcesdir}/input.txt']\n"
        "sanity: [{pattern: '^big input$'}]\n");
  Output o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--prefix", "out"}, dir, 60, {{"HB_TEST_ROOT", dir}});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  // Unset, it is '.', as in ReFrame.
  Write(dir + "/u.yaml",
        "name: u\nexecutable: echo\nexecutable_opts: ['dir={system.resourcesdir}']\n"
        "sanity: [{pattern: '^dir=\\.$'}]\n");
  Output u = Hetbench({"run", "-c", "u.yaml", "--prefix", "out2"}, dir, 60);
  EXPECT_EQ(u.exit_code, 0) << u.out << u.err;
}

}  // namespace
