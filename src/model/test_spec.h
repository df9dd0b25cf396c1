// TestSpec: one test as its file declares it (after `extends` has been
// applied). TestCase: one spec with its parameter values bound, on one
// partition, in one environment. Plain values, built once by the loader
// and the expander and read-only afterwards.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "check/check_spec.h"
#include "config/module_spec.h"
#include "util/status.h"

namespace hb {

using StringPairs = std::vector<std::pair<std::string, std::string>>;

// build_system: {type: SingleSource|Make|CMake|Custom|none, ...}
struct BuildSpec {
  std::string type;  // "" = no build stage
  std::string source;             // SingleSource
  std::string executable;         // SingleSource output name (default: source stem)
  std::string lang;               // c, c++, fortran, cuda (default: from the extension)
  std::vector<std::string> cppflags, cflags, cxxflags, fflags, ldflags;
  std::string cc, cxx, ftn, nvcc;  // override the environment's compilers
  std::string makefile;           // Make
  std::vector<std::string> options;     // Make variables / CMake -D options
  std::vector<std::string> targets;     // Make / CMake targets
  std::string srcdir;             // sub-folder of the stage directory
  std::string builddir;           // CMake build folder (default "build")
  int max_concurrency = 0;        // make -j N (0 = number of CPUs)
  std::vector<std::string> commands;    // Custom: shell commands as written
  SourceMark mark;
};

struct TestSpec {
  std::string name, descr;
  std::string file;  // absolute path of the test file
  SourceMark mark;   // where `name:` is
  std::string extends;
  bool abstract = false;  // only a base for `extends`; never run
  std::vector<std::string> tags, maintainers;
  std::vector<std::string> valid_systems = {"*"};
  std::vector<std::string> valid_prog_environs = {"*"};
  // Parameters in file order; values as written (scalars as strings).
  std::vector<std::pair<std::string, std::vector<std::string>>> parameters;
  std::string executable;
  std::vector<std::string> executable_opts;
  StringPairs env_vars;
  // Loaded after the system's, partition's and environment's modules;
  // placeholders in names are filled in.
  std::vector<ModuleSpec> modules;
  std::vector<std::string> prerun_cmds, postrun_cmds;
  std::string sourcesdir;  // absolute, or "" for none
  BuildSpec build;
  int num_tasks = 1, num_tasks_per_node = 0, num_cpus_per_task = 0, num_gpus_per_node = 0;
  std::map<std::string, int> num_devices_per_node;  // generic devices, e.g. {ipu: 4}
  std::optional<double> time_limit_s;
  double max_pending_time_s = 0;  // batch schedulers cancel a job queued longer; 0 = none
  bool exclusive_access = false;
  std::map<std::string, std::map<std::string, std::string>> extra_resources;
  std::vector<std::string> keep_files;
  std::vector<std::string> job_options;  // extra scheduler options
  std::vector<SanitySpec> sanity;
  std::vector<PerfSpec> performance;
  // reference key (sys:part, sys:*, *) -> variable -> Reference
  std::vector<std::pair<std::string, std::map<std::string, Reference>>> reference;
  std::vector<std::string> depends_on;
  std::string image;     // container image (container backends: k8s)
  // The `k8s` block as written: Kubernetes settings that override the
  // partition's sched_options (node_selector, tolerations, manifest...).
  nlohmann::json k8s = nlohmann::json::object();
  int max_retries = -1;  // -1 = use the command line's
  // Where each top-level key was written (for messages after loading).
  std::map<std::string, SourceMark> marks;
};

// One concrete case. `id` is stable across runs:
//   name[%p=v...]@system:partition+environ
struct TestCase {
  const TestSpec* spec = nullptr;
  StringPairs params;  // bound parameter values, in file order
  std::string system, partition, environ;
  std::string display_name;  // "stream %threads=2"
  std::string id;
  std::vector<size_t> deps;  // indices into the case list this case waits for
  // Dependencies with no case on this partition and environment; the case is
  // skipped with this reason.
  std::vector<std::string> missing_deps;

  // The value of a bound parameter, or nullptr.
  const std::string* Param(const std::string& name) const;
};

}  // namespace hb
