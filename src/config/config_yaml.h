// Conversions between YAML and JSON for the site configuration: every
// System, Partition and Environment keeps its form as read in a JSON `raw`,
// and `hetbench show-config` / `hetbench detect` print JSON back as YAML.
//
// Plain YAML scalars are typed as ReFrame's YAML reader (PyYAML, YAML 1.1)
// types them: `8` is an integer, `1.5` a float, `true`/`yes`/`on` booleans,
// `null`/`~`/empty a null; quoted scalars are always strings. Pure
// functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "util/yaml_util.h"

namespace hb {

// YamlToJson and PlainScalarToJson are in util/yaml_util.h.

// The text of a scalar JSON value: a string as it is, a number or boolean
// as YAML writes it ("8", "true"); "" for null, lists and mappings. For
// values read from YAML, where `name: 2024` is a number.
std::string JsonScalarText(const nlohmann::json& v);
// The texts of the items of a JSON list (empty when v is not a list).
std::vector<std::string> JsonTextList(const nlohmann::json& v);

// Readable block-style YAML for a JSON value. In mappings `name` comes
// first, then the other keys in order; strings that would read back as
// something else ("8", "yes", "") are quoted.
std::string ConfigToYaml(const nlohmann::json& value);

}  // namespace hb
