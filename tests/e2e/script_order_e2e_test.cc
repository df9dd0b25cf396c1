// The order of the lines in job and build scripts, for every build system
// and launcher, against ReFrame's (reframe/core/pipeline.py run() and
// compile(), reframe/core/schedulers/__init__.py Job.prepare,
// reframe/core/environments.py emit_loadenv_commands):
//   run script:   prepare_cmds; for system, partition, environment and
//                 test: modules, then env_vars; the build system's set-up
//                 (spack load); prerun_cmds; launcher + program;
//                 postrun_cmds
//   build script: prepare_cmds; the same modules and env_vars;
//                 prebuild_cmds; the build system's commands; postbuild_cmds
// The real binary writes the scripts with --dry-run.
#include <gtest/gtest.h>

#include "e2e_util.h"

namespace {

std::string Site(const std::string& scheduler, const std::string& launcher) {
  return R"(
systems:
  - name: hpc
    hostnames: ['.*']
    modules_system: lmod
    modules: [sysmod]
    env_vars: {HB_SYS: s}
    partitions:
      - name: p
        scheduler: )" +
         scheduler + R"(
        launcher: )" +
         launcher + R"(
        launcher_options: [--part-opt]
        environs: [gnu]
        modules: [partmod]
        env_vars: {HB_PART: p}
        prepare_cmds: ['echo prepare']
environments:
  - {name: gnu, cc: gcc, modules: [envmod], env_vars: {HB_ENV: e}}
)";
}

struct Case {
  std::string name;
  std::string build;         // the build_system mapping
  std::string build_marker;  // a line of the build system's commands
  std::string setup_marker;  // the build system's set-up in the run script ("" = none)
};

// Positions of `markers` in `text`, which must all be there, in order.
void ExpectInOrder(const std::string& text, const std::vector<std::string>& markers) {
  size_t at = 0;
  std::string prev = "(start)";
  for (const auto& m : markers) {
    size_t found = text.find(m, at);
    ASSERT_NE(found, std::string::npos) << "'" << m << "' missing after '" << prev << "' in:\n" << text;
    at = found + m.size();
    prev = m;
  }
}

class ScriptOrder : public ::testing::TestWithParam<Case> {};

TEST_P(ScriptOrder, RunAndBuildScriptsFollowReframesOrder) {
  const Case& c = GetParam();
  std::string dir = TempDir();
  Write(dir + "/site.yaml", Site("local", "local"));
  Write(dir + "/t.yaml", "name: t\nbuild_system: " + c.build +
                             "\nexecutable: ./prog\nmodules: [testmod]\nenv_vars: {HB_TEST: t}\n"
                             "prebuild_cmds: ['echo prebuild']\npostbuild_cmds: ['echo postbuild']\n"
                             "prerun_cmds: ['echo prerun']\npostrun_cmds: ['echo postrun']\n"
                             "sanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--dry-run"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  auto run = e2e::Find(dir + "/output", "hb_job.sh");
  auto build = e2e::Find(dir + "/output", "hb_build.sh");
  ASSERT_EQ(run.size(), 1u);
  ASSERT_EQ(build.size(), 1u);
  std::vector<std::string> environ = {"sysmod", "export HB_SYS=s", "partmod", "export HB_PART=p",
                                      "envmod", "export HB_ENV=e", "testmod", "export HB_TEST=t"};
  std::vector<std::string> run_order = {"echo prepare"};
  run_order.insert(run_order.end(), environ.begin(), environ.end());
  if (!c.setup_marker.empty()) run_order.push_back(c.setup_marker);
  run_order.insert(run_order.end(), {"echo prerun", "./prog", "echo postrun"});
  ExpectInOrder(Read(run[0]), run_order);
  std::vector<std::string> build_order = {"echo prepare"};
  build_order.insert(build_order.end(), environ.begin(), environ.end());
  build_order.insert(build_order.end(), {"echo prebuild", c.build_marker, "echo postbuild"});
  ExpectInOrder(Read(build[0]), build_order);
}

INSTANTIATE_TEST_SUITE_P(
    E2E, ScriptOrder,
    ::testing::Values(Case{"SingleSource", "{type: SingleSource, source: prog.c, executable: prog}", "gcc", ""},
                      Case{"Make", "{type: Make}", "make -j", ""}, Case{"CMake", "{type: CMake}", "cmake -S", ""},
                      Case{"Autotools", "{type: Autotools}", "./configure", ""},
                      Case{"Spack", "{type: Spack, specs: [zlib@1.3]}", "spack -e", "load --sh zlib@1.3"},
                      Case{"EasyBuild", "{type: EasyBuild, easyconfigs: [zlib.eb]}", "eb ", ""},
                      Case{"CustomBuild", "{type: CustomBuild, commands: ['echo custom']}", "echo custom", ""}),
    [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

struct LauncherCase {
  std::string name, scheduler, partition_launcher, test_launcher;
  std::string command;     // the launch line's beginning
  bool partition_options;  // --part-opt on the launch line
};

class LauncherOrder : public ::testing::TestWithParam<LauncherCase> {};

// The launcher line comes after prerun_cmds and before postrun_cmds; a
// test's own launcher does not take the partition's launcher_options.
TEST_P(LauncherOrder, LaunchLineAndItsOptions) {
  const LauncherCase& c = GetParam();
  std::string dir = TempDir();
  Write(dir + "/site.yaml", Site(c.scheduler, c.partition_launcher));
  std::string launcher = c.test_launcher.empty() ? "" : "launcher: " + c.test_launcher + "\n";
  Write(dir + "/t.yaml", "name: t\nexecutable: ./prog\nnum_tasks: 2\nenv_vars: {HB_TEST: t}\n" + launcher +
                             "launcher_options: [--test-opt]\nprerun_cmds: ['echo prerun']\n"
                             "postrun_cmds: ['echo postrun']\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--dry-run"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  auto run = e2e::Find(dir + "/output", "hb_job.sh");
  ASSERT_EQ(run.size(), 1u);
  std::string script = Read(run[0]);
  ExpectInOrder(script, {"echo prepare", "export HB_PART", "echo prerun", "./prog", "echo postrun"});
  size_t prog = script.find(" ./prog");
  ASSERT_NE(prog, std::string::npos) << script;
  size_t line_start = script.rfind('\n', prog) + 1;
  std::string line = script.substr(line_start, script.find('\n', prog) - line_start);
  EXPECT_EQ(line.substr(0, c.command.size()), c.command) << line;
  EXPECT_EQ(line.find("--part-opt") != std::string::npos, c.partition_options) << line;
  EXPECT_NE(line.find("--test-opt"), std::string::npos) << line;
}

INSTANTIATE_TEST_SUITE_P(
    E2E, LauncherOrder,
    ::testing::Values(LauncherCase{"Local", "local", "local", "", "", true},
                      LauncherCase{"Mpirun", "local", "mpirun", "", "mpirun -np 2", true},
                      LauncherCase{"Srun", "slurm", "srun", "", "srun", true},
                      LauncherCase{"TestLocalOnMpirunPartition", "local", "mpirun", "local", "", false},
                      LauncherCase{"TestMpirunOnSrunPartition", "slurm", "srun", "mpirun", "mpirun -np 2", false},
                      LauncherCase{"TestSameLauncherKeepsOptions", "slurm", "srun", "srun", "srun", true}),
    [](const ::testing::TestParamInfo<LauncherCase>& i) { return i.param.name; });

}  // namespace
