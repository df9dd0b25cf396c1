// The site configuration: Systems, their Partitions, and Environments, read
// from ReFrame 4 YAML configuration files (unchanged), with hetbench's own
// additions. Loaded once at start-up; immutable afterwards, so it may be
// read from any thread.
//
// Key names follow ReFrame's (processor: {arch, vendor, model, num_cpus,
// num_cpus_per_core, num_cpus_per_socket, num_sockets, topology},
// devices: [{type, arch, model, num_devices}], ...). Keys hetbench does not
// act on are kept in `raw` and shown by `hetbench show-config`.
//
// config_loader.h fills these from files; detect.h fills Processor and
// Device from the host.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/general_options.h"
#include "config/module_spec.h"
#include "util/status.h"

namespace hb {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct Processor {
  std::string arch, vendor, model;
  std::string platform;  // ReFrame 4.6+: the machine, e.g. x86_64, aarch64
  int num_cpus = 0, num_cpus_per_core = 0, num_cpus_per_socket = 0, num_sockets = 0;
  nlohmann::json topology;  // as ReFrame writes it; null when unknown
};

struct Device {
  std::string type;  // gpu, ipu, wse, ...
  std::string arch, model;
  int num_devices = 1;
};

// A `resources` entry: name plus option templates such as
// "--gres=gpu:{num_gpus_per_node}", filled from a test's extra_resources.
struct ResourceTemplate {
  std::string name;
  std::vector<std::string> options;
};

// A `container_platforms` entry of a partition (ReFrame's): a container
// runtime tests may run their command in, and the modules and variables it
// needs. See docs/containers.md.
struct ContainerPlatform {
  std::string type;  // one of ContainerPlatformTypes(), spelled as there
  bool is_default = false;
  std::vector<ModuleSpec> modules;
  EnvVars env_vars;
  SourceMark mark;
};

// The container platform types hetbench knows: Apptainer, Docker, Podman,
// Sarus, Shifter, Singularity.
const std::vector<std::string>& ContainerPlatformTypes();
// The type `name` stands for, in any case ("docker" is Docker, as ReFrame's
// ContainerPlatform.create capitalizes it), or "" when it is none.
std::string CanonicalContainerPlatform(const std::string& name);

struct Partition {
  std::string name, descr;
  // Other names the partition answers to in valid_systems, reference,
  // overrides and --system: the embedded generic system's `default` (as
  // ReFrame names it) is also `local`, its name before hetbench 0.7. Not a
  // configuration key.
  std::vector<std::string> aliases;
  // The backend's canonical name (sched/scheduler_factory.h): an alias
  // such as `kubernetes` is normalised when the configuration loads.
  std::string scheduler = "local";
  std::string launcher = "local";
  std::vector<std::string> launcher_options;  // hetbench: words after the launcher's own
  std::vector<std::string> access;
  std::vector<std::string> environs;
  std::vector<std::string> features;
  std::vector<ModuleSpec> modules;
  std::vector<std::string> prepare_cmds;
  EnvVars env_vars;
  int max_jobs = 8;
  double time_limit_s = 0;  // default job time limit; 0 = none
  std::vector<ResourceTemplate> resources;
  Processor processor;
  std::vector<Device> devices;
  // In file order; at most one is_default. container_runtime (ReFrame's
  // older key) names the default when none is marked.
  std::vector<ContainerPlatform> container_platforms;
  std::string container_runtime;
  nlohmann::json extras = nlohmann::json::object();
  nlohmann::json sched_options = nlohmann::json::object();
  nlohmann::json raw = nlohmann::json::object();  // everything as read
  SourceMark mark;                                // where the partition is defined (unknown for the embedded config)

  // The platform `name` (any case) configured here, or nullptr. "default"
  // or "" is the default one: the entry marked `default: true`, else the
  // one container_runtime names, else the first.
  const ContainerPlatform* FindContainerPlatform(const std::string& name) const;
};

struct System {
  std::string name, descr;
  std::vector<std::string> hostnames;  // regexes matched against the host name
  std::string modules_system = "nomod";
  std::vector<ModuleSpec> modules;
  EnvVars env_vars;
  std::string prefix, stagedir, outputdir, resourcesdir;
  std::vector<Partition> partitions;
  nlohmann::json raw = nlohmann::json::object();
  SourceMark mark;

  const Partition* FindPartition(const std::string& name) const;
};

struct Environment {
  std::string name;
  std::vector<std::string> target_systems;  // "sys", "sys:part" or "*"; empty = all
  std::string cc = "cc", cxx = "CC", ftn = "ftn", nvcc = "nvcc";
  std::vector<std::string> cppflags, cflags, cxxflags, fflags, ldflags;
  std::vector<ModuleSpec> modules;
  std::vector<std::string> features;
  std::vector<std::string> prepare_cmds;
  EnvVars env_vars;
  std::string image;  // hetbench: default container image
  nlohmann::json extras = nlohmann::json::object();
  nlohmann::json resources = nlohmann::json::object();  // ReFrame 4.6+: like extra_resources
  nlohmann::json raw = nlohmann::json::object();
  SourceMark mark;
};

struct SiteConfig {
  // In selection order: as in ReFrame, the systems of a later file come
  // before those of earlier files, so their `hostnames` are tried first.
  std::vector<System> systems;
  // In definition order (earlier files first). Several entries may share a
  // name with different target_systems; use FindEnvironment.
  std::vector<Environment> environments;
  // Modes valid on every system (target_systems absent or '*'): name ->
  // command-line options. FindMode also honours system-specific modes.
  std::map<std::string, std::vector<std::string>> modes;
  // The `general` options valid on every system, merged across files.
  // SectionFor("general", sys, part) gives those of one system.
  nlohmann::json general = nlohmann::json::object();
  nlohmann::json logging = nlohmann::json::array();  // the merged entries, as in raw
  nlohmann::json storage = nlohmann::json::array();  // the merged entries, as in raw
  std::vector<std::string> files;                    // where it was read from; empty = embedded generic
  nlohmann::json raw = nlohmann::json::object();     // the merged configuration

  const System* FindSystem(const std::string& name) const;
  // The environment `name` that applies to system:partition (honouring
  // target_systems; the most specific, later-defined entry wins).
  const Environment* FindEnvironment(const std::string& name, const std::string& system,
                                     const std::string& partition) const;
  // The entry of a list section of `raw` without names ("general",
  // "logging", "storage") that applies to system:partition, resolved as
  // ReFrame does: the most specific target_systems wins (partition, then
  // system, then '*'); among equals the later entry. An empty object when
  // none applies. `target_systems` is removed from the result.
  nlohmann::json SectionFor(const std::string& section, const std::string& system,
                            const std::string& partition = "") const;
  // The `general` options hetbench acts on for system:partition
  // (SectionFor("general", ...) read with ReadGeneralOptions). Checked when
  // the files loaded, so an error here means a SiteConfig made in code.
  Result<GeneralOptions> GeneralFor(const std::string& system, const std::string& partition = "") const;
  // The options of execution mode `name` on `system` (ReFrame's --mode),
  // or nullopt when no such mode applies there.
  std::optional<std::vector<std::string>> FindMode(const std::string& name, const std::string& system) const;
};

}  // namespace hb
