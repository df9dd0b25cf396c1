#include "config/site_config.h"

#include <algorithm>
#include <cctype>

#include "config/config_yaml.h"

namespace hb {

namespace {

// How specifically `targets` (ReFrame's target_systems) names
// system:partition: 3 for "sys:part", 2 for "sys", 1 for "*" or an empty
// list, 0 when the entry does not apply there.
int ScopeRank(const std::vector<std::string>& targets, const std::string& system, const std::string& partition) {
  if (targets.empty()) return 1;
  int rank = 0;
  for (const auto& t : targets) {
    if (t == "*") rank = std::max(rank, 1);
    if (!system.empty() && t == system) rank = std::max(rank, 2);
    if (!system.empty() && !partition.empty() && t == system + ":" + partition) rank = 3;
  }
  return rank;
}

std::vector<std::string> TargetsOf(const nlohmann::json& entry) {
  return entry.is_object() && entry.contains("target_systems") ? JsonTextList(entry["target_systems"])
                                                               : std::vector<std::string>();
}

// The index of the entry of `entries` that applies best to
// system:partition (later entries win ties), or -1. `accept` filters.
template <typename Entries, typename Targets, typename Accept>
int BestScoped(const Entries& entries, Targets targets_of, Accept accept, const std::string& system,
               const std::string& partition) {
  int best = -1, best_rank = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!accept(entries[i])) continue;
    int rank = ScopeRank(targets_of(entries[i]), system, partition);
    if (rank > 0 && rank >= best_rank) {
      best = static_cast<int>(i);
      best_rank = rank;
    }
  }
  return best;
}

}  // namespace

const std::vector<std::string>& ContainerPlatformTypes() {
  static const std::vector<std::string> kTypes = {"Apptainer", "Docker", "Podman", "Sarus", "Shifter", "Singularity"};
  return kTypes;
}

std::string CanonicalContainerPlatform(const std::string& name) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  for (const auto& t : ContainerPlatformTypes())
    if (lower(t) == lower(name)) return t;
  return "";
}

const ContainerPlatform* Partition::FindContainerPlatform(const std::string& name) const {
  if (container_platforms.empty()) return nullptr;
  if (name.empty() || name == "default") {
    for (const auto& c : container_platforms)
      if (c.is_default) return &c;
    if (const ContainerPlatform* c = FindContainerPlatform(container_runtime.empty() ? "-" : container_runtime))
      return c;
    return &container_platforms.front();
  }
  std::string type = CanonicalContainerPlatform(name);
  for (const auto& c : container_platforms)
    if (c.type == type) return &c;
  return nullptr;
}

const Partition* System::FindPartition(const std::string& name) const {
  for (const auto& p : partitions)
    if (p.name == name) return &p;
  for (const auto& p : partitions)
    if (std::find(p.aliases.begin(), p.aliases.end(), name) != p.aliases.end()) return &p;
  return nullptr;
}

const System* SiteConfig::FindSystem(const std::string& name) const {
  for (const auto& s : systems)
    if (s.name == name) return &s;
  return nullptr;
}

const Environment* SiteConfig::FindEnvironment(const std::string& name, const std::string& system,
                                               const std::string& partition) const {
  int i = BestScoped(
      environments, [](const Environment& e) { return e.target_systems; },
      [&](const Environment& e) { return e.name == name; }, system, partition);
  return i < 0 ? nullptr : &environments[i];
}

nlohmann::json SiteConfig::SectionFor(const std::string& section, const std::string& system,
                                      const std::string& partition) const {
  auto it = raw.find(section);
  if (it == raw.end() || !it->is_array()) return nlohmann::json::object();
  std::vector<nlohmann::json> entries(it->begin(), it->end());
  int i = BestScoped(
      entries, TargetsOf, [](const nlohmann::json& e) { return e.is_object(); }, system, partition);
  if (i < 0) return nlohmann::json::object();
  nlohmann::json out = entries[i];
  out.erase("target_systems");
  return out;
}

Result<GeneralOptions> SiteConfig::GeneralFor(const std::string& system, const std::string& partition) const {
  return ReadGeneralOptions(JsonField(SectionFor("general", system, partition), "general"));
}

std::optional<std::vector<std::string>> SiteConfig::FindMode(const std::string& name, const std::string& system) const {
  auto it = raw.find("modes");
  if (it == raw.end() || !it->is_array()) return std::nullopt;
  std::vector<nlohmann::json> entries(it->begin(), it->end());
  auto named = [&](const nlohmann::json& e) {
    return e.is_object() && e.contains("name") && JsonScalarText(e["name"]) == name;
  };
  int i = BestScoped(entries, TargetsOf, named, system, "");
  if (i < 0) return std::nullopt;
  return entries[i].contains("options") ? JsonTextList(entries[i]["options"]) : std::vector<std::string>();
}

}  // namespace hb
