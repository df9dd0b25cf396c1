// Parsing of one test's fields (after `extends` has been merged) into a
// TestSpec. Internal to the loader (test_loader.cc); split out to keep each
// file readable. Every error names file:line:column.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "model/expr.h"
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

// Fills `spec` from the merged fields, less those in `skip` (fields that
// are parsed per case, after binding). spec->file and spec->name are set by
// the caller. FinishTestSpec then fills defaults that depend on several
// fields (a SingleSource build's executable) and checks required ones.
Status ParseTestFields(const FieldMap& fields, TestSpec* spec, const std::set<std::string>& skip = {});
Status ParseTestField(const std::string& key, const FieldNode& field, TestSpec* spec);
Status FinishTestSpec(TestSpec* spec, bool check_required);
// Checks the sanity and performance entries (regexes, types) and that every
// reference names a performance variable of the test.
Status CheckTestChecks(const TestSpec& spec);

// An error at a node of a test file: "file:line:column: msg".
Status FieldError(const YAML::Node& n, const std::string& file, const std::string& msg);
// Reads a string that must be one of `choices` into *out; the error says
// which are allowed, with a did-you-mean.
Status CheckChoice(const YAML::Node& n, const std::string& file, const std::string& what,
                   const std::vector<std::string>& choices, std::string* out);

// The value of a variable given as text (a default, or -S NAME=VALUE),
// converted by its type; the error says what was expected.
Result<Value> ConvertVariable(const VariableSpec& var, const std::string& text);

}  // namespace hb
