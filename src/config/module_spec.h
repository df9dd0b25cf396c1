// ModuleSpec: one entry of a `modules` list (of a system, partition,
// environment or test) and the names of the module systems hetbench can
// speak (`modules_system`). Plain values read once from YAML; the shell
// lines that load them are written by run/module_system.h.
//
// An entry is written in one of ReFrame's forms, plus two of hetbench's:
//   gcc/12                                    module load gcc/12
//   {name: cray-mpich, path: /opt/mf}         module use /opt/mf; module load cray-mpich
//   {name: mycoll, collection: true}          module restore mycoll
//   {name: PrgEnv-gnu, swap: PrgEnv-cray}     module swap PrgEnv-cray PrgEnv-gnu   (hetbench)
//   {name: darshan, unload: true}             module unload darshan                (hetbench)
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "util/status.h"

namespace hb {

struct ModuleSpec {
  std::string name;
  bool collection = false;  // ReFrame: a module collection (`module restore`)
  std::string path;         // ReFrame: a folder to `module use` first
  std::string swap;         // hetbench: the module `name` replaces (`module swap`)
  bool unload = false;      // hetbench: unload `name` instead of loading it

  bool operator==(const ModuleSpec&) const = default;
};

// Reads a `modules` list: each item a name or a mapping with the keys
// above. `what` names the owner in messages ("environment 'gnu'", "test").
// Errors name file:line:column.
Result<std::vector<ModuleSpec>> ParseModuleList(const YAML::Node& list, const std::string& file,
                                                const std::string& what);

// The keys a module mapping may have: ReFrame's, then hetbench's.
const std::vector<std::string>& ModuleKeys();

// The names of the modules as reports show them (ReFrame's `modules`):
// the loaded ones, without paths.
std::vector<std::string> ModuleNames(const std::vector<ModuleSpec>& modules);

// ReFrame's module mappings (`general: [{module_mappings: ['name: real1
// real2']}]`): a module loaded by `name` is loaded as the modules it maps
// to, themselves mapped in turn. A mapping may name itself
// (`gcc: gcc gcc-tools`); other cycles are errors.
using ModuleMappings = std::map<std::string, std::vector<std::string>>;
Result<ModuleMappings> ParseModuleMappings(const std::vector<std::string>& lines);
// `modules` with every plain load (with or without `path`) of a mapped
// name replaced; swaps, unloads and collections stay as written.
Result<std::vector<ModuleSpec>> ApplyModuleMappings(const std::vector<ModuleSpec>& modules,
                                                    const ModuleMappings& mappings);

// The `modules_system` values hetbench accepts: ReFrame's (nomod, lmod,
// tmod, tmod31, tmod32, tmod4, spack) and `envmod`, an alias of tmod4
// (Environment Modules 4 and 5).
const std::vector<std::string>& ModulesSystemNames();

}  // namespace hb
