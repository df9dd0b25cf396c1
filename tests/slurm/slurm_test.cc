// Integration tests on a real Slurm cluster, started by scripts/slurm-up
// (both configurations: without accounting, where `slurm` falls back to
// squeue, and with slurmdbd + MariaDB, where sacct answers). ctest runs
// them one at a time (RESOURCE_LOCK slurm).
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <regex>
#include <thread>

#include "../e2e/e2e_util.h"

using e2e::Shell;
using e2e::WaitFor;

namespace {

const std::string kSource = HB_SOURCE_DIR;

// Brings the cluster up in the wanted configuration (a no-op when it is).
void EnsureSlurm(bool accounting) {
  std::string cmd = kSource + "/scripts/slurm-up" + (accounting ? " --accounting" : "") + " >/tmp/hb_slurm_up.log 2>&1";
  int rc = std::system(cmd.c_str());
  ASSERT_EQ(rc, 0) << "scripts/slurm-up failed:\n" << Read("/tmp/hb_slurm_up.log");
}

const char* kSite = R"(
systems:
  - name: slurmtest
    hostnames: ['.*']
    partitions:
      - name: squeue
        scheduler: squeue
        launcher: srun
        launcher_options: ['--mpi=pmix']
        access: ['--partition=debug']
        environs: [builtin, mpi]
        max_jobs: 50
      - name: sacct
        scheduler: slurm
        launcher: srun
        launcher_options: ['--mpi=pmix']
        access: ['--partition=debug']
        environs: [builtin, mpi]
        max_jobs: 50
      - name: mpirun
        scheduler: squeue
        launcher: mpirun
        access: ['--partition=debug']
        environs: [mpi]
environments:
  - {name: builtin, cc: gcc}
  - {name: mpi, cc: mpicc}
)";

struct Param {
  bool accounting;
  const char* partition;  // squeue or sacct
};
void PrintTo(const Param& p, std::ostream* os) {
  *os << (p.accounting ? "accounting, " : "no accounting, ") << p.partition;
}

class SlurmTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    EnsureSlurm(GetParam().accounting);
    dir_ = e2e::TempDir();
    Write(dir_ + "/site.yaml", kSite);
  }
  // Runs t.yaml in environment `env` on the partition under test.
  e2e::Output Run(const std::string& yaml, std::vector<std::string> extra = {}, double timeout = 240,
                  const std::string& env = "builtin") {
    Write(dir_ + "/t.yaml", yaml);
    std::vector<std::string> args = {"run",
                                     "-C",
                                     "site.yaml",
                                     "-c",
                                     "t.yaml",
                                     "-p",
                                     "^" + env + "$",
                                     "--system",
                                     std::string("slurmtest:") + GetParam().partition};
    args.insert(args.end(), extra.begin(), extra.end());
    return Hetbench(args, dir_, timeout);
  }
  nlohmann::json Report() { return e2e::LatestReport(dir_); }
  std::string dir_;
};

TEST_P(SlurmTest, PassAndFail) {
  auto o = Run(e2e::kPassAndFailTests);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("bad @slurmtest:" + std::string(GetParam().partition) + "+builtin: run: exit code 3"),
            std::string::npos)
      << o.out;
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 2u) << o.out;
  const auto& good = rep["cases"][0]["name"] == "good" ? rep["cases"][0] : rep["cases"][1];
  EXPECT_EQ(good["result"], "pass") << good.dump();
  EXPECT_FALSE(good["job"]["nodelist"].empty()) << good.dump();
  EXPECT_NE(std::string(good["job"]["id"]).find_first_of("0123456789"), std::string::npos);
  if (std::string(GetParam().partition) == "sacct" && !GetParam().accounting) {
    EXPECT_NE(o.out.find("accounting is off"), std::string::npos) << "falls back and says so\n" << o.out;
  }
  // The main log has every scheduler command with its exit status and time.
  std::string log = Read(dir_ + "/hetbench.log");
  EXPECT_NE(log.find("] debug: command: sbatch "), std::string::npos) << log;
  EXPECT_NE(log.find("-> exit 0 in "), std::string::npos) << log;
  EXPECT_NE(log.find("] verbose: system: slurmtest (--system slurmtest:"), std::string::npos) << log;
}

TEST_P(SlurmTest, TimeLimit) {
  // Slurm's time limits are whole minutes; the job is killed about a minute
  // in. Once per cluster configuration: the `slurm` backend falling back to
  // squeue follows jobs exactly as `squeue` does.
  if (!GetParam().accounting && std::string(GetParam().partition) == "sacct") GTEST_SKIP() << "same path as squeue";
  auto o = Run("name: slow\nexecutable: sleep\nexecutable_opts: ['600']\ntime_limit: 1m\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("run: time limit exceeded (Slurm state TIMEOUT)"), std::string::npos) << o.out;
}

TEST_P(SlurmTest, SigintCancelsTheJobs) {
  Write(dir_ + "/t.yaml",
        "name: long\nexecutable: sleep\nexecutable_opts: ['600']\nparameters: {i: [1, 2]}\nsanity: [{exit_code: 0}]\n");
  pid_t pid = e2e::StartHetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "-p", "builtin", "--system",
                                  std::string("slurmtest:") + GetParam().partition},
                                 dir_);
  // Wait until both jobs run.
  bool running = false;
  for (int i = 0; i < 300 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    running = Shell("squeue -h -n hb_long -t RUNNING -o %i | wc -l").find('2') != std::string::npos;
  }
  ASSERT_TRUE(running) << Shell("squeue");
  kill(pid, SIGINT);
  EXPECT_EQ(e2e::WaitExit(pid, 60), 130);
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 2u);
  for (const auto& c : rep["cases"]) EXPECT_EQ(c["result"], "cancelled") << c.dump();
  // Gone from the queue within seconds.
  std::string left = "x";
  for (int i = 0; i < 50 && !left.empty(); ++i) {
    left = Shell("squeue -h -n hb_long -o %i");
    if (!left.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(left, "") << "still queued: " << left;
}

TEST_P(SlurmTest, MpiAllreduceWithSrun) {
  e2e::Write(dir_ + "/src/allreduce.c", Read(kSource + "/tests/slurm/allreduce.c"));
  auto o = Run(R"(
name: allreduce
valid_prog_environs: [mpi]
num_tasks: 2
build_system: {type: SingleSource, source: allreduce.c}
sanity:
  - {pattern: 'allreduce sum 3 \(expected 3\) OK', count: 2}
  - {not_pattern: WRONG}
)",
               {}, 240, "mpi");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

TEST_P(SlurmTest, MaxPendingTime) {
  auto o = Run(R"(
name: waits
executable: 'true'
job_options: ['--begin=now+1hour']
max_pending_time: 3s
sanity: [{exit_code: 0}]
)");
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("pending for more than 3 s (max_pending_time; last pending reason: BeginTime); cancelled"),
            std::string::npos)
      << o.out;
  auto rep = Report();
  std::string id = rep["cases"][0]["job"]["id"];
  std::string state;
  for (int i = 0; i < 50; ++i) {
    state = Shell("squeue -h -j " + id + " -o %T 2>/dev/null");
    if (state.empty() || state.find("CANCELLED") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(state.empty() || state.find("CANCELLED") != std::string::npos) << state;
}

TEST_P(SlurmTest, ShellMetacharactersReachTheProgramLiterally) {
  e2e::Write(dir_ + "/src/printargs.sh", Read(kSource + "/tests/slurm/printargs.sh"));
  chmod((dir_ + "/src/printargs.sh").c_str(), 0755);
  auto o = Run(R"(
name: literal
parameters:
  v: ['; rm -rf ~', '$(reboot)', '`id`', 'a''b"c', "line1\nline2", '*', '$HOME']
executable: ./printargs.sh
executable_opts: ['{v}']
job_options: ['--comment={v}']
sanity: [{exit_code: 0}]
)");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 7u);
  for (const auto& c : rep["cases"]) {
    std::string v = c["parameters"]["v"];
    std::string out = Read(std::string(c["outputdir"]) + "/hb_job.out");
    EXPECT_EQ(out, "<" + v + ">\n") << c["display_name"];
  }
}

// `hetbench detect --partition` submits its detection job with sbatch; the
// one node is this host, so it finds what a local `hetbench detect` finds.
TEST_P(SlurmTest, DetectTopologyThroughSbatch) {
  std::string part = std::string("slurmtest:") + GetParam().partition;
  e2e::Env env = {{"XDG_CACHE_HOME", dir_ + "/cache"}};
  auto local = Hetbench({"detect"}, dir_, 60, env);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  auto o = Hetbench({"detect", "-C", "site.yaml", "--partition", part}, dir_, 240, env);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out, local.out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.err, m, std::regex("partition '" + part + "': job (\\d+) \\((slurm|squeue)\\)")))
      << o.err;
  std::string job = Shell("scontrol show job " + m[1].str());
  EXPECT_NE(job.find("JobName=hb_detect"), std::string::npos) << job;
  EXPECT_NE(job.find("Partition=debug"), std::string::npos) << job;
  std::string cache = dir_ + "/cache/hetbench/topology/slurmtest-" + GetParam().partition + "/processor.json";
  EXPECT_EQ(nlohmann::json::parse(Read(cache))["schema"], "hetbench-topology");

  // A submission Slurm refuses: the error names the partition and says why.
  auto bad = Hetbench({"detect", "-C", "site.yaml", "--partition", part, "--refresh", "-J", "--constraint=nosuch"},
                      dir_, 120, env);
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_NE(bad.err.find("partition '" + part + "': cannot submit the detection job: "), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("Invalid feature specification"), std::string::npos) << bad.err;
}

INSTANTIATE_TEST_SUITE_P(Slurm, SlurmTest,
                         ::testing::Values(Param{false, "squeue"}, Param{false, "sacct"}, Param{true, "sacct"}),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(i.param.accounting ? "accounting_" : "no_accounting_") +
                                  i.param.partition;
                         });

// mpirun inside the allocation, and a controller restart mid-run: once.
class SlurmOnce : public SlurmTest {};

TEST_P(SlurmOnce, MpiAllreduceWithMpirun) {
  e2e::Write(dir_ + "/src/allreduce.c", Read(kSource + "/tests/slurm/allreduce.c"));
  Write(dir_ + "/t.yaml", R"(
name: allreduce
num_tasks: 2
build_system: {type: SingleSource, source: allreduce.c}
sanity:
  - {pattern: 'allreduce sum 3 \(expected 3\) OK', count: 2}
)");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "slurmtest:mpirun"}, dir_, 240);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

TEST_P(SlurmOnce, ControllerRestartMidRun) {
  Write(dir_ + "/t.yaml", "name: survive\nexecutable: sleep\nexecutable_opts: ['8']\nsanity: [{exit_code: 0}]\n");
  pid_t pid = e2e::StartHetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "-p", "builtin", "--system",
                                  std::string("slurmtest:") + GetParam().partition},
                                 dir_);
  bool running = false;
  for (int i = 0; i < 300 && !running; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    running = !Shell("squeue -h -n hb_survive -t RUNNING -o %i").empty();
  }
  ASSERT_TRUE(running);
  // Stop the controller, leave it down a few seconds, start it again.
  std::string pidfile = "/run/hetbench-slurm/pid/slurmctld.pid";
  std::string ctld = Read(pidfile);
  ASSERT_FALSE(ctld.empty());
  kill(std::atoi(ctld.c_str()), SIGTERM);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EnsureSlurm(GetParam().accounting);
  EXPECT_EQ(e2e::WaitExit(pid, 120), 0) << Read(dir_ + "/hb.stdout");
}

// --distribute: one case per node of the partition, pinned with --nodelist.
TEST_P(SlurmOnce, DistributeRunsOneCasePerNode) {
  std::string node = Shell("scontrol -a show -o node | sed -n 's/^NodeName=\\([^ ]*\\).*/\\1/p' | head -1");
  while (!node.empty() && (node.back() == '\n' || node.back() == ' ')) node.pop_back();
  ASSERT_FALSE(node.empty()) << Shell("scontrol -a show -o node");
  auto o = Run("name: where\nexecutable: hostname\nsanity: [{exit_code: 0}]\n", {"--distribute=avail"});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("where %$nid=" + node), std::string::npos) << o.out;
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 1u) << o.out;
  EXPECT_EQ(rep["cases"][0]["job"]["nodelist"], nlohmann::json::array({node})) << rep["cases"][0].dump();
  auto scripts = e2e::Find(dir_ + "/output", "hb_job.sh");
  ASSERT_FALSE(scripts.empty());
  EXPECT_NE(Read(scripts[0]).find("#SBATCH --nodelist=" + node + "\n"), std::string::npos) << Read(scripts[0]);
  // A state no node is in: one clear error, nothing submitted.
  auto none = Run("name: where\nexecutable: hostname\nsanity: [{exit_code: 0}]\n", {"--distribute=drain"});
  EXPECT_EQ(none.exit_code, 2) << none.out << none.err;
  EXPECT_NE(none.err.find("--distribute: partition '" + std::string(GetParam().partition) +
                          "' has no node in the requested state"),
            std::string::npos)
      << none.err;
}

INSTANTIATE_TEST_SUITE_P(Slurm, SlurmOnce, ::testing::Values(Param{false, "squeue"}),
                         [](const ::testing::TestParamInfo<Param>&) { return std::string("no_accounting"); });

}  // namespace
