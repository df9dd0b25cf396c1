// The adapter between yaml-cpp and the rest of hetbench: yaml-cpp throws, the
// rest of hetbench takes errors as values. Every function here catches
// yaml-cpp's exceptions and turns them into a Status that names
// file:line:column. Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "util/json_field.h"
#include "util/status.h"
#include "util/strings.h"

namespace hb {

// Parses every document of a YAML file (or of `text` when given, named
// `file` in messages). A mapping with a key twice is an error at the
// second one (YAML requires unique keys; yaml-cpp would keep one silently).
Result<std::vector<YAML::Node>> LoadYamlFile(const std::string& file);
Result<std::vector<YAML::Node>> LoadYamlString(const std::string& text, const std::string& file);

// A deep copy of `node` that keeps every node's place in its file
// (YAML::Clone leaves the marks empty), for a copy that is rewritten and
// then parsed, whose errors must still name file:line:column.
YAML::Node CloneWithMarks(const YAML::Node& node);

// The 1-based location of a node in `file`.
SourceMark MarkOf(const YAML::Node& node, const std::string& file);

// Human name of a node's type: "a string", "a list", "a mapping", "null".
std::string YamlTypeName(const YAML::Node& node);

// Typed reads with a clear error that names the expected type and the place.
Result<std::string> YamlString(const YAML::Node& n, const std::string& file, const std::string& what);
Result<double> YamlNumber(const YAML::Node& n, const std::string& file, const std::string& what);
Result<long long> YamlInt(const YAML::Node& n, const std::string& file, const std::string& what);
Result<bool> YamlBool(const YAML::Node& n, const std::string& file, const std::string& what);
// A list of scalars; a lone scalar is accepted as a one-element list.
Result<std::vector<std::string>> YamlStringList(const YAML::Node& n, const std::string& file, const std::string& what);

// The JSON value of a YAML node, typed as ReFrame's YAML reader (PyYAML,
// YAML 1.1) types plain scalars: ints stay ints, `yes` is true, `~` null;
// quoted scalars are always strings.
nlohmann::json YamlToJson(const YAML::Node& node);
// The same, recording where each value was written (its JSON pointer, with
// `at` in front, -> file:line:column) for JsonField's messages.
nlohmann::json YamlToJson(const YAML::Node& node, const std::string& file, JsonMarks* marks,
                          const std::string& at = "");

// j.dump(indent) that never throws: bytes that are not UTF-8 (a program's
// output, a test file in Latin-1) become U+FFFD instead of an exception.
// Every JSON hetbench writes from text it did not make goes through it.
template <typename Json>
std::string JsonText(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Makes every string of `j` (object keys included) valid UTF-8 in place,
// each byte that is not part of a well-formed sequence becoming U+FFFD
// (ValidUtf8), and returns the JSON pointers of what changed ("/fail_reason",
// "/perf/0/name"): a run report records them, so that a replaced byte is
// never a silent change of the text.
template <typename Json>
void RepairUtf8At(Json& j, const std::string& at, std::vector<std::string>& out) {
  if (j.is_string()) {
    bool replaced = false;
    std::string fixed = ValidUtf8(*j.template get_ptr<const std::string*>(), &replaced);
    if (replaced) {
      j = fixed;
      out.push_back(at.empty() ? "/" : at);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) RepairUtf8At(j[i], at + "/" + std::to_string(i), out);
  } else if (j.is_object()) {
    Json fixed = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool replaced = false;
      std::string key = ValidUtf8(it.key(), &replaced);
      std::string where = at + "/" + JsonPointerPart(key);
      if (replaced) out.push_back(where);
      fixed[key] = std::move(it.value());
      RepairUtf8At(fixed[key], where, out);
    }
    j = std::move(fixed);
  }
}
template <typename Json>
std::vector<std::string> RepairUtf8(Json& j) {
  std::vector<std::string> out;
  RepairUtf8At(j, "", out);
  return out;
}

// The JSON value of one YAML scalar written plainly (unquoted), e.g.
// "8" -> 8, "yes" -> true, "~" -> null, "10m" -> "10m".
nlohmann::json PlainScalarToJson(const std::string& s);

}  // namespace hb
