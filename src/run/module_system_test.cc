#include "run/module_system.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

// GCC 12 warns about designated initializers that leave members at their
// defaults (GCC bug 96868); these tests rely on exactly that.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace hb {
namespace {

// The lines after the helper function and the init block.
std::vector<std::string> Body(const std::vector<std::string>& lines) {
  size_t fi = 0;
  while (fi < lines.size() && lines[fi] != "fi") ++fi;
  return fi < lines.size() ? std::vector<std::string>(lines.begin() + fi + 1, lines.end()) : lines;
}

std::vector<std::string> BodyFor(const std::string& sys, const std::vector<EnvLevel>& levels) {
  auto r = EnvironmentLines(sys, levels);
  EXPECT_TRUE(r.ok()) << r.status().str();
  return r.ok() ? Body(*r) : std::vector<std::string>{};
}

const std::vector<ModuleSpec> kEveryForm = {{.name = "gcc/12"},
                                            {.name = "cray-mpich", .path = "/opt/my modules"},
                                            {.name = "PrgEnv-gnu", .swap = "PrgEnv-cray"},
                                            {.name = "darshan", .unload = true},
                                            {.name = "foo;touch /tmp/pwned"}};

TEST(ModuleSystem, ModuleCommandsForEveryTclAndLuaModuleSystem) {
  for (const char* sys : {"lmod", "tmod", "tmod31", "tmod32", "tmod4", "envmod"}) {
    EXPECT_EQ(
        BodyFor(sys, {{kEveryForm, {}}}),
        std::vector<std::string>({"_hb_module module load gcc/12", "_hb_module module use '/opt/my modules'",
                                  "_hb_module module load cray-mpich", "_hb_module module swap PrgEnv-cray PrgEnv-gnu",
                                  "_hb_module module unload darshan", "_hb_module module load 'foo;touch /tmp/pwned'"}))
        << sys;
  }
}

TEST(ModuleSystem, CollectionsAreRestoredWhereTheModuleSystemHasThem) {
  std::vector<EnvLevel> levels = {{{{.name = "mine", .collection = true}}, {}}};
  for (const char* sys : {"lmod", "tmod4", "envmod"})
    EXPECT_EQ(BodyFor(sys, levels), std::vector<std::string>({"_hb_module module restore mine"})) << sys;
  for (const char* sys : {"tmod", "tmod31", "tmod32", "spack"}) {
    auto r = EnvironmentLines(sys, levels);
    ASSERT_FALSE(r.ok()) << sys;
    EXPECT_EQ(r.status().str(), std::string("module 'mine' asks for a module collection, which modules_system '") +
                                    sys + "' does not have");
  }
}

TEST(ModuleSystem, SpackLoadsSpecs) {
  std::vector<ModuleSpec> specs = {
      {.name = "hdf5@1.14 +mpi"}, {.name = "openmpi@5", .swap = "mpich"}, {.name = "darshan-runtime", .unload = true}};
  EXPECT_EQ(BodyFor("spack", {{specs, {}}}),
            std::vector<std::string>({"_hb_module spack load 'hdf5@1.14 +mpi'", "_hb_module spack unload mpich",
                                      "_hb_module spack load openmpi@5", "_hb_module spack unload darshan-runtime"}));
  auto r = EnvironmentLines("spack", {{{{.name = "x", .path = "/opt/mf"}}, {}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().str(), "module 'x' asks for a module path, which modules_system 'spack' does not have");
}

TEST(ModuleSystem, MappingsApplyToEveryLevel) {
  auto mappings = ParseModuleMappings({"PrgEnv: gcc/12 openmpi/4"});
  ASSERT_TRUE(mappings.ok());
  auto r = EnvironmentLines("lmod", {{{{.name = "PrgEnv"}}, {}}, {{{.name = "PrgEnv"}}, {}}}, *mappings);
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(Body(*r), std::vector<std::string>({"_hb_module module load gcc/12", "_hb_module module load openmpi/4",
                                                "_hb_module module load gcc/12", "_hb_module module load openmpi/4"}));
}

TEST(ModuleSystem, NomodWritesNoModuleCommands) {
  auto r = EnvironmentLines("nomod", {{kEveryForm, {{"A", "1"}}}, {{{.name = "x", .collection = true}}, {}}});
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(*r, std::vector<std::string>({"export A=1"}));
}

TEST(ModuleSystem, LevelsInOrderEachModulesThenVariables) {
  std::vector<EnvLevel> levels = {{{{.name = "sysmod"}}, {{"SYS", "1"}}},
                                  {{{.name = "partmod"}}, {{"PART", "$SYS:2"}}},
                                  {{{.name = "envmod"}}, {}},
                                  {{{.name = "testmod"}}, {{"T", "'a b'"}}}};
  EXPECT_EQ(BodyFor("lmod", levels),
            std::vector<std::string>({"_hb_module module load sysmod", "export SYS=1", "_hb_module module load partmod",
                                      "export PART=$SYS:2", "_hb_module module load envmod",
                                      "_hb_module module load testmod", "export T='a b'"}));
}

TEST(ModuleSystem, HelperAndInitOnlyWhenAModuleIsLoaded) {
  auto r = EnvironmentLines("lmod", {{{}, {{"A", "1"}}}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, std::vector<std::string>({"export A=1"}));
  r = EnvironmentLines("lmod", {{{{.name = "x"}}, {}}});
  ASSERT_TRUE(r.ok());
  std::string all = Join(*r, "\n");
  EXPECT_EQ(r->front(), "_hb_module() {");
  EXPECT_NE(all.find("if ! type module >/dev/null 2>&1; then\n"
                     "  for _hb_init in \"${LMOD_PKG:+$LMOD_PKG/init/bash}\" /usr/share/lmod/lmod/init/bash "
                     "/etc/profile.d/z00_lmod.sh /etc/profile.d/lmod.sh; do\n"),
            std::string::npos)
      << all;
  r = EnvironmentLines("envmod", {{{{.name = "x"}}, {}}});
  EXPECT_NE(Join(*r, "\n").find("\"${MODULESHOME:+$MODULESHOME/init/bash}\" /usr/share/modules/init/bash"),
            std::string::npos);
  r = EnvironmentLines("spack", {{{{.name = "x"}}, {}}});
  EXPECT_NE(Join(*r, "\n").find("if ! [ \"$(type -t spack)\" = function ]; then\n"
                                "  for _hb_init in \"${SPACK_ROOT:+$SPACK_ROOT/share/spack/setup-env.sh}\"; do"),
            std::string::npos);
}

// Runs the lines in bash with a stand-in `module` function; returns the
// exit status and leaves stdout and stderr in the folder.
int RunWithFakeModule(const TempDir& dir, const std::vector<std::string>& lines) {
  std::string script = "cd " + ShellQuote(dir.path()) +
                       "\n"
                       "module() {\n"
                       "  case \"$2\" in\n"
                       "    good) export GOOD=1; echo 'a warning' >&2 ;;\n"
                       "    *) printf 'Lmod has detected the following error:  The following module(s) are "
                       "unknown:\\n\"%s\"\\n\\n   Please check the spelling\\n' \"$2\" >&2; return 1 ;;\n"
                       "  esac\n"
                       "}\n" +
                       Join(lines, "\n") + "\necho \"reached GOOD=$GOOD\"\n";
  dir.Write("job.sh", script);
  std::string cmd =
      "bash " + ShellQuote(dir / "job.sh") + " >" + ShellQuote(dir / "out") + " 2>" + ShellQuote(dir / "err");
  int rc = std::system(cmd.c_str());
  return WEXITSTATUS(rc);
}

TEST(ModuleSystem, AFailingModuleCommandStopsTheScriptWithItsMessage) {
  TempDir dir;
  auto lines = EnvironmentLines("lmod", {{{{.name = "good"}, {.name = "no such;touch pwned"}}, {}}});
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(RunWithFakeModule(dir, *lines), 1);
  EXPECT_EQ(ReadFile(dir / "out").value(), "");
  EXPECT_FALSE(PathExists(dir / "pwned"));
  EXPECT_FALSE(PathExists(dir / ".hb_module.err"));
  std::string err = ReadFile(dir / "err").value();
  EXPECT_NE(err.find("a warning\nLmod has detected the following error:  The following module(s) are unknown:\n"
                     "\"no such;touch pwned\"\n"),
            std::string::npos)
      << err;
  EXPECT_EQ(ModuleFailure(dir / "err"),
            "module load failed: Lmod has detected the following error: The following module(s) are unknown: "
            "\"no such;touch pwned\" Please check the spelling");
}

TEST(ModuleSystem, SucceedingModuleCommandsLetTheScriptGoOn) {
  TempDir dir;
  auto lines = EnvironmentLines("tmod4", {{{{.name = "good"}}, {{"X", "1"}}}});
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(RunWithFakeModule(dir, *lines), 0);
  EXPECT_EQ(ReadFile(dir / "out").value(), "reached GOOD=1\n");
  EXPECT_EQ(ReadFile(dir / "err").value(), "a warning\n");
  EXPECT_EQ(ModuleFailure(dir / "err"), std::nullopt);
}

TEST(ModuleSystem, AMissingModuleCommandIsAFailureToo) {
  TempDir dir;
  auto lines = EnvironmentLines("spack", {{{{.name = "zlib"}}, {}}});
  ASSERT_TRUE(lines.ok());
  dir.Write("job.sh",
            "cd " + ShellQuote(dir.path()) + "\nPATH=/nonexistent\nunset SPACK_ROOT\n" + Join(*lines, "\n") + "\n");
  std::string cmd = "/bin/bash " + ShellQuote(dir / "job.sh") + " 2>" + ShellQuote(dir / "err");
  EXPECT_EQ(WEXITSTATUS(std::system(cmd.c_str())), 1);
  auto why = ModuleFailure(dir / "err");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why,
            "spack load failed: the job's shell has no 'spack' command; source the module system's shell "
            "set-up in the partition's prepare_cmds");
}

TEST(ModuleSystem, OtherStderrIsNoModuleFailure) {
  TempDir dir;
  dir.Write("err", "hetbench: something else failed: x\nmodule load failed: not ours\n");
  EXPECT_EQ(ModuleFailure(dir / "err"), std::nullopt);
  EXPECT_EQ(ModuleFailure(dir / "absent"), std::nullopt);
}

}  // namespace
}  // namespace hb
