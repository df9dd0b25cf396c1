// Integration tests of module systems with the real `hetbench` binary and
// real module systems, on modulefiles the tests write:
//   - Lmod, installed from Debian's `lmod` package (scripts/deps); its Lua
//     modulefiles; the job's shell finds `module` through Lmod's init file.
//   - Environment Modules 5, unpacked from Debian's `environment-modules`
//     package by scripts/envmod-unpack (the two packages conflict); its Tcl
//     modulefiles; the partition's prepare_cmds define `module` over the
//     unpacked modulecmd.tcl, as a site without a login shell would.
// Both run the same checks: the load order system -> partition ->
// environment -> test, swap and unload, `module use` of a path, ReFrame's
// module mappings, the build
// script, a missing module failing the case with the module system's own
// message, and module names with shell metacharacters reaching the module
// system literally.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "../e2e/e2e_util.h"

namespace {

const std::string kSource = HB_SOURCE_DIR;
const std::string kEnvmodDir = std::string(HB_BINARY_DIR) + "/envmod";

struct ModuleSystemCase {
  std::string name;            // gtest parameter name
  std::string modules_system;  // as the site configuration names it
  // The message the module system gives for a module it cannot find.
  std::string missing_message;
};

// One modulefile: sets `vars` and appends `order` to HB_ORDER.
std::string Modulefile(bool lua, const std::string& order,
                       const std::vector<std::pair<std::string, std::string>>& vars) {
  std::string s = lua ? "" : "#%Module\n";
  for (const auto& [k, v] : vars) s += lua ? "setenv(\"" + k + "\", \"" + v + "\")\n" : "setenv " + k + " " + v + "\n";
  if (!order.empty())
    s += lua ? "append_path(\"HB_ORDER\", \"" + order + "\")\n" : "append-path HB_ORDER " + order + "\n";
  return s;
}

// gtest names the parameter in messages by this.
void PrintTo(const ModuleSystemCase& c, std::ostream* os) { *os << c.name; }

class ModulesTest : public ::testing::TestWithParam<ModuleSystemCase> {
 protected:
  void SetUp() override {
    bool lmod = GetParam().modules_system == "lmod";
    if (lmod) {
      ASSERT_EQ(std::system("test -r /usr/share/lmod/lmod/init/bash"), 0)
          << "Lmod is not installed: run scripts/deps (Debian package lmod)";
    } else {
      std::string cmd = kSource + "/scripts/envmod-unpack " + kEnvmodDir + " >/tmp/hb_envmod_unpack.log 2>&1";
      if (std::system(cmd.c_str()) != 0)
        GTEST_SKIP() << "Environment Modules could not be unpacked (scripts/envmod-unpack needs apt-get download "
                        "and tclsh):\n"
                     << Read("/tmp/hb_envmod_unpack.log");
    }
    // The jobs must set up `module` themselves, not inherit it from here.
    for (const char* v : {"BASH_FUNC_module%%", "BASH_FUNC_ml%%", "LMOD_CMD", "LMOD_PKG", "MODULESHOME", "MODULEPATH",
                          "LOADEDMODULES", "_LMFILES_", "BASH_ENV"})
      unsetenv(v);
    dir_ = e2e::TempDir();
    WriteModulefiles(lmod);
    Write(dir_ + "/site.yaml", Site());
  }

  void WriteModulefiles(bool lua) {
    std::string ext = lua ? ".lua" : "";
    auto mf = [&](const std::string& name, const std::string& order,
                  const std::vector<std::pair<std::string, std::string>>& vars) {
      Write(dir_ + "/mf/" + name + "/1.0" + ext, Modulefile(lua, order, vars));
    };
    mf("hb_sys", "sys", {});
    mf("hb_gone", "", {{"HB_GONE", "present"}});
    mf("hb_part", "part", {});
    mf("hb_old", "", {{"HB_SWAP", "old"}});
    mf("hb_new", "", {{"HB_SWAP", "new"}});
    mf("hb_env", "env", {});
    mf("hb_test", "test", {{"HB_FOO", "hello"}});
  }

  // The system loads hb_sys from the test's module folder (`path`, so
  // `module use` first) and hb_gone; the partition hb_part and hb_old; the
  // environment hb_env and swaps hb_old for hb_new; tests add their own.
  std::string Site() const {
    std::string define_module;
    if (GetParam().modules_system != "lmod")
      define_module =
          "          - 'module() { eval \"$(tclsh " + kEnvmodDir + "/usr/lib/modulecmd.tcl bash \"$@\")\"; }'\n";
    return "systems:\n"
           "  - name: modsys\n"
           "    hostnames: ['.*']\n"
           "    modules_system: " +
           GetParam().modules_system +
           "\n"
           "    modules: [{name: hb_sys, path: '" +
           dir_ +
           "/mf'}, hb_gone]\n"
           "    partitions:\n"
           "      - name: part\n"
           "        scheduler: local\n"
           "        launcher: local\n"
           "        environs: [gnu]\n"
           "        modules: [hb_part, hb_old]\n"
           "        prepare_cmds:\n" +
           define_module +
           "          - 'export HB_PREP=\"before:${HB_ORDER:-none}\"'\n"
           "environments:\n"
           "  - name: gnu\n"
           "    cc: gcc\n"
           "    modules: [hb_env, {name: hb_new, swap: hb_old}]\n"
           "    env_vars: [[HB_ENV_SEES, '$HB_ORDER']]\n"
           "    prepare_cmds: ['export HB_PREP=\"$HB_PREP,env\"']\n";
  }

  e2e::Output Run(const std::string& tests) {
    Write(dir_ + "/t.yaml", tests);
    return Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--system", "modsys:part"}, dir_, 120);
  }

  nlohmann::json Case(const std::string& name) {
    nlohmann::json report = e2e::LatestReport(dir_);
    for (const auto& c : report["cases"])
      if (c["name"] == name) return c;
    return nlohmann::json::object();
  }

  std::string JobOutput(const std::string& name) {
    nlohmann::json c = Case(name);
    return c.contains("outputdir") ? Read(std::string(c["outputdir"]) + "/hb_job.out") : "(no case " + name + ")";
  }

  std::string dir_;
};

TEST_P(ModulesTest, EveryLevelLoadsInOrderWithSwapAndUnload) {
  auto o =
      Run("name: env\nsanity: [{exit_code: 0}]\n"
          "modules: [hb_test, {name: hb_gone, unload: true}]\n"
          "executable: echo\n"
          "executable_opts: ['\"ORDER=$HB_ORDER ENV_SEES=$HB_ENV_SEES SWAP=$HB_SWAP GONE=${HB_GONE:-unset} "
          "FOO=$HB_FOO PREP=$HB_PREP\"']\n");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(JobOutput("env"),
            "ORDER=sys:part:env:test ENV_SEES=sys:part:env SWAP=new GONE=unset FOO=hello PREP=before:none,env\n");
  EXPECT_EQ(Case("env")["resources"]["modules"], nlohmann::json({"hb_test"}));
}

TEST_P(ModulesTest, TheBuildLoadsTheSameModules) {
  auto o =
      Run("name: built\nsanity: [{exit_code: 0}]\n"
          "modules: [hb_test]\n"
          "build_system: {type: Custom, commands: ['echo \"built with $HB_ORDER $HB_SWAP\" > built.txt']}\n"
          "executable: cat\n"
          "executable_opts: [built.txt]\n");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(JobOutput("built"), "built with sys:part:env:test new\n");
}

TEST_P(ModulesTest, ModuleMappingsLoadTheModulesTheyNameInstead) {
  Write(dir_ + "/site.yaml", Site() + "general:\n  - module_mappings: ['hb_alias: hb_test']\n");
  auto o =
      Run("name: mapped\nmodules: [hb_alias]\nexecutable: echo\nexecutable_opts: ['\"$HB_ORDER $HB_FOO\"']\nsanity: "
          "[{exit_code: 0}]\n");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(JobOutput("mapped"), "sys:part:env:test hello\n");
}

TEST_P(ModulesTest, AMissingModuleFailsTheCaseWithTheModuleSystemsMessage) {
  auto o = Run(
      "name: missing\nmodules: [hb_nonexistent]\nexecutable: echo\nexecutable_opts: [ran]\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  nlohmann::json c = Case("missing");
  EXPECT_EQ(c["result"], "fail") << c.dump();
  EXPECT_EQ(c["fail_stage"], "run");
  std::string reason = c.value("fail_reason", "");
  std::string expected = "module load failed: " + GetParam().missing_message;
  EXPECT_EQ(reason.substr(0, expected.size()), expected) << reason;
  EXPECT_NE(reason.find("hb_nonexistent"), std::string::npos) << reason;
  EXPECT_NE(o.out.find("missing @modsys:part+gnu: run: " + expected), std::string::npos) << o.out;
  EXPECT_EQ(JobOutput("missing"), "") << "the program must not run";
}

TEST_P(ModulesTest, AMissingModuleFailsTheBuild) {
  auto o =
      Run("name: nobuild\nsanity: [{exit_code: 0}]\nmodules: [hb_nonexistent]\n"
          "build_system: {type: Custom, commands: ['touch built']}\nexecutable: ./built\n");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  nlohmann::json c = Case("nobuild");
  EXPECT_EQ(c["fail_stage"], "build") << c.dump();
  std::string expected = "module load failed: " + GetParam().missing_message;
  EXPECT_EQ(c.value("fail_reason", "").substr(0, expected.size()), expected) << c.dump();
}

TEST_P(ModulesTest, ShellMetacharactersReachTheModuleSystemLiterally) {
  std::string name = "hb_x;touch " + dir_ + "/pwned1 $(touch " + dir_ + "/pwned2) `touch " + dir_ + "/pwned3`";
  auto o = Run("name: meta\nmodules: ['" + name +
               "']\nexecutable: echo\nexecutable_opts: [ran]\nsanity: [{exit_code: 0}]\n");
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  for (const char* f : {"/pwned1", "/pwned2", "/pwned3"}) EXPECT_FALSE(e2e::Exists(dir_ + f)) << f;
  std::string reason = Case("meta").value("fail_reason", "");
  EXPECT_NE(reason.find(name), std::string::npos) << reason;
}

INSTANTIATE_TEST_SUITE_P(
    RealModuleSystems, ModulesTest,
    ::testing::Values(ModuleSystemCase{"Lmod", "lmod",
                                       "Lmod has detected the following error: The following module(s) are unknown: "
                                       "\"hb_nonexistent\""},
                      ModuleSystemCase{"EnvironmentModules", "envmod",
                                       "ERROR: Unable to locate a modulefile for 'hb_nonexistent'"},
                      ModuleSystemCase{"EnvironmentModulesAsTmod4", "tmod4",
                                       "ERROR: Unable to locate a modulefile for 'hb_nonexistent'"}),
    [](const ::testing::TestParamInfo<ModuleSystemCase>& info) { return info.param.name; });

}  // namespace
