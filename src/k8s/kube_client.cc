#include "k8s/kube_client.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "net/http.h"
#include "sched/process.h"
#include "util/base64.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/rfc3339.h"
#include "util/strings.h"

namespace hb {

// ---------------------------------------------------------------------------
// Pure helpers

std::string KubeRequestKind(const std::string& path) {
  std::vector<std::string> seg;
  for (auto& s : Split(path.substr(0, path.find('?')), '/'))
    if (!s.empty()) seg.push_back(s);
  size_t skip = 0;
  if (seg.size() >= 2 && seg[0] == "api")
    skip = 2;  // /api/v1/...
  else if (seg.size() >= 3 && seg[0] == "apis")
    skip = 3;  // /apis/group/version/...
  else
    return seg.empty() ? "" : seg[0];  // /version, /healthz
  std::vector<std::string> rest(seg.begin() + static_cast<long>(skip), seg.end());
  if (!rest.empty() && rest[0] == "watch") rest.erase(rest.begin());
  if (rest.empty()) return seg[0];  // discovery
  if (rest[0] == "namespaces") {
    if (rest.size() <= 2) return "namespaces";
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  return rest.size() >= 3 ? rest[2] : rest[0];
}

namespace {

std::optional<std::string> JsonString(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !JsonStringPtr(*it)) return std::nullopt;
  return *JsonStringPtr(*it);
}

}  // namespace

Result<ExecCredential> ParseExecCredential(const std::string& out, const std::string& api_version) {
  // No exceptions, and no parser message: it would quote the output.
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Error("it printed no JSON object (an ExecCredential)");
  if (JsonString(j, "kind").value_or("") != "ExecCredential")
    return Status::Error("it printed JSON whose kind is not ExecCredential");
  std::string got = JsonString(j, "apiVersion").value_or("");
  if (got != api_version)
    return Status::Error("it printed apiVersion '" + got + "' but the kubeconfig asks for " + api_version);
  auto st = j.find("status");
  if (st == j.end() || !st->is_object()) return Status::Error("its ExecCredential has no status");
  ExecCredential c;
  c.token = JsonString(*st, "token").value_or("");
  c.client_cert_pem = JsonString(*st, "clientCertificateData").value_or("");
  c.client_key_pem = JsonString(*st, "clientKeyData").value_or("");
  if (c.client_cert_pem.empty() != c.client_key_pem.empty())
    return Status::Error("its ExecCredential gives only one of clientCertificateData and clientKeyData");
  if (c.token.empty() && c.client_cert_pem.empty())
    return Status::Error("its ExecCredential has neither a token nor a client certificate");
  if (auto exp = JsonString(*st, "expirationTimestamp")) {
    std::optional<double> t = ParseRfc3339(*exp);
    if (t) c.expires = static_cast<std::time_t>(*t);
    if (!t) return Status::Error("its expirationTimestamp '" + *exp + "' is not an RFC 3339 time");
  }
  return c;
}

namespace {

// ---------------------------------------------------------------------------
// Exec plugins

// KUBERNETES_EXEC_INFO, as client-go sets it for a non-interactive run.
std::string ExecInfo(const KubeExec& x, const KubeTarget& t) {
  nlohmann::json spec = {{"interactive", false}};
  if (x.provide_cluster_info) {
    nlohmann::json cluster = {{"server", t.server}};
    if (!t.ca_pem.empty()) cluster["certificate-authority-data"] = Base64Encode(t.ca_pem);
    if (t.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!t.tls_server_name.empty()) cluster["tls-server-name"] = t.tls_server_name;
    if (!t.proxy_url.empty()) cluster["proxy-url"] = t.proxy_url;
    spec["cluster"] = cluster;
  }
  nlohmann::json info = {{"apiVersion", x.api_version}, {"kind", "ExecCredential"}, {"spec", spec}};
  return info.dump();
}

// Waits for `pid` at most timeout_s (event-driven, through a pidfd); true
// when it exited, its status in *status.
bool WaitFor(pid_t pid, double timeout_s, int* status) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  double deadline = MonotonicNow() + timeout_s;
  bool exited = false;
  while (true) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      exited = true;
      break;
    }
    double left = deadline - MonotonicNow();
    if (left <= 0) break;
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      poll(&p, 1, static_cast<int>(left * 1000) + 1);
    } else {
      usleep(2000);  // no pidfd (old kernel)
    }
  }
  if (pidfd >= 0) close(pidfd);
  return exited;
}

constexpr double kExecTimeoutS = 60;

// Runs the plugin with its output in `dir` (private to this process) and
// parses what it printed. The output holds the credential, so it is read
// and removed at once, and never quoted in an error.
Result<ExecCredential> RunExecPlugin(const KubeExec& x, const KubeTarget& t, const std::string& dir) {
  std::string name = "exec plugin '" + x.command + "'";
  SpawnOptions so;
  so.argv.push_back(x.command);
  so.argv.insert(so.argv.end(), x.args.begin(), x.args.end());
  so.env = x.env;
  so.env.emplace_back("KUBERNETES_EXEC_INFO", ExecInfo(x, t));
  so.stdout_path = JoinPath(dir, "exec.out");
  so.stderr_path = JoinPath(dir, "exec.err");
  auto pid = SpawnProcess(so);
  std::string hint = x.install_hint.empty() ? "" : " (" + Trim(x.install_hint) + ")";
  if (!pid.ok()) return Status::Error(name + " could not be run: " + pid.status().message() + hint);
  int status = 0;
  bool exited = WaitFor(*pid, kExecTimeoutS, &status);
  if (!exited) {
    killpg(*pid, SIGKILL);
    waitpid(*pid, &status, 0);
  }
  auto out = ReadFile(so.stdout_path);
  auto err = ReadFile(so.stderr_path);
  RemoveScratch(so.stdout_path);
  RemoveScratch(so.stderr_path);
  if (!exited) return Status::Error(name + " did not finish in " + FormatNumber(kExecTimeoutS) + " s (killed)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                        : "signal " + std::to_string(WTERMSIG(status));
    std::string first = err.ok() ? Trim(Trim(*err).substr(0, Trim(*err).find('\n'))) : "";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) first += hint;
    return Status::Error(name + " failed (" + why + ")" + (first.empty() ? "" : ": " + first));
  }
  if (!out.ok()) return Status::Error(name + ": " + out.status().message());
  auto cred = ParseExecCredential(*out, x.api_version);
  if (!cred.ok()) return cred.status().Prefixed(name);
  return cred;
}

// ---------------------------------------------------------------------------
// Credentials

struct Credential {
  std::string token, cert_pem, key_pem;
  bool operator==(const Credential&) const = default;
};

// The credential for each request: from the exec plugin (cached until it
// expires), the token file (re-read each minute), or the target as loaded.
class Credentials {
 public:
  // A token file's first read is the loader's (in t.token); without one,
  // the first request reads it.
  explicit Credentials(const KubeTarget& t) : t_(t), token_read_at_(t.token.empty() ? -1e9 : MonotonicNow()) {}
  ~Credentials() {
    if (!dir_.empty()) RemoveScratch(dir_);
  }
  Credentials(const Credentials&) = delete;
  Credentials& operator=(const Credentials&) = delete;

  Result<Credential> Current() {
    if (t_.exec) {
      if (!exec_ || (exec_->expires && std::time(nullptr) >= *exec_->expires)) {
        Status s = RunExec();
        if (!s.ok()) return s;
      }
      return FromExec();
    }
    if (!t_.token_file.empty() && MonotonicNow() - token_read_at_ >= kTokenFileRefreshS) {
      Status s = ReadTokenFile();
      if (!s.ok() && t_.token.empty()) return s;  // else keep the last good token, as client-go does
    }
    return Credential{t_.token, t_.client_cert_pem, t_.client_key_pem};
  }

  // After a 401: gets a fresh credential when it can; true when it differs
  // from `used` (only then is repeating the request worthwhile).
  Result<bool> Refresh(const Credential& used) {
    if (t_.exec) {
      Status s = RunExec();
      if (!s.ok()) return s;
    } else if (!t_.token_file.empty()) {
      Status s = ReadTokenFile();
      if (!s.ok()) return s;
    } else {
      return false;
    }
    auto now = Current();
    if (!now.ok()) return now.status();
    return !(*now == used);
  }

 private:
  static constexpr double kTokenFileRefreshS = 60;

  Status RunExec() {
    if (dir_.empty()) {
      const char* base = std::getenv("TMPDIR");
      std::string tmpl = std::string(base && *base ? base : "/tmp") + "/hb_exec.XXXXXX";
      if (!::mkdtemp(tmpl.data()))
        return Status::Error("cannot create a temporary folder for the exec plugin: " +
                             std::string(std::strerror(errno)));
      dir_ = tmpl;
    }
    auto cred = RunExecPlugin(*t_.exec, t_, dir_);
    if (!cred.ok()) return cred.status();
    exec_ = *cred;
    return Status::OK();
  }

  // The plugin's certificate replaces the kubeconfig's; its token alone
  // keeps the kubeconfig's certificate (as client-go does).
  Credential FromExec() const {
    Credential c{exec_->token, t_.client_cert_pem, t_.client_key_pem};
    if (!exec_->client_cert_pem.empty()) {
      c.cert_pem = exec_->client_cert_pem;
      c.key_pem = exec_->client_key_pem;
    }
    return c;
  }

  Status ReadTokenFile() {
    token_read_at_ = MonotonicNow();
    auto content = ReadFile(t_.token_file);
    if (!content.ok()) return content.status().Prefixed("token file");
    t_.token = Trim(*content);
    return Status::OK();
  }

  KubeTarget t_;
  std::optional<ExecCredential> exec_;
  double token_read_at_;  // when token_file was last read
  std::string dir_;       // for the exec plugin's output
};

// ---------------------------------------------------------------------------
// PEM checks, so a bad file fails at start with a clear message instead of
// as an obscure TLS error on the first request.

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Deleter {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

std::unique_ptr<BIO, BioDeleter> MemBio(const std::string& s) {
  return std::unique_ptr<BIO, BioDeleter>(BIO_new_mem_buf(s.data(), static_cast<int>(s.size())));
}

int NoPassphrase(char*, int, int, void*) { return -1; }  // never prompt on a terminal

Status CheckPem(const KubeTarget& t) {
  Status s;
  if (!t.ca_pem.empty()) {
    std::unique_ptr<X509, X509Deleter> ca(PEM_read_bio_X509(MemBio(t.ca_pem).get(), nullptr, NoPassphrase, nullptr));
    if (!ca) s = Status::Error("the certificate-authority of " + t.source + " is not a PEM certificate");
  }
  if (s.ok() && !t.client_cert_pem.empty()) {
    std::unique_ptr<X509, X509Deleter> cert(
        PEM_read_bio_X509(MemBio(t.client_cert_pem).get(), nullptr, NoPassphrase, nullptr));
    std::unique_ptr<EVP_PKEY, PkeyDeleter> key(
        PEM_read_bio_PrivateKey(MemBio(t.client_key_pem).get(), nullptr, NoPassphrase, nullptr));
    if (!cert)
      s = Status::Error("the client-certificate of " + t.source + " is not a PEM certificate");
    else if (!key)
      s = Status::Error("the client-key of " + t.source + " is not an unencrypted PEM private key");
    else if (X509_check_private_key(cert.get(), key.get()) != 1)
      s = Status::Error("the client-key of " + t.source + " does not match its client-certificate");
  }
  ERR_clear_error();
  return s;
}

// ---------------------------------------------------------------------------
// The client

class KubeClient : public KubeApi {
 public:
  KubeClient(const KubeTarget& t, std::string base, std::unique_ptr<HttpTransport> http)
      : t_(t), creds_(t), base_(std::move(base)), http_(std::move(http)) {}

  Result<KubeResponse> Send(const KubeRequest& req) override {
    auto cred = creds_.Current();
    if (!cred.ok()) return cred.status();
    KubeResponse r = Exchange(req, *cred);
    if (r.status != 401) return r;
    auto changed = creds_.Refresh(*cred);
    if (!changed.ok()) return changed.status();
    if (!*changed) return r;
    cred = creds_.Current();
    if (!cred.ok()) return cred.status();
    return Exchange(req, *cred);
  }

  std::string DefaultNamespace() const override { return t_.ns; }
  std::string Server() const override { return t_.server; }

 private:
  KubeResponse Exchange(const KubeRequest& req, const Credential& c) {
    Count(req.method + " " + KubeRequestKind(req.path));
    HttpRequest h;
    h.method = req.method;
    h.url = base_ + req.path;
    h.body = req.body;
    h.timeout_s = req.timeout_s;
    h.headers.push_back("Accept: application/json");
    if (!req.body.empty()) h.headers.push_back("Content-Type: " + req.content_type);
    if (!c.token.empty()) h.headers.push_back("Authorization: Bearer " + c.token);
    h.client_cert_pem = c.cert_pem;
    h.client_key_pem = c.key_pem;
    HttpResponse got = http_->Send(h);
    KubeResponse r;
    r.status = got.status;
    r.body = std::move(got.body);
    r.retry_after_s = got.retry_after_s;
    if (got.status == 0) r.transport_error = Scrub(got.error, c);
    return r;
  }

  // libcurl never puts the Authorization header into its messages; this is
  // a second lock on that door.
  static std::string Scrub(std::string s, const Credential& c) {
    return c.token.empty() ? s : ReplaceAll(std::move(s), c.token, "<token>");
  }

  KubeTarget t_;
  Credentials creds_;
  std::string base_;  // the server URL, its host replaced by tls-server-name when there is one
  std::unique_ptr<HttpTransport> http_;
};

}  // namespace

Result<std::unique_ptr<KubeApi>> MakeKubeClient(const KubeTarget& t, std::function<void(const std::string&)> warn) {
  if (t.server.empty()) return Status::Error("no API server to talk to (" + t.source + ")");
  Status pem = CheckPem(t);
  if (!pem.ok()) return pem;
  HttpClientOptions o;
  o.ca_pem = t.ca_pem;
  o.insecure_skip_tls_verify = t.insecure_skip_tls_verify;
  o.proxy_url = t.proxy_url;
  o.accept_compressed = true;
  std::string base = t.server;
  // With tls-server-name, requests name that host (SNI and the certificate
  // check) while connecting to the server's real address.
  if (!t.tls_server_name.empty()) {
    auto over = OverrideServerName(t.server, t.tls_server_name);
    if (!over.ok()) return over.status();
    base = over->url;
    o.connect_to = over->connect_to;
  }
  auto http = MakeCurlTransport(o);
  if (!http.ok()) return http.status();
  if (t.insecure_skip_tls_verify && warn)
    warn("TLS verification is off for " + t.server + " as the kubeconfig asks (insecure-skip-tls-verify)");
  return std::unique_ptr<KubeApi>(std::make_unique<KubeClient>(t, std::move(base), std::move(*http)));
}

}  // namespace hb
