#include "k8s/k8s_options.h"

#include <algorithm>
#include <functional>
#include <regex>

#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

namespace {

using nlohmann::json;

// Where the keys come from, for messages: "sched_options" or
// "<test>: k8s".
struct Ctx {
  std::string where;
  bool test = false;
};

Status KeyError(const Ctx& c, const std::string& key, const std::string& expected) {
  return Status::Error(c.where + ": '" + key + "' must be " + expected);
}

const char* TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "a mapping";
    case json::value_t::array:
      return "a list";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    default:
      return "a number";
  }
}

std::string Got(const json& v) { return std::string(", got ") + TypeName(v); }

// A scalar written in YAML as a string, number or boolean, as text.
bool ScalarText(const json& v, std::string* out) {
  std::optional<std::string> text = JsonScalar(v);
  if (!text) return false;
  *out = *text;
  return true;
}

// DNS-1123 label: what a name or a label's name part may look like.
bool IsLabelName(const std::string& s) {
  static const std::regex re("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
  return !s.empty() && s.size() <= 63 && std::regex_match(s, re);
}

// A label or annotation key: [prefix/]name, the prefix a DNS subdomain.
bool IsLabelKey(const std::string& key) {
  static const std::regex prefix_re("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
  auto slash = key.rfind('/');
  if (slash == std::string::npos) return IsLabelName(key);
  std::string prefix = key.substr(0, slash);
  return prefix.size() <= 253 && std::regex_match(prefix, prefix_re) && IsLabelName(key.substr(slash + 1));
}

bool IsLabelValue(const std::string& v) { return v.empty() || IsLabelName(v); }

// A Kubernetes quantity: "2", "500m", "1.5", "8Gi", "1e3".
bool IsQuantity(const std::string& s) {
  static const std::regex re("[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?");
  return std::regex_match(s, re);
}

using Setter = std::function<Status(const json& v, const std::string& key, const Ctx& c, K8sOptions* o)>;

Setter String(std::string K8sOptions::*field) {
  return [field](const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
    const std::string* s = JsonStringPtr(v);
    if (!s) return KeyError(c, key, "a string" + Got(v));
    o->*field = *s;
    return Status::OK();
  };
}

// A quantity ("500m", "8Gi"); `none_ok`: the word "none" (leave it out).
Setter Quantity(std::string K8sOptions::*field, bool none_ok) {
  return [field, none_ok](const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
    std::string s;
    if (v.is_boolean() || !ScalarText(v, &s)) return KeyError(c, key, "a Kubernetes quantity" + Got(v));
    if (!(IsQuantity(s) || (none_ok && s == "none") || s.empty()))
      return KeyError(c, key,
                      std::string("a Kubernetes quantity such as 2, 500m or 8Gi") + (none_ok ? " (or none)" : "") +
                          ", not '" + s + "'");
    o->*field = s;
    return Status::OK();
  };
}

enum class KeyCheck { kNone, kLabelKey, kLabel };

// A mapping of names to scalars, merged over what is there.
Setter StringMap(std::map<std::string, std::string> K8sOptions::*field, KeyCheck check) {
  return [field, check](const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
    if (!v.is_object()) return KeyError(c, key, "a mapping of names to strings" + Got(v));
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string val;
      if (!ScalarText(it.value(), &val)) return KeyError(c, key + "." + it.key(), "a string" + Got(it.value()));
      if (check != KeyCheck::kNone && !IsLabelKey(it.key()))
        return Status::Error(c.where + ": " + key + ": '" + it.key() +
                             "' is not a valid Kubernetes key ([prefix/]name, name up to 63 of [A-Za-z0-9-_.])");
      if (check == KeyCheck::kLabel && !IsLabelValue(val))
        return Status::Error(c.where + ": " + key + "." + it.key() + ": '" + val +
                             "' is not a valid label value (up to 63 of [A-Za-z0-9-_.], starting and ending "
                             "with a letter or digit)");
      (o->*field)[it.key()] = val;
    }
    return Status::OK();
  };
}

// A Kubernetes object (or list) passed through as written; replaces.
Setter Object(json K8sOptions::*field, bool list) {
  return [field, list](const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
    if (list ? !v.is_array() : !v.is_object())
      return KeyError(c, key, std::string(list ? "a list" : "a mapping") + " as in a Kubernetes manifest" + Got(v));
    if (list) {
      for (const auto& x : v)
        if (!x.is_object()) return KeyError(c, key, "a list of mappings as in a Kubernetes manifest");
    }
    o->*field = v;
    return Status::OK();
  };
}

Setter StringList(std::vector<std::string> K8sOptions::*field) {
  return [field](const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
    if (!v.is_array()) return KeyError(c, key, "a list of strings" + Got(v));
    std::vector<std::string> out;
    for (const auto& x : v) {
      const std::string* s = JsonStringPtr(x);
      if (!s) return KeyError(c, key, "a list of strings");
      out.push_back(*s);
    }
    o->*field = out;
    return Status::OK();
  };
}

Setter Bool(bool K8sOptions::*field) {
  return [field](const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
    std::optional<bool> b = JsonBool(v);
    if (!b) return KeyError(c, key, "true or false" + Got(v));
    o->*field = *b;
    return Status::OK();
  };
}

Status SetImagePullSecrets(const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
  const std::string expected = "a list of secret names (or of {name: ...} mappings)";
  if (!v.is_array()) return KeyError(c, key, expected + Got(v));
  std::vector<std::string> out;
  for (const auto& x : v) {
    if (const std::string* s = JsonStringPtr(x))
      out.push_back(*s);
    else if (x.is_object() && x.size() == 1 && x.contains("name") && JsonStringPtr(x["name"]))
      out.push_back(*JsonStringPtr(x["name"]));
    else
      return KeyError(c, key, expected);
  }
  o->image_pull_secrets = out;
  return Status::OK();
}

Status SetTtl(const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
  std::optional<long long> n = JsonInt(v);
  if (!n || *n < -1 || *n > 1000000000) return KeyError(c, key, "a whole number of seconds, or -1 to leave it out");
  o->ttl_seconds_after_finished = static_cast<int>(*n);
  return Status::OK();
}

Status SetGrace(const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
  std::optional<double> s;
  if (auto n = JsonNumber(v))
    s = n;
  else if (const std::string* text = JsonStringPtr(v))
    s = ParseDuration(*text);
  if (!s || *s < 0) return KeyError(c, key, "a duration (seconds, or e.g. 2m) >= 0");
  o->waiting_grace_s = *s;
  return Status::OK();
}

Status SetJobSpecExtra(const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
  if (!v.is_object()) return KeyError(c, key, "a mapping of Job spec fields" + Got(v));
  o->job_spec_extra.merge_patch(v);
  return Status::OK();
}

Status SetManifest(const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
  if (v.is_null()) {
    o->manifest = nullptr;
    return Status::OK();
  }
  if (!v.is_object() || !v.contains("apiVersion") || !v["apiVersion"].is_string() || !v.contains("kind") ||
      !v["kind"].is_string())
    return KeyError(c, key, "a Kubernetes object (a mapping with apiVersion and kind)");
  if (v.contains("metadata") && !v["metadata"].is_object()) return KeyError(c, key + ".metadata", "a mapping");
  o->manifest = v;
  return Status::OK();
}

Status ParseVolume(const json& v, const std::string& key, const Ctx& c, K8sVolume* vol) {
  if (!v.is_object()) return KeyError(c, key, "a mapping with name, mount_path and a source" + Got(v));
  static const std::vector<std::string> keys = {"name", "mount_path", "read_only", "claim_name", "source"};
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& k = it.key();
    const json& x = it.value();
    std::string sub = key + "." + k;
    if (k == "name" || k == "mount_path" || k == "claim_name") {
      const std::string* s = JsonStringPtr(x);
      if (!s) return KeyError(c, sub, "a string" + Got(x));
      (k == "name" ? vol->name : k == "mount_path" ? vol->mount_path : vol->claim_name) = *s;
    } else if (k == "read_only") {
      std::optional<bool> b = JsonBool(x);
      if (!b) return KeyError(c, sub, "true or false" + Got(x));
      vol->read_only = *b;
    } else if (k == "source") {
      if (!x.is_object())
        return KeyError(c, sub, "a volume source as in a manifest, e.g. {nfs: {server: ..., path: ...}}");
      for (auto s = x.begin(); s != x.end(); ++s) vol->source[s.key()] = s.value();
    } else if (x.is_object()) {
      vol->source[k] = x;  // a volume source written directly: nfs: {...}, emptyDir: {}
    } else {
      return Status::Error(c.where + ": " + key + ": unknown key '" + k + "'" + DidYouMean(k, keys));
    }
  }
  if (!IsLabelName(vol->name) || vol->name.find_first_of("_.ABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string::npos)
    return KeyError(c, key + ".name", "a DNS label (lowercase letters, digits and '-'), not '" + vol->name + "'");
  if (!StartsWith(vol->mount_path, "/")) return KeyError(c, key + ".mount_path", "an absolute path");
  size_t sources = (vol->claim_name.empty() ? 0 : 1) + (vol->source.is_object() ? vol->source.size() : 0);
  if (sources != 1)
    return Status::Error(c.where + ": " + key + " (" + vol->name +
                         "): give exactly one source: claim_name (a PersistentVolumeClaim) or a volume source "
                         "such as nfs: {...}");
  return Status::OK();
}

// Volumes: a volume of the same name replaces the one there, others are
// added (so a test can add a volume to the partition's).
Status SetVolumes(const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
  if (!v.is_array()) return KeyError(c, key, "a list of volumes" + Got(v));
  for (size_t i = 0; i < v.size(); ++i) {
    K8sVolume vol;
    Status st = ParseVolume(v[i], key + "[" + std::to_string(i) + "]", c, &vol);
    if (!st.ok()) return st;
    bool replaced = false;
    for (auto& old : o->volumes) {
      if (old.name == vol.name) {
        old = vol;
        replaced = true;
      }
    }
    if (!replaced) o->volumes.push_back(vol);
  }
  return Status::OK();
}

Status SetCustomResource(const json& v, const std::string& key, const Ctx& c, K8sOptions* o) {
  if (!v.is_object()) return KeyError(c, key, "a mapping (api_version, plural, pod_selector...)" + Got(v));
  CustomResourceSpec& cr = o->custom_resource;
  const std::vector<std::pair<std::string, std::string*>> texts = {{"api_version", &cr.api_version},
                                                                   {"plural", &cr.plural},
                                                                   {"pod_selector", &cr.pod_selector},
                                                                   {"state_field", &cr.state_field}};
  const std::vector<std::pair<std::string, std::vector<std::string>*>> lists = {{"queued_values", &cr.queued_values},
                                                                                {"running_values", &cr.running_values},
                                                                                {"success_values", &cr.success_values},
                                                                                {"failure_values", &cr.failure_values}};
  std::vector<std::string> keys;
  for (const auto& [k, p] : texts) keys.push_back(k);
  for (const auto& [k, p] : lists) keys.push_back(k);
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& k = it.key();
    const json& x = it.value();
    std::string sub = key + "." + k;
    auto text = std::find_if(texts.begin(), texts.end(), [&](const auto& e) { return e.first == k; });
    auto list = std::find_if(lists.begin(), lists.end(), [&](const auto& e) { return e.first == k; });
    if (list != lists.end()) {
      std::vector<std::string> vals;
      if (!x.is_array() || x.empty()) return KeyError(c, sub, "a non-empty list of strings" + Got(x));
      for (const auto& s : x) {
        std::string t;
        if (!ScalarText(s, &t)) return KeyError(c, sub, "a list of strings");
        vals.push_back(t);
      }
      *list->second = vals;
    } else if (text != texts.end()) {
      const std::string* s = JsonStringPtr(x);
      if (!s) return KeyError(c, sub, "a string" + Got(x));
      *text->second = *s;
    } else {
      return Status::Error(c.where + ": " + key + ": unknown key '" + k + "'" + DidYouMean(k, keys));
    }
  }
  return Status::OK();
}

// Keys only a partition may set: the kubeconfig, how files travel, and
// polling. A test may choose another context or namespace (the scheduler
// then speaks to that context's API server).
enum class Scope { kBoth, kPartition, kBatch };

struct KeyDef {
  std::string name;
  Scope scope;
  Setter set;
};

const std::vector<KeyDef>& Keys() {
  using O = K8sOptions;
  static const std::vector<KeyDef> keys = {
      {"kubeconfig", Scope::kPartition, String(&O::kubeconfig)},
      {"context", Scope::kBoth, String(&O::context)},
      {"namespace", Scope::kBoth, String(&O::ns)},
      {"image", Scope::kBoth, String(&O::image)},
      {"cpu_request", Scope::kBoth, Quantity(&O::cpu_request, false)},
      {"cpu_limit", Scope::kBoth, Quantity(&O::cpu_limit, true)},
      {"memory_request", Scope::kBoth, Quantity(&O::memory_request, false)},
      {"memory_limit", Scope::kBoth, Quantity(&O::memory_limit, true)},
      {"memory_default", Scope::kBoth, Quantity(&O::memory_default, false)},
      {"device_resources", Scope::kBoth, StringMap(&O::device_resources, KeyCheck::kNone)},
      {"node_selector", Scope::kBoth, StringMap(&O::node_selector, KeyCheck::kLabel)},
      {"tolerations", Scope::kBoth, Object(&O::tolerations, true)},
      {"affinity", Scope::kBoth, Object(&O::affinity, false)},
      {"image_pull_secrets", Scope::kBoth, SetImagePullSecrets},
      {"service_account_name", Scope::kBoth, String(&O::service_account_name)},
      {"priority_class_name", Scope::kBoth, String(&O::priority_class_name)},
      {"security_context", Scope::kBoth, Object(&O::security_context, false)},
      {"pod_security_context", Scope::kBoth, Object(&O::pod_security_context, false)},
      {"volumes", Scope::kBoth, SetVolumes},
      {"shm_size", Scope::kBoth, Quantity(&O::shm_size, false)},
      {"queue_name", Scope::kBoth, String(&O::queue_name)},
      {"labels", Scope::kBoth, StringMap(&O::labels, KeyCheck::kLabel)},
      {"annotations", Scope::kBoth, StringMap(&O::annotations, KeyCheck::kLabelKey)},
      {"ttl_seconds_after_finished", Scope::kBoth, SetTtl},
      {"keep_failed_jobs", Scope::kBoth, Bool(&O::keep_failed_jobs)},
      {"job_spec_extra", Scope::kBoth, SetJobSpecExtra},
      {"staging_volume", Scope::kPartition, String(&O::staging_volume)},
      {"staging_host_path", Scope::kPartition, String(&O::staging_host_path)},
      {"staging_pod_path", Scope::kPartition, String(&O::staging_pod_path)},
      {"manifest", Scope::kBoth, SetManifest},
      {"keep_name", Scope::kBoth, Bool(&O::keep_name)},
      {"custom_resource", Scope::kBoth, SetCustomResource},
      {"fail_waiting_reasons", Scope::kBoth, StringList(&O::fail_waiting_reasons)},
      {"waiting_grace_s", Scope::kBoth, SetGrace},
      // Polling and faults: read by ParseBatchOptions.
      {"job_submit_timeout", Scope::kBatch, nullptr},
      {"resubmit_on_errors", Scope::kBatch, nullptr},
      {"max_resubmits", Scope::kBatch, nullptr},
      {"min_poll_interval", Scope::kBatch, nullptr},
      {"max_poll_interval", Scope::kBatch, nullptr},
      {"poll_backoff", Scope::kBatch, nullptr},
      {"query_timeout", Scope::kBatch, nullptr},
      {"lost_after", Scope::kBatch, nullptr},
      {"max_query_failure_time", Scope::kBatch, nullptr},
      {"cancel_pending_reasons", Scope::kBatch, nullptr},
  };
  return keys;
}

// Applies the keys of `in` to *o; the polling keys go to *batch.
Status ApplyKeys(const json& in, const Ctx& c, K8sOptions* o, json* batch) {
  for (auto it = in.begin(); it != in.end(); ++it) {
    const std::string& key = it.key();
    const KeyDef* def = nullptr;
    for (const auto& k : Keys())
      if (k.name == key) def = &k;
    if (!def)
      return Status::Error(c.where + ": unknown key '" + key + "' for a Kubernetes partition" +
                           DidYouMean(key, K8sOptionKeys()));
    if (c.test && def->scope != Scope::kBoth)
      return Status::Error(c.where + ": '" + key + "' can only be set in the partition's sched_options");
    if (def->scope == Scope::kBatch) {
      (*batch)[key] = it.value();
      continue;
    }
    Status st = def->set(it.value(), key, c, o);
    if (!st.ok()) return st;
  }
  return Status::OK();
}

// Checks that need several keys together.
Status Validate(const K8sOptions& o, const Ctx& c) {
  if (!o.staging_volume.empty()) {
    if (!StartsWith(o.staging_host_path, "/"))
      return Status::Error(c.where +
                           ": staging_volume needs staging_host_path: the absolute path where this "
                           "host mounts the same volume");
    if (!o.staging_pod_path.empty() && !StartsWith(o.staging_pod_path, "/"))
      return KeyError(c, "staging_pod_path", "an absolute path");
  } else if (!o.staging_host_path.empty() || !o.staging_pod_path.empty()) {
    return Status::Error(c.where +
                         ": staging_host_path and staging_pod_path need staging_volume (the volume "
                         "shared by this host and the pods)");
  }
  if (!o.queue_name.empty() && !IsLabelValue(o.queue_name))
    return KeyError(c, "queue_name", "a Kueue LocalQueue name (a valid label value)");
  return Status::OK();
}

}  // namespace

const std::vector<std::string>& K8sOptionKeys() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& k : Keys()) out.push_back(k.name);
    return out;
  }();
  return names;
}

Result<K8sOptions> ParseK8sOptions(const nlohmann::json& so) {
  K8sOptions o;
  if (so.is_null()) return o;
  Ctx c{"sched_options", false};
  if (!so.is_object()) return Status::Error("sched_options: expected a mapping" + Got(so));
  json batch = json::object();
  Status st = ApplyKeys(so, c, &o, &batch);
  if (!st.ok()) return st;
  auto b = ParseBatchOptions(batch);
  if (!b.ok()) return b.status();
  o.batch = *b;
  st = Validate(o, c);
  if (!st.ok()) return st;
  return o;
}

Result<K8sOptions> ApplyTestK8s(const K8sOptions& base, const nlohmann::json& test_k8s, const std::string& what) {
  Ctx c{what.empty() ? "k8s" : what + ": k8s", true};
  if (test_k8s.is_null()) return base;
  if (!test_k8s.is_object()) return Status::Error(c.where + ": expected a mapping" + Got(test_k8s));
  K8sOptions o = base;
  json batch = json::object();
  Status st = ApplyKeys(test_k8s, c, &o, &batch);
  if (!st.ok()) return st;
  st = Validate(o, c);
  if (!st.ok()) return st;
  return o;
}

CustomResourceSpec CustomResourceDefaults(const CustomResourceSpec& given, const std::string& api_version,
                                          const std::string& kind) {
  CustomResourceSpec d;
  std::string group = api_version.substr(0, api_version.find('/'));
  if (group == "graphcore.ai" && kind == "IPUJob") {
    // Graphcore's IPU Operator: the CRD's printer column `status` is
    // .status.launcherStatus, and an ended job shows Completed (see
    // docs/k8s-manifests.md, "Graphcore IPUJob", for the sources and for
    // which values are not documented publicly).
    d.plural = "ipujobs";
    d.state_field = "status.launcherStatus";
    d.queued_values = {"", "Pending"};
    d.running_values = {"Running"};
    d.success_values = {"Completed", "Succeeded"};
    d.failure_values = {"Failed", "Error"};
  } else {
    d.state_field = "status.state";
    d.queued_values = {"", "Pending", "Queued", "Created", "Submitted", "Waiting"};
    d.running_values = {"Running"};
    d.success_values = {"Completed", "Succeeded"};
    d.failure_values = {"Failed", "Error"};
  }
  CustomResourceSpec out = given;
  if (out.plural.empty()) out.plural = d.plural;
  if (out.state_field.empty()) out.state_field = d.state_field;
  for (auto [mine, dflt] : {std::pair{&out.queued_values, &d.queued_values},
                            {&out.running_values, &d.running_values},
                            {&out.success_values, &d.success_values},
                            {&out.failure_values, &d.failure_values}})
    if (mine->empty()) *mine = *dflt;
  return out;
}

}  // namespace hb
