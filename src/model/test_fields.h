// Parsing of one test's fields (after `extends` has been merged) into a
// TestSpec. Internal to the loader (test_loader.cc); split out to keep each
// file readable. Every error names file:line:column.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "model/test_spec.h"
#include "util/status.h"

namespace hb {

// A field of a test as written: its value and the file it came from (a
// field inherited through `extends` comes from the base test's file).
struct FieldNode {
  YAML::Node key;
  YAML::Node value;
  std::string file;
};
using FieldMap = std::map<std::string, FieldNode>;

// Checks that every key of one test mapping is known (with "did you mean").
Status CheckTestKeys(const YAML::Node& test, const std::string& file);

// Fills `spec` from the merged fields. spec->file and spec->name are set by
// the caller.
Status ParseTestFields(const FieldMap& fields, TestSpec* spec);

}  // namespace hb
