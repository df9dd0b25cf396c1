#include "model/setvar.h"

#include <algorithm>
#include <cstdlib>

#include "model/test_loader.h"
#include "util/strings.h"

namespace hb {

namespace {

enum class Kind { kInt, kBool, kString, kList, kMapping, kIntMapping, kFixed };

Kind KindOf(const std::string& field) {
  static const std::map<std::string, Kind> kKinds = {{"num_tasks", Kind::kInt},
                                                     {"num_tasks_per_node", Kind::kInt},
                                                     {"num_cpus_per_task", Kind::kInt},
                                                     {"num_gpus_per_node", Kind::kInt},
                                                     {"num_tasks_per_core", Kind::kInt},
                                                     {"num_tasks_per_socket", Kind::kInt},
                                                     {"use_multithreading", Kind::kBool},
                                                     {"max_retries", Kind::kInt},
                                                     {"exclusive_access", Kind::kBool},
                                                     {"exclusive", Kind::kBool},
                                                     {"descr", Kind::kString},
                                                     {"executable", Kind::kString},
                                                     {"image", Kind::kString},
                                                     {"sourcesdir", Kind::kString},
                                                     {"time_limit", Kind::kString},
                                                     {"max_pending_time", Kind::kString},
                                                     {"env_vars", Kind::kMapping},
                                                     {"launcher", Kind::kString},
                                                     {"build_locally", Kind::kBool},
                                                     {"build_time_limit", Kind::kString},
                                                     {"num_devices_per_node", Kind::kIntMapping}};
  auto it = kKinds.find(field);
  if (it != kKinds.end()) return it->second;
  const auto& keys = TestKeys();
  if (std::find(keys.begin(), keys.end(), field) == keys.end()) return Kind::kList;  // maybe a parameter
  static const std::set<std::string> kFixed = {"name",   "extends",     "abstract",  "parameters", "build_system",
                                               "sanity", "performance", "reference", "k8s",        "extra_resources"};
  return kFixed.count(field) ? Kind::kFixed : Kind::kList;
}

bool ParseInt(const std::string& s, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtoll(s.c_str(), &end, 10);
  return *end == '\0';
}

// ReFrame's conversion of a string to a bool (reframe/utility/typecheck.py).
bool ParseBool(std::string s, bool* out) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "true" || s == "yes" || s == "y" || s == "1")
    *out = true;
  else if (s == "false" || s == "no" || s == "n" || s == "0")
    *out = false;
  else
    return false;
  return true;
}

YAML::Node List(const std::string& v) {
  YAML::Node n(YAML::NodeType::Sequence);
  if (!v.empty())
    for (const auto& item : Split(v, ',')) n.push_back(item);
  return n;
}

Result<YAML::Node> Mapping(const std::string& v, bool int_values, const std::string& expected) {
  YAML::Node n(YAML::NodeType::Map);
  if (v.empty()) return n;
  for (const auto& item : Split(v, ',')) {
    size_t colon = item.find(':');
    long long i = 0;
    if (colon == std::string::npos || colon == 0 || (int_values && !ParseInt(item.substr(colon + 1), &i)))
      return Status::Error(expected + ", got '" + item + "'");
    n[item.substr(0, colon)] = item.substr(colon + 1);
  }
  return n;
}

Result<YAML::Node> Convert(Kind kind, const std::string& v, const std::string& what) {
  long long i = 0;
  bool b = false;
  switch (kind) {
    case Kind::kInt:
      if (!ParseInt(v, &i)) return Status::Error(what + " expects an integer, got '" + v + "'");
      return YAML::Node(i);
    case Kind::kBool:
      if (!ParseBool(v, &b))
        return Status::Error(what + " expects a boolean (true, yes, y, 1, false, no, n, 0), got '" + v + "'");
      return YAML::Node(b);
    case Kind::kString:
      return YAML::Node(v);
    case Kind::kList:
      return List(v);
    case Kind::kMapping:
      return Mapping(v, false, what + " expects a mapping written k1:v1,k2:v2");
    case Kind::kIntMapping:
      return Mapping(v, true, what + " expects a mapping of integers written k1:n1,k2:n2");
    case Kind::kFixed:
      break;
  }
  return Status::Error(what +
                       " cannot be set from the command line (it has structure, or names the test); "
                       "edit the test file, or define a test that extends it");
}

}  // namespace

Result<FieldOverride> ParseSetvar(const std::string& arg) {
  FieldOverride o;
  o.option = "-S " + arg;
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    return Status::Error(o.option + ": expected [TEST.]FIELD=VALUE, e.g. -S num_tasks=4 or -S stream.num_tasks=4");
  std::string lhs = arg.substr(0, eq), value = arg.substr(eq + 1);
  size_t dot = lhs.find('.');
  if (dot != std::string::npos) {
    o.test = lhs.substr(0, dot);
    lhs = lhs.substr(dot + 1);
  }
  o.field = lhs;
  o.raw = value;
  if (o.field.empty() || (dot != std::string::npos && o.test.empty()))
    return Status::Error(o.option + ": expected [TEST.]FIELD=VALUE");
  Kind kind = KindOf(o.field);
  auto node = Convert(kind, value, o.option + ": " + o.field);
  if (!node.ok()) return node.status();
  o.value = *node;
  o.is_list = kind == Kind::kList;
  return o;
}

void ApplySetvars(const std::vector<FieldOverride>& overrides, const std::string& test, FieldMap* fields,
                  std::set<size_t>* used) {
  const auto& keys = TestKeys();
  for (size_t i = 0; i < overrides.size(); ++i) {
    const FieldOverride& o = overrides[i];
    if (!o.test.empty() && o.test != test) continue;
    YAML::Node key(o.field);
    if (std::find(keys.begin(), keys.end(), o.field) != keys.end()) {
      fields->erase(o.field);
      fields->emplace(o.field, FieldNode{key, o.value, o.option});
      used->insert(i);
      continue;
    }
    // A parameter of this test? Replace its values in a copy of the
    // mapping (the original may be shared with other tests via extends).
    auto it = fields->find("parameters");
    if (it == fields->end() || !it->second.value.IsMap() || !it->second.value[o.field]) continue;
    YAML::Node params = YAML::Clone(it->second.value);
    params[o.field] = o.value;
    FieldNode node{it->second.key, params, it->second.file};
    fields->erase(it);
    fields->emplace("parameters", node);
    used->insert(i);
  }
}

Status CheckSetvarsUsed(const std::vector<FieldOverride>& overrides, const std::set<size_t>& used,
                        const std::vector<std::string>& test_names) {
  for (size_t i = 0; i < overrides.size(); ++i) {
    if (used.count(i)) continue;
    const FieldOverride& o = overrides[i];
    if (!o.test.empty() && std::find(test_names.begin(), test_names.end(), o.test) == test_names.end())
      return Status::Error(o.option + ": there is no test named '" + o.test + "'" + DidYouMean(o.test, test_names));
    std::string scope = o.test.empty() ? "no test has a" : "test '" + o.test + "' has no";
    return Status::Error(o.option + ": " + scope + " field or parameter named '" + o.field + "'" +
                         DidYouMean(o.field, TestKeys()));
  }
  return Status::OK();
}

}  // namespace hb
