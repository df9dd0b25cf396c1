// The check fields of a test file: `sanity` (patterns, counts, comparisons,
// exit codes), `performance` (variables extracted by pattern or derived by
// an expression, with their unit, figure of merit and direction) and
// `reference` ('system:partition': {variable: [value, lower, upper, unit]}).
// Internal to the loader (model/test_fields.h parses the other fields).
// Every error names file:line:column.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

Status ParseSanity(const YAML::Node& n, const std::string& file, TestSpec* spec);
Status ParsePerformance(const YAML::Node& n, const std::string& file, TestSpec* spec);
Status ParseReference(const YAML::Node& n, const std::string& file, TestSpec* spec);

}  // namespace hb
