#include "run/case_job.h"

#include <gtest/gtest.h>

#include "run/run_test_util.h"
#include "sched/scheduler_factory.h"
#include "util/strings.h"

namespace hb {
namespace {

constexpr char kSite[] = R"(
systems:
  - name: site
    hostnames: ['.*']
    modules_system: lmod
    modules: [sysmod]
    env_vars: [[SYS_VAR, s]]
    partitions:
      - name: gpu
        scheduler: slurm
        launcher: srun
        launcher_options: ['--mpi=pmix']
        access: ['--partition=gpu', '--account=a1']
        environs: [gnu]
        time_limit: 20m
        modules: [partmod]
        prepare_cmds: ['echo part-prepare']
        resources:
          - name: gpu
            options: ['--gres=gpu:{num_gpus_per_node}']
          - name: cs
            options: ['--gres=cs:{num_csx}']
        processor: {num_cpus: 8}
environments:
  - name: gnu
    modules: [gcc/12]
    env_vars: [[ENV_VAR, e]]
    prepare_cmds: ['echo env-prepare']
)";

// The first case of `tests` on site:gpu+gnu, ready for the translation.
struct Fixture {
  TempDir dir;
  std::unique_ptr<Session> session;
  std::unique_ptr<Scheduler> slurm;
  CaseJobInput in;
  explicit Fixture(const std::string& tests, std::vector<std::string> cli_options = {}) {
    // Every test needs a sanity check; these are about the job alone.
    bool checked = tests.find("sanity:") != std::string::npos;
    session = OpenTestSession(dir, kSite, checked ? tests : tests + "sanity: [{exit_code: 0}]\n");
    auto s = MakeScheduler("slurm");
    EXPECT_TRUE(s.ok()) << s.status().str();
    if (!session || !s.ok()) return;
    slurm = std::move(s.value());
    const TestCase& c = session->cases.at(0);
    in.session = session.get();
    in.tc = &c;
    in.spec = c.spec.get();
    in.part = &session->partition(c.partition);
    in.env = session->environment(c);
    in.stagedir = dir / "stage";
    in.cli_job_options = std::move(cli_options);
  }
};

TEST(CaseJob, RunJobOptionsInReFrameOrder) {
  Fixture f(
      "name: t\nexecutable: hostname\nnum_gpus_per_node: 4\njob_options: ['--mem=8G']\n"
      "extra_resources: {cs: {num_csx: 2}}\ntime_limit: 90s\n",
      {"--qos=debug"});
  ASSERT_TRUE(f.session);
  auto plan = MakeRunJob(f.in, *f.slurm, "", "");
  ASSERT_TRUE(plan.ok()) << plan.status().str();
  const Job& job = plan->job;
  EXPECT_EQ(job.access, (std::vector<std::string>{"--partition=gpu", "--account=a1"}));
  // Resources in the partition's order, then the test's options, then -J.
  EXPECT_EQ(job.options, (std::vector<std::string>{"--gres=gpu:4", "--gres=cs:2", "--mem=8G", "--qos=debug"}));
  EXPECT_EQ(job.time_limit_s, 90);
  EXPECT_EQ(job.name, "hb_t");
  EXPECT_EQ(job.script_path, f.dir / "stage/hb_job.sh");
  EXPECT_EQ(job.num_gpus_per_node, 4);
  EXPECT_EQ(plan->launcher, "srun");
  // The scheduler's directives head the script; the options are in them.
  EXPECT_EQ(plan->script.rfind("#!/bin/bash\n#SBATCH", 0), 0u) << plan->script;
  EXPECT_NE(plan->script.find("#SBATCH --gres=cs:2"), std::string::npos) << plan->script;
  EXPECT_NE(plan->script.find("srun --mpi=pmix hostname"), std::string::npos) << plan->script;
}

TEST(CaseJob, ThePartitionsTimeLimitWhenTheTestSetsNone) {
  Fixture f("name: t\nexecutable: hostname\n");
  ASSERT_TRUE(f.session);
  auto plan = MakeRunJob(f.in, *f.slurm, "", "");
  ASSERT_TRUE(plan.ok()) << plan.status().str();
  EXPECT_EQ(plan->job.time_limit_s, 1200);
  EXPECT_TRUE(plan->job.options.empty());  // no resource asked for: none added
}

TEST(CaseJob, ThePartitionsLauncherOptionsGoOnlyWithItsLauncher) {
  Fixture f("name: t\nexecutable: hostname\nlauncher: mpirun\nlauncher_options: ['--bind-to', 'core']\n");
  ASSERT_TRUE(f.session);
  auto plan = MakeRunJob(f.in, *f.slurm, "", "");
  ASSERT_TRUE(plan.ok()) << plan.status().str();
  EXPECT_EQ(plan->launcher, "mpirun");
  EXPECT_EQ(plan->script.find("--mpi=pmix"), std::string::npos) << plan->script;
  EXPECT_NE(plan->script.find("--bind-to core hostname"), std::string::npos) << plan->script;
}

TEST(CaseJob, EnvironmentLevelsInOrder) {
  Fixture f("name: t\nexecutable: hostname\nmodules: [testmod]\nenv_vars: {TEST_VAR: t}\n");
  ASSERT_TRUE(f.session);
  auto lines = EnvironLines(f.in);
  ASSERT_TRUE(lines.ok()) << lines.status().str();
  std::string text = Join(*lines, "\n");
  size_t sys = text.find("sysmod"), part = text.find("partmod"), env = text.find("gcc/12"), test = text.find("testmod");
  ASSERT_NE(sys, std::string::npos) << text;
  EXPECT_LT(sys, text.find("SYS_VAR")) << text;
  EXPECT_LT(text.find("SYS_VAR"), part) << text;
  EXPECT_LT(part, env) << text;
  EXPECT_LT(text.find("ENV_VAR"), test) << text;
  EXPECT_LT(test, text.find("TEST_VAR")) << text;
  // The run script has the same lines after both prepare_cmds.
  auto plan = MakeRunJob(f.in, *f.slurm, "", "");
  ASSERT_TRUE(plan.ok()) << plan.status().str();
  EXPECT_LT(plan->script.find("echo part-prepare"), plan->script.find("echo env-prepare"));
  EXPECT_LT(plan->script.find("echo env-prepare"), plan->script.find("sysmod"));
}

TEST(CaseJob, AResourceTemplateNeedsItsValue) {
  Fixture f("name: t\nexecutable: hostname\nextra_resources: {cs: {}}\n");
  ASSERT_TRUE(f.session);
  auto r = ResourceOptions(*f.in.spec, *f.in.part);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "resource 'cs' of partition 'gpu' needs a value for {num_csx}: set extra_resources: {cs: {num_csx: ...}}");
  EXPECT_FALSE(MakeRunJob(f.in, *f.slurm, "", "").ok());
}

TEST(CaseJob, ResourcesThePartitionLacksAreIgnored) {
  Fixture f("name: t\nexecutable: hostname\nextra_resources: {ipu: {n: 4}}\n");
  ASSERT_TRUE(f.session);
  auto r = ResourceOptions(*f.in.spec, *f.in.part);
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_TRUE(r->empty());
}

TEST(CaseJob, ALocalCaseGetsNoSchedulerOptions) {
  Fixture f("name: t\nexecutable: hostname\nlocal: true\njob_options: ['--mem=1G']\n", {"--qos=x"});
  ASSERT_TRUE(f.session);
  EXPECT_EQ(RunPartition(f.in).scheduler, "local");
  auto local = MakeScheduler("local");
  ASSERT_TRUE(local.ok());
  auto plan = MakeRunJob(f.in, **local, "", "");
  ASSERT_TRUE(plan.ok()) << plan.status().str();
  EXPECT_TRUE(plan->job.access.empty());
  EXPECT_TRUE(plan->job.options.empty());
  EXPECT_EQ(plan->script.find("#SBATCH"), std::string::npos);
}

TEST(CaseJob, TheFilesTheChecksReadAreFetchedOnceEach) {
  Fixture f(
      "name: t\nexecutable: hostname\nkeep_files: [out/*.json, log.txt]\n"
      "sanity:\n  - {pattern: a, in: log.txt}\n  - {pattern: b}\n"
      "performance:\n  x: {pattern: 'x=(\\d+)', in: res.txt, unit: s}\n");
  ASSERT_TRUE(f.session);
  EXPECT_EQ(FilesChecksRead(*f.in.spec), (std::vector<std::string>{"log.txt", "out/*.json", "res.txt"}));
}

constexpr char kBuilt[] = R"(name: b
build_system: {type: SingleSource, source: hello.c, executable: hello}
prebuild_cmds: ['echo before']
postbuild_cmds: ['echo after']
executable: ./hello
)";

TEST(CaseJob, ALocalBuildHasNoDirectivesAndNoOptions) {
  Fixture f(kBuilt, {"--qos=x"});
  ASSERT_TRUE(f.session);
  EXPECT_EQ(WhereBuildRuns(f.in), BuildPlace::kHere);
  EXPECT_EQ(BuildPartition(f.in).scheduler, "local");
  auto plan = MakeBuildJob(f.in, *f.slurm);
  ASSERT_TRUE(plan.ok()) << plan.status().str();
  EXPECT_EQ(plan->job.name, "hb_build_b");
  EXPECT_TRUE(plan->job.options.empty());
  EXPECT_EQ(plan->script.find("#SBATCH"), std::string::npos) << plan->script;
  size_t before = plan->script.find("echo before"), cc = plan->script.find("hello.c"),
         after = plan->script.find("echo after");
  ASSERT_NE(cc, std::string::npos) << plan->script;
  EXPECT_LT(before, cc);
  EXPECT_LT(cc, after);
}

TEST(CaseJob, ABuildOnThePartitionIsABatchJob) {
  Fixture f(std::string(kBuilt) + "build_locally: false\nbuild_time_limit: 5m\n", {"--qos=x"});
  ASSERT_TRUE(f.session);
  EXPECT_EQ(WhereBuildRuns(f.in), BuildPlace::kPartition);
  EXPECT_EQ(&BuildPartition(f.in), f.in.part);
  auto plan = MakeBuildJob(f.in, *f.slurm);
  ASSERT_TRUE(plan.ok()) << plan.status().str();
  EXPECT_EQ(plan->job.access, (std::vector<std::string>{"--partition=gpu", "--account=a1"}));
  EXPECT_EQ(plan->job.options, (std::vector<std::string>{"--qos=x"}));
  EXPECT_EQ(plan->job.time_limit_s, 300);
  EXPECT_NE(plan->script.find("#SBATCH --partition=gpu"), std::string::npos) << plan->script;
}

TEST(CaseJob, ABuildNeedsItsEnvironment) {
  Fixture f(kBuilt);
  ASSERT_TRUE(f.session);
  f.in.env = nullptr;
  auto plan = MakeBuildJob(f.in, *f.slurm);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(), "environment 'gnu' is not defined for site");
}

}  // namespace
}  // namespace hb
