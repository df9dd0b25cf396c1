// Topology: what `hetbench detect` finds on one node (its Processor and
// Devices, detect.h) as a versioned JSON document, and the per-partition
// cache of such documents that fills in partitions whose configuration
// leaves `processor` or `devices` out, as ReFrame fills them from
// ~/.reframe/topology/<system>-<partition>/processor.json.
//
// One format serves both the file a detection job writes on a compute
// node (`hetbench detect --json`) and the cache file:
//   {"schema": "hetbench-topology", "schema_version": 1,
//    "hetbench_version": "0.1.0", "time": 1767225600.5, "hostname": "nid001",
//    "processor": {...ReFrame's keys...}, "devices": [{type, arch, model, num_devices}]}
// A reader refuses another schema or a newer version, saying why.
//
// Cache location: <prefix>/<system>-<partition>/processor.json, where the
// prefix is the `general` option `topology_prefix`, else
// $XDG_CACHE_HOME/hetbench/topology, else ~/.cache/hetbench/topology.
// Pure functions plus file reads and writes; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/site_config.h"
#include "util/status.h"

namespace hb {

inline constexpr char kTopologySchema[] = "hetbench-topology";
inline constexpr int kTopologySchemaVersion = 1;

struct Topology {
  Processor processor;
  std::vector<Device> devices;
  std::string hostname;          // the node it was detected on
  std::string hetbench_version;  // of the hetbench that detected it
  double time = 0;               // when, in seconds since the epoch
};

// This host, now (DetectProcessor, DetectDevices).
Topology DetectLocalTopology();

nlohmann::json TopologyToJson(const Topology& t);
// `where` names the document in errors (a path, "the detection job's output").
Result<Topology> TopologyFromJson(const nlohmann::json& j, const std::string& where);
Result<Topology> ReadTopologyFile(const std::string& path);
// Atomic: readers never see half a file. Creates the folders.
Status WriteTopologyFile(const std::string& path, const Topology& t);

// The process environment, or a fake in tests: "" means unset.
using TopologyEnv = std::function<std::string(const std::string&)>;
// The cache folder for a system's `general` options (see above).
std::string TopologyPrefix(const nlohmann::json& general, const TopologyEnv& env);
// (made with SafePath: a name that would lead outside `prefix` is an error)
Result<std::string> TopologyFile(const std::string& prefix, const std::string& system, const std::string& partition);

// Whether the configuration file gave the partition a processor (ReFrame's
// rule: a partition with one is never detected).
bool HasConfiguredProcessor(const Partition& p);
// Fills in what the configuration left out: the processor, and the devices
// when the partition has no `devices` key. Also records them in the
// partition's entry of config->raw, so show-config prints them. Returns
// whether anything was filled in.
bool FillPartitionTopology(const Topology& t, const std::string& system, Partition* part, SiteConfig* config);
// For every partition without a configured processor or devices whose
// cache file exists: fills it in. Returns one warning per cache file that
// could not be read.
std::vector<std::string> ApplyTopologyCache(SiteConfig* config, const TopologyEnv& env);

}  // namespace hb
