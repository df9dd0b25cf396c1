#include "model/test_fields.h"

#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include "check/reference.h"
#include "check/sanity.h"
#include "config/site_config.h"
#include "model/build_fields.h"
#include "model/check_fields.h"
#include "model/expr.h"
#include "model/placeholder.h"
#include "model/test_loader.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

Status FieldError(const YAML::Node& n, const std::string& file, const std::string& msg) {
  return Status::Error(MarkOf(n, file), msg);
}

Status CheckChoice(const YAML::Node& n, const std::string& f, const std::string& what,
                   const std::vector<std::string>& choices, std::string* out) {
  auto r = YamlString(n, f, what);
  if (!r.ok()) return r.status();
  if (std::find(choices.begin(), choices.end(), *r) == choices.end())
    return FieldError(n, f, what + ": '" + *r + "' is not one of " + Join(choices, ", ") + DidYouMean(*r, choices));
  *out = *r;
  return Status::OK();
}

namespace {

using Handler = std::function<Status(const YAML::Node&, const std::string& file, TestSpec*)>;

bool IsIdentifier(const std::string& s) {
  static const std::regex kIdent("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(s, kIdent);
}

// Assigns a string-list field.
Handler StringList(std::vector<std::string> TestSpec::*field, const char* what) {
  return [field, what](const YAML::Node& n, const std::string& f, TestSpec* s) -> Status {
    auto r = YamlStringList(n, f, what);
    if (!r.ok()) return r.status();
    s->*field = std::move(r.value());
    return Status::OK();
  };
}

Handler String(std::string TestSpec::*field, const char* what) {
  return [field, what](const YAML::Node& n, const std::string& f, TestSpec* s) -> Status {
    if (n.IsNull()) {
      s->*field = "";
      return Status::OK();
    }
    auto r = YamlString(n, f, what);
    if (!r.ok()) return r.status();
    s->*field = r.value();
    return Status::OK();
  };
}

Handler Count(int TestSpec::*field, const char* what, int min) {
  return [field, what, min](const YAML::Node& n, const std::string& f, TestSpec* s) -> Status {
    auto r = YamlInt(n, f, what);
    if (!r.ok()) return r.status();
    if (r.value() < min || r.value() > 1000000)
      return FieldError(
          n, f,
          std::string(what) + ": expected an integer >= " + std::to_string(min) + ", got " + std::to_string(r.value()));
    s->*field = static_cast<int>(r.value());
    return Status::OK();
  };
}

Handler Bool(bool TestSpec::*field, const char* what) {
  return [field, what](const YAML::Node& n, const std::string& f, TestSpec* s) -> Status {
    auto r = YamlBool(n, f, what);
    if (!r.ok()) return r.status();
    s->*field = r.value();
    return Status::OK();
  };
}

Handler OptionalBool(std::optional<bool> TestSpec::*field, const char* what) {
  return [field, what](const YAML::Node& n, const std::string& f, TestSpec* s) -> Status {
    if (n.IsNull()) {
      s->*field = std::nullopt;
      return Status::OK();
    }
    auto r = YamlBool(n, f, what);
    if (!r.ok()) return r.status();
    s->*field = r.value();
    return Status::OK();
  };
}

Result<StringPairs> ParseEnvVars(const YAML::Node& n, const std::string& f) {
  StringPairs out;
  auto add = [&](const YAML::Node& k, const YAML::Node& v) -> Status {
    auto key = YamlString(k, f, "env_vars");
    if (!key.ok()) return key.status();
    if (!IsIdentifier(*key)) return FieldError(k, f, "env_vars: '" + *key + "' is not a valid variable name");
    if (!v.IsScalar()) return FieldError(v, f, "env_vars: the value of " + *key + " must be a string or a number");
    out.emplace_back(*key, v.Scalar());
    return Status::OK();
  };
  if (n.IsNull()) return out;
  if (n.IsMap()) {
    for (const auto& kv : n) {
      Status st = add(kv.first, kv.second);
      if (!st.ok()) return st;
    }
    return out;
  }
  if (n.IsSequence()) {  // ReFrame's configuration style: [[name, value], ...]
    for (const auto& item : n) {
      if (!item.IsSequence() || item.size() != 2)
        return FieldError(item, f, "env_vars: expected [name, value] pairs or a mapping");
      Status st = add(item[0], item[1]);
      if (!st.ok()) return st;
    }
    return out;
  }
  return FieldError(n, f, "env_vars: expected a mapping of NAME: value, got " + YamlTypeName(n));
}

// A parameter value as shown in names: a scalar as written, a mapping
// (ReFrame's tuple parameters) in YAML flow style, `{nx: 128, nodes: 1}`.
Result<std::string> ParameterText(const YAML::Node& v, const std::string& f, const std::string& what) {
  if (v.IsScalar()) return v.Scalar();
  if (!v.IsMap())
    return FieldError(v, f, what + ": each value must be a scalar or a mapping of scalars, got " + YamlTypeName(v));
  std::vector<std::string> items;
  for (const auto& kv : v) {
    std::string k = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (!IsIdentifier(k))
      return FieldError(kv.first, f, what + ": '" + k + "' is not a valid key (letters, digits and _)");
    if (!kv.second.IsScalar())
      return FieldError(kv.second, f, what + ": " + k + ": expected a scalar, got " + YamlTypeName(kv.second));
    items.push_back(k + ": " + kv.second.Scalar());
  }
  if (items.empty()) return FieldError(v, f, what + ": an empty mapping is not a value");
  return "{" + Join(items, ", ") + "}";
}

Status ParseParameters(const YAML::Node& n, const std::string& f, TestSpec* s) {
  s->parameters.clear();
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap()) return FieldError(n, f, "parameters: expected a mapping of name: [values], got " + YamlTypeName(n));
  for (const auto& kv : n) {
    auto name = YamlString(kv.first, f, "parameters");
    if (!name.ok()) return name.status();
    if (!IsIdentifier(*name))
      return FieldError(kv.first, f, "parameters: '" + *name + "' is not a valid name (letters, digits and _)");
    const auto& builtins = BuiltinPlaceholders();
    if (std::find(builtins.begin(), builtins.end(), *name) != builtins.end())
      return FieldError(kv.first, f, "parameters: '" + *name + "' is a built-in placeholder name; choose another");
    std::string what = "parameters: " + *name;
    std::vector<std::string> values;
    YAML::Node list = kv.second;
    if (!list.IsSequence() && !list.IsScalar())
      return FieldError(list, f, what + ": expected a list of values, got " + YamlTypeName(list));
    auto add = [&](const YAML::Node& v) -> Status {
      auto text = ParameterText(v, f, what);
      if (!text.ok()) return text.status();
      // Two equal values would make two cases with one id and one stage
      // folder, each cleaning up under the other.
      if (std::find(values.begin(), values.end(), *text) != values.end())
        return FieldError(v, f, what + ": the value '" + *text + "' is listed twice; each value makes one case");
      values.push_back(*text);
      return Status::OK();
    };
    if (list.IsScalar()) {
      Status st = add(list);
      if (!st.ok()) return st;
    } else {
      for (const auto& v : list) {
        Status st = add(v);
        if (!st.ok()) return st;
      }
    }
    if (values.empty()) return FieldError(kv.second, f, "parameters: '" + *name + "' has no values");
    s->parameters.emplace_back(*name, std::move(values));
  }
  return Status::OK();
}

// variables: NAME: {type: int|float|bool|str, default: V, required: B,
// loggable: B}, or NAME: V (type from V as YAML types it).
Status ParseVariable(const std::string& name, const YAML::Node& v, const std::string& f, VariableSpec* out) {
  static const std::vector<std::string> kKeys = {"type", "default", "required", "loggable"};
  static const std::vector<std::string> kTypes = {"int", "float", "bool", "str"};
  out->name = name;
  out->mark = MarkOf(v, f);
  std::string what = "variables: " + name;
  if (v.IsScalar()) {
    out->type = v.Tag() == "!" ? "str" : TypeName(ValueFromYamlScalar(v.Scalar()).type());
    out->default_text = v.Scalar();
    return Status::OK();
  }
  if (!v.IsMap()) return FieldError(v, f, what + ": expected a value or a mapping such as {type: int, default: 100}");
  for (const auto& kv : v) {
    std::string key = kv.first.Scalar();
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      return FieldError(kv.first, f, what + ": unknown key '" + key + "'" + DidYouMean(key, kKeys));
    Status st;
    if (key == "type") {
      auto r = YamlString(kv.second, f, what + ": type");
      if (!r.ok()) return r.status();
      if (std::find(kTypes.begin(), kTypes.end(), *r) == kTypes.end())
        return FieldError(kv.second, f,
                          what + ": type: '" + *r + "' is not one of int, float, bool, str" + DidYouMean(*r, kTypes));
      out->type = *r;
    } else if (key == "default") {
      if (!kv.second.IsScalar())
        return FieldError(kv.second, f, what + ": default: expected a scalar, got " + YamlTypeName(kv.second));
      out->default_text = kv.second.Scalar();
    } else {
      auto r = YamlBool(kv.second, f, what + ": " + key);
      if (!r.ok()) return r.status();
      (key == "required" ? out->required : out->loggable) = *r;
    }
  }
  if (!v["type"] && v["default"] && v["default"].IsScalar()) {  // the type of the default as YAML reads it
    const YAML::Node d = v["default"];
    out->type = d.Tag() == "!" ? "str" : TypeName(ValueFromYamlScalar(d.Scalar()).type());
  }
  if (out->default_text) {
    auto val = ConvertVariable(*out, *out->default_text);
    if (!val.ok()) return FieldError(v["default"], f, what + ": default: " + val.status().message());
  }
  return Status::OK();
}

Status ParseVariables(const YAML::Node& n, const std::string& f, TestSpec* s) {
  s->variables.clear();
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap())
    return FieldError(n, f, "variables: expected a mapping of name: {type, default}, got " + YamlTypeName(n));
  for (const auto& kv : n) {
    std::string name = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (!IsIdentifier(name))
      return FieldError(kv.first, f, "variables: '" + name + "' is not a valid name (letters, digits and _)");
    const auto& builtins = BuiltinPlaceholders();
    if (std::find(builtins.begin(), builtins.end(), name) != builtins.end())
      return FieldError(kv.first, f, "variables: '" + name + "' is a built-in placeholder name; choose another");
    if (std::find(TestKeys().begin(), TestKeys().end(), name) != TestKeys().end())
      return FieldError(kv.first, f, "variables: '" + name + "' is the name of a test field; choose another");
    VariableSpec var;
    Status st = ParseVariable(name, kv.second, f, &var);
    if (!st.ok()) return st;
    s->variables.push_back(std::move(var));
  }
  return Status::OK();
}

Status ParseMaxPendingTime(const YAML::Node& n, const std::string& f, TestSpec* s) {
  if (n.IsNull()) {
    s->max_pending_time_s = 0;
    return Status::OK();
  }
  auto d = n.IsScalar() ? ParseDuration(n.Scalar()) : std::nullopt;
  if (!d)
    return FieldError(n, f, "max_pending_time: expected a duration such as 90, 10m or 1h30m, got " + YamlTypeName(n));
  s->max_pending_time_s = *d;
  return Status::OK();
}

// time_limit, build_time_limit: a duration, or null for none.
Handler Duration(std::optional<double> TestSpec::*field, const std::string& what) {
  return [field, what](const YAML::Node& n, const std::string& f, TestSpec* s) -> Status {
    if (n.IsNull()) {
      (s->*field).reset();
      return Status::OK();
    }
    if (!n.IsScalar()) return FieldError(n, f, what + ": expected a duration, got " + YamlTypeName(n));
    auto d = ParseDuration(n.Scalar());
    if (!d)
      return FieldError(n, f,
                        what + ": '" + n.Scalar() +
                            "' is not a duration; expected seconds (90) or a duration such as 10m, 1h30m or 01:30:00");
    s->*field = *d;
    return Status::OK();
  };
}

Status ParseExtraResources(const YAML::Node& n, const std::string& f, TestSpec* s) {
  s->extra_resources.clear();
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap()) return FieldError(n, f, "extra_resources: expected a mapping of resource: {key: value}");
  for (const auto& kv : n) {
    if (!kv.second.IsMap())
      return FieldError(kv.second, f, "extra_resources: '" + kv.first.Scalar() + "': expected a mapping of key: value");
    auto& dst = s->extra_resources[kv.first.Scalar()];
    for (const auto& e : kv.second) {
      if (!e.second.IsScalar())
        return FieldError(e.second, f, "extra_resources: '" + e.first.Scalar() + "': expected a scalar value");
      dst[e.first.Scalar()] = e.second.Scalar();
    }
  }
  return Status::OK();
}

Status ParseDevices(const YAML::Node& n, const std::string& f, TestSpec* s) {
  s->num_devices_per_node.clear();
  if (n.IsNull()) return Status::OK();
  if (!n.IsMap())
    return FieldError(n, f, "num_devices_per_node: expected a mapping of device type: count, e.g. {ipu: 4}");
  for (const auto& kv : n) {
    auto r = YamlInt(kv.second, f, "num_devices_per_node: " + kv.first.Scalar());
    if (!r.ok()) return r.status();
    if (*r < 0) return FieldError(kv.second, f, "num_devices_per_node: counts must be >= 0");
    s->num_devices_per_node[kv.first.Scalar()] = static_cast<int>(*r);
  }
  return Status::OK();
}

Status ParseSourcesDir(const YAML::Node& n, const std::string& f, TestSpec* s) {
  if (n.IsNull()) {
    s->sourcesdir = "";
    return Status::OK();
  }
  auto r = YamlString(n, f, "sourcesdir");
  if (!r.ok()) return r.status();
  std::string dir = JoinPath(DirName(AbsPath(f)), *r);
  if (!PathExists(dir)) return FieldError(n, f, "sourcesdir: folder '" + dir + "' does not exist");
  s->sourcesdir = AbsPath(dir);
  return Status::OK();
}

Status ParseMaxRetries(const YAML::Node& n, const std::string& f, TestSpec* s) {
  auto r = YamlInt(n, f, "max_retries");
  if (!r.ok()) return r.status();
  if (*r < 0) return FieldError(n, f, "max_retries: expected an integer >= 0");
  s->max_retries = static_cast<int>(*r);
  return Status::OK();
}

Status ParseEnvVarsField(const YAML::Node& n, const std::string& f, TestSpec* s) {
  auto r = ParseEnvVars(n, f);
  if (!r.ok()) return r.status();
  s->env_vars = std::move(r.value());
  return Status::OK();
}

Status ParseModules(const YAML::Node& n, const std::string& f, TestSpec* s) {
  auto r = ParseModuleList(n, f, "test '" + s->name + "'");
  if (!r.ok()) return r.status();
  s->modules = std::move(r.value());
  return Status::OK();
}

Status Ignore(const YAML::Node&, const std::string&, TestSpec*) { return Status::OK(); }

// depends_on: [NAME, 'NAME %p=v ...', {test: NAME, variants: all}]
Status ParseDependsOn(const YAML::Node& n, const std::string& f, TestSpec* s) {
  s->depends_on.clear();
  s->dependencies.clear();
  if (n.IsNull()) return Status::OK();
  YAML::Node list = n.IsSequence() ? n : YAML::Node(YAML::NodeType::Sequence);
  if (!n.IsSequence()) list.push_back(n);
  for (const auto& item : list) {
    TestSpec::Dependency d;
    if (item.IsMap()) {
      for (const auto& kv : item)
        if (kv.first.Scalar() != "test" && kv.first.Scalar() != "variants")
          return FieldError(
              kv.first, f, "depends_on: unknown key '" + kv.first.Scalar() + "'; expected {test: NAME, variants: all}");
      auto t = YamlString(item["test"], f, "depends_on: test");
      if (!t.ok()) return t.status();
      if (!item["variants"] || !item["variants"].IsScalar() || item["variants"].Scalar() != "all")
        return FieldError(item, f, "depends_on: expected {test: NAME, variants: all}");
      d.test = *t;
      d.all = true;
    } else if (item.IsScalar()) {
      std::string text = Trim(item.Scalar());
      d.test = text.substr(0, text.find(' '));
      if (text.find('%') != std::string::npos) d.variant = text;
    } else {
      return FieldError(item, f,
                        "depends_on: expected a test name, 'NAME %param=value' or {test: NAME, variants: all}");
    }
    if (d.test.empty()) return FieldError(item, f, "depends_on: an empty test name");
    s->depends_on.push_back(d.test);
    s->dependencies.push_back(std::move(d));
  }
  return Status::OK();
}

// `skip_if: {expr: EXPR, reason: TEXT}` (ReFrame's skip_if()).
Status ParseSkipIf(const YAML::Node& n, const std::string& f, TestSpec* s) {
  if (!n.IsMap() || !n["expr"])
    return FieldError(n, f,
                      "skip_if: expected {expr: EXPR, reason: TEXT}, e.g. {expr: 'num_gpus_per_node == 0', reason: "
                      "'needs GPUs'}");
  for (const auto& kv : n)
    if (kv.first.Scalar() != "expr" && kv.first.Scalar() != "reason")
      return FieldError(kv.first, f, "skip_if: unknown key '" + kv.first.Scalar() + "'; expected expr and reason");
  auto e = YamlString(n["expr"], f, "skip_if: expr");
  if (!e.ok()) return e.status();
  auto parsed = Expr::Parse(*e);
  if (!parsed.ok()) return FieldError(n["expr"], f, "skip_if: expr: " + parsed.status().message());
  s->skip_expr = *e;
  s->skip_reason = "skip_if: " + *e;
  if (n["reason"]) {
    auto r = YamlString(n["reason"], f, "skip_if: reason");
    if (!r.ok()) return r.status();
    s->skip_reason = *r;
  }
  return Status::OK();
}

// `k8s`: a mapping kept as JSON; the Kubernetes backend checks its keys.
Status ParseK8s(const YAML::Node& n, const std::string& f, TestSpec* s) {
  if (!n.IsMap()) return FieldError(n, f, "k8s: expected a mapping of Kubernetes settings, got " + YamlTypeName(n));
  s->k8s = YamlToJson(n);
  return Status::OK();
}

const std::map<std::string, Handler>& Handlers() {
  static const std::map<std::string, Handler> kHandlers = {
      {"name", Ignore},
      {"extends", Ignore},
      {"abstract", Bool(&TestSpec::abstract, "abstract")},
      {"descr", String(&TestSpec::descr, "descr")},
      {"tags", StringList(&TestSpec::tags, "tags")},
      {"maintainers", StringList(&TestSpec::maintainers, "maintainers")},
      {"scaling_axes", StringList(&TestSpec::scaling_axes, "scaling_axes")},
      {"valid_systems", StringList(&TestSpec::valid_systems, "valid_systems")},
      {"valid_prog_environs", StringList(&TestSpec::valid_prog_environs, "valid_prog_environs")},
      {"valid_environs", StringList(&TestSpec::valid_prog_environs, "valid_environs")},
      {"parameters", ParseParameters},
      {"executable", String(&TestSpec::executable, "executable")},
      {"executable_opts", StringList(&TestSpec::executable_opts, "executable_opts")},
      {"env_vars", ParseEnvVarsField},
      {"modules", ParseModules},
      {"prerun_cmds", StringList(&TestSpec::prerun_cmds, "prerun_cmds")},
      {"postrun_cmds", StringList(&TestSpec::postrun_cmds, "postrun_cmds")},
      {"prebuild_cmds", StringList(&TestSpec::prebuild_cmds, "prebuild_cmds")},
      {"postbuild_cmds", StringList(&TestSpec::postbuild_cmds, "postbuild_cmds")},
      {"local", Bool(&TestSpec::local, "local")},
      {"skip_if", ParseSkipIf},
      {"sourcesdir", ParseSourcesDir},
      {"build_system", ParseBuild},
      {"num_tasks", Count(&TestSpec::num_tasks, "num_tasks", 1)},
      {"num_tasks_per_node", Count(&TestSpec::num_tasks_per_node, "num_tasks_per_node", 1)},
      {"num_cpus_per_task", Count(&TestSpec::num_cpus_per_task, "num_cpus_per_task", 1)},
      {"num_gpus_per_node", Count(&TestSpec::num_gpus_per_node, "num_gpus_per_node", 0)},
      {"num_tasks_per_core", Count(&TestSpec::num_tasks_per_core, "num_tasks_per_core", 1)},
      {"num_tasks_per_socket", Count(&TestSpec::num_tasks_per_socket, "num_tasks_per_socket", 1)},
      {"use_multithreading", OptionalBool(&TestSpec::use_multithreading, "use_multithreading")},
      {"num_devices_per_node", ParseDevices},
      {"time_limit", Duration(&TestSpec::time_limit_s, "time_limit")},
      {"build_time_limit", Duration(&TestSpec::build_time_limit_s, "build_time_limit")},
      {"build_locally", Bool(&TestSpec::build_locally, "build_locally")},
      {"container_platform", ParseContainer},
      {"max_pending_time", ParseMaxPendingTime},
      {"exclusive_access", Bool(&TestSpec::exclusive_access, "exclusive_access")},
      {"exclusive", Bool(&TestSpec::exclusive_access, "exclusive")},
      {"extra_resources", ParseExtraResources},
      {"keep_files", StringList(&TestSpec::keep_files, "keep_files")},
      {"job_options", StringList(&TestSpec::job_options, "job_options")},
      {"launcher", String(&TestSpec::launcher, "launcher")},
      {"launcher_options", StringList(&TestSpec::launcher_options, "launcher_options")},
      {"sanity", ParseSanity},
      {"performance", ParsePerformance},
      {"reference", ParseReference},
      {"depends_on", ParseDependsOn},
      {"image", String(&TestSpec::image, "image")},
      {"k8s", ParseK8s},
      {"variables", ParseVariables},
      {"overrides", Ignore},  // read by the loader (model/bind.h)
      {"max_retries", ParseMaxRetries},
  };
  return kHandlers;
}

}  // namespace

const std::vector<std::string>& TestKeys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys;
    for (const auto& [k, h] : Handlers()) keys.push_back(k);
    return keys;
  }();
  return kKeys;
}

Status CheckTestKeys(const YAML::Node& test, const std::string& file) {
  const auto& h = Handlers();
  for (const auto& kv : test) {
    if (!kv.first.IsScalar()) return FieldError(kv.first, file, "test keys must be plain names");
    const std::string& key = kv.first.Scalar();
    if (h.count(key) == 0)
      return FieldError(kv.first, file, "unknown key '" + key + "' in test" + DidYouMean(key, TestKeys()));
  }
  return Status::OK();
}

Status ParseTestField(const std::string& key, const FieldNode& fn, TestSpec* spec) {
  const auto& h = Handlers();
  auto it = h.find(key);
  if (it == h.end()) return Status::OK();  // checked by CheckTestKeys
  Status st = it->second(fn.value, fn.file, spec);
  if (st.ok()) spec->marks[key] = MarkOf(fn.key, fn.file);
  return st;
}

Status ParseTestFields(const FieldMap& fields, TestSpec* spec, const std::set<std::string>& skip) {
  for (const auto& [key, fn] : fields) {
    if (skip.count(key)) continue;
    Status st = ParseTestField(key, fn, spec);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

Status FinishTestSpec(TestSpec* spec, bool check_required) {
  if (spec->build.type == "SingleSource" && spec->executable.empty()) {
    std::string exe = spec->build.executable;
    if (exe.empty()) {
      std::string src = spec->build.source;
      size_t slash = src.find_last_of('/');
      if (slash != std::string::npos) src = src.substr(slash + 1);
      size_t dot = src.find_last_of('.');
      exe = dot == std::string::npos ? src + ".x" : src.substr(0, dot);
    }
    spec->executable = "./" + exe;
  }
  // A container test may run the image's own command (ReFrame's
  // `singularity run IMAGE`), and a Kubernetes test its manifest's.
  bool own_manifest = spec->k8s.is_object() && spec->k8s.contains("manifest");
  if (check_required && spec->executable.empty() && !spec->abstract && !spec->container.enabled && !own_manifest) {
    SourceMark m = spec->mark;
    return Status::Error(m, "test '" + spec->name +
                                "' has no 'executable' (the program to run; a Kubernetes test "
                                "whose k8s.manifest has containers with their own command needs none)");
  }
  // A scaling axis is one of the test's parameters, or num_tasks.
  for (const auto& axis : spec->scaling_axes) {
    bool known = axis == "num_tasks";
    for (const auto& [name, values] : spec->parameters) known |= name == axis;
    if (known || !check_required) continue;
    auto it = spec->marks.find("scaling_axes");
    std::vector<std::string> names = {"num_tasks"};
    for (const auto& [name, values] : spec->parameters) names.push_back(name);
    return Status::Error(
        it != spec->marks.end() ? it->second : spec->mark,
        "scaling_axes: '" + axis + "' is not a parameter of the test (nor num_tasks)" + DidYouMean(axis, names));
  }
  // keep_files are globs below the stage folder: an absolute path or a
  // '..' would copy (or, after a glob, name) files elsewhere.
  for (const auto& k : spec->keep_files) {
    bool up = k == ".." || StartsWith(k, "../") || k.find("/../") != std::string::npos || EndsWith(k, "/..");
    if (!k.empty() && k[0] != '/' && !up && k.find('\0') == std::string::npos) continue;
    auto it = spec->marks.find("keep_files");
    return Status::Error(it != spec->marks.end() ? it->second : spec->mark,
                         "keep_files: '" + k + "' must be a path (or glob) relative to the stage folder, without '..'");
  }
  if (check_required && spec->build.type.empty() && !spec->abstract &&
      (!spec->prebuild_cmds.empty() || !spec->postbuild_cmds.empty())) {
    const char* key = spec->prebuild_cmds.empty() ? "postbuild_cmds" : "prebuild_cmds";
    auto it = spec->marks.find(key);
    return Status::Error(it != spec->marks.end() ? it->second : spec->mark,
                         std::string(key) +
                             ": the test has no build_system, so there is no build for them to run "
                             "around: use prerun_cmds, or build_system: {type: CustomBuild, commands: "
                             "[...]}");
  }
  // As ReFrame, a test must say how its output shows success: without a
  // sanity check any run that exits 0 would pass.
  if (check_required && spec->sanity.empty() && !spec->abstract)
    return Status::Error(spec->mark, "test '" + spec->name +
                                         "' has no sanity check: add one that its output shows success, e.g. "
                                         "sanity: [{pattern: 'Solution Validates'}], or, to rely on the exit code "
                                         "alone, sanity: [{exit_code: 0}]");
  return Status::OK();
}

Status CheckTestChecks(const TestSpec& spec) {
  for (const auto& s : spec.sanity) {
    Status st = ValidateSanitySpec(s);
    if (!st.ok()) return st;
  }
  std::vector<std::string> vars;
  for (const auto& p : spec.performance) {
    Status st = ValidatePerfSpec(p);
    if (!st.ok()) return st;
    vars.push_back(p.name);
  }
  for (const auto& [key, refs] : spec.reference) {
    for (const auto& [var, ref] : refs) {
      if (std::find(vars.begin(), vars.end(), var) == vars.end()) {
        auto it = spec.marks.find("reference:" + key + ":" + var);
        SourceMark m = it != spec.marks.end() ? it->second : ref.mark;
        std::string known = vars.empty() ? "the test defines none" : "defined: " + Join(vars, ", ");
        return Status::Error(m, "reference: '" + var + "' is not a performance variable of this test (" + known + ")" +
                                    DidYouMean(var, vars));
      }
      Status st = ValidateReference(ref);
      if (!st.ok()) return st;
    }
  }
  return Status::OK();
}

Result<Value> ConvertVariable(const VariableSpec& var, const std::string& text) {
  if (var.type == "str") return Value::Str(text);
  if (var.type == "bool") {
    std::string t = text;
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    if (t == "true" || t == "yes" || t == "y" || t == "1") return Value::Bool(true);
    if (t == "false" || t == "no" || t == "n" || t == "0") return Value::Bool(false);
    return Status::Error("expected a bool (true, yes, y, 1, false, no, n, 0), got '" + text + "'");
  }
  Value v = ValueFromYamlScalar(Trim(text));
  if (var.type == "int" && v.type() == Value::Type::kInt) return v;
  if (var.type == "float" && v.is_number()) return Value::Float(v.as_float());
  return Status::Error("expected " + std::string(var.type == "int" ? "an int" : "a float") + ", got '" + text + "'");
}

}  // namespace hb
