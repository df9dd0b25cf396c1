// -S/--setvar: test fields set from the command line, as ReFrame's -S.
//
//   -S field=value        sets `field` in every test (a test field, or a
//                         parameter of the tests that have it)
//   -S Test.field=value   only in test `Test`
//
// The value is converted by the field's type, as ReFrame converts -S
// values: integers (num_tasks=4), booleans (true/yes/y/1, false/no/n/0),
// strings (time_limit=10m), lists written a,b,c (valid_systems=hpc:gpu,
// executable_opts=-n,10; an empty value is an empty list), mappings
// written k1:v1,k2:v2 (env_vars=OMP_NUM_THREADS:4). A parameter's value is
// its new list of values (-S threads=1,2,4). Fields with structure
// (build_system, sanity, performance, reference, parameters, k8s,
// extra_resources) and a test's identity (name, extends, abstract) cannot
// be set this way.
//
// Overrides replace the field as the file wrote it, after `extends` is
// merged and before the field is parsed, checked and the test expanded;
// so the usual checks apply, and their messages name the option
// ("-S num_tasks=0: num_tasks: expected an integer >= 1, got 0").
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/test_fields.h"
#include "util/status.h"

namespace hb {

struct FieldOverride {
  std::string option;  // as given: "-S Test.num_tasks=4"
  std::string test;    // "" = every test
  std::string field;
  YAML::Node value;      // converted (for a parameter: the list of values)
  std::string raw;       // the value as given (for a variable: converted by its type)
  bool is_list = false;  // value is a list (usable as parameter values)
};

// Parses one -S argument ("[Test.]field=value"), converting the value by
// the field's type. Errors name the option, the field and the type.
Result<FieldOverride> ParseSetvar(const std::string& arg);

// Applies the overrides that concern test `test` to its merged fields;
// `used` collects the indices of those that applied.
void ApplySetvars(const std::vector<FieldOverride>& overrides, const std::string& test, FieldMap* fields,
                  std::set<size_t>* used);

// An error for the first override that applied to no test: an unknown
// test, or a field that no test has (with "did you mean").
Status CheckSetvarsUsed(const std::vector<FieldOverride>& overrides, const std::set<size_t>& used,
                        const std::vector<std::string>& test_names);

}  // namespace hb
