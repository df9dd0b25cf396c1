// Inheritance by field kind: how a child test's field (`extends`) or an
// `overrides` entry's field combines with the value it inherits.
//
//   mapping fields (parameters, variables, performance, reference,
//   env_vars, extra_resources, num_devices_per_node, k8s, overrides):
//       merged key by key, at every depth; `KEY: null` removes the key;
//   lists and scalars: replace the inherited value, except
//       `{append: [...]}` and `{prepend: [...]}`, which extend the
//       inherited list (ReFrame's `self.executable_opts += [...]`), at any
//       depth of a mapping field too.
//
// The inherited nodes are never modified (yaml-cpp nodes are shared
// references): a merge builds new nodes. Pure; thread-compatible.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "model/test_fields.h"
#include "util/status.h"

namespace hb {

bool IsMappingField(const std::string& field);

// The value of `field` after `over` is merged onto `base` (base may be an
// undefined node: nothing inherited). Errors name file:line:column.
Result<YAML::Node> MergeFieldValue(const std::string& field, const YAML::Node& base, const YAML::Node& over,
                                   const std::string& file);

// Merges every field of `over` into `fields` (a child's fields over its
// base's, or an overrides entry's over the test's).
Status MergeFieldsInto(const FieldMap& over, FieldMap* fields);

// Turns list operations left without an inherited list (`{append: [x]}`
// in a test that extends nothing) into the plain list, in every field.
void ResolveListOps(FieldMap* fields);

}  // namespace hb
