// Build systems: turn a test's `build_system` (BuildSpec) and the current
// programming environment (Environment) into the shell command lines of the
// build script, which runs them in order in the test's stage directory.
// They mirror ReFrame's (reframe/core/buildsystems.py: SingleSource, Make,
// CMake, CustomBuild) with these choices:
//
//  - Flags: the environment's, then the spec's (ReFrame uses the spec's
//    *instead of* the environment's when the spec sets any). Compilers: the
//    spec's cc/cxx/ftn/nvcc when set, else the environment's.
//  - List items (flags, options, targets, commands) are shell words as the
//    user wrote them, placeholders already expanded and quoted by the
//    caller; they go in verbatim, as in ReFrame. Single paths (source,
//    executable, makefile, srcdir, builddir) are quoted with ShellQuote.
//    Make and CMake variables are NAME="value" as in ReFrame (`"` and `\`
//    escaped), so `$CUDA_HOME` in a site config's flags still expands.
//  - `max_concurrency: 0` means every CPU of the build host: -j $(nproc)
//    (ReFrame's default is 1).
//
// SingleSource:  COMPILER CPPFLAGS XFLAGS SRC -o EXE LDFLAGS    (ReFrame's form)
//   The language comes from `lang` (c, c++, fortran, cuda; any case) or from
//   the source's extension with ReFrame's table (.c .upc; .cc .cp .cxx .cpp
//   .CPP .c++ .C; .f .for .ftn .F .FOR .fpp .FPP .FTN .f90 .f95 .f03 .f08
//   .F90 .F95 .F03 .F08 .cuf .CUF; .cu). XFLAGS are cflags, cxxflags (C++
//   and CUDA, as in ReFrame) or fflags. SRC is srcdir/source. EXE is
//   `executable`, by default "./<source stem>" in the stage directory
//   (ReFrame's build system alone would say <stem>.x, but its tests pass
//   their own executable, ./<test name>; the stem keeps `executable:
//   ./stream` right for stream.c).
// Make:   make [-f MAKEFILE] [-C SRCDIR] -j N CC=".." CXX=".." FC=".."
//         NVCC=".." CPPFLAGS=".." CFLAGS=".." CXXFLAGS=".." FCFLAGS=".."
//         LDFLAGS=".." OPTIONS TARGETS       (ReFrame's order and names;
//         empty variables are left out)
// CMake:  cmake -S SRCDIR -B SRCDIR/BUILDDIR -DCMAKE_C_COMPILER=".." ...
//         -DCMAKE_{C,CXX,Fortran}_FLAGS="CPPFLAGS XFLAGS"
//         -DCMAKE_EXE_LINKER_FLAGS=".." OPTIONS
//         cmake --build SRCDIR/BUILDDIR -j N [--target TARGETS]
//         (ReFrame's variables; it runs cd/mkdir/`make -j N` where hetbench
//         uses cmake -S/-B and `cmake --build`, which work with any
//         generator; builddir defaults to "build")
// Autotools (ReFrame's): [cd SRCDIR] [mkdir -p BUILDDIR; cd BUILDDIR]
//         CONFIGUREDIR/configure CC=".." CXX=".." FC=".." CPPFLAGS=".."
//         CFLAGS=".." CXXFLAGS=".." FCFLAGS=".." LDFLAGS=".." CONFIG_OPTS
//         make -j N MAKE_OPTS
//         (configure is found relative to BUILDDIR, e.g. ../configure)
// Spack (ReFrame's): [spack env create -d rfm_spack_env]
//         [spack -e ENV config add "config:install_tree:root:TREE"]
//         [spack -e ENV add SPECS]   spack -e ENV install INSTALL_OPTS
//         The environment is created in the stage directory unless the
//         test names one (`environment`, e.g. one in its sourcesdir); the
//         install tree is opt/spack in the stage directory for a created
//         environment, or `install_tree` when set. The run script then
//         loads the specs: eval `spack -e ENV load --sh SPECS` (or, with no
//         specs, activates the environment with its view).
// EasyBuild (ReFrame's): export EASYBUILD_{BUILDPATH=P/build,INSTALLPATH=P,
//         PREFIX=P,SOURCEPATH=P}   eb EASYCONFIGS OPTIONS [--package
//         --package-K=V...], P = STAGEDIR/prefix. The run script then does
//         `module use P/modules/all` and loads every module eb reports
//         "building and installing NAME..." for.
// Custom: the commands as written.  none or "": no commands.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "config/site_config.h"
#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

// The build script's command lines, or an error naming spec.mark.
// `stagedir` is where the build runs (EasyBuild's prefix lives there).
Result<std::vector<std::string>> BuildCommands(const BuildSpec& spec, const Environment& env,
                                               const std::string& stagedir = "");

// Commands the run script needs after a successful build (Spack's load,
// EasyBuild's module use/load); `build_stdout` is what the build printed.
std::vector<std::string> RunPrepareCommands(const BuildSpec& spec, const std::string& stagedir,
                                            const std::string& build_stdout);

// Why a build failed, from what its script printed on stderr: the first
// error line a build tool is known to print (Spack's "==> Error: ..." with
// its numbered reasons, EasyBuild's "ERROR: ...", "configure: error: ..."),
// else the last line, with the failing command that the build script's
// trap names: "==> Error: ... (in `spack -e rfm_spack_env install`)".
std::string BuildFailureReason(const std::string& build_stderr);

// The executable a SingleSource build produces (spec.executable, or
// "./<stem of spec.source>").
std::string SingleSourceExecutable(const BuildSpec& spec);

// The build system types BuildCommands accepts (besides none and "").
const std::vector<std::string>& BuildSystemNames();

}  // namespace hb
