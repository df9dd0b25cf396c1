// End-to-end tests of the build systems beyond the core's (Autotools,
// Spack), build logs in the output folder, and builds submitted as jobs
// (build_locally: false): the real hetbench binary, real processes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace {

const char* kSite = R"(
systems:
  - name: box
    hostnames: ['.*']
    partitions:
      - {name: p, scheduler: local, launcher: local, environs: [gnu]}
environments:
  - {name: gnu, cc: gcc, cflags: [-O1]}
)";

nlohmann::json Case(const std::string& dir) {
  auto files = e2e::Find(dir + "/reports", "run-*.json");
  EXPECT_EQ(files.size(), 1u);
  if (files.empty()) return nlohmann::json::object();
  return nlohmann::json::parse(Read(files[0]))["cases"][0];
}

// A tiny autotools-style project: a hand-written `configure` that takes
// CC=, CFLAGS= and --with-answer=N, finds its sources next to itself (so
// it works from a build folder, as ../configure) and writes a Makefile.
void WriteAutotoolsProject(const std::string& src, const std::string& extra_check = "") {
  Write(src + "/hello.c", "#include <stdio.h>\nint main(void) { printf(\"answer %d\\n\", ANSWER); return 0; }\n");
  Write(src + "/configure",
        "#!/bin/sh\n"
        "srcdir=$(dirname \"$0\")\n"
        "CC=cc; CFLAGS=; ANSWER=0\n"
        "for a in \"$@\"; do\n"
        "  case \"$a\" in\n"
        "    CC=*) CC=${a#CC=} ;;\n"
        "    CFLAGS=*) CFLAGS=${a#CFLAGS=} ;;\n"
        "    --with-answer=*) ANSWER=${a#--with-answer=} ;;\n"
        "  esac\n"
        "done\n"
        "echo \"checking for C compiler... $CC\"\n" +
            extra_check +
            "printf 'hello: %s/hello.c\\n\\t%s %s -DANSWER=%s -o hello %s/hello.c\\n' \"$srcdir\" \"$CC\" \"$CFLAGS\" "
            "\"$ANSWER\" \"$srcdir\" > Makefile\n"
            "echo 'configure: creating ./Makefile'\n");
  ASSERT_EQ(system(("chmod +x " + src + "/configure").c_str()), 0);
}

TEST(BuildE2E, AutotoolsProjectBuildsOutOfSourceAndRuns) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kSite);
  WriteAutotoolsProject(dir + "/src");
  Write(dir + "/t.yaml", R"(
name: autohello
sourcesdir: src
build_system: {type: Autotools, builddir: build, config_opts: ['--with-answer=42'], max_concurrency: 2}
executable: ./build/hello
sanity: [{pattern: 'answer 42'}]
)");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto c = Case(dir);
  EXPECT_EQ(c["result"], "pass") << c.dump();
  std::string out = c["outputdir"];
  // The build script ran ReFrame's commands, and both logs were kept.
  std::string script = Read(out + "/hb_build.sh");
  EXPECT_NE(script.find("mkdir -p build\ncd build\n../configure CC=\"gcc\" CXX=\"CC\" FC=\"ftn\" CFLAGS=\"-O1\" "
                        "--with-answer=42\n"
                        "make -j 2\n"),
            std::string::npos)
      << script;
  EXPECT_NE(Read(out + "/hb_build.out").find("configure: creating ./Makefile"), std::string::npos);
  EXPECT_TRUE(Exists(out + "/hb_build.err"));
}

TEST(BuildE2E, FailedBuildNamesTheToolsErrorAndKeepsBothLogs) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kSite);
  WriteAutotoolsProject(dir + "/src", "echo 'configure: error: libfrob not found' >&2; exit 1\n");
  Write(dir + "/t.yaml",
        "name: autofail\nsourcesdir: src\nbuild_system: Autotools\nexecutable: ./hello\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  auto c = Case(dir);
  EXPECT_EQ(c["fail_stage"], "build");
  std::string reason = c["fail_reason"];
  std::string out = c["outputdir"];
  EXPECT_EQ(reason,
            "exit code 1: configure: error: libfrob not found (in `./configure CC=\"gcc\" CXX=\"CC\" FC=\"ftn\" "
            "CFLAGS=\"-O1\"`)"
            " (log: " +
                out + "/hb_build.err)");
  EXPECT_NE(Read(out + "/hb_build.out").find("checking for C compiler... gcc"), std::string::npos);
  EXPECT_NE(Read(out + "/hb_build.err").find("configure: error: libfrob not found"), std::string::npos);
}

// A stand-in `spack` on PATH that prints what real Spack prints (0.21,
// `spack env create -d`, `add`, `install`, `load --sh`) and records every
// command line; `add zlib@99` fails as Spack's concretizer does.
void WriteFakeSpack(const std::string& bin, const std::string& log) {
  Write(bin + "/spack",
        "#!/bin/sh\n"
        "echo \"spack $*\" >> " +
            log +
            "\n"
            "case \"$*\" in\n"
            "  'env create -d rfm_spack_env')\n"
            "    mkdir -p rfm_spack_env\n"
            "    echo \"==> Created independent environment in: $PWD/rfm_spack_env\"\n"
            "    echo '==> Activate with: spack env activate rfm_spack_env' ;;\n"
            "  *' add zlib@99'*)\n"
            "    echo '==> Error: concretization failed for the following reasons:' >&2\n"
            "    echo >&2\n"
            "    echo \"   1. Cannot satisfy 'zlib@=99'\" >&2\n"
            "    echo '        required because zlib@=99 requested explicitly' >&2\n"
            "    exit 1 ;;\n"
            "  *' add '*) echo \"==> Adding ${4} to environment $PWD/rfm_spack_env\" ;;\n"
            "  *' install'*)\n"
            "    echo '==> Installing zlib-1.3.1-wbr6vvlhd4u3ixefcixefvhamhhh3dbu [1/1]'\n"
            "    echo '==> zlib: Successfully installed zlib-1.3.1-wbr6vvlhd4u3ixefcixefvhamhhh3dbu' ;;\n"
            "  *' load --sh '*) echo 'export ZLIB_ROOT=/stage/opt/spack/zlib-1.3.1;' ;;\n"
            "esac\n");
  ASSERT_EQ(system(("chmod +x " + bin + "/spack").c_str()), 0);
}

TEST(BuildE2E, SpackBuildsInTheStageDirectoryAndLoadsTheSpecs) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kSite);
  WriteFakeSpack(dir + "/bin", dir + "/spack.log");
  Write(dir + "/t.yaml", R"(
name: spacky
build_system: {type: Spack, specs: [zlib@1.3.1], install_opts: [--fresh]}
executable: sh
executable_opts: ['-c', '"echo zlib at $ZLIB_ROOT"']
sanity: [{pattern: 'zlib at /stage/opt/spack/zlib-1.3.1'}]
)");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60,
                    {{"PATH", dir + "/bin:" + std::string(getenv("PATH"))}});
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(Read(dir + "/spack.log"),
            "spack env create -d rfm_spack_env\n"
            "spack -e rfm_spack_env config add config:install_tree:root:opt/spack\n"
            "spack -e rfm_spack_env add zlib@1.3.1\n"
            "spack -e rfm_spack_env install --fresh\n"
            "spack -e rfm_spack_env load --sh zlib@1.3.1\n");
  EXPECT_NE(Read(std::string(Case(dir)["outputdir"]) + "/hb_build.out").find("Successfully installed zlib"),
            std::string::npos);
}

TEST(BuildE2E, SpackConcretizationErrorIsTheFailureReason) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kSite);
  WriteFakeSpack(dir + "/bin", dir + "/spack.log");
  Write(
      dir + "/t.yaml",
      "name: spackfail\nbuild_system: {type: Spack, specs: [zlib@99]}\nexecutable: 'true'\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir, 60,
                    {{"PATH", dir + "/bin:" + std::string(getenv("PATH"))}});
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  auto c = Case(dir);
  EXPECT_EQ(c["fail_stage"], "build");
  EXPECT_EQ(c["fail_reason"],
            "exit code 1: ==> Error: concretization failed for the following reasons: 1. Cannot "
            "satisfy 'zlib@=99' (in `spack -e rfm_spack_env add zlib@99`) (log: " +
                std::string(c["outputdir"]) + "/hb_build.err)");
  EXPECT_NE(o.out.find("Cannot satisfy 'zlib@=99'"), std::string::npos) << o.out;
}

// build_locally: false: the build is a job of the partition's scheduler,
// under its own time limit.
TEST(BuildE2E, BuildAsAJobHasItsOwnTimeLimit) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", kSite);
  Write(dir + "/t.yaml", R"(
name: slowbuild
build_locally: false
build_time_limit: 1s
build_system: {type: Custom, commands: ['echo building', 'sleep 30']}
executable: 'true'
sanity: [{exit_code: 0}]
---
name: okbuild
build_locally: false
build_system: {type: Custom, commands: ['echo built > built.txt']}
executable: cat
executable_opts: [built.txt]
sanity: [{pattern: built}]
)");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 1) << o.out << o.err;
  auto files = e2e::Find(dir + "/reports", "run-*.json");
  ASSERT_EQ(files.size(), 1u);
  auto cases = nlohmann::json::parse(Read(files[0]))["cases"];
  for (const auto& c : cases) {
    if (c["name"] == "slowbuild") {
      EXPECT_EQ(c["fail_stage"], "build") << c.dump();
      EXPECT_EQ(c["fail_reason"], "time limit of 1s exceeded") << c.dump();
      EXPECT_EQ(Read(std::string(c["outputdir"]) + "/hb_build.out"), "building\n");
    } else {
      EXPECT_EQ(c["result"], "pass") << c.dump();
    }
  }
}

// The build job's script carries the batch scheduler's directives, with
// the partition's access options and the build's time limit.
TEST(BuildE2E, BuildJobScriptForSlurm) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", R"(
systems:
  - name: hpc
    hostnames: ['.*']
    partitions:
      - {name: cpu, scheduler: slurm, launcher: srun, access: [--partition=debug], environs: [gnu]}
environments:
  - {name: gnu, cc: gcc}
)");
  Write(dir + "/t.yaml",
        "name: remote\nbuild_locally: false\nbuild_time_limit: 10m\n"
        "build_system: {type: Make, max_concurrency: 4}\nexecutable: ./remote\nsanity: [{exit_code: 0}]\n");
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--dry-run"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  auto outs = e2e::Find(dir + "/output", "hb_build.sh");
  ASSERT_EQ(outs.size(), 1u) << o.out;
  std::string script = Read(outs[0]);
  EXPECT_NE(script.find("#SBATCH --job-name=\"hb_build_remote\"\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=debug\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --time=0:10:00\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --error=" + dir + "/stage/"), std::string::npos) << script;
  EXPECT_NE(script.find("make -j 4 CC=\"gcc\""), std::string::npos) << script;
}

}  // namespace
