// The shell lines that set up a case's environment in its job and build
// scripts: the modules and variables of the system, the partition, the
// programming environment and the test, loaded level by level as ReFrame
// loads its environments (each level's modules, then its variables), with
// the commands of the site's module system (`modules_system`):
//
//   lmod, tmod, tmod31, tmod32, tmod4, envmod   module load / swap / unload / use / restore
//   spack                                       spack load / unload
//   nomod                                       no module commands (modules are ignored, as in ReFrame)
//
// Every module command runs through a small shell function that stops the
// script when the command fails and repeats the module system's own message
// on one stderr line ("hetbench: module load failed: ..."), which
// ModuleFailure() finds again for the case's failure reason. Module names
// are shell-quoted: they reach the module system literally.
//
// Pure text generation (ModuleFailure reads a file); thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/module_spec.h"
#include "util/status.h"

namespace hb {

// One level of the environment (ReFrame's Environment): modules, then
// variables. Variable values are shell text, exported as written.
struct EnvLevel {
  std::vector<ModuleSpec> modules;
  std::vector<std::pair<std::string, std::string>> env_vars;
};

// The lines that load `levels` in order. When any module command is
// written, they start with the helper function and with the sourcing of the
// module system's shell set-up where the job's shell lacks the `module` (or
// `spack`) function. Modules are mapped by `mappings` first. An error names
// a module the module system cannot express (a collection under Tcl
// modules 3.x, a path under Spack) or a cycle of mappings.
Result<std::vector<std::string>> EnvironmentLines(const std::string& modules_system,
                                                  const std::vector<EnvLevel>& levels,
                                                  const ModuleMappings& mappings = {});

// The failure reason a job's stderr (the file at `stderr_path`) gives for a
// module command that failed, e.g. "module load failed: Lmod has detected
// the following error: ...", or nullopt when no module command failed.
std::optional<std::string> ModuleFailure(const std::string& stderr_path);

}  // namespace hb
