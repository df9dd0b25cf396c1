#include "config/config_parse.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <regex>

#include "config/config_yaml.h"
#include "config/general_options.h"
#include "config/module_spec.h"
#include "sched/scheduler_factory.h"
#include "util/regex.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

// The keys of ReFrame 4's configuration schema (reframe/schemas/config.json
// and docs/config_reference.rst, up to 4.8), per kind of object.
const std::map<std::string, std::vector<std::string>>& KnownKeys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"system",
       {"name", "descr", "hostnames", "max_local_jobs", "modules_system", "modules", "env_vars", "variables", "prefix",
        "stagedir", "outputdir", "resourcesdir", "partitions", "sched_options"}},
      {"partition", {"name",     "descr",        "scheduler",         "launcher",
                     "access",   "environs",     "container_runtime", "container_platforms",
                     "modules",  "env_vars",     "variables",         "time_limit",
                     "max_jobs", "prepare_cmds", "processor",         "devices",
                     "features", "extras",       "resources",         "sched_options"}},
      {"environment",
       {"name", "modules", "env_vars", "variables", "cc", "cxx", "ftn", "nvcc", "cppflags", "cflags", "cxxflags",
        "fflags", "ldflags", "extras", "features", "target_systems", "prepare_cmds", "resources"}},
      {"processor",
       {"arch", "vendor", "model", "platform", "num_cpus", "num_cpus_per_core", "num_cpus_per_socket", "num_sockets",
        "topology"}},
      {"resource", {"name", "options"}},
      {"container_platform", {"type", "default", "modules", "env_vars", "variables"}},
      {"module", {"name", "collection", "path"}},
      {"mode", {"name", "options", "target_systems"}},
  };
  return keys;
}

// hetbench's own keys, per kind of object.
const std::vector<std::string>& HetbenchKeys(const std::string& kind) {
  static const std::vector<std::string> kNone;
  static const std::vector<std::string> kEnvironment = {"image"};
  static const std::vector<std::string> kPartition = {"launcher_options"};
  if (kind == "partition") return kPartition;
  return kind == "environment" ? kEnvironment : kNone;
}

Status FirstError(std::initializer_list<Status> statuses) {
  for (const auto& s : statuses)
    if (!s.ok()) return s;
  return Status::OK();
}

template <typename T>
Status Assign(Result<T> r, T* out) {
  if (!r.ok()) return r.status();
  *out = std::move(r).value();
  return Status::OK();
}

// The keys of one YAML mapping, read with typed accessors that leave the
// output alone when the key is absent and report errors at the value.
class Fields {
 public:
  Fields(YAML::Node map, std::string file, std::string what)
      : map_(std::move(map)), file_(std::move(file)), what_(std::move(what)) {}

  const std::string& file() const { return file_; }
  const YAML::Node& node() const { return map_; }
  bool Has(const char* key) const { return Get(key).IsDefined(); }
  // Read-only lookup: a missing key gives an undefined node.
  YAML::Node Get(const char* key) const {
    const YAML::Node& map = map_;
    return map[key];
  }
  SourceMark Mark() const { return MarkOf(map_, file_); }
  const YAML::Node& Map() const { return map_; }
  // The same keys, described as `what` in messages.
  Fields Named(std::string what) const { return Fields(map_, file_, std::move(what)); }

  // Every key must be one ReFrame (or hetbench) knows for `kind`.
  Status CheckKeys(const std::string& kind) const {
    std::vector<std::string> known = ReframeKeys(kind);
    const auto& own = HetbenchKeys(kind);
    known.insert(known.end(), own.begin(), own.end());
    for (const auto& kv : map_) {
      std::string key = kv.first.Scalar();
      if (std::find(known.begin(), known.end(), key) == known.end())
        return Status::Error(MarkOf(kv.first, file_), "unknown key '" + key + "' in " + what_ + DidYouMean(key, known));
    }
    return Status::OK();
  }

  Status Str(const char* key, std::string* out) const {
    return Has(key) ? Assign(YamlString(Get(key), file_, key), out) : Status::OK();
  }
  Status List(const char* key, std::vector<std::string>* out) const {
    return Has(key) ? Assign(YamlStringList(Get(key), file_, key), out) : Status::OK();
  }
  Status Int(const char* key, int* out) const {
    if (!Has(key)) return Status::OK();
    Result<long long> v = YamlInt(Get(key), file_, key);
    if (!v.ok()) return v.status();
    if (*v < INT_MIN || *v > INT_MAX)
      return Status::Error(MarkOf(Get(key), file_), std::string(key) + ": " + std::to_string(*v) + " is out of range");
    *out = static_cast<int>(*v);
    return Status::OK();
  }
  Status Object(const char* key, nlohmann::json* out) const {
    if (!Has(key) || Get(key).IsNull()) return Status::OK();
    if (!Get(key).IsMap())
      return Status::Error(MarkOf(Get(key), file_),
                           std::string(key) + ": expected a mapping, got " + YamlTypeName(Get(key)));
    *out = YamlToJson(Get(key));
    return Status::OK();
  }
  Status Duration(const char* key, double* out) const;
  Status Env(EnvVars* out) const;
  Status Modules(std::vector<ModuleSpec>* out) const;
  Status ModulesSystem(std::string* out) const;

 private:
  YAML::Node map_;
  std::string file_, what_;
};

Status Fields::Duration(const char* key, double* out) const {
  if (!Has(key) || Get(key).IsNull()) return Status::OK();
  YAML::Node n = Get(key);
  std::optional<double> secs = n.IsScalar() ? ParseDuration(n.Scalar()) : std::nullopt;
  if (!secs)
    return Status::Error(MarkOf(n, file_), std::string(key) +
                                               ": expected a duration such as '30s', '10m', "
                                               "'1h30m' or '2d', got " +
                                               YamlTypeName(n));
  *out = *secs;
  return Status::OK();
}

// ReFrame's env_vars: a list of [name, value] pairs. A mapping is also
// accepted. The deprecated `variables` is read when env_vars is absent.
Status Fields::Env(EnvVars* out) const {
  const char* key = Has("env_vars") ? "env_vars" : "variables";
  YAML::Node n = Get(key);
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  const std::string expected = std::string(key) + ": expected a list of [name, value] pairs";
  if (n.IsMap()) {
    for (const auto& kv : n) {
      if (!kv.second.IsScalar() && !kv.second.IsNull())
        return Status::Error(MarkOf(kv.second, file_),
                             std::string(key) + ": the value of '" + kv.first.Scalar() + "' must be a scalar");
      out->emplace_back(kv.first.Scalar(), kv.second.IsScalar() ? kv.second.Scalar() : "");
    }
    return Status::OK();
  }
  if (!n.IsSequence()) return Status::Error(MarkOf(n, file_), expected + " or a mapping, got " + YamlTypeName(n));
  for (const auto& pair : n) {
    if (!pair.IsSequence() || pair.size() != 2 || !pair[0].IsScalar() || !pair[1].IsScalar())
      return Status::Error(MarkOf(pair, file_), expected + ", but an item is " + YamlTypeName(pair));
    out->emplace_back(pair[0].Scalar(), pair[1].Scalar());
  }
  return Status::OK();
}

// ReFrame's module objects: names, or {name, collection, path} mappings
// (with hetbench's swap and unload; config/module_spec.h).
Status Fields::Modules(std::vector<ModuleSpec>* out) const {
  return Has("modules") ? Assign(ParseModuleList(Get("modules"), file_, what_), out) : Status::OK();
}

// modules_system: one of the names ReFrame's schema allows (or envmod).
Status Fields::ModulesSystem(std::string* out) const {
  Status s = Str("modules_system", out);
  if (!s.ok() || !Has("modules_system")) return s;
  const auto& names = ModulesSystemNames();
  if (std::find(names.begin(), names.end(), *out) != names.end()) return Status::OK();
  return Status::Error(MarkOf(Get("modules_system"), file_),
                       "modules_system: '" + *out + "' is not a module system hetbench knows; expected one of " +
                           Join(names, ", ") + DidYouMean(*out, names));
}

// The required, non-empty `name` of an object; `what` describes it.
Status RequireName(const Fields& f, const std::string& what, std::string* name) {
  if (!f.Has("name")) return Status::Error(f.Mark(), what + " without a name");
  Status s = f.Str("name", name);
  if (!s.ok()) return s;
  if (name->empty()) return Status::Error(MarkOf(f.Get("name"), f.file()), what + " with an empty name");
  if (name->find(':') != std::string::npos)
    return Status::Error(MarkOf(f.Get("name"), f.file()),
                         "the name '" + *name + "' must not contain ':' (it separates system:partition)");
  // Names become folder names (PREFIX/stage/SESSION/SYSTEM/PARTITION/
  // ENVIRON/...) and perflog paths: no '/', no '..', nothing a path or a
  // terminal would read otherwise.
  static const std::string kOk = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.+@";
  if (name->find_first_not_of(kOk) != std::string::npos || (*name)[0] == '.') {
    std::string shown;
    for (unsigned char c : *name) {
      if (c >= 0x20 && c < 0x7f) {
        shown += static_cast<char>(c);
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02X", c);
        shown += hex;
      }
    }
    return Status::Error(MarkOf(f.Get("name"), f.file()),
                         "the name '" + shown + "' of " + what +
                             " is not valid: it names folders, so use letters, digits and _ - . + @, not starting "
                             "with '.'");
  }
  return Status::OK();
}

Status RequireKey(const Fields& f, const char* key, const std::string& what) {
  if (f.Has(key)) return Status::OK();
  return Status::Error(f.Mark(), what + " lacks the required key '" + key + "'");
}

// A list of mappings under `key`, each handed to `each` with its Fields.
template <typename Each>
Status ForEachMap(const Fields& f, const char* key, const std::string& what, Each each) {
  YAML::Node list = f.Get(key);
  if (!list.IsDefined() || list.IsNull()) return Status::OK();
  if (!list.IsSequence())
    return Status::Error(MarkOf(list, f.file()), std::string(key) + ": expected a list, got " + YamlTypeName(list));
  for (const auto& item : list) {
    if (!item.IsMap())
      return Status::Error(MarkOf(item, f.file()),
                           std::string(key) + ": expected a list of mappings, but an item is " + YamlTypeName(item));
    Status s = each(Fields(item, f.file(), what));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status ParseProcessor(const Fields& parent, Processor* p) {
  YAML::Node n = parent.Get("processor");
  if (!n.IsDefined() || n.IsNull()) return Status::OK();
  if (!n.IsMap())
    return Status::Error(MarkOf(n, parent.file()), "processor: expected a mapping, got " + YamlTypeName(n));
  Fields f(n, parent.file(), "processor");
  Status s = FirstError({f.CheckKeys("processor"), f.Str("arch", &p->arch), f.Str("vendor", &p->vendor),
                         f.Str("model", &p->model), f.Str("platform", &p->platform), f.Int("num_cpus", &p->num_cpus),
                         f.Int("num_cpus_per_core", &p->num_cpus_per_core),
                         f.Int("num_cpus_per_socket", &p->num_cpus_per_socket), f.Int("num_sockets", &p->num_sockets)});
  if (s.ok() && f.Has("topology")) p->topology = YamlToJson(f.Get("topology"));
  return s;
}

Status ParseDevices(const Fields& f, std::vector<Device>* out) {
  return ForEachMap(f, "devices", "device", [&](const Fields& d) {
    Device dev;
    Status s = FirstError({d.Str("type", &dev.type), d.Str("arch", &dev.arch), d.Str("model", &dev.model),
                           d.Int("num_devices", &dev.num_devices)});
    out->push_back(dev);
    return s;
  });
}

Status ParseResources(const Fields& f, std::vector<ResourceTemplate>* out) {
  return ForEachMap(f, "resources", "resource", [&](const Fields& r) {
    ResourceTemplate res;
    Status s =
        FirstError({r.CheckKeys("resource"), RequireName(r, "resource", &res.name), r.List("options", &res.options)});
    out->push_back(res);
    return s;
  });
}

// A container platform type as written at `n`: one of
// ContainerPlatformTypes() in any case, stored as spelled there.
Status ContainerType(const YAML::Node& n, const std::string& file, const std::string& key, std::string* out) {
  auto name = YamlString(n, file, key);
  if (!name.ok()) return name.status();
  *out = CanonicalContainerPlatform(*name);
  if (!out->empty()) return Status::OK();
  const auto& known = ContainerPlatformTypes();
  return Status::Error(MarkOf(n, file), key + ": unknown container platform '" + *name + "'" +
                                            DidYouMean(*name, known) + " (known: " + Join(known, ", ") + ")");
}

// container_platforms: [{type, default, modules, env_vars}] (ReFrame's), and
// the older container_runtime: the default platform's type.
Status ParseContainerPlatforms(const Fields& f, Partition* p) {
  if (f.Has("container_runtime") && !f.Get("container_runtime").IsNull()) {
    Status s = ContainerType(f.Get("container_runtime"), f.file(), "container_runtime", &p->container_runtime);
    if (!s.ok()) return s;
  }
  Status s = ForEachMap(f, "container_platforms", "container platform", [&](const Fields& c) {
    ContainerPlatform cp;
    cp.mark = c.Mark();
    Status s = FirstError({c.CheckKeys("container_platform"), RequireKey(c, "type", "a container_platforms entry")});
    if (s.ok()) s = ContainerType(c.Get("type"), c.file(), "container_platforms: type", &cp.type);
    if (s.ok() && c.Has("default"))
      s = Assign(YamlBool(c.Get("default"), c.file(), "container_platforms: default"), &cp.is_default);
    if (s.ok()) s = FirstError({c.Modules(&cp.modules), c.Env(&cp.env_vars)});
    if (!s.ok()) return s;
    for (const auto& prev : p->container_platforms) {
      if (prev.type == cp.type)
        return Status::Error(
            cp.mark, "container_platforms: '" + cp.type + "' is listed twice (first at " + prev.mark.str() + ")");
      if (prev.is_default && cp.is_default)
        return Status::Error(cp.mark, "container_platforms: both '" + prev.type + "' and '" + cp.type +
                                          "' are marked default: true; mark one");
    }
    p->container_platforms.push_back(std::move(cp));
    return Status::OK();
  });
  // A container_runtime without an entry of its own: that platform, with
  // no modules or variables.
  if (s.ok() && !p->container_runtime.empty() && !p->FindContainerPlatform(p->container_runtime)) {
    ContainerPlatform cp;
    cp.type = p->container_runtime;
    cp.mark = MarkOf(f.Get("container_runtime"), f.file());
    p->container_platforms.push_back(cp);
  }
  return s;
}

// ReFrame 4.6+ adds the scheduler and launcher to a partition's extras.
void AddDefaultExtras(Partition* p) {
  if (!p->extras.is_object()) p->extras = nlohmann::json::object();
  if (!p->extras.contains("scheduler")) p->extras["scheduler"] = p->scheduler;
  if (!p->extras.contains("launcher")) p->extras["launcher"] = p->launcher;
}

Result<Partition> ParsePartition(const Fields& unnamed, const std::string& system) {
  Partition p;
  p.mark = unnamed.Mark();
  Status s = RequireName(unnamed, "partition of system '" + system + "'", &p.name);
  if (!s.ok()) return s;
  std::string what = "partition '" + system + ":" + p.name + "'";
  Fields f = unnamed.Named(what);
  s = FirstError({f.CheckKeys("partition"),
                  RequireKey(f, "scheduler", what),
                  RequireKey(f, "launcher", what),
                  f.Str("descr", &p.descr),
                  f.Str("scheduler", &p.scheduler),
                  f.Str("launcher", &p.launcher),
                  f.List("access", &p.access),
                  f.List("launcher_options", &p.launcher_options),
                  f.List("environs", &p.environs),
                  f.List("features", &p.features),
                  f.Modules(&p.modules),
                  f.List("prepare_cmds", &p.prepare_cmds),
                  f.Env(&p.env_vars),
                  f.Int("max_jobs", &p.max_jobs),
                  f.Duration("time_limit", &p.time_limit_s),
                  f.Object("extras", &p.extras),
                  f.Object("sched_options", &p.sched_options),
                  ParseResources(f, &p.resources),
                  ParseProcessor(f, &p.processor),
                  ParseDevices(f, &p.devices),
                  ParseContainerPlatforms(f, &p)});
  if (!s.ok()) return s;
  // Aliases become the backend's own name here, once ("kubernetes" is
  // "k8s", "pbspro" is "pbs"); an unknown name is reported, with the
  // partition's place, before anything runs (Executor::Prepare).
  p.scheduler = CanonicalSchedulerName(p.scheduler);
  // Its sched_options, as the backend reads them, with their places.
  auto backend = FindSchedulerBackend(p.scheduler);
  // Checked when absent too: the ssh backend needs its hosts.
  if (backend.ok() && (*backend)->check_options) {
    JsonMarks marks;
    nlohmann::json so =
        f.Has("sched_options") ? YamlToJson(f.Get("sched_options"), f.file(), &marks) : nlohmann::json();
    Status st = (*backend)->check_options(JsonField(so, "sched_options", &marks));
    if (!st.ok()) return Status::Error(st.mark().known() ? st.mark() : f.Mark(), what + ": " + st.message());
  }
  AddDefaultExtras(&p);
  p.raw = YamlToJson(f.node());
  return p;
}

// hostnames are regular expressions; ReFrame matches them with re.match.
Status CheckHostnames(const Fields& f) {
  YAML::Node list = f.Get("hostnames");
  std::vector<YAML::Node> patterns;
  if (list.IsScalar()) patterns.push_back(list);
  if (list.IsSequence())
    for (const auto& h : list) patterns.push_back(h);
  for (const auto& h : patterns) {
    auto re = Regex::Compile(h.Scalar());
    if (!re.ok()) return Status::Error(MarkOf(h, f.file()), "hostnames: " + re.status().message());
  }
  return Status::OK();
}

Status ParsePartitions(const Fields& f, System* sys) {
  YAML::Node list = f.Get("partitions");
  if (!list.IsDefined() || list.IsNull() || (list.IsSequence() && list.size() == 0))
    return Status::Error(list.IsDefined() ? MarkOf(list, f.file()) : f.Mark(),
                         "system '" + sys->name + "' has no partitions (ReFrame requires at least one)");
  return ForEachMap(f, "partitions", "partition", [&](const Fields& pf) {
    Result<Partition> p = ParsePartition(pf, sys->name);
    if (!p.ok()) return p.status();
    if (const Partition* prev = sys->FindPartition(p->name))
      return Status::Error(MarkOf(pf.Get("name"), f.file()), "partition '" + p->name +
                                                                 "' is defined twice in system '" + sys->name +
                                                                 "' (first at " + prev->mark.str() + ")");
    sys->partitions.push_back(std::move(p).value());
    return Status::OK();
  });
}

Result<System> ParseSystem(const Fields& unnamed) {
  System sys;
  sys.mark = unnamed.Mark();
  Status s = RequireName(unnamed, "system", &sys.name);
  if (!s.ok()) return s;
  std::string what = "system '" + sys.name + "'";
  Fields f = unnamed.Named(what);
  s = FirstError({f.CheckKeys("system"), RequireKey(f, "hostnames", what), f.Str("descr", &sys.descr),
                  f.List("hostnames", &sys.hostnames), f.ModulesSystem(&sys.modules_system), f.Modules(&sys.modules),
                  f.Env(&sys.env_vars), f.Str("prefix", &sys.prefix), f.Str("stagedir", &sys.stagedir),
                  f.Str("outputdir", &sys.outputdir), f.Str("resourcesdir", &sys.resourcesdir)});
  if (s.ok()) s = CheckHostnames(f);
  if (s.ok()) s = ParsePartitions(f, &sys);
  if (!s.ok()) return s;
  sys.raw = YamlToJson(f.node());
  return sys;
}

Result<Environment> ParseEnvironment(const Fields& unnamed) {
  Environment e;
  e.mark = unnamed.Mark();
  Status s = RequireName(unnamed, "environment", &e.name);
  if (!s.ok()) return s;
  Fields f = unnamed.Named("environment '" + e.name + "'");
  s = FirstError({f.CheckKeys("environment"), f.List("target_systems", &e.target_systems), f.Str("cc", &e.cc),
                  f.Str("cxx", &e.cxx), f.Str("ftn", &e.ftn), f.Str("nvcc", &e.nvcc), f.List("cppflags", &e.cppflags),
                  f.List("cflags", &e.cflags), f.List("cxxflags", &e.cxxflags), f.List("fflags", &e.fflags),
                  f.List("ldflags", &e.ldflags), f.Modules(&e.modules), f.List("features", &e.features),
                  f.List("prepare_cmds", &e.prepare_cmds), f.Env(&e.env_vars), f.Str("image", &e.image),
                  f.Object("extras", &e.extras), f.Object("resources", &e.resources)});
  if (!s.ok()) return s;
  e.raw = YamlToJson(f.node());
  return e;
}

Status ParseSystems(const YAML::Node& root, const std::string& file, ConfigFragment* out) {
  Fields top(root, file, "the configuration");
  return ForEachMap(top, "systems", "system", [&](const Fields& f) {
    Result<System> sys = ParseSystem(f);
    if (!sys.ok()) return sys.status();
    for (const auto& prev : out->systems)
      if (prev.name == sys->name)
        return Status::Error(MarkOf(f.Get("name"), file),
                             "system '" + sys->name + "' is defined twice (first at " + prev.mark.str() + ")");
    out->systems.push_back(std::move(sys).value());
    return Status::OK();
  });
}

Status ParseEnvironments(const YAML::Node& root, const std::string& file, ConfigFragment* out) {
  Fields top(root, file, "the configuration");
  return ForEachMap(top, "environments", "environment", [&](const Fields& f) {
    Result<Environment> env = ParseEnvironment(f);
    if (!env.ok()) return env.status();
    out->environments.push_back(std::move(env).value());
    return Status::OK();
  });
}

// modes: [{name, options, target_systems}], as ReFrame's --mode reads them.
Status CheckModes(const YAML::Node& root, const std::string& file) {
  Fields top(root, file, "the configuration");
  return ForEachMap(top, "modes", "mode", [&](const Fields& f) {
    std::string name;
    std::vector<std::string> list;
    return FirstError({RequireName(f, "mode", &name), f.CheckKeys("mode"), f.List("options", &list),
                       f.List("target_systems", &list)});
  });
}

// The keys of `general` hetbench reads, checked here, at load, with
// file:line:column, by the reader every later use goes through
// (general_options.h): a wrong type is never silently ignored, nor found
// only when a run reaches it. ReFrame's other keys are accepted as ReFrame
// accepts them.
Status CheckGeneral(const Fields& f) {
  JsonMarks marks;
  nlohmann::json entry = YamlToJson(f.Map(), f.file(), &marks);
  auto general = ReadGeneralOptions(JsonField(entry, "general", &marks));
  if (!general.ok()) return general.status();
  if (general->module_mappings.empty()) return Status::OK();
  auto mappings = ParseModuleMappings(general->module_mappings);
  if (mappings.ok()) return Status::OK();
  return Status::Error(MarkOf(f.Get("module_mappings"), f.file()),
                       mappings.status().Prefixed("general: module_mappings").message());
}

Status CheckStorage(const Fields& f) {
  std::string text;
  double seconds = 0;
  Status s = FirstError({f.Str("sqlite_db_file", &text), f.Duration("sqlite_conn_timeout", &seconds)});
  if (!s.ok() || !f.Has("enable") || YamlToJson(f.Get("enable")).is_boolean()) return s;
  return Status::Error(MarkOf(f.Get("enable"), f.file()),
                       "enable: expected true or false, got " + YamlTypeName(f.Get("enable")));
}

// logging: its handler lists are lists of mappings with a `type`, checked
// here so that a mistake has its place (each handler's own keys are checked
// where it is made: results/perflog_handlers.cc, results/main_log.cc).
Status CheckLoggingShape(const Fields& f);

LoggingCheck& RegisteredLoggingCheck() {
  static LoggingCheck check;
  return check;
}

Status CheckLogging(const Fields& f) {
  Status shape = CheckLoggingShape(f);
  if (!shape.ok() || !RegisteredLoggingCheck()) return shape;
  Status st = RegisteredLoggingCheck()(YamlToJson(f.Map()));
  if (st.ok()) return st;
  // "logging: handlers_perflog[3] ..." is at that handler.
  const std::string kAt = "logging: handlers_perflog[";
  SourceMark mark = f.Mark();
  if (st.message().rfind(kAt, 0) == 0) {
    size_t i = std::strtoul(st.message().c_str() + kAt.size(), nullptr, 10);
    YAML::Node list = f.Get("handlers_perflog");
    if (list.IsSequence() && i < list.size()) mark = MarkOf(list[i], f.file());
  }
  return Status::Error(mark, st.message());
}

Status CheckLoggingShape(const Fields& f) {
  for (const char* key : {"handlers", "handlers_perflog"}) {
    if (!f.Has(key)) continue;
    YAML::Node list = f.Get(key);
    if (!list.IsSequence())
      return Status::Error(MarkOf(list, f.file()), std::string(key) +
                                                       ": expected a list of handlers such as "
                                                       "[{type: filelog}], got " +
                                                       YamlTypeName(list));
    for (const auto& h : list) {
      if (!h.IsMap() || !h["type"])
        return Status::Error(MarkOf(h, f.file()), std::string(key) +
                                                      ": each handler is a mapping with a 'type' "
                                                      "(e.g. {type: filelog}), got " +
                                                      YamlTypeName(h));
      if (!h["type"].IsScalar())
        return Status::Error(MarkOf(h["type"], f.file()), std::string(key) +
                                                              ": type: expected a handler name such "
                                                              "as filelog, got " +
                                                              YamlTypeName(h["type"]));
    }
  }
  return Status::OK();
}

// general, logging and storage: lists of mappings.
Status CheckScopedSections(const YAML::Node& root, const std::string& file) {
  Fields top(root, file, "the configuration");
  for (const char* section : {"general", "logging", "storage"}) {
    Status s = ForEachMap(top, section, section, [&](const Fields& f) {
      std::vector<std::string> targets;
      Status st = f.List("target_systems", &targets);
      if (st.ok() && std::string(section) == "general") st = CheckGeneral(f);
      if (st.ok() && std::string(section) == "storage") st = CheckStorage(f);
      if (st.ok() && std::string(section) == "logging") st = CheckLogging(f);
      return st;
    });
    if (!s.ok()) return s;
  }
  return Status::OK();
}

}  // namespace

void RegisterLoggingCheck(LoggingCheck check) { RegisteredLoggingCheck() = std::move(check); }

Result<ConfigFragment> ParseConfigDocument(const YAML::Node& root, const std::string& file) {
  ConfigFragment out;
  out.file = file;
  if (!root.IsDefined() || root.IsNull()) return out;
  if (!root.IsMap())
    return Status::Error(MarkOf(root, file),
                         "a configuration file must be a mapping of sections "
                         "(systems, environments, ...), got " +
                             YamlTypeName(root));
  Status s = FirstError({ParseSystems(root, file, &out), ParseEnvironments(root, file, &out), CheckModes(root, file),
                         CheckScopedSections(root, file)});
  if (!s.ok()) return s;
  out.sections = YamlToJson(root);
  return out;
}

const std::vector<std::string>& ReframeKeys(const std::string& kind) {
  static const std::vector<std::string> kNone;
  auto it = KnownKeys().find(kind);
  return it == KnownKeys().end() ? kNone : it->second;
}

}  // namespace hb
