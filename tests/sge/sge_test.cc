// Integration tests on a real Grid Engine 8.1.9 cluster (one node), started
// by scripts/sge-up (see docs/sge-testing.md). ctest runs them one at a time
// (RESOURCE_LOCK sge). The cluster is left up; scripts/sge-down stops it.
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

// Brings the cluster up (a no-op, under a second, when it is).
void EnsureSge() {
  std::string cmd = kSource + "/scripts/sge-up >/tmp/hb_sge_up.log 2>&1";
  int rc = std::system(cmd.c_str());
  ASSERT_EQ(rc, 0) << "scripts/sge-up failed:\n" << Read("/tmp/hb_sge_up.log");
}

// How many jobs named `name` qstat lists (any user), in state `state` ("" = any).
int Jobs(const std::string& name, const std::string& state = "") {
  std::string xml = Shell("qstat -xml -u '*' 2>/dev/null");
  std::regex entry("<JB_name>" + name + "</JB_name>\\s*<JB_owner>[^<]*</JB_owner>\\s*<state>([^<]*)</state>");
  int n = 0;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), entry); it != std::sregex_iterator(); ++it)
    n += state.empty() || (*it)[1] == state;
  return n;
}

const char* kSite = R"(
systems:
  - name: sgetest
    hostnames: ['.*']
    partitions:
      - name: sge
        scheduler: sge
        launcher: local
        environs: [builtin]
        max_jobs: 20
      - name: smp
        scheduler: sge
        launcher: local
        environs: [builtin]
        sched_options: {pe: smp}
environments:
  - {name: builtin, cc: gcc}
)";

class SgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EnsureSge();
    dir_ = e2e::TempDir();
    Write(dir_ + "/site.yaml", kSite);
  }
  std::vector<std::string> Args(const std::string& partition = "sge") {
    return {"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "sgetest:" + partition};
  }
  e2e::Output Run(const std::string& yaml, const std::string& partition = "sge", double timeout = 180) {
    Write(dir_ + "/t.yaml", yaml);
    return Hetbench(Args(partition), dir_, timeout);
  }
  nlohmann::json Report() { return e2e::LatestReport(dir_); }
  std::string dir_;
};

TEST_F(SgeTest, PassAndFail) {
  auto o = Run(e2e::kPassAndFailTests);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("bad @sgetest:sge+builtin: run: exit code 3 (stderr: oops)"), std::string::npos) << o.out;
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 2u) << o.out;
  const auto& good = rep["cases"][0]["name"] == "good" ? rep["cases"][0] : rep["cases"][1];
  EXPECT_EQ(good["result"], "pass") << good.dump();
  EXPECT_FALSE(good["job"]["nodelist"].empty()) << good.dump();
  std::string id = good["job"]["id"];
  EXPECT_EQ(id.find_first_not_of("0123456789"), std::string::npos) << id;
  // The script ran with the directives hetbench wrote, as bash, in its stage folder.
  std::string script = Read(std::string(good["outputdir"]) + "/hb_job.sh");
  EXPECT_NE(script.find("#$ -N \"hb_good\"\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#$ -S /bin/bash\n"), std::string::npos) << script;
  EXPECT_NE(Shell("qacct -j " + id).find("jobname      hb_good"), std::string::npos);
}

TEST_F(SgeTest, TimeLimitIsH_rt) {
  auto t0 = std::chrono::steady_clock::now();
  auto o = Run("name: slow\nexecutable: sleep\nexecutable_opts: ['600']\ntime_limit: 5s\nsanity: [{exit_code: 0}]\n");
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("slow @sgetest:sge+builtin: run: time limit exceeded (qacct: failed 37 : qmaster enforced "
                       "h_rt, h_cpu, or h_vmem limit)"),
            std::string::npos)
      << o.out;
  EXPECT_LT(took, 60) << "Grid Engine kills the job about 6 s in";
  std::string script = Read(e2e::Find(dir_, "hb_job.sh").at(0));
  EXPECT_NE(script.find("#$ -l h_rt=0:0:5\n"), std::string::npos) << script;
}

TEST_F(SgeTest, SigintCancelsTheJobs) {
  ASSERT_EQ(Jobs("hb_long"), 0) << "left over from an earlier run:\n" << Shell("qstat -u '*'");
  Write(dir_ + "/t.yaml",
        "name: long\nexecutable: sleep\nexecutable_opts: ['600']\nparameters: {i: [1, 2]}\nsanity: [{exit_code: 0}]\n");
  pid_t pid = e2e::StartHetbench(Args(), dir_);
  bool running = WaitFor([] { return Jobs("hb_long", "r") == 2; }, 60);
  if (!running) kill(pid, SIGKILL);
  ASSERT_TRUE(running) << Shell("qstat -u '*'") << Read(dir_ + "/hb.stdout");
  kill(pid, SIGINT);
  EXPECT_EQ(e2e::WaitExit(pid, 60), 130) << Read(dir_ + "/hb.stdout");
  auto rep = Report();
  ASSERT_EQ(rep["cases"].size(), 2u);
  for (const auto& c : rep["cases"]) EXPECT_EQ(c["result"], "cancelled") << c.dump();
  // Gone from qstat within seconds.
  EXPECT_TRUE(WaitFor([] { return Jobs("hb_long") == 0; }, 10)) << Shell("qstat -u '*'");
}

TEST_F(SgeTest, ParallelEnvironmentSlots) {
  auto o = Run(R"(
name: slots
num_tasks: 2
executable: sh
executable_opts: ['-c', "'echo slots=$NSLOTS pe=$PE'"]
sanity:
  - {pattern: 'slots=2 pe=smp'}
)",
               "smp");
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
}

TEST_F(SgeTest, ErrorStateFailsTheCaseAndDeletesTheJob) {
  // A later -wd wins over hetbench's: the job cannot start and goes to Eqw.
  auto o = Run("name: nowd\nexecutable: 'true'\njob_options: ['-wd /nonexistent']\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("error state (Eqw): error: can't chdir to /nonexistent: No such file or directory; deleted "
                       "with qdel"),
            std::string::npos)
      << o.out;
  EXPECT_TRUE(WaitFor([] { return Jobs("hb_nowd") == 0; }, 10)) << Shell("qstat -u '*'");
}

TEST_F(SgeTest, QsubRejectionIsTheFailure) {
  auto o = Run("name: nope\nexecutable: 'true'\njob_options: ['-pe nope 2']\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(o.exit_code, 1) << o.out;
  EXPECT_NE(o.out.find("nope @sgetest:sge+builtin: run: Unable to run job: job rejected: the requested parallel "
                       "environment \"nope\" does not exist"),
            std::string::npos)
      << o.out;
}

}  // namespace
