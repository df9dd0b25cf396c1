// Job and build scripts for a test case. Pure text generation, no I/O, so
// the exact scripts are unit-tested and `--dry-run` writes what would run.
//
// Quoting rule (as ReFrame's): text the test writes for the shell
// (prerun_cmds, postrun_cmds, env_vars values, executable_opts such as
// `> out.txt`) is passed as written; every placeholder value substituted
// into it (parameters, {stagedir}, ...) is quoted so it reaches the
// program literally.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hb {

using PlaceholderLookup = std::function<std::optional<std::string>(const std::string&)>;

struct ScriptParts {
  std::string shell = "/bin/bash";
  std::vector<std::string> directives;                   // scheduler lines, e.g. "#SBATCH --ntasks=4"
  std::string workdir;                                   // cd here first
  std::vector<std::pair<std::string, std::string>> env;  // hetbench's own, exported first; values as shell text
  std::vector<std::string> prepare_cmds;                 // partition / environment set-up
  std::vector<std::string> environ;                      // modules and variables, level by level (module_system.h)
  std::vector<std::string> build_setup;                  // the build system's: spack load, EasyBuild's modules
  std::vector<std::string> prerun_cmds;
  std::vector<std::string> launcher;  // words before the executable, e.g. {"mpirun", "-np", "4"}
  std::string executable;
  std::vector<std::string> executable_opts;
  std::vector<std::string> postrun_cmds;
};

// The run script, in ReFrame's order (docs/environments.md, "The order of
// a job script"): cd, hetbench's variables, the partition's and
// environment's prepare_cmds, then for each level (system, partition,
// environment, test) its modules and then its env_vars, then the build
// system's set-up (spack load, EasyBuild's module loads), prerun_cmds, the
// launcher and the program, postrun_cmds. Its exit status is the launched
// program's, even when postrun_cmds follow it.
std::string RunScript(const ScriptParts& p);

// The build script: set -e semantics, so the first failing command fails
// the build and names itself on stderr. The same set-up as the run script
// precedes the commands. `directives` are the scheduler's lines when the
// build is a batch job (build_locally: false).
std::string BuildScript(const std::string& workdir, const std::vector<std::pair<std::string, std::string>>& env,
                        const std::vector<std::string>& prepare_cmds, const std::vector<std::string>& environ,
                        const std::vector<std::string>& commands, const std::vector<std::string>& directives = {});

}  // namespace hb
