#include "k8s/kubeconfig.h"

#include <cstdlib>
#include <map>
#include <set>

#include "util/base64.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

const char kApiV1Beta1[] = "client.authentication.k8s.io/v1beta1";
const char kApiV1[] = "client.authentication.k8s.io/v1";

// One entry of a kubeconfig's clusters, contexts or users list: the whole
// item (for its position) and its body (the `cluster:` / `context:` /
// `user:` mapping, possibly null), with the file it came from.
struct Named {
  YAML::Node item, body;
  std::string file;
};

// The merge of one or more kubeconfig files (first definition wins).
struct Merged {
  std::vector<std::string> files;
  std::map<std::string, Named> clusters, contexts, users;
  std::string current_context;
  SourceMark current_context_mark;
  SourceMark contexts_mark;  // the first `contexts:` list, for "not found" messages
};

// What a node is, never its value: values may be tokens or keys.
std::string Kind(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a mapping";
  return "a string";
}

YAML::Node Get(const YAML::Node& map, const std::string& key) {
  if (!map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return map[key];
}

bool Present(const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); }

// The string at map[key]; "" when absent or null.
Result<std::string> Field(const YAML::Node& map, const std::string& key, const std::string& file) {
  YAML::Node n = Get(map, key);
  if (!Present(n)) return std::string();
  if (!n.IsScalar()) return Status::Error(MarkOf(n, file), key + ": expected a string, got " + Kind(n));
  return n.Scalar();
}

Result<bool> BoolField(const YAML::Node& map, const std::string& key, const std::string& file) {
  YAML::Node n = Get(map, key);
  if (!Present(n)) return false;
  if (n.IsScalar()) {
    try {
      return n.as<bool>();
    } catch (const YAML::Exception&) {
    }
  }
  return Status::Error(MarkOf(n, file), key + ": expected true or false");
}

// The mark of map[key] when present, else of `fallback`.
SourceMark MarkAt(const YAML::Node& map, const std::string& key, const YAML::Node& fallback, const std::string& file) {
  YAML::Node n = Get(map, key);
  return MarkOf(Present(n) ? n : fallback, file);
}

std::string Resolve(const std::string& path, const std::string& kubeconfig) {
  if (path.empty() || path[0] == '/') return path;
  return JoinPath(AbsPath(DirName(kubeconfig)), path);
}

std::string Names(const std::map<std::string, Named>& m) {
  std::vector<std::string> names;
  for (const auto& [name, _] : m) names.push_back(name);
  return names.empty() ? "none" : Join(names, ", ");
}

std::vector<std::string> NameList(const std::map<std::string, Named>& m) {
  std::vector<std::string> names;
  for (const auto& [name, _] : m) names.push_back(name);
  return names;
}

// The content of `key` (a file path, relative to the kubeconfig) or of
// `key`-data (base64), as kubectl reads certificate-authority,
// client-certificate and client-key. "" when neither is given.
Result<std::string> FileOrData(const Named& e, const std::string& key) {
  auto path = Field(e.body, key, e.file);
  if (!path.ok()) return path.status();
  auto data = Field(e.body, key + "-data", e.file);
  if (!data.ok()) return data.status();
  if (!path->empty() && !data->empty())
    return Status::Error(MarkAt(e.body, key + "-data", e.item, e.file),
                         key + " and " + key + "-data are both given; keep one");
  if (!data->empty()) {
    auto decoded = Base64Decode(*data);
    if (!decoded) return Status::Error(MarkAt(e.body, key + "-data", e.item, e.file), key + "-data: expected base64");
    return *decoded;
  }
  if (path->empty()) return std::string();
  auto content = ReadFile(Resolve(*path, e.file));
  if (!content.ok()) return Status::Error(MarkAt(e.body, key, e.item, e.file), key + ": " + content.status().message());
  return content;
}

Status ReadCluster(const Named& c, const std::string& name, KubeTarget* t) {
  auto server = Field(c.body, "server", c.file);
  if (!server.ok()) return server.status();
  if (server->empty()) return Status::Error(MarkOf(c.item, c.file), "cluster '" + name + "' has no server");
  if (!StartsWith(*server, "https://") && !StartsWith(*server, "http://"))
    return Status::Error(MarkAt(c.body, "server", c.item, c.file),
                         "server '" + *server + "' is not a URL like https://host:6443");
  t->server = *server;
  while (t->server.size() > 8 && t->server.back() == '/') t->server.pop_back();
  auto ca = FileOrData(c, "certificate-authority");
  if (!ca.ok()) return ca.status();
  t->ca_pem = *ca;
  auto insecure = BoolField(c.body, "insecure-skip-tls-verify", c.file);
  if (!insecure.ok()) return insecure.status();
  t->insecure_skip_tls_verify = *insecure;
  if (t->insecure_skip_tls_verify && !t->ca_pem.empty())
    return Status::Error(MarkAt(c.body, "insecure-skip-tls-verify", c.item, c.file),
                         "cluster '" + name +
                             "' gives both a certificate-authority and insecure-skip-tls-verify; "
                             "kubectl refuses that too (remove one)");
  auto sni = Field(c.body, "tls-server-name", c.file);
  if (!sni.ok()) return sni.status();
  t->tls_server_name = *sni;
  auto proxy = Field(c.body, "proxy-url", c.file);
  if (!proxy.ok()) return proxy.status();
  t->proxy_url = *proxy;
  return Status::OK();
}

// A list of strings; errors never show the items (they may be secrets).
Result<std::vector<std::string>> StringList(const YAML::Node& n, const std::string& what, const std::string& file) {
  std::vector<std::string> out;
  if (!Present(n)) return out;
  if (!n.IsSequence()) return Status::Error(MarkOf(n, file), what + ": expected a list of strings, got " + Kind(n));
  for (const auto& item : n) {
    if (!item.IsScalar()) return Status::Error(MarkOf(item, file), what + ": expected a string, got " + Kind(item));
    out.push_back(item.Scalar());
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> EnvList(const YAML::Node& n, const std::string& file) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!Present(n)) return out;
  if (!n.IsSequence())
    return Status::Error(MarkOf(n, file), "exec env: expected a list of {name, value}, got " + Kind(n));
  for (const auto& item : n) {
    if (!item.IsMap()) return Status::Error(MarkOf(item, file), "exec env: expected {name, value}, got " + Kind(item));
    auto name = Field(item, "name", file);
    if (!name.ok()) return name.status();
    if (name->empty()) return Status::Error(MarkOf(item, file), "exec env: an entry has no name");
    auto value = Field(item, "value", file);
    if (!value.ok()) return value.status();
    out.emplace_back(*name, *value);
  }
  return out;
}

Result<KubeExec> ReadExec(const YAML::Node& n, const std::string& file) {
  if (!n.IsMap()) return Status::Error(MarkOf(n, file), "exec: expected a mapping, got " + Kind(n));
  KubeExec x;
  x.dir = AbsPath(DirName(file));
  auto api = Field(n, "apiVersion", file);
  if (!api.ok()) return api.status();
  if (*api != kApiV1Beta1 && *api != kApiV1)
    return Status::Error(MarkAt(n, "apiVersion", n, file),
                         "exec: apiVersion must be " + std::string(kApiV1Beta1) + " or " + kApiV1 +
                             (api->empty() ? " (it is missing)" : ", not '" + *api + "'"));
  x.api_version = *api;
  auto cmd = Field(n, "command", file);
  if (!cmd.ok()) return cmd.status();
  if (cmd->empty()) return Status::Error(MarkOf(n, file), "exec: command is missing");
  x.command = cmd->find('/') != std::string::npos ? Resolve(*cmd, file) : *cmd;
  auto args = StringList(Get(n, "args"), "exec args", file);
  if (!args.ok()) return args.status();
  x.args = *args;
  auto env = EnvList(Get(n, "env"), file);
  if (!env.ok()) return env.status();
  x.env = *env;
  auto hint = Field(n, "installHint", file);
  if (!hint.ok()) return hint.status();
  x.install_hint = *hint;
  auto info = BoolField(n, "provideClusterInfo", file);
  if (!info.ok()) return info.status();
  x.provide_cluster_info = *info;
  auto mode = Field(n, "interactiveMode", file);
  if (!mode.ok()) return mode.status();
  if (*mode == "Always")
    return Status::Error(MarkAt(n, "interactiveMode", n, file),
                         "exec: the plugin needs a terminal (interactiveMode: Always), which hetbench never gives it");
  return x;
}

Status ReadUser(const Named& u, const std::string& name, KubeTarget* t) {
  if (Present(Get(u.body, "auth-provider")))
    return Status::Error(MarkAt(u.body, "auth-provider", u.item, u.file),
                         "user '" + name +
                             "': auth-provider plugins are not supported; use an exec plugin "
                             "(e.g. gke-gcloud-auth-plugin, kubelogin)");
  if (Present(Get(u.body, "username")) || Present(Get(u.body, "password")))
    return Status::Error(MarkAt(u.body, "username", u.item, u.file),
                         "user '" + name + "': basic authentication (username/password) is not supported");
  auto token = Field(u.body, "token", u.file);
  if (!token.ok()) return token.status();
  t->token = *token;
  auto token_file = Field(u.body, "tokenFile", u.file);
  if (!token_file.ok()) return token_file.status();
  if (!token_file->empty()) {
    t->token_file = Resolve(*token_file, u.file);
    auto content = ReadFile(t->token_file);
    if (!content.ok())
      return Status::Error(MarkAt(u.body, "tokenFile", u.item, u.file), "tokenFile: " + content.status().message());
    t->token = Trim(*content);
  }
  auto cert = FileOrData(u, "client-certificate");
  if (!cert.ok()) return cert.status();
  auto key = FileOrData(u, "client-key");
  if (!key.ok()) return key.status();
  if (cert->empty() != key->empty())
    return Status::Error(MarkOf(u.item, u.file),
                         "user '" + name + "' gives a client " +
                             (cert->empty() ? "key but no client-certificate" : "certificate but no client-key"));
  t->client_cert_pem = *cert;
  t->client_key_pem = *key;
  YAML::Node exec = Get(u.body, "exec");
  if (Present(exec)) {
    auto x = ReadExec(exec, u.file);
    if (!x.ok()) return x.status();
    t->exec = *x;
  }
  return Status::OK();
}

// Adds the entries of root[list_key] to `out` (names already there stay).
Status AddEntries(const YAML::Node& root, const std::string& list_key, const std::string& body_key,
                  const std::string& file, std::map<std::string, Named>* out, SourceMark* first_list) {
  YAML::Node list = Get(root, list_key);
  if (!Present(list)) return Status::OK();
  if (!list.IsSequence())
    return Status::Error(MarkOf(list, file),
                         list_key + ": expected a list of {name, " + body_key + "}, got " + Kind(list));
  if (first_list && !first_list->known()) *first_list = MarkOf(list, file);
  for (const auto& item : list) {
    if (!item.IsMap())
      return Status::Error(MarkOf(item, file), list_key + ": expected {name, " + body_key + "}, got " + Kind(item));
    auto name = Field(item, "name", file);
    if (!name.ok()) return name.status();
    if (name->empty()) return Status::Error(MarkOf(item, file), "an entry of " + list_key + " has no name");
    YAML::Node body = Get(item, body_key);
    if (Present(body) && !body.IsMap())
      return Status::Error(MarkOf(body, file), body_key + " '" + *name + "': expected a mapping, got " + Kind(body));
    out->emplace(*name, Named{item, body, file});
  }
  return Status::OK();
}

Status MergeFile(const std::string& file, Merged* m) {
  auto docs = LoadYamlFile(file);
  if (!docs.ok()) return docs.status();
  if (docs->empty()) return Status::OK();  // an empty kubeconfig is an empty config
  const YAML::Node& root = (*docs)[0];
  if (!root.IsMap())
    return Status::Error(MarkOf(root, file),
                         "expected a kubeconfig (a mapping with clusters, contexts and users), got " + Kind(root));
  m->files.push_back(file);
  Status s = AddEntries(root, "clusters", "cluster", file, &m->clusters, nullptr);
  if (s.ok()) s = AddEntries(root, "contexts", "context", file, &m->contexts, &m->contexts_mark);
  if (s.ok()) s = AddEntries(root, "users", "user", file, &m->users, nullptr);
  if (!s.ok()) return s;
  auto current = Field(root, "current-context", file);
  if (!current.ok()) return current.status();
  if (m->current_context.empty() && !current->empty()) {
    m->current_context = *current;
    m->current_context_mark = MarkAt(root, "current-context", root, file);
  }
  return Status::OK();
}

Result<KubeTarget> FromMerged(const Merged& m, const std::string& context) {
  std::string name = context.empty() ? m.current_context : context;
  SourceMark where = context.empty() ? m.current_context_mark : m.contexts_mark;
  if (!where.known()) where = SourceMark{m.files.empty() ? "" : m.files[0]};
  if (name.empty())
    return Status::Error(where,
                         "no current-context is set and no context was given (contexts: " + Names(m.contexts) + ")");
  auto ctx = m.contexts.find(name);
  if (ctx == m.contexts.end())
    return Status::Error(where, "context '" + name + "' not found (contexts: " + Names(m.contexts) + ")" +
                                    DidYouMean(name, NameList(m.contexts)));
  const Named& c = ctx->second;
  auto cluster = Field(c.body, "cluster", c.file);
  if (!cluster.ok()) return cluster.status();
  auto user = Field(c.body, "user", c.file);
  if (!user.ok()) return user.status();
  auto ns = Field(c.body, "namespace", c.file);
  if (!ns.ok()) return ns.status();
  if (cluster->empty()) return Status::Error(MarkOf(c.item, c.file), "context '" + name + "' names no cluster");
  auto cl = m.clusters.find(*cluster);
  if (cl == m.clusters.end())
    return Status::Error(MarkAt(c.body, "cluster", c.item, c.file),
                         "cluster '" + *cluster + "' of context '" + name + "' not found (clusters: " +
                             Names(m.clusters) + ")" + DidYouMean(*cluster, NameList(m.clusters)));
  KubeTarget t;
  Status s = ReadCluster(cl->second, *cluster, &t);
  if (!s.ok()) return s;
  if (!user->empty()) {
    auto u = m.users.find(*user);
    if (u == m.users.end())
      return Status::Error(MarkAt(c.body, "user", c.item, c.file), "user '" + *user + "' of context '" + name +
                                                                       "' not found (users: " + Names(m.users) + ")" +
                                                                       DidYouMean(*user, NameList(m.users)));
    s = ReadUser(u->second, *user, &t);
    if (!s.ok()) return s;
  }
  t.ns = ns->empty() ? "default" : *ns;
  t.source = c.file + " (context " + name + ")";
  return t;
}

Result<KubeTarget> InCluster(const KubeLoadOptions& o) {
  KubeTarget t;
  t.in_cluster = true;
  t.source = "in-cluster service account (" + o.in_cluster_dir + ")";
  std::string host = o.in_cluster_host;
  if (host.find(':') != std::string::npos && host[0] != '[') host = "[" + host + "]";  // IPv6
  t.server = "https://" + host + ":" + o.in_cluster_port;
  t.token_file = JoinPath(o.in_cluster_dir, "token");
  auto token = ReadFile(t.token_file);
  if (!token.ok()) return token.status().Prefixed("in-cluster service account");
  t.token = Trim(*token);
  std::string ca_file = JoinPath(o.in_cluster_dir, "ca.crt");
  if (PathExists(ca_file)) {
    auto ca = ReadFile(ca_file);
    if (!ca.ok()) return ca.status().Prefixed("in-cluster service account");
    t.ca_pem = *ca;
  }
  auto ns = ReadFile(JoinPath(o.in_cluster_dir, "namespace"));
  t.ns = ns.ok() && !Trim(*ns).empty() ? Trim(*ns) : "default";
  return t;
}

// The kubeconfig files to merge, in kubectl's order; empty when none
// exists (then the in-cluster account is the last resort). `tried` says
// what was looked for, for the message when nothing is found.
Result<std::vector<std::string>> KubeconfigFiles(const KubeLoadOptions& o, std::string* tried) {
  std::vector<std::string> files;
  if (!o.kubeconfig_flag.empty()) {
    if (!PathExists(o.kubeconfig_flag)) return Status::Error("kubeconfig '" + o.kubeconfig_flag + "' does not exist");
    files.push_back(o.kubeconfig_flag);
    return files;
  }
  if (!o.kubeconfig_env.empty()) {
    std::set<std::string> seen;
    for (const auto& f : Split(o.kubeconfig_env, ':')) {
      if (f.empty() || !seen.insert(f).second) continue;
      if (PathExists(f)) files.push_back(f);
    }
    *tried = "none of the files in $KUBECONFIG (" + o.kubeconfig_env + ") exists";
    return files;
  }
  std::string home_config = JoinPath(o.home.empty() ? "~" : o.home, ".kube/config");
  if (!o.home.empty() && PathExists(home_config)) files.push_back(home_config);
  *tried = "no --kubeconfig, $KUBECONFIG is not set and " + home_config + " does not exist";
  return files;
}

}  // namespace

KubeLoadOptions KubeLoadOptionsFromEnv() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  KubeLoadOptions o;
  o.kubeconfig_env = env("KUBECONFIG");
  o.home = env("HOME");
  o.in_cluster_host = env("KUBERNETES_SERVICE_HOST");
  o.in_cluster_port = env("KUBERNETES_SERVICE_PORT");
  return o;
}

Result<KubeTarget> LoadKubeTarget(const KubeLoadOptions& o) {
  std::string tried;
  auto files = KubeconfigFiles(o, &tried);
  if (!files.ok()) return files.status();
  if (files->empty()) {
    if (!o.in_cluster_host.empty() && !o.in_cluster_port.empty()) return InCluster(o);
    return Status::Error("no Kubernetes configuration: " + tried +
                         ", and hetbench is not running inside a cluster ($KUBERNETES_SERVICE_HOST is not set)");
  }
  Merged m;
  try {
    for (const auto& f : *files) {
      Status s = MergeFile(f, &m);
      if (!s.ok()) return s;
    }
    return FromMerged(m, o.context);
  } catch (const YAML::Exception& e) {
    // Not expected (every access is checked), but yaml-cpp must never abort a run.
    return Status::Error(SourceMark{files->front()}, "unexpected YAML error: " + e.msg);
  }
}

}  // namespace hb
