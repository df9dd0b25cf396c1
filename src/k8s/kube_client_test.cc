#include "k8s/kube_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "k8s/kubeconfig.h"
#include "sched/process.h"
#include "util/base64.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/test_temp_dir.h"

namespace hb {
namespace {

const char kPods[] = "/api/v1/namespaces/hb-test/pods";
const char kToken[] = "hb-test-token";

KubeRequest Get(const std::string& path) {
  KubeRequest r;
  r.path = path;
  r.timeout_s = 10;
  return r;
}

std::unique_ptr<KubeApi> Client(const KubeTarget& t, std::vector<std::string>* warnings = nullptr) {
  auto c = MakeKubeClient(t, [warnings](const std::string& w) {
    if (warnings) warnings->push_back(w);
  });
  EXPECT_TRUE(c.ok()) << c.status().str();
  return c.ok() ? std::move(c.value()) : nullptr;
}

int CountLines(const std::string& file) {
  auto s = ReadFile(file);
  return s.ok() ? static_cast<int>(Split(Trim(*s), '\n').size()) : 0;
}

// ---------------------------------------------------------------------------
// Against tests/k8s/fake_apiserver.py over real HTTPS. The server starts
// once for the suite (it makes its PKI with openssl on first start); each
// test starts with the one token `hb-test-token` accepted.

class KubeClientTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    SpawnOptions so;
    so.argv = {"/usr/bin/python3", std::string(HB_SOURCE_DIR) + "/tests/k8s/fake_apiserver.py", "--dir", dir_->path()};
    so.stdout_path = *dir_ / "server.out";
    so.stderr_path = *dir_ / "server.log";
    auto pid = SpawnProcess(so);
    if (!pid.ok()) {
      start_error_ = pid.status().str();
      return;
    }
    pid_ = *pid;
    // Bounded wait for DIR/ready, polling; stops early if the server dies.
    for (int i = 0; i < 400 && !PathExists(*dir_ / "ready"); ++i) {
      int status;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!PathExists(*dir_ / "ready")) {
      auto log = ReadFile(*dir_ / "server.log");
      start_error_ = "fake_apiserver.py did not get ready: " + (log.ok() ? *log : "");
    }
  }
  static void TearDownTestSuite() {
    if (pid_ > 0) {
      killpg(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(start_error_.empty()) << start_error_;
    ASSERT_TRUE(WriteFile(*dir_ / "tokens", std::string(kToken) + "\n").ok());
  }

  static std::string Dir(const std::string& name) { return *dir_ / name; }

  // The fake's kubeconfig, as LoadKubeTarget reads it.
  static KubeTarget Target(const std::string& context = "") {
    KubeLoadOptions o;
    o.kubeconfig_flag = Dir("kubeconfig");
    o.context = context;
    auto t = LoadKubeTarget(o);
    EXPECT_TRUE(t.ok()) << t.status().str();
    return t.ok() ? *t : KubeTarget{};
  }

  static void SetTokens(const std::string& tokens) { ASSERT_TRUE(WriteFile(Dir("tokens"), tokens + "\n").ok()); }

  // Injects a fault into the fake (no auth needed).
  static void Fault(const nlohmann::json& fault) {
    KubeTarget t = Target();
    t.token = "";
    auto c = Client(t);
    ASSERT_TRUE(c);
    KubeRequest r;
    r.method = "POST";
    r.path = "/fake/faults";
    r.body = fault.dump();
    auto resp = c->Send(r);
    ASSERT_TRUE(resp.ok()) << resp.status().str();
    ASSERT_EQ(resp->status / 100, 2) << resp->body;
  }

  // A shell-script exec plugin in the fake's folder that prints the token
  // in exec-token (and expirationTimestamp from exec-expiry, if any), and
  // appends a line to exec-runs on each run.
  static KubeExec Plugin() {
    std::string script = Dir("plugin.sh");
    EXPECT_TRUE(WriteFile(script, R"SH(#!/bin/sh
d=$(dirname "$0")
echo run >> "$d/exec-runs"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$d/exec-info"
printf '%s' "$HB_NOTE" > "$d/exec-note"
exp=""
[ -s "$d/exec-expiry" ] && exp=",\"expirationTimestamp\":\"$(cat "$d/exec-expiry")\""
printf '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"%s"%s}}\n' "$(cat "$d/exec-token")" "$exp"
)SH")
                    .ok());
    chmod(script.c_str(), 0755);
    (void)RemoveTree(Dir("exec-runs"));
    (void)RemoveTree(Dir("exec-expiry"));
    EXPECT_TRUE(WriteFile(Dir("exec-token"), kToken).ok());
    KubeExec x;
    x.api_version = "client.authentication.k8s.io/v1beta1";
    x.command = script;
    x.env = {{"HB_NOTE", "from-kubeconfig"}};
    return x;
  }

  static TempDir* dir_;
  static pid_t pid_;
  static std::string start_error_;
};

TempDir* KubeClientTest::dir_ = nullptr;
pid_t KubeClientTest::pid_ = -1;
std::string KubeClientTest::start_error_;

TEST_F(KubeClientTest, TokenAuth) {
  KubeTarget t = Target();
  EXPECT_EQ(t.token, kToken);
  auto c = Client(t);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->DefaultNamespace(), "hb-test");
  EXPECT_EQ(c->Server(), t.server);
  EXPECT_TRUE(StartsWith(c->Server(), "https://")) << c->Server();
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 200) << r->body << r->transport_error;
  EXPECT_TRUE(nlohmann::json::accept(r->body)) << r->body;
  EXPECT_EQ(r->retry_after_s, -1);
  EXPECT_EQ(c->counts(), (std::map<std::string, int>{{"GET pods", 1}}));
}

TEST_F(KubeClientTest, WrongTokenIs401WithoutRetry) {
  KubeTarget t = Target();
  t.token = "not-the-token";
  auto c = Client(t);
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(c->counts().at("GET pods"), 1);  // a plain token is never refreshed

  t.token = "";  // anonymous
  c = Client(t);
  r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 401);
}

TEST_F(KubeClientTest, ClientCertificate) {
  KubeTarget t = Target("fake-cert");
  ASSERT_FALSE(t.client_cert_pem.empty());
  EXPECT_EQ(t.token, "");
  auto c = Client(t);
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 200) << r->body << r->transport_error;
}

TEST_F(KubeClientTest, ExecPluginIsCachedAndRefreshedOnceOn401) {
  KubeTarget t = Target();
  t.token = "";
  t.exec = Plugin();
  auto c = Client(t);
  ASSERT_TRUE(c);
  for (int i = 0; i < 2; ++i) {
    auto r = c->Send(Get(kPods));
    ASSERT_TRUE(r.ok()) << r.status().str();
    EXPECT_EQ(r->status, 200);
  }
  EXPECT_EQ(CountLines(Dir("exec-runs")), 1);  // cached: no expiry given
  auto info = nlohmann::json::parse(ReadFile(Dir("exec-info")).value());
  EXPECT_EQ(info, nlohmann::json::parse(R"({"apiVersion":"client.authentication.k8s.io/v1beta1",
      "kind":"ExecCredential","spec":{"interactive":false}})"));
  EXPECT_EQ(ReadFile(Dir("exec-note")).value(), "from-kubeconfig");

  // The server rotates; so does the plugin: one 401, one run, one repeat.
  SetTokens("rotated-token");
  ASSERT_TRUE(WriteFile(Dir("exec-token"), "rotated-token").ok());
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(CountLines(Dir("exec-runs")), 2);
  EXPECT_EQ(c->counts().at("GET pods"), 4);

  // The server rotates but the plugin still has the old token: one run,
  // and no repeat since the credential did not change.
  SetTokens("another-token");
  r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(CountLines(Dir("exec-runs")), 3);
  EXPECT_EQ(c->counts().at("GET pods"), 5);
}

TEST_F(KubeClientTest, ExecCredentialExpires) {
  KubeTarget t = Target();
  t.exec = Plugin();
  t.exec->provide_cluster_info = true;
  ASSERT_TRUE(WriteFile(Dir("exec-expiry"), "2001-01-01T00:00:00Z").ok());
  auto c = Client(t);
  ASSERT_TRUE(c);
  for (int i = 0; i < 2; ++i) {
    auto r = c->Send(Get(kPods));
    ASSERT_TRUE(r.ok()) << r.status().str();
    EXPECT_EQ(r->status, 200);
  }
  EXPECT_EQ(CountLines(Dir("exec-runs")), 2);  // expired: run again
  auto info = nlohmann::json::parse(ReadFile(Dir("exec-info")).value());
  EXPECT_EQ(info["spec"]["cluster"]["server"], t.server);
  EXPECT_EQ(Base64Decode(info["spec"]["cluster"]["certificate-authority-data"].get<std::string>()), t.ca_pem);

  ASSERT_TRUE(WriteFile(Dir("exec-expiry"), "2999-01-01T00:00:00Z").ok());
  c = Client(t);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(c->Send(Get(kPods))->status, 200);
  EXPECT_EQ(CountLines(Dir("exec-runs")), 3);
}

TEST_F(KubeClientTest, ExecPluginClientCertificate) {
  std::string script = Dir("cert-plugin.sh");
  ASSERT_TRUE(WriteFile(script, R"SH(#!/bin/sh
d=$(dirname "$0")
json() { awk '{printf "%s\\n", $0}' "$1"; }
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"%s","clientKeyData":"%s"}}' "$(json "$d/pki/client.crt")" "$(json "$d/pki/client.key")"
)SH")
                  .ok());
  chmod(script.c_str(), 0755);
  KubeTarget t = Target();
  t.token = "";
  t.exec = KubeExec{};
  t.exec->api_version = "client.authentication.k8s.io/v1";
  t.exec->command = script;
  auto c = Client(t);
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 200) << r->body << r->transport_error;
}

// The service account as a pod sees it: token, ca.crt and namespace files,
// the server from $KUBERNETES_SERVICE_HOST/_PORT; the token file rotates.
TEST_F(KubeClientTest, InClusterServiceAccount) {
  TempDir sa;
  sa.Write("token", std::string(kToken) + "\n");
  sa.Write("ca.crt", ReadFile(Dir("pki/ca.crt")).value());
  sa.Write("namespace", "sa-ns");
  KubeLoadOptions o;
  o.home = sa / "no-home";
  o.in_cluster_dir = sa.path();
  o.in_cluster_host = "127.0.0.1";
  o.in_cluster_port = Trim(ReadFile(Dir("port")).value());
  auto t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  auto c = Client(*t);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->DefaultNamespace(), "sa-ns");
  EXPECT_EQ(c->Send(Get(kPods))->status, 200);
  SetTokens("projected-token-2");
  sa.Write("token", "projected-token-2\n");
  EXPECT_EQ(c->Send(Get(kPods))->status, 200);
  EXPECT_EQ(c->counts().at("GET pods"), 3);
}

TEST_F(KubeClientTest, TokenFileIsReadAgainOn401) {
  KubeTarget t = Target();
  t.token_file = Dir("token-file");
  t.token = "";  // not read yet: the first request reads the file
  ASSERT_TRUE(WriteFile(t.token_file, std::string(kToken) + "\n").ok());
  auto c = Client(t);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->Send(Get(kPods))->status, 200);

  SetTokens("file-token-2");
  ASSERT_TRUE(WriteFile(t.token_file, "file-token-2\n").ok());
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(c->counts().at("GET pods"), 3);  // 200, 401, 200

  SetTokens("file-token-3");  // the file keeps the old one: no repeat
  r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(c->counts().at("GET pods"), 4);

  ASSERT_TRUE(RemoveTree(t.token_file).ok());  // unreadable on a 401: an error, without the token
  auto e = c->Send(Get(kPods));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().str().find("token file: cannot read"), std::string::npos) << e.status().str();
}

TEST_F(KubeClientTest, WrongCaFailsTls) {
  std::string key = Dir("other-ca.key"), crt = Dir("other-ca.crt");
  std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other-ca -keyout " + key + " -out " +
                    crt + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  KubeTarget t = Target();
  t.ca_pem = ReadFile(crt).value();
  auto c = Client(t);
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 0);
  EXPECT_NE(r->transport_error.find("certificate"), std::string::npos) << r->transport_error;
  EXPECT_EQ(r->transport_error.find(kToken), std::string::npos);

  t.ca_pem = "";  // the system CAs do not know the fake's CA either
  c = Client(t);
  r = c->Send(Get(kPods));
  EXPECT_EQ(r->status, 0);
}

TEST_F(KubeClientTest, TlsServerName) {
  KubeTarget t = Target();
  t.tls_server_name = "localhost";  // in the server's certificate
  auto c = Client(t);
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 200) << r->transport_error;

  t.tls_server_name = "wrong.example";  // not in it
  c = Client(t);
  r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 0);
  EXPECT_NE(r->transport_error.find("wrong.example"), std::string::npos) << r->transport_error;
}

TEST_F(KubeClientTest, InsecureSkipTlsVerifyWarnsOnce) {
  KubeTarget t = Target();
  t.ca_pem = "";
  t.insecure_skip_tls_verify = true;
  std::vector<std::string> warnings;
  auto c = Client(t, &warnings);
  ASSERT_TRUE(c);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(c->Send(Get(kPods))->status, 200);
  EXPECT_EQ(warnings, (std::vector<std::string>{"TLS verification is off for " + t.server +
                                                " as the kubeconfig asks (insecure-skip-tls-verify)"}));
}

TEST_F(KubeClientTest, RetryAfterOn429) {
  Fault({{"match", std::string("GET ") + kPods}, {"status", 429}, {"count", 1}, {"retry_after", 2}});
  auto c = Client(Target());
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->retry_after_s, 2);
  r = c->Send(Get(kPods));  // Send never retried on its own; the fault is used up
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->retry_after_s, -1);
  EXPECT_EQ(c->counts().at("GET pods"), 2);
}

TEST_F(KubeClientTest, DroppedConnectionIsStatusZero) {
  Fault({{"match", std::string("GET ") + kPods}, {"drop", true}, {"count", 1}});
  auto c = Client(Target());
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 0);
  EXPECT_FALSE(r->transport_error.empty());
  EXPECT_EQ(r->transport_error.find(kToken), std::string::npos) << r->transport_error;
  EXPECT_EQ(c->Send(Get(kPods))->status, 200);
}

TEST_F(KubeClientTest, CountsByMethodAndKind) {
  auto c = Client(Target());
  ASSERT_TRUE(c);
  KubeRequest post = Get("/apis/batch/v1/namespaces/hb-test/jobs");
  post.method = "POST";
  post.body = R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"hb-count"}})";
  KubeRequest del = Get("/apis/batch/v1/namespaces/hb-test/jobs/hb-count?propagationPolicy=Background");
  del.method = "DELETE";
  for (const auto& req : {Get(kPods), Get(std::string(kPods) + "?labelSelector=a%3Db"),
                          Get(std::string(kPods) + "/x/log?container=main"), post, del}) {
    auto r = c->Send(req);
    ASSERT_TRUE(r.ok()) << r.status().str();
    EXPECT_NE(r->status, 0) << r->transport_error;
    EXPECT_NE(r->status, 401);
  }
  EXPECT_EQ(c->counts(),
            (std::map<std::string, int>{{"GET pods", 2}, {"GET log", 1}, {"POST jobs", 1}, {"DELETE jobs", 1}}));
}

// ---------------------------------------------------------------------------
// Without the fake server.

TEST(KubeClientNoServerTest, ConnectionRefusedIsStatusZero) {
  KubeTarget t;
  t.server = "https://127.0.0.1:1";
  t.token = "secret-token-value";
  auto c = Client(t);
  ASSERT_TRUE(c);
  auto r = c->Send(Get(kPods));
  ASSERT_TRUE(r.ok()) << r.status().str();
  EXPECT_EQ(r->status, 0);
  EXPECT_NE(r->transport_error.find("onnect"), std::string::npos) << r->transport_error;
  EXPECT_EQ(r->transport_error.find("secret-token-value"), std::string::npos);
  EXPECT_EQ(c->counts().at("GET pods"), 1);
}

TEST(KubeClientNoServerTest, TimeoutIsStatusZero) {
  // A socket that listens but never accepts: the TLS handshake never ends.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  KubeTarget t;
  t.server = "https://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  auto c = Client(t);
  KubeRequest req = Get(kPods);
  req.timeout_s = 0.3;
  auto start = std::chrono::steady_clock::now();
  auto r = c->Send(req);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  close(fd);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 0);
  EXPECT_NE(r->transport_error.find("imeout"), std::string::npos) << r->transport_error;
  EXPECT_LT(took, 5);
}

TEST(KubeClientNoServerTest, ExecPluginFailures) {
  TempDir dir;
  KubeTarget t;
  t.server = "https://127.0.0.1:1";
  t.exec = KubeExec{};
  t.exec->api_version = "client.authentication.k8s.io/v1";
  auto run = [&](const std::string& script) {
    std::string path = dir.Write("plugin.sh", "#!/bin/sh\n" + script + "\n");
    chmod(path.c_str(), 0755);
    t.exec->command = path;
    auto c = Client(t);
    auto r = c->Send(Get(kPods));
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(c->counts().size(), 0u);  // nothing was sent
    return r.ok() ? std::string() : r.status().str();
  };
  std::string name = "exec plugin '" + (dir / "plugin.sh") + "'";
  EXPECT_EQ(run("echo 'please log in' >&2; echo SECRET-OUT; exit 3"), name + " failed (exit code 3): please log in");
  EXPECT_EQ(run("echo '{\"token\": \"SECRET-1\"'"), name + ": it printed no JSON object (an ExecCredential)");
  EXPECT_EQ(
      run(R"(echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"SECRET-2"}}')"),
      name +
          ": it printed apiVersion 'client.authentication.k8s.io/v1beta1' but the kubeconfig asks for "
          "client.authentication.k8s.io/v1");
  t.exec->command = dir / "no-such-plugin";
  t.exec->install_hint = "install it with apt";
  auto c = Client(t);
  auto r = c->Send(Get(kPods));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().str().find("could not be run"), std::string::npos) << r.status().str();
  EXPECT_NE(r.status().str().find("(install it with apt)"), std::string::npos) << r.status().str();
}

TEST(KubeClientNoServerTest, RejectsBadPem) {
  KubeTarget t;
  t.server = "https://127.0.0.1:1";
  t.source = "cfg (context x)";
  t.ca_pem = "not a certificate";
  auto c = MakeKubeClient(t, nullptr);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().str(), "the certificate-authority of cfg (context x) is not a PEM certificate");
  t.ca_pem = "";
  t.client_cert_pem = "junk";
  t.client_key_pem = "-----BEGIN PRIVATE KEY-----\nSECRETKEY\n-----END PRIVATE KEY-----\n";
  c = MakeKubeClient(t, nullptr);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().str(), "the client-certificate of cfg (context x) is not a PEM certificate");
  EXPECT_EQ(c.status().str().find("SECRETKEY"), std::string::npos);
}

TEST(KubeClientKindTest, ResourceOfPath) {
  EXPECT_EQ(KubeRequestKind("/api/v1/namespaces/ns/pods"), "pods");
  EXPECT_EQ(KubeRequestKind("/api/v1/namespaces/ns/pods?labelSelector=a%3Db&limit=500"), "pods");
  EXPECT_EQ(KubeRequestKind("/api/v1/namespaces/ns/pods/p-1"), "pods");
  EXPECT_EQ(KubeRequestKind("/api/v1/namespaces/ns/pods/p-1/log?container=main"), "log");
  EXPECT_EQ(KubeRequestKind("/apis/batch/v1/namespaces/ns/jobs"), "jobs");
  EXPECT_EQ(KubeRequestKind("/apis/batch/v1/namespaces/ns/jobs/j/status"), "status");
  EXPECT_EQ(KubeRequestKind("/apis/graphcore.ai/v1alpha1/namespaces/ns/ipujobs/x"), "ipujobs");
  EXPECT_EQ(KubeRequestKind("/api/v1/namespaces"), "namespaces");
  EXPECT_EQ(KubeRequestKind("/api/v1/namespaces/ns"), "namespaces");
  EXPECT_EQ(KubeRequestKind("/api/v1/nodes"), "nodes");
  EXPECT_EQ(KubeRequestKind("/api/v1/watch/namespaces/ns/pods"), "pods");
  EXPECT_EQ(KubeRequestKind("/apis/batch/v1"), "apis");
  EXPECT_EQ(KubeRequestKind("/version"), "version");
  EXPECT_EQ(KubeRequestKind("/fake/faults"), "fake");
}

TEST(KubeClientExecCredentialTest, Parses) {
  const std::string v1 = "client.authentication.k8s.io/v1";
  auto c = ParseExecCredential(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
      "status":{"token":"t0k","expirationTimestamp":"2024-05-01T10:00:00Z"}})",
                               v1);
  ASSERT_TRUE(c.ok()) << c.status().str();
  EXPECT_EQ(c->token, "t0k");
  EXPECT_EQ(c->expires, std::optional<std::time_t>(1714557600));
  c = ParseExecCredential(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
      "status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})",
                          v1);
  ASSERT_TRUE(c.ok()) << c.status().str();
  EXPECT_EQ(c->client_cert_pem, "CERT");
  EXPECT_EQ(c->client_key_pem, "KEY");
  EXPECT_FALSE(c->expires);
  for (const char* bad :
       {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})",
        R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                              "status":{"clientKeyData":"SECRET"}})",
        R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Secret","status":{"token":"SECRET"}})",
        R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                              "status":{"token":"SECRET","expirationTimestamp":"soon"}})",
        "SECRET", ""}) {
    auto e = ParseExecCredential(bad, v1);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().str().find("SECRET"), std::string::npos) << e.status().str();
  }
}

}  // namespace
}  // namespace hb
