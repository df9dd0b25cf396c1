// The adapter between yaml-cpp and the rest of hetbench: yaml-cpp throws, the
// rest of hetbench takes errors as values. Every function here catches
// yaml-cpp's exceptions and turns them into a Status that names
// file:line:column. Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "util/status.h"

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
Result<std::vector<std::string>> YamlStringList(const YAML::Node& n, const std::string& file,
                                                const std::string& what);

// The JSON value of a YAML node, typed as ReFrame's YAML reader (PyYAML,
// YAML 1.1) types plain scalars: ints stay ints, `yes` is true, `~` null;
// quoted scalars are always strings.
nlohmann::json YamlToJson(const YAML::Node& node);

// j.dump(indent) that never throws: bytes that are not UTF-8 (a program's
// output, a test file in Latin-1) become U+FFFD instead of an exception.
// Every JSON hetbench writes from text it did not make goes through it.
template <typename Json>
std::string JsonText(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// The JSON value of one YAML scalar written plainly (unquoted), e.g.
// "8" -> 8, "yes" -> true, "~" -> null, "10m" -> "10m".
nlohmann::json PlainScalarToJson(const std::string& s);

}  // namespace hb
