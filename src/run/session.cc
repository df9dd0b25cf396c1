#include "run/session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include "config/config_loader.h"
#include "config/detect.h"
#include "config/topology.h"
#include "model/bind.h"
#include "results/main_log.h"
#include "results/store.h"
#include "sched/scheduler_factory.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/regex.h"
#include "util/strings.h"
#include "util/yaml_util.h"
#include "version.h"

namespace hb {

const System& Session::system() const { return *config.FindSystem(system_name); }

const Partition& Session::partition(const std::string& name) const { return *system().FindPartition(name); }

const Environment* Session::environment(const TestCase& c) const {
  return config.FindEnvironment(c.environ, c.system, c.partition);
}

std::string NewSessionId() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &tm);
  return std::string(buf) + "-" + std::to_string(::getpid());
}

Result<SiteConfig> LoadConfiguration(const std::vector<std::string>& cli_files) {
  std::vector<std::string> files = cli_files.empty() ? ConfigFilesFromEnv() : cli_files;
  if (files.empty()) return GenericConfig();
  auto config = LoadSiteConfig(files);
  if (!config.ok()) return config;
  // Partitions without `processor` or `devices` get the cached topology
  // that `hetbench detect --partition` or remote_detect left.
  for (const auto& w : ApplyTopologyCache(&*config, ProcessEnv))
    std::fprintf(stderr, "hetbench: warning: %s\n", w.c_str());
  return config;
}

// The placeholder names a partition defines: processor.FIELD for each
// field of its processor that is known, and devices.TYPE.num_devices,
// devices.TYPE.arch and devices.TYPE.model for each device type.
std::shared_ptr<const std::map<std::string, Value>> PartitionValues(const System& sys, const Partition& p) {
  auto values = std::make_shared<std::map<std::string, Value>>();
  // ReFrame's current_system.resourcesdir: where a site keeps tests' large
  // inputs ('.' when unset, as in ReFrame); $VARS expand.
  (*values)["system.resourcesdir"] =
      Value::Str(sys.resourcesdir.empty() ? "." : ExpandVars(sys.resourcesdir, ProcessEnv));
  for (const char* f :
       {"arch", "vendor", "model", "platform", "num_cpus", "num_cpus_per_core", "num_cpus_per_socket", "num_sockets"}) {
    auto v = ProcessorField(p.processor, f);
    if (!v) continue;
    Value typed = ValueFromYamlScalar(*v);
    (*values)[std::string("processor.") + f] = typed.type() == Value::Type::kInt ? typed : Value::Str(*v);
  }
  for (const auto& d : p.devices) {
    (*values)["devices." + d.type + ".num_devices"] = Value::Int(d.num_devices);
    if (!d.arch.empty()) (*values)["devices." + d.type + ".arch"] = Value::Str(d.arch);
    if (!d.model.empty()) (*values)["devices." + d.type + ".model"] = Value::Str(d.model);
  }
  return values;
}

namespace {

// A `sys:part` key (of reference or overrides) naming a partition that a
// system of the configuration lacks. Unknown systems are fine.
Status CheckPartitionKey(const std::string& what, const std::string& key, const SiteConfig& config,
                         const SourceMark& mark) {
  size_t colon = key.find(':');
  if (colon == std::string::npos) return Status::OK();
  std::string sys = key.substr(0, colon), part = key.substr(colon + 1);
  const System* s = config.FindSystem(sys);
  if (!s || part == "*" || s->FindPartition(part)) return Status::OK();
  std::vector<std::string> names;
  for (const auto& p : s->partitions) names.push_back(p.name);
  return Status::Error(mark, what + ": system '" + sys + "' has no partition '" + part +
                                 "' (it has: " + Join(names, ", ") + ")" + DidYouMean(part, names));
}

}  // namespace

Status CheckReferences(const TestSuite& suite, const SiteConfig& config) {
  for (const auto& spec : suite.specs) {
    for (const auto& [key, vars] : spec->reference) {
      auto it = spec->marks.find("reference:" + key);
      SourceMark m = it != spec->marks.end() ? it->second : spec->mark;
      Status st = CheckPartitionKey("reference", key, config, m);
      if (!st.ok()) return st;
    }
    if (!spec->source) continue;
    for (const auto& o : spec->source->overrides) {
      for (const auto& tok : o.tokens) {
        if (StartsWith(tok, "env:") || StartsWith(tok, "sched:") || IsParamToken(tok)) continue;
        Status st = CheckPartitionKey("overrides: '" + o.key + "'", tok, config, o.mark);
        if (!st.ok()) return st;
      }
      auto ref = o.fields.find("reference");
      if (ref == o.fields.end() || !ref->second.value.IsMap()) continue;
      for (const auto& kv : ref->second.value) {
        Status st = CheckPartitionKey("overrides: '" + o.key + "': reference", kv.first.Scalar(), config,
                                      MarkOf(kv.first, ref->second.file));
        if (!st.ok()) return st;
      }
    }
  }
  return Status::OK();
}

namespace {

// -v: a test that names a partition by an alias ('generic:local').
void NoteAliases(const TestSuite& suite, const System& sys) {
  if (!LogEnabled(kLogVerbose)) return;
  for (const auto& p : sys.partitions) {
    for (const auto& alias : p.aliases) {
      std::string key = sys.name + ":" + alias;
      for (const auto& spec : suite.specs) {
        bool in_valid = std::any_of(spec->valid_systems.begin(), spec->valid_systems.end(),
                                    [&](const std::string& e) { return e.find(key) != std::string::npos; });
        bool in_ref =
            std::any_of(spec->reference.begin(), spec->reference.end(), [&](const auto& r) { return r.first == key; });
        if (in_valid || in_ref)
          LogRecord(kLogVerbose, "test " + spec->name + ": '" + key + "' in " +
                                     (in_valid ? "valid_systems" : "reference") + " is partition '" + p.name +
                                     "' (its old name; ReFrame's is '" + p.name + "')");
      }
    }
  }
}

std::vector<PartitionView> Views(const SiteConfig& config, const System& sys, const std::vector<std::string>& parts) {
  std::vector<PartitionView> views;
  for (const auto& pname : parts) {
    const Partition* p = sys.FindPartition(pname);
    PartitionView v{sys.name, p->name, p->features, {}, p->aliases, p->scheduler, PartitionValues(sys, *p)};
    for (const auto& ename : p->environs) {
      if (const Environment* e = config.FindEnvironment(ename, sys.name, p->name))
        v.environs.push_back({e->name, e->features});
    }
    views.push_back(std::move(v));
  }
  return views;
}

}  // namespace

Result<std::unique_ptr<Session>> OpenSession(const SessionOptions& opts) {
  auto session = std::make_unique<Session>();
  auto cfg = LoadConfiguration(opts.config_files);
  if (!cfg.ok()) return cfg.status();
  session->config = std::move(cfg.value());
  std::string host = opts.hostname.empty() ? ThisHostName() : opts.hostname;
  auto sel = SelectSystem(session->config, opts.system, host);
  if (!sel.ok()) return sel.status();
  const System* sys = sel->first;
  // --prefix, else the system's prefix (ReFrame's, with $VARS), else here.
  // It must be a folder or not exist yet.
  std::string prefix = !opts.prefix.empty()   ? opts.prefix
                       : !sys->prefix.empty() ? ExpandVars(sys->prefix, ProcessEnv)
                                              : std::string(".");
  prefix = AbsPath(prefix);
  if (PathExists(prefix) && !IsDirectory(prefix))
    return Status::Error("the prefix " + prefix + (opts.prefix.empty() ? " (the system's prefix)" : " (--prefix)") +
                         " is a file, not a folder: hetbench writes its stage, output, perflog and report folders "
                         "there");
  {
    MainLogOptions log;
    log.verbosity = opts.verbosity;
    if (opts.log_file) log.default_file = JoinPath(prefix, "hetbench.log");
    log.hostname = ThisHostName();
    log.user = ThisUserName();
    log.version = HETBENCH_VERSION;
    log.config_files = session->config.files;
    Status st = SetUpMainLog(session->config.SectionFor("logging", sys->name), log);
    if (!st.ok()) return st;
  }
  LogRecord(kLogVerbose, session->config.files.empty()
                             ? "configuration: the embedded generic system (no -C, no HETBENCH_CONFIG_FILES)"
                             : "configuration: " + Join(session->config.files, ", ") +
                                   (opts.config_files.empty() ? " (from HETBENCH_CONFIG_FILES)" : ""));
  if (!opts.system.empty()) {
    LogRecord(kLogVerbose, "system: " + sys->name + " (--system " + opts.system + ")");
    std::string part = opts.system.find(':') == std::string::npos ? "" : opts.system.substr(opts.system.find(':') + 1);
    if (sel->second && !part.empty() && part != sel->second->name)
      LogRecord(kLogVerbose, "partition '" + part + "' is an alias of '" + sel->second->name + "'" +
                                 (part == kGenericPartitionAlias ? " (ReFrame's name is 'default')" : ""));
  } else {
    LogRecord(kLogVerbose, "system: " + sys->name + " (its hostnames match this host, '" + host + "')");
  }
  session->system_name = sys->name;
  if (sel->second) {
    session->partition_names.push_back(sel->second->name);
  } else {
    for (const auto& p : sys->partitions) session->partition_names.push_back(p.name);
  }

  // Without -c: HETBENCH_CHECK_SEARCH_PATH, else the configuration's
  // general/check_search_path (ReFrame's), with check_search_recursive.
  std::vector<std::string> paths = opts.test_paths;
  bool recursive = opts.recursive;
  auto general = session->config.GeneralFor(sys->name);
  if (!general.ok()) return general.status();
  // The PCRE2 match limit of every sanity and performance pattern.
  Regex::SetMatchLimit(general->regex_match_limit.value_or(Regex::kDefaultMatchLimit));
  if (paths.empty()) {
    if (const char* sp = std::getenv("HETBENCH_CHECK_SEARCH_PATH")) paths = Split(sp, ':');
  }
  if (paths.empty() && !general->check_search_path.empty()) {
    for (const auto& p : general->check_search_path) {
      std::string path = ExpandVars(p, ProcessEnv);
      if (StartsWith(path, "~/")) path = JoinPath(std::getenv("HOME") ? std::getenv("HOME") : "", path.substr(2));
      paths.push_back(path);
    }
    recursive = recursive || general->check_search_recursive;
  }
  if (paths.empty())
    return Status::Error(
        "no test files given: name test files or folders with -c (or set HETBENCH_CHECK_SEARCH_PATH, "
        "or general: check_search_path in the configuration)");
  LoadOptions load{recursive, {}};
  for (const auto& arg : opts.setvars) {
    auto o = ParseSetvar(arg);
    if (!o.ok()) return o.status();
    load.setvars.push_back(std::move(o.value()));
  }
  LogRecord(kLogVerbose, "test files: looking in " + Join(paths, ", ") + (recursive ? " (recursively)" : ""));
  auto suite = LoadTests(paths, load);
  if (!suite.ok()) return suite.status();
  session->suite = std::move(suite.value());
  for (const auto& s : session->suite.skipped) LogRecord(kLogVerbose, "skipped " + s);
  LogRecord(kLogVerbose, "loaded " + std::to_string(session->suite.specs.size()) + " test(s) from " +
                             std::to_string(session->suite.files.size()) + " file(s)");
  Status st = CheckReferences(session->suite, session->config);
  if (!st.ok()) return st;
  NoteAliases(session->suite, *sys);
  auto views = Views(session->config, *sys, session->partition_names);
  // The limits of general.
  size_t case_limit = general->max_cases.value_or(kDefaultMaxCases);
  if (general->max_output_per_case) session->max_output_per_case = *general->max_output_per_case;
  auto cases = ExpandCases(session->suite, views, opts.filter, &session->selection, case_limit);
  if (!cases.ok()) return cases.status();
  session->cases = std::move(cases.value());
  const SelectionReport& sr = session->selection;
  LogRecord(kLogVerbose, "selection: " + std::to_string(sr.tests) + " test(s); " + std::to_string(sr.named_tests) +
                             " kept by -n/-x; " + std::to_string(sr.on_system) + " case(s) valid on " +
                             Join(session->partition_names, ", ") +
                             "; dropped: " + std::to_string(sr.dropped_by_environ) + " by -p, " +
                             std::to_string(sr.dropped_by_tag) + " by -t, " + std::to_string(sr.dropped_by_expr) +
                             " by -E; " + std::to_string(sr.selected) + " selected, " +
                             std::to_string(session->cases.size()) + " with their dependencies");
  // Each test's backend block (its `k8s:`) against its partitions, offline,
  // once per pair: a Kubernetes context the kubeconfig lacks is a load
  // error with the test's place, in `list` as in `run`.
  std::set<std::pair<std::string, std::string>> checked;
  for (const auto& c : session->cases) {
    const Partition* part = sys->FindPartition(c.partition);
    if (!part || c.spec->k8s.is_null() || c.spec->k8s.empty()) continue;
    if (!checked.emplace(part->name, c.spec->k8s.dump()).second) continue;
    auto backend = FindSchedulerBackend(part->scheduler);
    if (!backend.ok() || !(*backend)->check_test_block) continue;  // an unknown scheduler: Prepare says so
    SchedulerFlags flags;
    flags.kubeconfig = opts.kubeconfig;
    Status st = (*backend)->check_test_block(part->sched_options, c.spec->k8s, flags);
    if (!st.ok()) {
      auto mark = c.spec->marks.find("k8s");
      std::string msg = "test '" + c.spec->name + "' on partition '" + sys->name + ":" + part->name +
                        "': " + (st.mark().known() ? st.str() : st.message());
      return mark != c.spec->marks.end() ? Status::Error(mark->second, msg) : Status::Error(msg);
    }
  }
  if (session->cases.empty() && !opts.filter.empty() && !opts.allow_empty)
    return Status::Error("no test case matches the selection: " +
                         ExplainEmptySelection(session->suite, views, opts.filter, session->selection) +
                         " (--allow-empty makes an empty selection exit 0)");
  session->id = NewSessionId();
  session->prefix = prefix;
  auto root = [&](const std::string& configured, const char* below) {
    return configured.empty() ? JoinPath(prefix, below) : AbsPath(ExpandVars(configured, ProcessEnv));
  };
  session->stage_root = root(sys->stagedir, "stage");
  session->output_root = root(sys->outputdir, "output");
  return session;
}

}  // namespace hb

namespace hb {

void RestrictCases(Session* session, const std::vector<std::string>& ids) {
  std::set<std::string> wanted(ids.begin(), ids.end());
  std::vector<bool> keep;
  for (const auto& c : session->cases) keep.push_back(wanted.count(c.id) > 0);
  session->cases = KeepWithDependencies(std::move(session->cases), std::move(keep));
}

}  // namespace hb

namespace hb {

Status DistributeCases(Session* session, const NodeLister& list_nodes) {
  std::map<std::string, std::vector<std::string>> nodes_of;  // by partition
  for (const auto& c : session->cases) {
    if (nodes_of.count(c.partition)) continue;
    auto nodes = list_nodes(session->partition(c.partition));
    if (!nodes.ok()) return nodes.status().Prefixed("--distribute: partition '" + c.partition + "'");
    if (nodes->empty())
      return Status::Error("--distribute: partition '" + c.partition + "' has no node in the requested state");
    nodes_of[c.partition] = *nodes;
  }
  auto& cases = session->cases;
  // copy_of[i][node] = index of case i's copy on that node.
  std::vector<std::map<std::string, size_t>> copy_of(cases.size());
  std::vector<TestCase> out;
  for (size_t i = 0; i < cases.size(); ++i) {
    for (const auto& node : nodes_of[cases[i].partition]) {
      TestCase c = cases[i];
      c.params.emplace_back(kNodeParam, node);
      c.display_name += " %" + std::string(kNodeParam) + "=" + node;
      size_t at = c.id.find('@');
      c.id.insert(at == std::string::npos ? c.id.size() : at, "%" + std::string(kNodeParam) + "=" + node);
      std::vector<size_t> deps;
      for (size_t d : cases[i].deps) {
        auto it = copy_of[d].find(node);
        if (it != copy_of[d].end())
          deps.push_back(it->second);
        else
          c.missing_deps.push_back(cases[d].spec->name + " on node " + node);
      }
      c.deps = std::move(deps);
      copy_of[i][node] = out.size();
      out.push_back(std::move(c));
    }
  }
  cases = std::move(out);
  return Status::OK();
}

}  // namespace hb
