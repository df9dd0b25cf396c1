#include "config/topology.h"

#include <unistd.h>

#include "config/detect.h"
#include "config/general_options.h"
#include "util/clock.h"
#include "util/fs.h"
#include "version.h"

namespace hb {

namespace {

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// The partition's entry in config->raw (systems/*/partitions/*), or null.
nlohmann::json* RawPartition(SiteConfig* config, const std::string& system, const std::string& partition) {
  auto systems = config->raw.find("systems");
  if (systems == config->raw.end() || !systems->is_array()) return nullptr;
  for (auto& s : *systems) {
    if (JsonField(s)["name"].StringOr("") != system || !s.contains("partitions") || !s["partitions"].is_array())
      continue;
    for (auto& p : s["partitions"])
      if (JsonField(p)["name"].StringOr("") == partition) return &p;
  }
  return nullptr;
}

}  // namespace

Topology DetectLocalTopology() {
  Topology t;
  t.processor = DetectProcessor();
  t.devices = DetectDevices();
  t.hostname = HostName();
  t.hetbench_version = HETBENCH_VERSION;
  t.time = WallNow();
  return t;
}

nlohmann::json TopologyToJson(const Topology& t) {
  return {{"schema", kTopologySchema},
          {"schema_version", kTopologySchemaVersion},
          {"hetbench_version", t.hetbench_version},
          {"time", t.time},
          {"hostname", t.hostname},
          {"processor", ProcessorToJson(t.processor)},
          {"devices", DevicesToJson(t.devices)}};
}

Result<Topology> TopologyFromJson(const nlohmann::json& j, const std::string& where) {
  auto fail = [&](const std::string& why) { return Status::Error(where + ": " + why); };
  // A hand-edited or damaged cache gives a message naming the key (and
  // `detect --refresh` rewrites it), never an exception.
  auto text = [&](const char* key, std::string* out) -> Status {
    auto it = j.find(key);
    if (it == j.end()) return Status::OK();
    if (!it->is_string())
      return fail(std::string("\"") + key + "\" must be a string, got " + it->dump() + "; detect again with --refresh");
    *out = *JsonStringPtr(*it);
    return Status::OK();
  };
  std::string schema;
  if (!j.is_object() || !text("schema", &schema).ok() || schema != kTopologySchema)
    return fail(std::string("not a hetbench topology file (expected \"schema\": \"") + kTopologySchema + "\")");
  auto version = JsonField(j)["schema_version"].Int();
  if (!version.ok()) return fail("no integer \"schema_version\"");
  if (*version > kTopologySchemaVersion || *version < 1)
    return fail("schema_version " + std::to_string(*version) + " is not one this hetbench reads (it reads 1 to " +
                std::to_string(kTopologySchemaVersion) + "); detect again with --refresh");
  Topology t;
  auto processor = ProcessorFromJson(j.contains("processor") ? j["processor"] : nlohmann::json::object());
  if (!processor.ok()) return fail(processor.status().message());
  auto devices = DevicesFromJson(j.contains("devices") ? j["devices"] : nlohmann::json::array());
  if (!devices.ok()) return fail(devices.status().message());
  t.processor = std::move(processor).value();
  t.devices = std::move(devices).value();
  Status st = text("hostname", &t.hostname);
  if (st.ok()) st = text("hetbench_version", &t.hetbench_version);
  if (!st.ok()) return st;
  if (j.contains("time")) {
    if (!j["time"].is_number())
      return fail("\"time\" must be a number, got " + j["time"].dump() + "; detect again with --refresh");
    t.time = *JsonNumber(j["time"]);
  }
  return t;
}

Result<Topology> ReadTopologyFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error(path + ": not valid JSON");
  return TopologyFromJson(j, path);
}

Status WriteTopologyFile(const std::string& path, const Topology& t) {
  Status st = MakeDirs(DirName(path));
  if (!st.ok()) return st;
  return WriteFileAtomic(path, TopologyToJson(t).dump(2) + "\n");
}

std::string TopologyPrefix(const nlohmann::json& general, const TopologyEnv& env) {
  // A configuration that loaded has a string here (config_parse.cc).
  auto options = ReadGeneralOptions(JsonField(general, "general"));
  if (options.ok() && !options->topology_prefix.empty()) return AbsPath(options->topology_prefix);
  std::string cache = env("XDG_CACHE_HOME");
  if (cache.empty()) cache = JoinPath(env("HOME"), ".cache");
  return JoinPath(cache, "hetbench/topology");
}

Result<std::string> TopologyFile(const std::string& prefix, const std::string& system, const std::string& partition) {
  return SafePath(prefix, {system + "-" + partition, "processor.json"});
}

bool HasConfiguredProcessor(const Partition& p) { return p.raw.contains("processor"); }

bool FillPartitionTopology(const Topology& t, const std::string& system, Partition* part, SiteConfig* config) {
  nlohmann::json* raw = RawPartition(config, system, part->name);
  bool filled = false;
  if (!HasConfiguredProcessor(*part)) {
    part->processor = t.processor;
    if (raw) (*raw)["processor"] = ProcessorToJson(t.processor);
    filled = true;
  }
  if (!part->raw.contains("devices") && !t.devices.empty()) {
    part->devices = t.devices;
    if (raw) (*raw)["devices"] = DevicesToJson(t.devices);
    filled = true;
  }
  return filled;
}

std::vector<std::string> ApplyTopologyCache(SiteConfig* config, const TopologyEnv& env) {
  std::vector<std::string> warnings;
  for (auto& sys : config->systems) {
    for (auto& part : sys.partitions) {
      if (HasConfiguredProcessor(part) && part.raw.contains("devices")) continue;
      auto file =
          TopologyFile(TopologyPrefix(config->SectionFor("general", sys.name, part.name), env), sys.name, part.name);
      if (!file.ok() || !PathExists(*file)) continue;
      auto t = ReadTopologyFile(*file);
      if (!t.ok()) {
        warnings.push_back("ignoring the cached topology of partition '" + sys.name + ":" + part.name +
                           "': " + t.status().str());
        continue;
      }
      FillPartitionTopology(*t, sys.name, &part, config);
    }
  }
  return warnings;
}

}  // namespace hb
