#include "model/bind.h"

#include <algorithm>

#include "check/sanity.h"
#include "model/expand.h"
#include "model/field_merge.h"
#include "model/placeholder.h"
#include "sched/scheduler_factory.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

// Fields that decide which cases exist: never bound, never overridden.
const std::set<std::string>& FixedFields() {
  static const std::set<std::string> k = {
      "name",      "extends",   "abstract",  "parameters", "valid_systems", "valid_environs", "valid_prog_environs",
      "variables", "overrides", "depends_on"};
  return k;
}

// Fields whose values are shell text: substituted values are quoted.
bool QuotedField(const std::string& field) {
  static const std::set<std::string> k = {"executable",    "executable_opts", "prerun_cmds", "postrun_cmds",
                                          "prebuild_cmds", "postbuild_cmds",  "env_vars",    "launcher_options"};
  return k.count(field) > 0;
}

// Inside build_system and container_platform, the keys that are shell text.
bool QuotedSubkey(const std::string& field, const std::string& key) {
  static const std::set<std::string> kBuild = {"cppflags", "cflags",       "cxxflags",   "fflags",      "ldflags",
                                               "options",  "targets",      "commands",   "config_opts", "make_opts",
                                               "specs",    "install_opts", "easyconfigs"};
  if (field == "build_system") return kBuild.count(key) > 0;
  if (field == "container_platform") return key == "command";
  return false;
}

template <typename F>
void ForEachScalar(const YAML::Node& n, const F& f) {
  if (n.IsScalar()) {
    f(n);
  } else if (n.IsMap()) {
    for (const auto& kv : n) ForEachScalar(kv.second, f);
  } else if (n.IsSequence()) {
    for (const auto& x : n) ForEachScalar(x, f);
  }
}

bool HasBracesDeep(const YAML::Node& n) {
  bool any = false;
  ForEachScalar(n, [&](const YAML::Node& s) { any = any || HasBraces(s.Scalar()); });
  return any;
}

// The typed value of a scalar as written: quoted scalars are strings.
Value ScalarValue(const YAML::Node& n) {
  if (n.Tag() == "!") return Value::Str(n.Scalar());
  return ValueFromYamlScalar(n.Scalar());
}

std::string Where(const TestCase& c) {
  return "case '" + c.display_name + "' on " + c.system + ":" + c.partition + "+" + c.environ;
}

const std::vector<std::string>& LazyFields() {
  static const std::vector<std::string> k = {"num_tasks",         "num_tasks_per_node", "num_cpus_per_task",
                                             "num_gpus_per_node", "executable",         "sourcesdir"};
  return k;
}

// The value of one of LazyFields() in a bound spec.
Value FieldValue(const TestSpec& s, const std::string& name) {
  if (name == "num_tasks") return Value::Int(s.num_tasks);
  if (name == "num_tasks_per_node") return Value::Int(s.num_tasks_per_node ? s.num_tasks_per_node : s.num_tasks);
  if (name == "num_cpus_per_task") return Value::Int(s.num_cpus_per_task ? s.num_cpus_per_task : 1);
  if (name == "num_gpus_per_node") return Value::Int(s.num_gpus_per_node);
  if (name == "executable") return Value::Str(s.executable);
  return Value::Str(s.sourcesdir);
}

}  // namespace

std::optional<Value> CaseValue(const TestCase& c, const std::string& name) {
  if (c.names) {
    auto it = c.names->values.find(name);
    if (it != c.names->values.end()) return it->second;
  }
  const auto& lazy = LazyFields();
  if (std::find(lazy.begin(), lazy.end(), name) != lazy.end()) return FieldValue(*c.spec, name);
  return std::nullopt;
}

std::vector<std::string> CaseValueNames(const TestCase& c) {
  std::vector<std::string> out = LazyFields();
  if (c.names)
    for (const auto& [k, v] : c.names->values) out.push_back(k);
  return out;
}

bool IsRunName(const std::string& name) {
  static const std::set<std::string> k = {"stagedir", "outputdir", "prefix", "session", "repetition"};
  return k.count(name) > 0 || StartsWith(name, "deps.");
}

namespace {
// Names the partition gives (PartitionView::values): processor.*,
// devices.* and system.resourcesdir.
bool IsPartitionName(const std::string& name) {
  return StartsWith(name, "processor.") || StartsWith(name, "devices.") || name == "system.resourcesdir";
}
}  // namespace

bool SpecSource::IsKnown(const std::string& name) const { return known.count(name) > 0 || IsPartitionName(name); }

std::vector<TemplateRef> SpecSource::Scan(const std::string& text) const {
  auto it = scans.find(text);
  if (it != scans.end()) return it->second;
  return ScanTemplate(text, [this](const std::string& n) { return IsKnown(n); });
}

// ---------------------------------------------------------------------------
// Loading.

namespace {

void AddKnownNames(const TestSpec& spec, SpecSource* src) {
  for (const auto& n : BuiltinPlaceholders()) src->known.insert(n);
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    src->known.insert(spec.parameters[i].first);
    if (i >= src->param_values.size()) continue;
    for (const auto& v : src->param_values[i])
      if (v.IsMap())
        for (const auto& kv : v) src->known.insert(spec.parameters[i].first + "." + kv.first.Scalar());
  }
  for (const auto& v : spec.variables) src->known.insert(v.name);
  // {deps.TEST.*} names one case's folders: not for all variants of TEST.
  for (const auto& d : spec.dependencies) {
    if (d.all) continue;
    src->known.insert("deps." + d.test + ".stagedir");
    src->known.insert("deps." + d.test + ".outputdir");
  }
}

Status CheckRefNames(const SpecSource& src, const std::vector<TemplateRef>& refs, const std::string& text,
                     const SourceMark& mark, const std::string& field) {
  std::vector<std::string> known(src.known.begin(), src.known.end());
  for (const auto& ref : refs) {
    for (const auto& n : ref.expr.names()) {
      if (src.IsKnown(n)) continue;
      std::string hint = DidYouMean(n, known);
      if (StartsWith(n, "deps."))
        hint =
            "; a dependency's folders are {deps.TEST.stagedir} and {deps.TEST.outputdir} for a TEST in depends_on "
            "that names one case (not {test: TEST, variants: all})";
      std::string shown(text.substr(ref.begin, ref.end - ref.begin));
      std::string in = shown == "{" + n + "}" ? "" : " in '" + shown + "'";
      return Status::Error(
          mark, field + ": unknown placeholder '{" + n + "}'" + in + hint + " (write {{ and }} for literal braces)");
    }
  }
  return Status::OK();
}

Status ScanField(const std::string& field, const FieldNode& fn, bool check, SpecSource* src) {
  Status st;
  ForEachScalar(fn.value, [&](const YAML::Node& n) {
    if (!st.ok() || !HasBraces(n.Scalar())) return;
    const std::string& text = n.Scalar();
    if (!src->scans.count(text))
      src->scans[text] = ScanTemplate(text, [src](const std::string& x) { return src->IsKnown(x); });
    const auto& refs = src->scans[text];
    for (const auto& ref : refs)
      for (const auto& name : ref.expr.names())
        src->uses_run_values = src->uses_run_values || IsRunName(name) || IsPartitionName(name);
    if (check) st = CheckRefNames(*src, refs, text, MarkOf(n, fn.file), field);
  });
  return st;
}

// A derived performance variable names only other variables, parameters,
// variables and the case's identity.
Status CheckDerived(const TestSpec& spec, const SpecSource& src) {
  std::vector<std::string> names;
  for (const auto& p : spec.performance) names.push_back(p.name);
  // Besides other performance variables: parameters (and their keys),
  // variables and the case's identity.
  std::set<std::string> inputs = {"name", "display_name", "system", "partition", "environ"};
  for (const auto& n : src.known)
    if (!IsRunName(n) && !IsPartitionName(n) &&
        std::find(LazyFields().begin(), LazyFields().end(), n) == LazyFields().end() &&
        std::find(BuiltinPlaceholders().begin(), BuiltinPlaceholders().end(), n) == BuiltinPlaceholders().end())
      inputs.insert(n);
  for (const auto& p : spec.performance) {
    if (p.expr.empty()) continue;
    auto e = Expr::Parse(p.expr);
    if (!e.ok()) return Status::Error(p.mark, "performance: " + p.name + ": expr: " + e.status().message());
    for (const auto& n : e->names()) {
      if (n == p.name)
        return Status::Error(p.mark, "performance: " + p.name + ": expr: a variable cannot derive from itself");
      bool ok = std::find(names.begin(), names.end(), n) != names.end() || inputs.count(n) > 0 || IsPartitionName(n);
      if (!ok) {
        std::vector<std::string> all = names;
        all.insert(all.end(), inputs.begin(), inputs.end());
        return Status::Error(p.mark, "performance: " + p.name + ": expr: '" + n +
                                         "' is not a performance variable, parameter or variable of this test" +
                                         DidYouMean(n, all));
      }
    }
  }
  return Status::OK();
}

}  // namespace

std::set<std::string> TemplatedFields(const FieldMap& fields) {
  std::set<std::string> out;
  for (const auto& [key, fn] : fields)
    if (!FixedFields().count(key) && HasBracesDeep(fn.value)) out.insert(key);
  return out;
}

Status PrepareSource(const TestSpec& spec, SpecSource* src) {
  AddKnownNames(spec, src);
  bool check = !spec.abstract;
  for (const auto& [key, fn] : src->fields) {
    if (FixedFields().count(key) || !HasBracesDeep(fn.value)) continue;
    src->templated.insert(key);
    Status st = ScanField(key, fn, check, src);
    if (!st.ok()) return st;
  }
  for (const auto& o : src->overrides) {
    for (const auto& [key, fn] : o.fields) {
      if (FixedFields().count(key))
        return Status::Error(MarkOf(fn.key, fn.file), "overrides: '" + o.key + "': '" + key +
                                                          "' cannot be set per system: it decides which cases exist");
      Status st = ScanField(key, fn, check, src);
      if (!st.ok()) return st;
    }
  }
  return check ? CheckDerived(spec, *src) : Status::OK();
}

bool IsParamToken(const std::string& tok) {
  size_t eq = tok.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (size_t i = 0; i < eq; ++i)
    if (!std::isalnum(static_cast<unsigned char>(tok[i])) && tok[i] != '_') return false;
  return true;
}

bool OverrideMatches(const OverrideEntry& o, const PartitionView& p, const EnvironView& e, const TestCase& c) {
  for (const auto& tok : o.tokens) {
    bool ok;
    if (StartsWith(tok, "env:")) {
      ok = tok.substr(4) == e.name;
    } else if (StartsWith(tok, "sched:")) {
      ok = CanonicalSchedulerName(tok.substr(6)) == p.scheduler;  // sched:kubernetes is sched:k8s
    } else if (IsParamToken(tok)) {
      size_t eq = tok.find('=');
      const std::string* v = c.Param(tok.substr(0, eq));
      ok = v && *v == tok.substr(eq + 1);
    } else {
      ok = ValidSystemsMatch({tok}, p);
    }
    if (!ok) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Binding one case.

namespace {

class Binder {
 public:
  Binder(const TestSpec& tmpl, const TestCase& c, const CaseNames& names, const RunValues* run)
      : tmpl_(tmpl), src_(*tmpl.source), c_(c), names_(names), run_(run) {}

  Result<std::shared_ptr<const TestSpec>> Bind();
  // Every field after overrides, -S and placeholders, as YAML.
  Result<FieldMap> BindAll();
  // The merged fields (after overrides and -S), for the variables.
  Status Merge();
  const FieldMap& fields() const { return fields_; }

 private:
  Status BindField(const std::string& key);
  Status Substitute(YAML::Node n, const std::string& file, const std::string& field, bool quote);
  Result<std::optional<std::string>> ValueOf(const TemplateRef& ref, const std::string& text, bool quote,
                                             std::optional<Value>* whole);
  std::optional<Value> Lookup(const std::string& name);
  std::optional<Value> LazyField(const std::string& name);
  Status Context(const Status& st) const;

  const TestSpec& tmpl_;
  const SpecSource& src_;
  const TestCase& c_;
  const CaseNames& names_;
  const RunValues* run_;
  FieldMap fields_;
  std::set<std::string> dirty_;
  std::map<std::string, int> state_;  // 1 = being bound, 2 = bound
  std::shared_ptr<TestSpec> out_;
  Status pending_;  // an error found while looking a name up
  std::string field_;
  std::vector<std::string> path_;  // keys from the field down to the scalar being bound
  bool deferred_ = false;          // a placeholder of the field being bound was left for the run
  FieldMap* keep_ = nullptr;       // BindAll: where each bound field's YAML goes
  SourceMark mark_;                // of the scalar being bound
};

Status Binder::Merge() {
  fields_ = src_.fields;
  for (size_t i : c_.overrides) {
    const OverrideEntry& o = src_.overrides[i];
    Status st = MergeFieldsInto(o.fields, &fields_);
    if (!st.ok()) return st;
    for (const auto& [k, fn] : o.fields) dirty_.insert(k);
  }
  if (!c_.overrides.empty()) {
    // -S wins over overrides: apply it again.
    for (const auto& so : src_.setvars) {
      fields_.erase(so.field);
      fields_.emplace(so.field, FieldNode{YAML::Node(so.field), so.value, so.option});
    }
    ResolveListOps(&fields_);
  }
  dirty_.insert(src_.templated.begin(), src_.templated.end());
  return Status::OK();
}

Result<std::shared_ptr<const TestSpec>> Binder::Bind() {
  Status st = Merge();
  if (!st.ok()) return st;
  out_ = std::make_shared<TestSpec>(tmpl_);
  for (const auto& key : dirty_) {
    if (FixedFields().count(key)) continue;
    st = BindField(key);
    if (!st.ok()) return st;
  }
  st = FinishTestSpec(out_.get(), true);
  if (st.ok()) st = CheckTestChecks(*out_);
  if (!st.ok()) return Context(st);
  return std::shared_ptr<const TestSpec>(out_);
}

Result<FieldMap> Binder::BindAll() {
  Status st = Merge();
  if (!st.ok()) return st;
  out_ = std::make_shared<TestSpec>(tmpl_);
  FieldMap bound;
  keep_ = &bound;
  for (const auto& [key, fn] : fields_) {
    if (FixedFields().count(key)) continue;
    st = BindField(key);
    if (!st.ok()) return st;
  }
  keep_ = nullptr;
  return bound;
}

Status Binder::Context(const Status& st) const {
  if (st.ok() || st.message().find("(case '") != std::string::npos) return st;
  return Status::Error(st.mark(), st.message() + " (" + Where(c_) + ")");
}

Status Binder::BindField(const std::string& key) {
  int& state = state_[key];
  if (state == 2) return Status::OK();
  if (state == 1) return Status::Error(tmpl_.mark, key + ": its placeholders refer to " + key + " itself");
  state = 1;
  auto it = fields_.find(key);
  if (it == fields_.end()) {  // removed by an override
    state = 2;
    return Status::OK();
  }
  const FieldNode& fn = it->second;
  // Never assign to a FieldNode or YAML::Node that refers to the test's
  // fields: yaml-cpp would rewrite the shared node itself.
  bool braces = HasBracesDeep(fn.value);
  YAML::Node value = braces ? CloneWithMarks(fn.value) : fn.value;  // a clone is ours to rewrite; it keeps the marks
  deferred_ = false;
  if (braces) {
    Status st = Substitute(value, fn.file, key, QuotedField(key));
    if (!st.ok()) return Context(st);
  }
  if (keep_) keep_->emplace(key, FieldNode{fn.key, value, fn.file});
  TestSpec before = deferred_ && !run_ ? *out_ : TestSpec();
  Status st = ParseTestField(key, FieldNode{fn.key, value, fn.file}, out_.get());
  state = 2;
  // A field that still waits for a run-time value (an integer written
  // '{processor.num_cpus // 2}' on a partition not detected yet) is parsed
  // when the case runs.
  if (!st.ok() && deferred_ && !run_) {
    *out_ = std::move(before);
    return Status::OK();
  }
  return Context(st);
}

Status Binder::Substitute(YAML::Node n, const std::string& file, const std::string& field, bool quote) {
  field_ = field;
  if (n.IsMap()) {
    for (auto kv : n) {
      bool q = quote || (kv.first.IsScalar() && QuotedSubkey(field, kv.first.Scalar()));
      path_.push_back(kv.first.IsScalar() ? kv.first.Scalar() : "");
      Status st = Substitute(kv.second, file, field, q);
      path_.pop_back();
      if (!st.ok()) return st;
    }
    return Status::OK();
  }
  if (n.IsSequence()) {
    for (auto x : n) {
      Status st = Substitute(x, file, field, quote);
      if (!st.ok()) return st;
    }
    return Status::OK();
  }
  if (!n.IsScalar() || !HasBraces(n.Scalar())) return Status::OK();
  const std::string text = n.Scalar();
  auto refs = src_.Scan(text);
  bool whole = IsWholePlaceholder(text, refs);
  mark_ = MarkOf(n, file);
  std::optional<Value> whole_value;
  auto out = RenderTemplate(
      text, refs, [&](const TemplateRef& ref) { return ValueOf(ref, text, quote, whole ? &whole_value : nullptr); });
  if (!out.ok()) return Status::Error(mark_, field + ": " + out.status().message());
  n = *out;  // rewrites the copy's scalar in place
  // A lone placeholder keeps its value's type (an int stays a number in a
  // manifest); text around a placeholder makes a string.
  bool typed = whole_value && whole_value->type() != Value::Type::kStr && !quote;
  n.SetTag(typed ? "?" : "!");
  return Status::OK();
}

Result<std::optional<std::string>> Binder::ValueOf(const TemplateRef& ref, const std::string& text, bool quote,
                                                   std::optional<Value>* whole) {
  // In a custom resource's pod_selector, {name} is the created object's
  // name, which the Kubernetes backend fills in (docs/k8s-manifests.md).
  bool object_name = field_ == "k8s" && path_ == std::vector<std::string>{"custom_resource", "pod_selector"};
  for (const auto& n : ref.expr.names()) {
    if (object_name && n == "name") return std::optional<std::string>();
    // Known only when the case runs; processor.* and devices.* may be
    // found by remote_detect after loading.
    bool later = IsRunName(n) || (IsPartitionName(n) && !names_.values.count(n));
    if (!run_ && later) {
      deferred_ = true;
      return std::optional<std::string>();
    }
  }
  pending_ = Status::OK();
  auto v = ref.expr.Eval([this](const std::string& n) { return Lookup(n); });
  std::string shown = text.substr(ref.begin, ref.end - ref.begin);
  if (!pending_.ok()) return Status::Error("'" + shown + "': " + pending_.message());
  if (!v.ok()) return Status::Error("'" + shown + "': " + v.status().message());
  if (whole) *whole = *v;
  std::string s = FormatValue(*v);
  return std::optional<std::string>(quote ? ShellQuote(s) : s);
}

std::optional<Value> Binder::Lookup(const std::string& name) {
  if (run_ && IsRunName(name)) {
    if (name == "stagedir") return Value::Str(run_->stagedir);
    if (name == "outputdir") return Value::Str(run_->outputdir);
    if (name == "prefix") return Value::Str(run_->prefix);
    if (name == "session") return Value::Str(run_->session);
    if (name == "repetition") return Value::Int(run_->repetition);
    auto parts = Split(name, '.');
    auto it = parts.size() == 3 ? run_->deps.find(parts[1]) : run_->deps.end();
    if (it == run_->deps.end()) return std::nullopt;
    return Value::Str(parts[2] == "stagedir" ? it->second.first : it->second.second);
  }
  auto it = names_.values.find(name);
  if (it != names_.values.end()) return it->second;
  if (run_ && run_->partition) {
    auto pv = run_->partition->find(name);
    if (pv != run_->partition->end()) return pv->second;
  }
  if (auto v = LazyField(name)) return v;
  if (!pending_.ok()) return std::nullopt;
  if (StartsWith(name, "processor.") || StartsWith(name, "devices."))
    pending_ = Status::Error("partition '" + c_.system + ":" + c_.partition + "' does not define " + name +
                             " (configure it in the site configuration, or run hetbench detect --partition " +
                             c_.system + ":" + c_.partition + ")");
  else if (std::any_of(tmpl_.variables.begin(), tmpl_.variables.end(),
                       [&](const VariableSpec& v) { return v.name == name; }))
    pending_ =
        Status::Error("variable '" + name + "' has no value: give it a default, or set it with -S " + name + "=VALUE");
  return std::nullopt;
}

std::optional<Value> Binder::LazyField(const std::string& name) {
  const auto& lazy = LazyFields();
  if (std::find(lazy.begin(), lazy.end(), name) == lazy.end()) return std::nullopt;
  if (dirty_.count(name)) {
    SourceMark mark = mark_;
    Status st = BindField(name);
    mark_ = mark;
    if (!st.ok()) {
      pending_ = st;
      return std::nullopt;
    }
  }
  return FieldValue(*out_, name);
}

// The case's names: identity, partition values, parameters, variables.
Result<std::shared_ptr<CaseNames>> MakeNames(const TestSpec& tmpl, const PartitionView& p, const TestCase& c,
                                             const FieldMap& fields) {
  auto names = std::make_shared<CaseNames>();
  auto& v = names->values;
  if (p.values) v = *p.values;
  v["name"] = Value::Str(tmpl.name);
  v["display_name"] = Value::Str(c.display_name);
  v["system"] = Value::Str(c.system);
  v["partition"] = Value::Str(c.partition);
  v["environ"] = Value::Str(c.environ);
  const SpecSource& src = *tmpl.source;
  for (size_t i = 0; i < tmpl.parameters.size() && i < c.param_index.size(); ++i) {
    const std::string& pname = tmpl.parameters[i].first;
    const YAML::Node& node = src.param_values[i][c.param_index[i]];
    if (!node.IsMap()) {
      v[pname] = ScalarValue(node);
      continue;
    }
    v[pname] = Value::Str(tmpl.parameters[i].second[c.param_index[i]]);
    for (const auto& kv : node) v[pname + "." + kv.first.Scalar()] = ScalarValue(kv.second);
  }
  for (const auto& var : tmpl.variables) {
    std::optional<std::string> text = var.default_text;
    SourceMark mark = var.mark;
    std::string what = "variables: " + var.name;
    if (auto s = src.variable_setvars.find(var.name); s != src.variable_setvars.end()) {
      text = s->second.raw;
      what = s->second.option;
    }
    if (!text) {
      if (var.required)
        return Status::Error(
            mark, "variable '" + var.name + "' is required: set it with -S " + var.name + "=VALUE (" + Where(c) + ")");
      continue;
    }
    auto val = ConvertVariable(var, *text);
    if (!val.ok()) return Status::Error(mark, what + ": " + val.status().message());
    v[var.name] = *val;
  }
  return names;
}

}  // namespace

Status BindCase(const TestSpec& tmpl, const PartitionView& p, const EnvironView& e, TestCase* c) {
  const SpecSource& src = *tmpl.source;
  c->overrides.clear();
  for (size_t i = 0; i < src.overrides.size(); ++i)
    if (OverrideMatches(src.overrides[i], p, e, *c)) c->overrides.push_back(i);
  CaseNames none;
  Binder merge(tmpl, *c, none, nullptr);
  const FieldMap* fields = &src.fields;
  if (!c->overrides.empty()) {
    Status st = merge.Merge();
    if (!st.ok()) return st;
    fields = &merge.fields();
  }
  auto names = MakeNames(tmpl, p, *c, *fields);
  if (!names.ok()) return names.status();
  c->names = *names;
  c->loggable.clear();
  for (const auto& var : tmpl.variables) {
    auto it = c->names->values.find(var.name);
    if (var.loggable && it != c->names->values.end()) c->loggable.emplace_back(var.name, FormatValue(it->second));
  }
  if (src.templated.empty() && c->overrides.empty()) {
    // Nothing to bind: the case shares the loaded spec (owned by the suite).
    c->spec = std::shared_ptr<const TestSpec>(std::shared_ptr<const TestSpec>(), &tmpl);
    return Status::OK();
  }
  auto bound = Binder(tmpl, *c, *c->names, nullptr).Bind();
  if (!bound.ok()) return bound.status();
  c->spec = *bound;
  return Status::OK();
}

Result<std::shared_ptr<const TestSpec>> BindForRun(const TestCase& c, const RunValues& run) {
  const SpecSource& src = *c.spec->source;
  if (!src.uses_run_values) return c.spec;
  return Binder(*src.tmpl, c, *c.names, &run).Bind();
}

Result<FieldMap> BoundFields(const TestCase& c) {
  return Binder(*c.spec->source->tmpl, c, *c.names, nullptr).BindAll();
}

Result<std::string> BindText(const std::string& text, const TestCase& c) {
  if (!HasBraces(text)) return text;
  auto refs = ScanTemplate(text, [&](const std::string& n) { return c.names->values.count(n) > 0; });
  return RenderTemplate(text, refs, [&](const TemplateRef& ref) -> Result<std::optional<std::string>> {
    auto v = ref.expr.Eval([&](const std::string& n) -> std::optional<Value> {
      auto it = c.names->values.find(n);
      if (it == c.names->values.end()) return std::nullopt;
      return it->second;
    });
    if (!v.ok()) return v.status();
    return std::optional<std::string>(FormatValue(*v));
  });
}

Result<double> EvaluateDerived(const PerfSpec& p, const std::map<std::string, double>& values, const CaseNames& names) {
  auto e = Expr::Parse(p.expr);
  if (!e.ok()) return e.status();
  std::vector<std::string> missing;
  auto v = e->Eval([&](const std::string& n) -> std::optional<Value> {
    auto it = values.find(n);
    if (it != values.end()) return Value::Float(it->second);
    auto nv = names.values.find(n);
    if (nv != names.values.end()) return nv->second;
    missing.push_back(n);
    return std::nullopt;
  });
  if (!missing.empty())
    return Status::Error(p.name + ": derived from " + Join(missing, ", ") + ", which could not be extracted");
  if (!v.ok()) return Status::Error(p.name + ": " + p.expr + ": " + v.status().message());
  if (!v->is_number())
    return Status::Error(p.name + ": " + p.expr + ": gave a " + TypeName(v->type()) + ", not a number");
  return v->as_float();
}

}  // namespace hb
