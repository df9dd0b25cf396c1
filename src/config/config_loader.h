// Loads the site configuration from ReFrame 4 YAML (or JSON) configuration
// files, unchanged, and picks the system to run on.
//
// Each file is first rendered as Jinja (see jinja.h), then parsed and
// checked (see config_parse.h). Files chain as ReFrame chains them: a later
// file refines earlier ones. A system of a later file replaces the
// earlier system of the same name, and the later file's systems are tried
// first when matching host names; an environment of a later file replaces
// an earlier one with the same name and the same target_systems (others are
// kept, and SiteConfig::FindEnvironment picks the most specific); the
// `general`, `logging` and `storage` entries are merged per target system,
// later keys winning; `modes` and any other list sections are appended.
//
// Without files hetbench uses GenericConfig(), the embedded equivalent of
// ReFrame's builtin `generic` system, filled by host detection.
// Functions here are thread-safe except where they read the environment.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config/config_yaml.h"
#include "config/jinja.h"
#include "config/site_config.h"
#include "util/status.h"

namespace hb {

// One configuration text and the name it goes by in messages (a path).
struct ConfigSource {
  std::string name;
  std::string text;
};

// Reads, renders and chains `files` (first is the base). With the host's
// Jinja values, or with `ctx`. No files gives GenericConfig().
Result<SiteConfig> LoadSiteConfig(const std::vector<std::string>& files);
Result<SiteConfig> LoadSiteConfig(const std::vector<std::string>& files, const JinjaContext& ctx);
// The same from texts already in memory.
Result<SiteConfig> LoadSiteConfigSources(const std::vector<ConfigSource>& sources, const JinjaContext& ctx);

// The files named by HETBENCH_CONFIG_FILES (colon-separated; empty
// entries skipped); empty when it is unset.
std::vector<std::string> ConfigFilesFromEnv();

// The embedded configuration used when no file is given: system `generic`
// (hostnames ['.*']) with one partition `default`, ReFrame's name, which
// also answers to `local` (Partition::aliases) (local scheduler and
// launcher, environs ['builtin'], max_jobs = number of CPUs, the detected
// processor and devices, features gpu + cuda/rocm when GPUs are found), and
// environment `builtin`. The first form detects the host.
inline constexpr char kGenericPartition[] = "default";
inline constexpr char kGenericPartitionAlias[] = "local";
SiteConfig GenericConfig();
SiteConfig GenericConfig(const Processor& processor, const std::vector<Device>& devices);

// The system (and partition) to run on. `spec` is "" (pick by host name),
// "sys" (partition is then nullptr: all partitions) or "sys:part".
// Without spec the first system, in SiteConfig::systems order, with a
// `hostnames` regex matching the start of `hostname` (Python's re.match)
// is chosen. Also checks, as ReFrame does, that every environment the
// chosen partitions list is defined for them. The pointers point into
// `cfg`.
Result<std::pair<const System*, const Partition*>> SelectSystem(const SiteConfig& cfg, const std::string& spec,
                                                                const std::string& hostname);

}  // namespace hb
