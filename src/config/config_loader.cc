#include "config/config_loader.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <thread>

#include "config/config_parse.h"
#include "config/detect.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/regex.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

// target_systems as a comparable set; absent or empty means every system.
std::vector<std::string> NormalTargets(std::vector<std::string> targets) {
  if (targets.empty()) targets.push_back("*");
  std::sort(targets.begin(), targets.end());
  return targets;
}

std::vector<std::string> JsonTargets(const nlohmann::json& entry) {
  bool has = entry.is_object() && entry.contains("target_systems");
  return NormalTargets(has ? JsonTextList(entry["target_systems"]) : std::vector<std::string>());
}

std::string JsonName(const nlohmann::json& entry) {
  return entry.is_object() && entry.contains("name") ? JsonScalarText(entry["name"]) : "";
}

Result<ConfigFragment> ParseSource(const ConfigSource& src, const JinjaContext& ctx) {
  if (EndsWith(src.name, ".py"))
    return Status::Error(SourceMark{src.name},
                         "Python configuration files are not supported; hetbench reads ReFrame's YAML "
                         "(and JSON) configuration files");
  Result<std::string> text = RenderJinja(src.text, src.name, ctx);
  if (!text.ok()) return text.status();
  Result<std::vector<YAML::Node>> docs = LoadYamlString(*text, src.name);
  if (!docs.ok()) return docs.status();
  if (docs->size() > 1)
    return Status::Error(MarkOf((*docs)[1], src.name),
                         "a configuration file holds one YAML document, but this one has more ('---')");
  return ParseConfigDocument(docs->empty() ? YAML::Node() : (*docs)[0], src.name);
}

// Later systems replace earlier ones of the same name and come first.
void MergeSystems(SiteConfig* cfg, std::vector<System> systems) {
  auto replaced = [&](const System& old) {
    return std::any_of(systems.begin(), systems.end(), [&](const System& s) { return s.name == old.name; });
  };
  std::erase_if(cfg->systems, replaced);
  systems.insert(systems.end(), std::make_move_iterator(cfg->systems.begin()),
                 std::make_move_iterator(cfg->systems.end()));
  cfg->systems = std::move(systems);
}

// A later environment replaces an earlier one with the same name and the
// same target_systems; others stay for FindEnvironment to choose from.
void MergeEnvironments(SiteConfig* cfg, std::vector<Environment> envs) {
  for (auto& e : envs) {
    std::erase_if(cfg->environments, [&](const Environment& old) {
      return old.name == e.name && NormalTargets(old.target_systems) == NormalTargets(e.target_systems);
    });
    cfg->environments.push_back(std::move(e));
  }
}

// ReFrame's _merge_config_sections: the entries of both lists, grouped by
// target system in order of appearance, each group's keys merged (later
// wins).
nlohmann::json MergeScoped(const nlohmann::json& target, const nlohmann::json& other) {
  std::vector<std::pair<std::string, nlohmann::json>> groups;
  for (const auto& list : {target, other}) {
    for (const auto& entry : list) {
      nlohmann::json body = entry;
      body.erase("target_systems");
      for (const auto& t : JsonTargets(entry)) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == t; });
        if (it == groups.end()) it = groups.insert(groups.end(), {t, nlohmann::json::object()});
        it->second.update(body);
      }
    }
  }
  nlohmann::json out = nlohmann::json::array();
  for (auto& [t, body] : groups) {
    if (t != "*") body["target_systems"] = nlohmann::json::array({t});
    out.push_back(std::move(body));
  }
  return out;
}

// Modes are appended; an earlier mode with the same name and targets goes.
nlohmann::json AppendModes(nlohmann::json target, const nlohmann::json& other) {
  for (const auto& m : other) {
    auto same = [&](const nlohmann::json& old) {
      return JsonName(old) == JsonName(m) && JsonTargets(old) == JsonTargets(m);
    };
    target.erase(std::remove_if(target.begin(), target.end(), same), target.end());
    target.push_back(m);
  }
  return target;
}

void MergeSections(nlohmann::json* raw, const nlohmann::json& sections) {
  for (const auto& [name, value] : sections.items()) {
    if (name == "systems" || name == "environments") continue;
    auto it = raw->find(name);
    if (it == raw->end() || it->is_null())
      (*raw)[name] = value;
    else if ((name == "general" || name == "logging" || name == "storage") && value.is_array())
      *it = MergeScoped(*it, value);
    else if (name == "modes" && value.is_array())
      *it = AppendModes(*it, value);
    else if (it->is_array() && value.is_array())
      it->insert(it->end(), value.begin(), value.end());
    else
      *it = value;
  }
}

// Fills the fields derived from the merged `raw` sections.
void Finish(SiteConfig* cfg) {
  nlohmann::json systems = nlohmann::json::array(), envs = nlohmann::json::array();
  for (const auto& s : cfg->systems) systems.push_back(s.raw);
  for (const auto& e : cfg->environments) envs.push_back(e.raw);
  cfg->raw["systems"] = systems;
  cfg->raw["environments"] = envs;
  cfg->modes.clear();
  // modes, logging, storage: lists of mappings, checked when each file
  // was read (config_parse.cc).
  auto list = [&](const char* section) {
    auto l = JsonField(cfg->raw)[section].List();
    return l.ok() ? std::move(l).value() : nlohmann::json::array();
  };
  for (const auto& m : list("modes"))
    if (JsonTargets(m) == std::vector<std::string>{"*"})
      cfg->modes[JsonName(m)] = m.contains("options") ? JsonTextList(m["options"]) : std::vector<std::string>();
  cfg->general = cfg->SectionFor("general", "");
  cfg->logging = list("logging");
  cfg->storage = list("storage");
}

// The first system with a `hostnames` regex matching the start of
// `hostname` (Python's re.match).
const System* MatchHost(const SiteConfig& cfg, const std::string& hostname) {
  for (const auto& sys : cfg.systems) {
    for (const auto& pattern : sys.hostnames) {
      // Checked when the file was read; an embedded pattern is never bad.
      // PCRE2 finds the leftmost match first: one at offset 0 if any.
      auto re = Regex::Compile(pattern);
      if (!re.ok()) continue;
      auto m = re->FindFirst(hostname);
      if (m.ok() && m->has_value() && (*m)->offset == 0) return &sys;
    }
  }
  return nullptr;
}

std::vector<std::string> SystemNames(const SiteConfig& cfg) {
  std::vector<std::string> names;
  for (const auto& s : cfg.systems) names.push_back(s.name);
  return names;
}

Result<std::pair<const System*, const Partition*>> FindSpec(const SiteConfig& cfg, const std::string& spec) {
  size_t colon = spec.find(':');
  std::string sysname = spec.substr(0, colon);
  const System* sys = cfg.FindSystem(sysname);
  if (!sys)
    return Status::Error("unknown system '" + sysname + "'" + DidYouMean(sysname, SystemNames(cfg)) +
                         " (the configuration defines: " + Join(SystemNames(cfg), ", ") + ")");
  if (colon == std::string::npos) return std::make_pair(sys, static_cast<const Partition*>(nullptr));
  std::string partname = spec.substr(colon + 1);
  if (const Partition* part = sys->FindPartition(partname)) return std::make_pair(sys, part);
  std::vector<std::string> parts;
  for (const auto& p : sys->partitions) parts.push_back(p.name);
  return Status::Error("system '" + sysname + "' has no partition '" + partname + "'" + DidYouMean(partname, parts) +
                       " (it has: " + Join(parts, ", ") + ")");
}

// Why no definition of environment `name` applies: where the ones of that
// name apply, or a near name.
std::string EnvironHint(const SiteConfig& cfg, const std::string& name) {
  std::vector<std::string> names, targets;
  for (const auto& e : cfg.environments) {
    names.push_back(e.name);
    if (e.name == name) targets.insert(targets.end(), e.target_systems.begin(), e.target_systems.end());
  }
  if (!targets.empty()) return " (its target_systems: " + Join(targets, ", ") + ")";
  return DidYouMean(name, names);
}

// As ReFrame: every environment a partition lists must be defined for it.
Status CheckEnvirons(const SiteConfig& cfg, const System& sys, const Partition* only) {
  for (const auto& p : sys.partitions) {
    if (only && &p != only) continue;
    for (const auto& env : p.environs)
      if (!cfg.FindEnvironment(env, sys.name, p.name))
        return Status::Error(p.mark, "partition '" + sys.name + ":" + p.name + "' lists environment '" + env +
                                         "', which is not defined for it" + EnvironHint(cfg, env));
  }
  return Status::OK();
}

std::vector<std::string> GenericFeatures(const std::vector<Device>& devices) {
  std::vector<std::string> features;
  auto add = [&](const std::string& f) {
    if (std::find(features.begin(), features.end(), f) == features.end()) features.push_back(f);
  };
  for (const auto& d : devices) {
    if (d.type == "gpu") add("gpu");
    if (StartsWith(d.arch, "sm_")) add("cuda");
    if (StartsWith(d.arch, "gfx")) add("rocm");
  }
  return features;
}

nlohmann::json GenericConfigJson(const Processor& processor, const std::vector<Device>& devices) {
  int max_jobs =
      processor.num_cpus > 0 ? processor.num_cpus : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  nlohmann::json part = {{"name", kGenericPartition},
                         {"descr", "The local host"},
                         {"scheduler", "local"},
                         {"launcher", "local"},
                         {"environs", nlohmann::json::array({"builtin"})},
                         {"max_jobs", max_jobs}};
  if (auto features = GenericFeatures(devices); !features.empty()) part["features"] = features;
  if (!processor.arch.empty() || processor.num_cpus > 0) part["processor"] = ProcessorToJson(processor);
  if (!devices.empty()) part["devices"] = DevicesToJson(devices);
  nlohmann::json sys = {{"name", "generic"},
                        {"descr", "Generic system"},
                        {"hostnames", nlohmann::json::array({".*"})},
                        {"partitions", nlohmann::json::array({part})}};
  // ReFrame's builtin environment uses cc, CC and ftn (the Cray compiler
  // wrappers). A Debian host has no `CC` or `ftn`, so hetbench's embedded
  // builtin names the GNU compilers instead.
  nlohmann::json env = {{"name", "builtin"}, {"cc", "gcc"}, {"cxx", "g++"}, {"ftn", "gfortran"}};
  return {{"systems", nlohmann::json::array({sys})}, {"environments", nlohmann::json::array({env})}};
}

}  // namespace

Result<SiteConfig> LoadSiteConfigSources(const std::vector<ConfigSource>& sources, const JinjaContext& ctx) {
  SiteConfig cfg;
  for (const auto& src : sources) {
    Result<ConfigFragment> frag = ParseSource(src, ctx);
    if (!frag.ok()) return frag.status();
    MergeSystems(&cfg, std::move(frag->systems));
    MergeEnvironments(&cfg, std::move(frag->environments));
    MergeSections(&cfg.raw, frag->sections);
    cfg.files.push_back(src.name);
  }
  Finish(&cfg);
  return cfg;
}

Result<SiteConfig> LoadSiteConfig(const std::vector<std::string>& files, const JinjaContext& ctx) {
  if (files.empty()) return GenericConfig();
  std::vector<ConfigSource> sources;
  for (const auto& f : files) {
    Result<std::string> text = ReadFile(f);
    if (!text.ok()) return text.status();
    sources.push_back({f, std::move(text).value()});
  }
  return LoadSiteConfigSources(sources, ctx);
}

Result<SiteConfig> LoadSiteConfig(const std::vector<std::string>& files) {
  return LoadSiteConfig(files, HostJinjaContext());
}

std::vector<std::string> ConfigFilesFromEnv() {
  std::vector<std::string> files;
  const char* v = std::getenv("HETBENCH_CONFIG_FILES");
  if (!v) return files;
  for (auto& f : Split(v, ':'))
    if (!f.empty()) files.push_back(f);
  return files;
}

SiteConfig GenericConfig(const Processor& processor, const std::vector<Device>& devices) {
  std::string text = ConfigToYaml(GenericConfigJson(processor, devices));
  Result<SiteConfig> cfg = LoadSiteConfigSources({{"<builtin>", text}}, JinjaContext());
  if (!cfg.ok()) {  // a bug in hetbench, not a user's error
    std::fprintf(stderr, "hetbench: bad embedded configuration: %s\n%s", cfg.status().str().c_str(), text.c_str());
    std::abort();
  }
  cfg->files.clear();
  for (auto& s : cfg->systems) {
    s.mark = SourceMark();
    for (auto& p : s.partitions) {
      p.mark = SourceMark();
      p.aliases = {kGenericPartitionAlias};
    }
  }
  for (auto& e : cfg->environments) e.mark = SourceMark();
  return std::move(cfg).value();
}

SiteConfig GenericConfig() { return GenericConfig(DetectProcessor(), DetectDevices()); }

Result<std::pair<const System*, const Partition*>> SelectSystem(const SiteConfig& cfg, const std::string& spec,
                                                                const std::string& hostname) {
  std::pair<const System*, const Partition*> chosen{nullptr, nullptr};
  if (!spec.empty()) {
    auto found = FindSpec(cfg, spec);
    if (!found.ok()) return found.status();
    chosen = *found;
  } else if (!(chosen.first = MatchHost(cfg, hostname))) {
    return Status::Error("no system in the configuration matches host '" + hostname +
                         "'; use --system SYSTEM[:PARTITION] (systems: " + Join(SystemNames(cfg), ", ") +
                         ") or add the host to a system's hostnames");
  }
  Status s = CheckEnvirons(cfg, *chosen.first, chosen.second);
  if (!s.ok()) return s;
  return chosen;
}

}  // namespace hb
