#include "buildsys/build_system.h"

#include <stdio.h>
#include <stdlib.h>

#include <gtest/gtest.h>

#include "util/test_temp_dir.h"

#include "util/fs.h"

namespace hb {
namespace {

using Words = std::vector<std::string>;

Environment Gnu() {
  Environment e;
  e.name = "gnu";
  e.cc = "gcc";
  e.cxx = "g++";
  e.ftn = "gfortran";
  e.nvcc = "nvcc";
  e.cppflags = {"-DENV"};
  e.cflags = {"-O2"};
  e.cxxflags = {"-O2", "-std=c++17"};
  e.fflags = {"-O1"};
  e.ldflags = {"-lm"};
  return e;
}

BuildSpec Single(const std::string& source) {
  BuildSpec s;
  s.type = "SingleSource";
  s.source = source;
  return s;
}

Words Commands(const BuildSpec& s, const Environment& e = Gnu()) {
  auto cmds = BuildCommands(s, e);
  EXPECT_TRUE(cmds.ok()) << cmds.status().str();
  return cmds.ok() ? *cmds : Words{};
}

std::string Error(const BuildSpec& s, const Environment& e = Gnu()) {
  auto cmds = BuildCommands(s, e);
  EXPECT_FALSE(cmds.ok());
  return cmds.ok() ? "" : cmds.status().str();
}

TEST(SingleSource, CompilesWithEnvironmentThenSpecFlags) {
  BuildSpec s = Single("stream.c");
  s.cflags = {"-O3", "-fopenmp"};
  s.cppflags = {"-DN=10"};
  s.ldflags = {"-lrt"};
  EXPECT_EQ(Commands(s), Words{"gcc -DENV -DN=10 -O2 -O3 -fopenmp stream.c -o ./stream -lm -lrt"});
  EXPECT_EQ(SingleSourceExecutable(s), "./stream");
}

TEST(SingleSource, PicksTheCompilerFromTheExtension) {
  EXPECT_EQ(Commands(Single("a.cpp")), Words{"g++ -DENV -O2 -std=c++17 a.cpp -o ./a -lm"});
  EXPECT_EQ(Commands(Single("a.C")), Words{"g++ -DENV -O2 -std=c++17 a.C -o ./a -lm"});
  EXPECT_EQ(Commands(Single("a.F90")), Words{"gfortran -DENV -O1 a.F90 -o ./a -lm"});
  EXPECT_EQ(Commands(Single("a.f")), Words{"gfortran -DENV -O1 a.f -o ./a -lm"});
  // CUDA takes the C++ flags, as in ReFrame.
  EXPECT_EQ(Commands(Single("k.cu")), Words{"nvcc -DENV -O2 -std=c++17 k.cu -o ./k -lm"});
}

TEST(SingleSource, LangCompilerExecutableAndSrcdirOverride) {
  BuildSpec s = Single("main.txt");
  s.lang = "C++";
  s.cxx = "clang++";
  s.executable = "bin/my prog";
  s.srcdir = "src";
  EXPECT_EQ(Commands(s), Words{"clang++ -DENV -O2 -std=c++17 src/main.txt -o 'bin/my prog' -lm"});
  Environment bare;
  bare.cc = "cc";
  EXPECT_EQ(Commands(Single("x.c"), bare), Words{"cc x.c -o ./x"});
}

TEST(SingleSource, ExplainsWhatIsMissing) {
  BuildSpec none = Single("");
  none.mark = SourceMark{"tests/t.yaml", 4, 15};
  EXPECT_EQ(Error(none), "tests/t.yaml:4:15: a source file is required when using the 'SingleSource' build system");
  EXPECT_NE(Error(Single("a.xyz")).find("cannot tell the language of 'a.xyz'"), std::string::npos);
  BuildSpec lang = Single("a.c");
  lang.lang = "fortan";
  EXPECT_EQ(Error(lang), "unknown lang 'fortan', did you mean 'fortran'? (known: c, c++, fortran, cuda)");
  Environment no_cc = Gnu();
  no_cc.cc = "";
  EXPECT_EQ(Error(Single("a.c"), no_cc), "no C compiler: set cc in build_system or in environment 'gnu'");
}

TEST(Make, PassesCompilersAndFlagsLikeReFrame) {
  BuildSpec s;
  s.type = "Make";
  EXPECT_EQ(Commands(s), Words{"make -j $(nproc) CC=\"gcc\" CXX=\"g++\" FC=\"gfortran\" NVCC=\"nvcc\" "
                               "CPPFLAGS=\"-DENV\" CFLAGS=\"-O2\" CXXFLAGS=\"-O2 -std=c++17\" "
                               "FCFLAGS=\"-O1\" LDFLAGS=\"-lm\""});
  s.makefile = "Makefile.hb";
  s.srcdir = "src dir";
  s.max_concurrency = 4;
  s.cflags = {"-DMSG=\"hi\"", "-I$CUDA_HOME/include"};
  s.options = {"PREFIX=/opt"};
  s.targets = {"all", "check"};
  Environment e;
  e.name = "bare";
  e.cc = "cc";
  e.cxx = e.ftn = e.nvcc = "";
  EXPECT_EQ(Commands(s, e), Words{"make -f Makefile.hb -C 'src dir' -j 4 CC=\"cc\" "
                                  "CFLAGS=\"-DMSG=\\\"hi\\\" -I$CUDA_HOME/include\" PREFIX=/opt all check"});
}

TEST(CMake, ConfiguresThenBuilds) {
  BuildSpec s;
  s.type = "CMake";
  Environment e;
  e.cc = "gcc";
  e.cxx = "g++";
  e.ftn = e.nvcc = "";
  e.cppflags = {"-DENV"};
  e.cxxflags = {"-O3"};
  EXPECT_EQ(Commands(s, e),
            (Words{"cmake -S . -B build -DCMAKE_C_COMPILER=\"gcc\" -DCMAKE_CXX_COMPILER=\"g++\" "
                   "-DCMAKE_C_FLAGS=\"-DENV\" -DCMAKE_CXX_FLAGS=\"-DENV -O3\" -DCMAKE_Fortran_FLAGS=\"-DENV\"",
                   "cmake --build build -j $(nproc)"}));
  s.srcdir = "src";
  s.builddir = "out";
  s.max_concurrency = 2;
  s.options = {"-DUSE_MPI=ON"};
  s.targets = {"bench", "tool"};
  s.ldflags = {"-lm"};
  e.cppflags.clear();
  EXPECT_EQ(Commands(s, e), (Words{"cmake -S src -B src/out -DCMAKE_C_COMPILER=\"gcc\" -DCMAKE_CXX_COMPILER=\"g++\" "
                                   "-DCMAKE_CXX_FLAGS=\"-O3\" -DCMAKE_EXE_LINKER_FLAGS=\"-lm\" -DUSE_MPI=ON",
                                   "cmake --build src/out -j 2 --target bench tool"}));
}

TEST(Custom, RunsTheCommandsAsWritten) {
  BuildSpec s;
  s.type = "Custom";
  s.commands = {"./configure --fast", "make -j 2 && echo done"};
  EXPECT_EQ(Commands(s), s.commands);
  s.commands.clear();
  EXPECT_EQ(Error(s), "the 'Custom' build system needs `commands`");
}

TEST(BuildCommands, NoneAndUnknownTypes) {
  BuildSpec s;
  EXPECT_EQ(Commands(s), Words{});
  s.type = "none";
  EXPECT_EQ(Commands(s), Words{});
  s.type = "Mkae";
  EXPECT_EQ(Error(s),
            "unknown build system 'Mkae', did you mean 'Make'? (known: SingleSource, Make, CMake, "
            "Autotools, Spack, EasyBuild, Custom, none)");
  s.type = "cmake";
  EXPECT_NE(Error(s).find("did you mean 'CMake'?"), std::string::npos);
}

TEST(Autotools, ConfiguresThenMakesLikeReFrame) {
  BuildSpec s;
  s.type = "Autotools";
  s.config_opts = {"--enable-foo", "--prefix=/opt"};
  s.make_opts = {"all", "V=1"};
  s.max_concurrency = 4;
  EXPECT_EQ(Commands(s), (Words{"./configure CC=\"gcc\" CXX=\"g++\" FC=\"gfortran\" CPPFLAGS=\"-DENV\" "
                                "CFLAGS=\"-O2\" CXXFLAGS=\"-O2 -std=c++17\" FCFLAGS=\"-O1\" LDFLAGS=\"-lm\" "
                                "--enable-foo --prefix=/opt",
                                "make -j 4 all V=1"}));
  // Out of source, in a sub-folder: configure is found relative to builddir.
  s.srcdir = "src dir";
  s.builddir = "build";
  s.max_concurrency = 0;
  s.config_opts.clear();
  s.make_opts.clear();
  Environment bare;
  bare.cc = bare.cxx = bare.ftn = "";
  EXPECT_EQ(Commands(s, bare),
            (Words{"cd 'src dir'", "mkdir -p build", "cd build", "../configure", "make -j $(nproc)"}));
  s.configuredir = "tools";
  EXPECT_EQ(Commands(s, bare)[3], "../tools/configure");
}

TEST(Spack, CreatesAnEnvironmentInTheStageDirectory) {
  BuildSpec s;
  s.type = "Spack";
  s.specs = {"zlib@1.3.1", "bzip2"};
  s.install_opts = {"--fresh", "-j", "8"};
  EXPECT_EQ(Commands(s),
            (Words{"spack env create -d rfm_spack_env",
                   "spack -e rfm_spack_env config add \"config:install_tree:root:opt/spack\"",
                   "spack -e rfm_spack_env add zlib@1.3.1 bzip2", "spack -e rfm_spack_env install --fresh -j 8"}));
  EXPECT_EQ(RunPrepareCommands(s, "/stage", ""), Words{"eval `spack -e rfm_spack_env load --sh zlib@1.3.1 bzip2`"});
  s.emit_load_cmds = false;
  EXPECT_EQ(RunPrepareCommands(s, "/stage", ""), Words{});
}

TEST(Spack, UsesTheTestsOwnEnvironment) {
  BuildSpec s;
  s.type = "Spack";
  s.environment = "spack_env";
  EXPECT_EQ(Commands(s), Words{"spack -e spack_env install"});
  EXPECT_EQ(RunPrepareCommands(s, "/stage", ""), Words{"eval `spack env activate --sh -d spack_env`"});
  s.install_tree = "/scratch/spack tree";
  s.specs = {"hdf5+mpi"};
  EXPECT_EQ(Commands(s), (Words{"spack -e spack_env config add \"config:install_tree:root:/scratch/spack tree\"",
                                "spack -e spack_env add hdf5+mpi", "spack -e spack_env install"}));
}

TEST(EasyBuild, InstallsUnderThePrefixInTheStageDirectory) {
  BuildSpec s;
  s.type = "EasyBuild";
  s.easyconfigs = {"zlib-1.2.13-GCCcore-12.3.0.eb"};
  s.options = {"-f", "--robot"};
  s.emit_package = true;
  s.package_opts = {{"type", "rpm"}};
  auto cmds = BuildCommands(s, Gnu(), "/stage/t");
  ASSERT_TRUE(cmds.ok());
  EXPECT_EQ(
      *cmds,
      (Words{"export EASYBUILD_BUILDPATH=/stage/t/easybuild/build", "export EASYBUILD_INSTALLPATH=/stage/t/easybuild",
             "export EASYBUILD_PREFIX=/stage/t/easybuild", "export EASYBUILD_SOURCEPATH=/stage/t/easybuild",
             "eb zlib-1.2.13-GCCcore-12.3.0.eb -f --robot --package --package-type=rpm"}));
  // eb's own report of what it built (its stdout) names the modules to load.
  std::string eb_out =
      "== Temporary log file in case of crash /tmp/eb-abc/easybuild-x.log\n"
      "== resolving dependencies ...\n"
      "== processing EasyBuild easyconfig /stage/t/zlib-1.2.13-GCCcore-12.3.0.eb\n"
      "== building and installing zlib/1.2.13-GCCcore-12.3.0...\n"
      "== fetching files...\n"
      "== COMPLETED: Installation ended successfully (took 12 secs)\n";
  EXPECT_EQ(RunPrepareCommands(s, "/stage/t", eb_out),
            (Words{"module use /stage/t/easybuild/modules/all", "module load zlib/1.2.13-GCCcore-12.3.0"}));
  s.easyconfigs.clear();
  EXPECT_EQ(Error(s), "the 'EasyBuild' build system needs `easyconfigs`");
}

// What a user reads when the build fails: the build tool's own error line.
// The texts are what the tools print (Spack 0.21 and 0.23 concretizer
// errors, EasyBuild, configure), followed by the build script's trap line.
TEST(BuildFailureReason, QuotesTheToolsError) {
  EXPECT_EQ(
      BuildFailureReason("==> Error: concretization failed for the following reasons:\n\n"
                         "   1. Cannot satisfy 'zlib@=99.0'\n"
                         "   2. Cannot satisfy 'zlib@=99.0'\n"
                         "        required because zlib@=99.0 requested explicitly\n"
                         "hetbench: build command failed with exit code 1: spack -e rfm_spack_env add zlib@99.0\n"),
      "==> Error: concretization failed for the following reasons: 1. Cannot satisfy 'zlib@=99.0' "
      "2. Cannot satisfy 'zlib@=99.0' (in `spack -e rfm_spack_env add zlib@99.0`)");
  EXPECT_EQ(BuildFailureReason("==> Error: failed to concretize `llvm@17.0.5` for the following reasons:\n"
                               "     1. Cannot satisfy 'llvm@17.0.5'\n"
                               "        required because llvm@17.0.5 requested explicitly \n"
                               "hetbench: build command failed with exit code 1: spack -e rfm_spack_env install\n"),
            "==> Error: failed to concretize `llvm@17.0.5` for the following reasons: 1. Cannot satisfy "
            "'llvm@17.0.5' (in `spack -e rfm_spack_env install`)");
  EXPECT_EQ(
      BuildFailureReason("==> Error: Package 'nosuchpkg' not found.\n"
                         "You may need to run 'spack clean -m'.\n"
                         "hetbench: build command failed with exit code 1: spack -e rfm_spack_env add nosuchpkg\n"),
      "==> Error: Package 'nosuchpkg' not found. (in `spack -e rfm_spack_env add nosuchpkg`)");
  EXPECT_EQ(BuildFailureReason("ERROR: Build of /stage/zlib.eb failed (err: 'build failed (first 300 chars): cmd "
                               "\"make -j 8\" exited with exit code 2')\n"
                               "hetbench: build command failed with exit code 1: eb zlib.eb\n"),
            "ERROR: Build of /stage/zlib.eb failed (err: 'build failed (first 300 chars): cmd \"make -j 8\" exited "
            "with exit code 2') (in `eb zlib.eb`)");
  EXPECT_EQ(BuildFailureReason("checking for gcc... no\nconfigure: error: no acceptable C compiler found in $PATH\n"
                               "hetbench: build command failed with exit code 1: ./configure\n"),
            "configure: error: no acceptable C compiler found in $PATH (in `./configure`)");
  EXPECT_EQ(BuildFailureReason("x.c:1:1: error: expected ';'\nmake: *** [Makefile:2: all] Error 1\n"
                               "hetbench: build command failed with exit code 2: make -j 4\n"),
            "make: *** [Makefile:2: all] Error 1 (in `make -j 4`)");
  EXPECT_EQ(BuildFailureReason(""), "");
}

// Compiles and runs a real program with the commands, through /bin/sh.
TEST(SingleSource, BuildsARealProgram) {
  ASSERT_EQ(std::system("command -v cc >/dev/null 2>&1"), 0) << "cc is needed (scripts/deps installs build-essential)";
  TempDir tmp;
  const std::string& dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  ASSERT_TRUE(WriteFile(JoinPath(dir, "hello.c"),
                        "#include <stdio.h>\n#include <math.h>\n"
                        "int main(void) { printf(\"%s %d %.0f\\n\", GREETING, ANSWER, sqrt(16.0)); return 0; }\n")
                  .ok());
  Environment e;
  e.name = "builtin";
  e.cc = "cc";
  e.cppflags = {"-DANSWER=42"};
  e.ldflags = {"-lm"};
  BuildSpec s = Single("hello.c");
  s.cppflags = {"'-DGREETING=\"hello world\"'"};  // a shell word, as the user wrote it
  s.cflags = {"-O2", "-Wall"};
  auto cmds = BuildCommands(s, e);
  ASSERT_TRUE(cmds.ok()) << cmds.status().str();
  for (const auto& cmd : *cmds) {
    ASSERT_EQ(std::system(("cd " + dir + " && " + cmd).c_str()), 0) << cmd;
  }
  FILE* p = ::popen(("cd " + dir + " && " + SingleSourceExecutable(s)).c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[128] = {};
  size_t n = fread(buf, 1, sizeof buf - 1, p);
  EXPECT_EQ(::pclose(p), 0);
  EXPECT_EQ(std::string(buf, n), "hello world 42 4\n");
}

}  // namespace
}  // namespace hb
