#include "config/module_spec.h"

#include <algorithm>

#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

Status Err(const YAML::Node& n, const std::string& file, const std::string& msg) {
  return Status::Error(MarkOf(n, file), msg);
}

Status ReadKey(const std::string& key, const YAML::Node& v, const std::string& file, ModuleSpec* m) {
  const std::string what = "modules: " + key;
  if (key == "collection" || key == "unload") {
    Result<bool> b = YamlBool(v, file, what);
    if (!b.ok()) return b.status();
    (key == "collection" ? m->collection : m->unload) = *b;
    return Status::OK();
  }
  Result<std::string> s = YamlString(v, file, what);
  if (!s.ok()) return s.status();
  if (key == "name") m->name = *s;
  if (key == "path") m->path = *s;
  if (key == "swap") m->swap = *s;
  return Status::OK();
}

// The combinations that say two things at once.
Status CheckCombination(const YAML::Node& n, const std::string& file, const ModuleSpec& m) {
  auto clash = [&](const char* a, const char* b) {
    return Err(n, file, "module '" + m.name + "': '" + a + "' and '" + b + "' cannot be used together");
  };
  if (m.unload && !m.swap.empty()) return clash("unload", "swap");
  if (m.unload && m.collection) return clash("unload", "collection");
  if (m.unload && !m.path.empty()) return clash("unload", "path");
  if (m.collection && !m.swap.empty()) return clash("collection", "swap");
  return Status::OK();
}

Result<ModuleSpec> ParseMapping(const YAML::Node& n, const std::string& file, const std::string& what) {
  ModuleSpec m;
  for (const auto& kv : n) {
    std::string key = kv.first.Scalar();
    if (std::find(ModuleKeys().begin(), ModuleKeys().end(), key) == ModuleKeys().end())
      return Err(kv.first, file, "unknown key '" + key + "' in module of " + what + DidYouMean(key, ModuleKeys()));
    Status s = ReadKey(key, kv.second, file, &m);
    if (!s.ok()) return s;
  }
  if (m.name.empty()) return Err(n, file, "module without a name in " + what);
  Status s = CheckCombination(n, file, m);
  if (!s.ok()) return s;
  return m;
}

// Appends the real modules `name` stands for; `seen` holds the names being
// expanded, to find cycles.
Status Resolve(const std::string& name, const ModuleMappings& mappings, std::vector<std::string>* seen,
               std::vector<std::string>* out) {
  auto it = mappings.find(name);
  if (it == mappings.end()) {
    out->push_back(name);
    return Status::OK();
  }
  if (std::find(seen->begin(), seen->end(), name) != seen->end())
    return Status::Error("module_mappings: a cycle: " + Join(*seen, " -> ") + " -> " + name);
  seen->push_back(name);
  for (const auto& target : it->second) {
    Status s = target == name ? (out->push_back(name), Status::OK()) : Resolve(target, mappings, seen, out);
    if (!s.ok()) return s;
  }
  seen->pop_back();
  return Status::OK();
}

}  // namespace

Result<ModuleMappings> ParseModuleMappings(const std::vector<std::string>& lines) {
  ModuleMappings out;
  for (const auto& line : lines) {
    size_t colon = line.find(':');
    std::string name = Trim(line.substr(0, colon));
    std::vector<std::string> targets;
    if (colon != std::string::npos)
      for (const auto& w : Split(ReplaceAll(line.substr(colon + 1), "\t", " "), ' '))
        if (!Trim(w).empty()) targets.push_back(Trim(w));
    if (name.empty() || targets.empty())
      return Status::Error("module_mappings: '" + line + "' is not of the form 'module: module [module...]'");
    out[name] = std::move(targets);
  }
  return out;
}

Result<std::vector<ModuleSpec>> ApplyModuleMappings(const std::vector<ModuleSpec>& modules,
                                                    const ModuleMappings& mappings) {
  std::vector<ModuleSpec> out;
  for (const auto& m : modules) {
    if (m.unload || m.collection || !m.swap.empty() || !mappings.count(m.name)) {
      out.push_back(m);
      continue;
    }
    std::vector<std::string> seen, names;
    Status s = Resolve(m.name, mappings, &seen, &names);
    if (!s.ok()) return s;
    for (const auto& n : names) {
      out.push_back(m);
      out.back().name = n;
    }
  }
  return out;
}

Result<std::vector<ModuleSpec>> ParseModuleList(const YAML::Node& list, const std::string& file,
                                                const std::string& what) {
  std::vector<ModuleSpec> out;
  if (!list.IsDefined() || list.IsNull()) return out;
  if (!list.IsSequence()) return Err(list, file, "modules: expected a list, got " + YamlTypeName(list));
  for (const auto& item : list) {
    if (item.IsScalar()) {
      if (item.Scalar().empty()) return Err(item, file, "modules: an empty module name in " + what);
      out.emplace_back().name = item.Scalar();
      continue;
    }
    if (!item.IsMap())
      return Err(item, file, "modules: expected a module name or a mapping, got " + YamlTypeName(item));
    Result<ModuleSpec> m = ParseMapping(item, file, what);
    if (!m.ok()) return m.status();
    out.push_back(std::move(m).value());
  }
  return out;
}

const std::vector<std::string>& ModuleKeys() {
  static const std::vector<std::string> keys = {"name", "collection", "path", "swap", "unload"};
  return keys;
}

std::vector<std::string> ModuleNames(const std::vector<ModuleSpec>& modules) {
  std::vector<std::string> names;
  for (const auto& m : modules)
    if (!m.unload) names.push_back(m.name);
  return names;
}

const std::vector<std::string>& ModulesSystemNames() {
  static const std::vector<std::string> names = {"nomod",  "lmod",  "tmod",   "tmod31",
                                                 "tmod32", "tmod4", "envmod", "spack"};
  return names;
}

}  // namespace hb
