#include "model/field_merge.h"

#include <set>

#include "util/yaml_util.h"

namespace hb {

namespace {

// `{append: LIST}` or `{prepend: LIST}`: returns "append"/"prepend", else "".
std::string ListOp(const YAML::Node& n) {
  if (!n.IsMap() || n.size() != 1) return "";
  auto kv = n.begin();
  std::string k = kv->first.IsScalar() ? kv->first.Scalar() : "";
  if (k != "append" && k != "prepend") return "";
  return kv->second.IsSequence() || kv->second.IsScalar() ? k : "";
}

YAML::Node OpItems(const YAML::Node& op) {
  YAML::Node items = op.begin()->second;
  if (items.IsSequence()) return items;
  YAML::Node one(YAML::NodeType::Sequence);
  one.push_back(items);
  return one;
}

Result<YAML::Node> ApplyListOp(const std::string& what, const YAML::Node& base, const YAML::Node& op,
                               const std::string& file) {
  std::string kind = ListOp(op);
  YAML::Node items = OpItems(op);
  bool has_base = base.IsDefined() && !base.IsNull();
  if (has_base && !base.IsSequence() && !base.IsScalar())
    return Status::Error(
        MarkOf(op, file),
        what + ": {" + kind + ": [...]} extends a list, but the inherited value is " + YamlTypeName(base));
  YAML::Node out(YAML::NodeType::Sequence);
  auto add_base = [&] {
    if (!has_base) return;
    if (base.IsSequence()) {
      for (const auto& x : base) out.push_back(x);
    } else {
      out.push_back(base);  // a lone scalar stands for a one-item list
    }
  };
  if (kind == "prepend") {
    for (const auto& x : items) out.push_back(x);
    add_base();
  } else {
    add_base();
    for (const auto& x : items) out.push_back(x);
  }
  return out;
}

Result<YAML::Node> MergeValue(const std::string& what, const YAML::Node& base, const YAML::Node& over,
                              const std::string& file, bool merge_maps);

Result<YAML::Node> MergeMaps(const std::string& what, const YAML::Node& base, const YAML::Node& over,
                             const std::string& file) {
  YAML::Node out(YAML::NodeType::Map);
  std::set<std::string> done;
  for (const auto& kv : base) {
    std::string k = kv.first.Scalar();
    YAML::Node o = over[k];  // const lookup: does not add the key
    done.insert(k);
    if (!o.IsDefined()) {
      out[kv.first] = kv.second;
      continue;
    }
    if (o.IsNull()) continue;  // KEY: null removes the key
    auto v = MergeValue(what + ": " + k, kv.second, o, file, true);
    if (!v.ok()) return v.status();
    out[kv.first] = *v;
  }
  for (const auto& kv : over) {
    std::string k = kv.first.Scalar();
    if (done.count(k) || kv.second.IsNull()) continue;
    auto v = MergeValue(what + ": " + k, YAML::Node(), kv.second, file, true);
    if (!v.ok()) return v.status();
    out[kv.first] = *v;
  }
  return out;
}

Result<YAML::Node> MergeValue(const std::string& what, const YAML::Node& base, const YAML::Node& over,
                              const std::string& file, bool merge_maps) {
  if (!ListOp(over).empty()) return ApplyListOp(what, base, over, file);
  if (merge_maps && over.IsMap() && base.IsDefined() && base.IsMap()) return MergeMaps(what, base, over, file);
  if (merge_maps && over.IsMap()) return MergeMaps(what, YAML::Node(YAML::NodeType::Map), over, file);
  return over;
}

// Resolves list operations inside a value that has nothing to inherit.
YAML::Node Resolve(const YAML::Node& n) {
  if (!ListOp(n).empty()) return OpItems(n);
  if (!n.IsMap()) return n;
  bool any = false;
  for (const auto& kv : n) any = any || !ListOp(kv.second).empty() || kv.second.IsMap();
  if (!any) return n;
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : n) out[kv.first] = Resolve(kv.second);
  return out;
}

}  // namespace

bool IsMappingField(const std::string& field) {
  static const std::set<std::string> kMaps = {"parameters", "variables",       "performance",          "reference",
                                              "env_vars",   "extra_resources", "num_devices_per_node", "k8s",
                                              "overrides"};
  return kMaps.count(field) > 0;
}

Result<YAML::Node> MergeFieldValue(const std::string& field, const YAML::Node& base, const YAML::Node& over,
                                   const std::string& file) {
  bool maps = IsMappingField(field);
  if (field == "overrides" && over.IsMap() && base.IsDefined() && base.IsMap()) {
    // Entries merge by key; each entry is kept as written, since its list
    // operations and nulls apply to each case's fields later.
    YAML::Node out(YAML::NodeType::Map);
    for (const auto& kv : base)
      if (!over[kv.first.Scalar()].IsDefined()) out[kv.first] = kv.second;
    for (const auto& kv : over)
      if (!kv.second.IsNull()) out[kv.first] = kv.second;
    return out;
  }
  if (maps && over.IsMap() && base.IsDefined() && base.IsMap()) return MergeMaps(field, base, over, file);
  if (!ListOp(over).empty()) return ApplyListOp(field, base, over, file);
  return over;
}

Status MergeFieldsInto(const FieldMap& over, FieldMap* fields) {
  for (const auto& [key, fn] : over) {
    auto it = fields->find(key);
    YAML::Node base = it == fields->end() ? YAML::Node() : it->second.value;
    auto merged = MergeFieldValue(key, base, fn.value, fn.file);
    if (!merged.ok()) return merged.status();
    // Erase then emplace: assigning over a FieldNode would assign its
    // YAML::Node members, which yaml-cpp does by rewriting the node they
    // refer to, i.e. the inherited field itself.
    FieldNode node{fn.key, *merged, fn.file};
    if (it != fields->end()) fields->erase(it);
    fields->emplace(key, std::move(node));
  }
  return Status::OK();
}

void ResolveListOps(FieldMap* fields) {
  // A new map rather than assignments into the old one (see above).
  FieldMap out;
  for (const auto& [key, fn] : *fields) {
    // Not inside `overrides`: its entries' operations apply per case.
    bool resolve = !ListOp(fn.value).empty() || (fn.value.IsMap() && IsMappingField(key) && key != "overrides");
    out.emplace(key, FieldNode{fn.key, resolve ? Resolve(fn.value) : fn.value, fn.file});
  }
  fields->swap(out);
}

}  // namespace hb
