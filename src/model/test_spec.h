// TestSpec: one test as its file declares it (after `extends` has been
// applied). TestCase: one spec with its parameter values bound, on one
// partition, in one environment. Plain values, built once by the loader
// and the expander and read-only afterwards.
#pragma once

#include <map>
#include <memory>
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

// build_system: {type: SingleSource|Make|CMake|Autotools|Spack|EasyBuild|
// Custom|none, ...} (docs/build-systems.md)
struct BuildSpec {
  std::string type;        // "" = no build stage
  std::string source;      // SingleSource
  std::string executable;  // SingleSource output name (default: source stem)
  std::string lang;        // c, c++, fortran, cuda (default: from the extension)
  std::vector<std::string> cppflags, cflags, cxxflags, fflags, ldflags;
  std::string cc, cxx, ftn, nvcc;     // override the environment's compilers
  std::string makefile;               // Make
  std::vector<std::string> options;   // Make variables / CMake -D options / eb options
  std::vector<std::string> targets;   // Make / CMake targets
  std::string srcdir;                 // sub-folder of the stage directory
  std::string builddir;               // CMake build folder (default "build"); Autotools: out of source
  int max_concurrency = 0;            // make -j N (0 = number of CPUs)
  std::vector<std::string> commands;  // Custom: shell commands as written
  // Autotools
  std::vector<std::string> config_opts, make_opts;
  std::string configuredir = ".";  // where `configure` is, relative to srcdir
  // Spack
  std::string environment;  // "" = create rfm_spack_env in the stage directory
  std::vector<std::string> specs, install_opts;
  std::string install_tree;  // "" = opt/spack for a created environment
  bool emit_load_cmds = true;
  // EasyBuild
  std::vector<std::string> easyconfigs;
  bool emit_package = false;
  StringPairs package_opts;          // --package-KEY=VALUE
  std::string prefix = "easybuild";  // relative to the stage directory
  SourceMark mark;
};

// container_platform: the container the test's command runs in (ReFrame's
// RegressionTest.container_platform), on partitions that configure
// container_platforms. See docs/containers.md.
struct ContainerSpec {
  bool enabled = false;
  std::string platform;  // "" or "default": the partition's default platform
  std::string image;     // "" = the test's `image`, else its environment's
  // Shell text run inside the container. Unset: the test's executable and
  // executable_opts, or, without an executable, the image's own command.
  std::optional<std::string> command;
  std::vector<std::pair<std::string, std::string>> mount_points;  // host path, container path
  std::string mount_stagedir = "/rfm_workdir";                    // "" = do not mount the stage directory
  std::string workdir = "/rfm_workdir";                           // "" = the image's
  std::vector<std::string> options;                               // runtime options as shell words
  bool pull_image = true;
  bool with_mpi = false;   // Sarus, Shifter: --mpi
  bool with_cuda = false;  // Singularity, Apptainer: --nv even without GPUs asked for
  SourceMark mark;
};

// variables: a named, typed value with a default, usable as a placeholder
// and settable with -S NAME=VALUE (ReFrame's variable()). Unlike a
// parameter it does not multiply cases or change display names.
struct VariableSpec {
  std::string name;
  std::string type = "str";                 // int, float, bool, str
  std::optional<std::string> default_text;  // as written; converted by type
  bool required = false;
  bool loggable = true;  // a perflog record attribute check_NAME (ReFrame 4.5+: by default)
  SourceMark mark;
};

struct SpecSource;  // model/bind.h: the fields as written, for binding
struct CaseNames;   // model/bind.h: a case's typed placeholder names

struct TestSpec {
  std::string name, descr;
  std::string file;  // absolute path of the test file
  SourceMark mark;   // where `name:` is
  std::string extends;
  bool abstract = false;  // only a base for `extends`; never run
  std::vector<std::string> tags, maintainers;
  // Parameters (or num_tasks) over which the report draws the scaling of
  // the test's figure of merit; empty = by parameter name (analyses.h).
  std::vector<std::string> scaling_axes;
  std::vector<std::string> valid_systems = {"*"};
  std::vector<std::string> valid_prog_environs = {"*"};
  // Parameters in file order; values as shown in names (scalars as
  // written, mappings as `{nx: 128, nodes: 1}`); typed values are in source.
  std::vector<std::pair<std::string, std::vector<std::string>>> parameters;
  std::vector<VariableSpec> variables;
  std::string executable;
  std::vector<std::string> executable_opts;
  StringPairs env_vars;
  // Loaded after the system's, partition's and environment's modules;
  // placeholders in names are filled in.
  std::vector<ModuleSpec> modules;
  std::vector<std::string> prerun_cmds, postrun_cmds;
  // Build script commands before and after the build system's (ReFrame's
  // prebuild_cmds/postbuild_cmds); only with a build_system.
  std::vector<std::string> prebuild_cmds, postbuild_cmds;
  // local: true runs the job with the local scheduler on this host (the
  // login node), not as a batch job (ReFrame's `local`).
  bool local = false;
  // skip_if: the case ends `skip` with skip_reason when skip_expr is true
  // (model/expr.h, with CaseValue's names); evaluated after binding.
  std::string skip_expr, skip_reason;
  std::string sourcesdir;  // absolute, or "" for none
  BuildSpec build;
  bool build_locally = true;  // false: the build is a job of the partition's scheduler
  std::optional<double> build_time_limit_s;
  ContainerSpec container;
  int num_tasks = 1, num_tasks_per_node = 0, num_cpus_per_task = 0, num_gpus_per_node = 0;
  int num_tasks_per_core = 0, num_tasks_per_socket = 0;  // 0 = unset
  std::optional<bool> use_multithreading;                // unset: the scheduler's default
  std::map<std::string, int> num_devices_per_node;       // generic devices, e.g. {ipu: 4}
  std::optional<double> time_limit_s;
  double max_pending_time_s = 0;  // batch schedulers cancel a job queued longer; 0 = none
  bool exclusive_access = false;
  std::map<std::string, std::map<std::string, std::string>> extra_resources;
  std::vector<std::string> keep_files;
  std::vector<std::string> job_options;  // extra scheduler options
  // The launcher to use instead of the partition's ("" = the partition's),
  // and words appended after the partition's launcher_options.
  std::string launcher;
  std::vector<std::string> launcher_options;
  std::vector<SanitySpec> sanity;
  std::vector<PerfSpec> performance;
  // reference key (sys:part, sys:*, *) -> variable -> Reference
  std::vector<std::pair<std::string, std::map<std::string, Reference>>> reference;
  // depends_on as written: the names of the tests depended on (for order
  // and cycles), and each entry's choice of their variants.
  std::vector<std::string> depends_on;
  struct Dependency {
    std::string test;
    std::string variant;  // "gen %n=10": that variant (placeholders allowed); "" = the only one
    bool all = false;     // {test: gen, variants: all}
  };
  std::vector<Dependency> dependencies;
  std::string image;  // container image (container_platform, and the k8s backend's pod)
  // The `k8s` block as written: Kubernetes settings that override the
  // partition's sched_options (node_selector, tolerations, manifest...).
  nlohmann::json k8s = nlohmann::json::object();
  int max_retries = -1;  // -1 = use the command line's
  // Where each top-level key was written (for messages after loading).
  std::map<std::string, SourceMark> marks;
  // The test as written, shared by the spec and every bound copy of it.
  std::shared_ptr<const SpecSource> source;
};

// One concrete case. `id` is stable across runs:
//   name[%p=v...]@system:partition+environ
// `spec` is the case's own bound spec (model/bind.h): every placeholder,
// expression and matching `overrides` entry is applied, except values
// known only when the case runs, which the executor binds when it starts.
struct TestCase {
  std::shared_ptr<const TestSpec> spec;
  StringPairs params;               // bound parameter values, in file order
  std::vector<size_t> param_index;  // which value of each parameter
  std::vector<size_t> overrides;    // the `overrides` entries that apply, in order
  std::shared_ptr<const CaseNames> names;
  // Variables marked loggable, as text: perflog attributes check_NAME.
  StringPairs loggable;
  std::string system, partition, environ;
  std::string display_name;  // "stream %threads=2"
  std::string hashcode;      // ReFrame's: 8 hex digits of the variant (util/sha256.h)
  std::string skip;          // why skip_if skips the case ("" = it runs)
  std::string id;
  std::vector<size_t> deps;  // indices into the case list this case waits for
  // Dependencies with no case on this partition and environment; the case is
  // skipped with this reason.
  std::vector<std::string> missing_deps;

  // The value of a bound parameter, or nullptr.
  const std::string* Param(const std::string& name) const;
};

}  // namespace hb
