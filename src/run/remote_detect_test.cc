#include "run/remote_detect.h"

#include <gtest/gtest.h>

#include <chrono>

#include "config/config_loader.h"
#include "util/fs.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

const char kSite[] = R"(
systems:
  - name: hpc
    hostnames: ['.*']
    partitions:
      - name: cpu
        scheduler: local
        launcher: local
        environs: [builtin]
        prepare_cmds: ['export FROM_PREPARE=1']
        env_vars: [[FROM_PARTITION, yes]]
      - name: pods
        scheduler: k8s
        launcher: local
        environs: [builtin]
environments:
  - {name: builtin, cc: gcc}
)";

// A stand-in for hetbench on the node: `detect --json -o FILE` runs `body`
// with $4 = FILE.
std::string FakeHetbench(const TempDir& dir, const std::string& body) {
  std::string path = dir.Write("bin/hetbench",
                               "#!/bin/bash\n"
                               "[ \"$1 $2 $3\" = 'detect --json -o' ] || { echo \"bad args: $*\" >&2; exit 99; }\n" +
                                   body + "\n");
  chmod(path.c_str(), 0755);
  return path;
}

struct Fixture {
  TempDir dir;
  SiteConfig config;
  Fixture() {
    auto cfg = LoadSiteConfig({dir.Write("site.yaml", kSite)});
    EXPECT_TRUE(cfg.ok()) << cfg.status().str();
    if (cfg.ok()) config = std::move(cfg).value();
  }
  DetectTarget Target(const std::string& part) const {
    const System* sys = config.FindSystem("hpc");
    return {sys, sys->FindPartition(part)};
  }
  DetectOutcome Detect(const std::string& part, const std::string& exe, double time_limit_s = 60) {
    DetectJobOptions o;
    o.exe = exe;
    o.workdir = dir / "work";
    o.time_limit_s = time_limit_s;
    o.kill_grace_s = 0.5;
    return DetectPartitions(config, {Target(part)}, o, [this](const std::string& n) { notes.push_back(n); });
  }
  std::vector<std::string> notes;
};

TEST(RemoteDetect, OptionsComeFromTheCommandLineThenGeneral) {
  auto o = ResolveDetectOptions({}, nlohmann::json::object());
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->time_limit_s, 300);
  EXPECT_EQ(o->workdir, ".");
  EXPECT_NE(o->exe.find('/'), std::string::npos) << "this binary's absolute path: " << o->exe;
  nlohmann::json general = {{"remote_hetbench", "/shared/bin/hetbench"},
                            {"remote_workdir", "/scratch/me"},
                            {"remote_detect_time_limit", "2m"}};
  o = ResolveDetectOptions({}, general);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->exe, "/shared/bin/hetbench");
  EXPECT_EQ(o->workdir, "/scratch/me");
  EXPECT_EQ(o->time_limit_s, 120);
  DetectJobOptions cli;
  cli.exe = "/opt/hb";
  cli.time_limit_s = 10;
  o = ResolveDetectOptions(cli, general);
  EXPECT_EQ(o->exe, "/opt/hb");
  EXPECT_EQ(o->time_limit_s, 10);
  EXPECT_EQ(ResolveDetectOptions({}, {{"remote_detect_time_limit", "soon"}}).status().str(),
            "general: remote_detect_time_limit: expected a duration such as '30s', '10m', '1h30m' or '2d', got a "
            "string 'soon'");
}

TEST(RemoteDetect, ScriptRunsHetbenchThroughTheLauncherAfterThePartitionsSetUp) {
  Fixture f;
  DetectTarget t = f.Target("cpu");
  std::string script =
      RunScript(DetectScriptParts(*t.system, *t.partition, "srun", "/shared/hetbench", "/w/d", "/w/d/topology.json"));
  EXPECT_EQ(script,
            "#!/bin/bash\n"
            "cd /w/d || exit 125\n"
            "export FROM_PREPARE=1\n"
            "export FROM_PARTITION=yes\n"
            "srun /shared/hetbench detect --json -o /w/d/topology.json\n");
}

TEST(RemoteDetect, ReadsWhatTheJobWrote) {
  Fixture f;
  std::string exe = FakeHetbench(f.dir, R"(cat > "$4" <<'EOF'
{"schema": "hetbench-topology", "schema_version": 1, "hostname": "node7", "hetbench_version": "1",
 "time": 1, "processor": {"num_cpus": 96, "arch": "neoverse_v2"},
 "devices": [{"type": "gpu", "arch": "sm_90", "model": "NVIDIA GH200 480GB", "num_devices": 4}]}
EOF
[ "$FROM_PARTITION" = yes ] || exit 7)");
  DetectOutcome out = f.Detect("cpu", exe);
  ASSERT_EQ(out.results.size(), 1u);
  ASSERT_TRUE(out.results[0].ok()) << out.results[0].status().str();
  EXPECT_EQ(out.results[0]->processor.num_cpus, 96);
  EXPECT_EQ(out.results[0]->hostname, "node7");
  ASSERT_EQ(out.results[0]->devices.size(), 1u);
  EXPECT_EQ(out.results[0]->devices[0].num_devices, 4);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("detecting the topology of partition 'hpc:cpu': job "), std::string::npos) << f.notes[0];
  // The job's folder is gone after a success.
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::is_empty(f.dir / "work", ec)) << ec.message();
}

TEST(RemoteDetect, AFailedJobNamesPartitionJobStateAndStderr) {
  Fixture f;
  std::string exe = FakeHetbench(f.dir, "echo 'warming up' >&2; echo 'nvidia-smi: driver mismatch' >&2; exit 3");
  DetectOutcome out = f.Detect("cpu", exe);
  ASSERT_FALSE(out.results[0].ok());
  std::string msg = out.results[0].status().str();
  EXPECT_NE(msg.find("partition 'hpc:cpu': detection job "), std::string::npos) << msg;
  EXPECT_NE(msg.find(" ended completed(exit 3); its standard error ends with:\n  warming up\n"
                     "  nvidia-smi: driver mismatch\n(the job's files are kept in " +
                     f.dir.path() + "/work/hb-detect-hpc-cpu."),
            std::string::npos)
      << msg;
}

TEST(RemoteDetect, AJobThatWritesNothingUsableSaysSo) {
  Fixture f;
  DetectOutcome out = f.Detect("cpu", FakeHetbench(f.dir, "echo '{}' > \"$4\""));
  std::string msg = out.results[0].status().str();
  EXPECT_NE(msg.find("completed but left no topology: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a hetbench topology file"), std::string::npos) << msg;
}

TEST(RemoteDetect, AJobPastItsTimeLimitIsCancelledNotWaitedFor) {
  Fixture f;
  auto start = std::chrono::steady_clock::now();
  DetectOutcome out = f.Detect("cpu", FakeHetbench(f.dir, "echo started >&2; sleep 60"), 1);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(took, 15);
  std::string msg = out.results[0].status().str();
  EXPECT_NE(msg.find("did not finish within its time limit of 00:00:01"), std::string::npos) << msg;
  EXPECT_NE(msg.find("  started"), std::string::npos) << msg;
}

TEST(RemoteDetect, KubernetesPartitionsAreRefusedWithAReason) {
  Fixture f;
  DetectOutcome out = f.Detect("pods", "/bin/true");
  EXPECT_EQ(out.results[0].status().str(),
            "partition 'hpc:pods': cannot submit the detection job: scheduler 'k8s' runs jobs where hetbench is not "
            "installed (a Kubernetes pod's image has no hetbench), so the partition cannot be detected; write "
            "`processor` and `devices` in the configuration");
}

}  // namespace
}  // namespace hb
