// `hetbench list` and `hetbench show-config`.
#include <cstdio>
#include <map>
#include <set>

#include "cli/commands.h"
#include "config/config_loader.h"
#include "model/bind.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

int ConfigError(const Status& st) {
  std::fprintf(stderr, "hetbench: error: %s\n", st.str().c_str());
  return 2;
}

// "- stream %threads=2 /1a2b3c4d @generic:default+builtin"
std::string CaseLine(const TestCase& c) {
  return "- " + c.display_name + " /" + c.hashcode + " @" + c.system + ":" + c.partition + "+" + c.environ + "\n";
}

// Python's json.dumps of a Value.
nlohmann::json ValueJson(const Value& v) {
  switch (v.type()) {
    case Value::Type::kInt:
      return v.as_int();
    case Value::Type::kFloat:
      return v.as_float();
    case Value::Type::kBool:
      return v.as_bool();
    case Value::Type::kStr:
      return v.as_str();
  }
  return nullptr;
}

// One case for --describe: its bound test-file keys and its identity.
Result<nlohmann::json> Describe(const TestCase& c, const std::vector<TestCase>& all) {
  auto fields = BoundFields(c);
  if (!fields.ok()) return fields.status();
  const TestSpec& s = *c.spec;
  nlohmann::json j = nlohmann::json::object();
  j["name"] = s.name;
  j["display_name"] = c.display_name;
  j["hashcode"] = c.hashcode;
  j["system"] = c.system;
  j["partition"] = c.partition;
  j["environ"] = c.environ;
  j["file"] = s.file;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : c.params) {
    auto typed = CaseValue(c, k);
    params[k] = typed ? ValueJson(*typed) : nlohmann::json(v);
  }
  j["parameters"] = params;
  nlohmann::json vars = nlohmann::json::object();
  for (const auto& v : s.variables) {
    auto typed = CaseValue(c, v.name);
    vars[v.name] = typed ? ValueJson(*typed) : nlohmann::json(nullptr);
  }
  j["variables"] = vars;
  j["valid_systems"] = s.valid_systems;
  j["valid_prog_environs"] = s.valid_prog_environs;
  nlohmann::json deps = nlohmann::json::array();
  for (size_t d : c.deps) deps.push_back(all[d].display_name);
  j["depends_on"] = deps;
  for (const auto& [key, fn] : *fields) j[key] = YamlToJson(fn.value);
  return j;
}

void PrintDetails(const TestCase& c, const std::vector<TestCase>& all, std::string* out) {
  const TestSpec& s = *c.spec;
  *out += CaseLine(c);
  if (!s.descr.empty()) *out += "    description: " + s.descr + "\n";
  *out += "    file: " + s.file + (s.mark.line ? ":" + std::to_string(s.mark.line) : "") + "\n";
  if (!s.extends.empty()) *out += "    extends: " + s.extends + "\n";
  if (!s.tags.empty()) *out += "    tags: " + Join(s.tags, ", ") + "\n";
  if (!s.maintainers.empty()) *out += "    maintainers: " + Join(s.maintainers, ", ") + "\n";
  *out += "    id: " + c.id + "\n";
  *out +=
      "    executable: " + s.executable + (s.executable_opts.empty() ? "" : " " + Join(s.executable_opts, " ")) + "\n";
  if (!s.build.type.empty()) *out += "    build system: " + s.build.type + "\n";
  *out += "    num_tasks: " + std::to_string(s.num_tasks);
  if (s.num_tasks_per_node) *out += ", num_tasks_per_node: " + std::to_string(s.num_tasks_per_node);
  if (s.num_cpus_per_task) *out += ", num_cpus_per_task: " + std::to_string(s.num_cpus_per_task);
  if (s.num_gpus_per_node) *out += ", num_gpus_per_node: " + std::to_string(s.num_gpus_per_node);
  *out += "\n";
  auto pairs = [](const StringPairs& kv) {
    std::vector<std::string> items;
    for (const auto& [k, v] : kv) items.push_back(k + "=" + v);
    return Join(items, ", ");
  };
  if (!s.env_vars.empty()) *out += "    env_vars: " + pairs(s.env_vars) + "\n";
  if (!s.job_options.empty()) *out += "    job_options: " + Join(s.job_options, " ") + "\n";
  for (const auto& [res, values] : s.extra_resources)
    *out += "    extra_resources: " + res + ": " + pairs(StringPairs(values.begin(), values.end())) + "\n";
  if (c.names && !s.variables.empty()) {
    StringPairs vars;
    for (const auto& v : s.variables) {
      auto it = c.names->values.find(v.name);
      vars.emplace_back(v.name, it == c.names->values.end() ? "(unset)" : FormatValue(it->second));
    }
    *out += "    variables: " + pairs(vars) + "\n";
  }
  if (!s.performance.empty()) {
    std::vector<std::string> vars;
    for (const auto& p : s.performance) vars.push_back(p.name + (p.unit.empty() ? "" : " (" + p.unit + ")"));
    *out += "    performance: " + Join(vars, ", ") + "\n";
  }
  if (!c.deps.empty()) {
    std::vector<std::string> deps;
    for (size_t d : c.deps) deps.push_back(all[d].display_name);
    *out += "    depends on: " + Join(deps, ", ") + "\n";
  }
}

}  // namespace

int ListCommand(const SessionOptions& opts, ListFormat format) {
  auto session = OpenSession(opts);
  if (!session.ok()) return ConfigError(session.status());
  const auto& cases = (*session)->cases;
  if (format == ListFormat::kDescribe) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : cases) {
      auto d = Describe(c, cases);
      if (!d.ok()) return ConfigError(d.status());
      out.push_back(std::move(d).value());
    }
    std::string text = JsonText(out, 2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  bool details = format == ListFormat::kDetails;
  std::string out;
  out.reserve(cases.size() * 64);
  std::set<std::string> tests;
  for (const auto& c : cases) {
    tests.insert(c.spec->name);
    if (details) {
      PrintDetails(c, cases, &out);
    } else {
      out += CaseLine(c);
    }
  }
  out += "Found " + std::to_string(cases.size()) + " test case(s) from " + std::to_string(tests.size()) +
         " test(s) in " + std::to_string((*session)->suite.files.size()) + " file(s) for system '" +
         (*session)->system_name + "'\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int ShowConfigCommand(const SessionOptions& opts, const std::string& path) {
  auto config = LoadConfiguration(opts.config_files);
  if (!config.ok()) return ConfigError(config.status());
  nlohmann::json node = config->raw;
  if (!path.empty()) {
    for (const auto& part : Split(path, '/')) {
      if (part.empty()) continue;
      if (node.is_array() && !part.empty() && std::isdigit(static_cast<unsigned char>(part[0]))) {
        size_t i = std::stoul(part);
        if (i >= node.size()) return ConfigError(Status::Error("show-config: no item " + part + " in '" + path + "'"));
        node = node[i];
      } else if (node.is_object() && node.contains(part)) {
        node = node[part];
      } else {
        return ConfigError(Status::Error("show-config: no key '" + part + "' in '" + path + "'"));
      }
    }
  }
  std::string yaml = ConfigToYaml(node);
  std::fwrite(yaml.data(), 1, yaml.size(), stdout);
  if (!yaml.empty() && yaml.back() != '\n') std::fputc('\n', stdout);
  return 0;
}

}  // namespace hb
