#include "k8s/kubeconfig.h"

#include <gtest/gtest.h>

#include "util/test_temp_dir.h"

namespace hb {
namespace {

// Two clusters, two users, three contexts; CA and token file relative to
// the kubeconfig's folder.
const char kConfig[] = R"(apiVersion: v1
kind: Config
current-context: cpu
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443
    certificate-authority: pki/ca.crt
- name: lab
  cluster:
    server: https://10.0.0.1:6443/
    insecure-skip-tls-verify: true
    tls-server-name: kube.lab
contexts:
- name: cpu
  context:
    cluster: prod
    user: alice
    namespace: bench
- name: gpu
  context:
    cluster: lab
    user: bob
- name: anon
  context:
    cluster: prod
users:
- name: alice
  user:
    token: alice-token-XYZ
- name: bob
  user:
    tokenFile: secrets/bob.token
)";

class KubeConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    dir_.Write("kube/pki/ca.crt", "CA-PEM\n");
    dir_.Write("kube/secrets/bob.token", "  bob-token-ABC\n");
    config_ = dir_.Write("kube/config", kConfig);
  }
  KubeLoadOptions Flag(const std::string& file, const std::string& context = "") {
    KubeLoadOptions o;
    o.kubeconfig_flag = file;
    o.context = context;
    o.in_cluster_dir = dir_ / "no-such-sa";
    return o;
  }
  // Loads `yaml` (written as kube/bad) and returns the error text.
  std::string Error(const std::string& yaml, const std::string& context = "") {
    auto t = LoadKubeTarget(Flag(dir_.Write("kube/bad", yaml), context));
    EXPECT_FALSE(t.ok());
    return t.ok() ? "" : t.status().str();
  }

  TempDir dir_;
  std::string config_;
};

TEST_F(KubeConfigTest, CurrentContextWithRelativeCaFile) {
  auto t = LoadKubeTarget(Flag(config_));
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://prod.example:6443");
  EXPECT_EQ(t->ca_pem, "CA-PEM\n");
  EXPECT_EQ(t->token, "alice-token-XYZ");
  EXPECT_EQ(t->token_file, "");
  EXPECT_EQ(t->ns, "bench");
  EXPECT_FALSE(t->insecure_skip_tls_verify);
  EXPECT_FALSE(t->in_cluster);
  EXPECT_FALSE(t->exec.has_value());
  EXPECT_EQ(t->source, config_ + " (context cpu)");
}

TEST_F(KubeConfigTest, ChosenContextTokenFileAndDefaultNamespace) {
  auto t = LoadKubeTarget(Flag(config_, "gpu"));
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://10.0.0.1:6443");  // trailing '/' dropped
  EXPECT_TRUE(t->insecure_skip_tls_verify);
  EXPECT_EQ(t->tls_server_name, "kube.lab");
  EXPECT_EQ(t->ca_pem, "");
  EXPECT_EQ(t->token_file, dir_ / "kube/secrets/bob.token");
  EXPECT_EQ(t->token, "bob-token-ABC");
  EXPECT_EQ(t->ns, "default");
  EXPECT_EQ(t->source, config_ + " (context gpu)");
}

TEST_F(KubeConfigTest, ContextWithoutUserIsAnonymous) {
  auto t = LoadKubeTarget(Flag(config_, "anon"));
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->token, "");
  EXPECT_EQ(t->client_cert_pem, "");
}

TEST_F(KubeConfigTest, FlagWinsOverKubeconfigEnvAndHome) {
  std::string other = dir_.Write("other", R"(current-context: o
clusters: [{name: c, cluster: {server: "https://other:1"}}]
contexts: [{name: o, context: {cluster: c}}]
)");
  dir_.Write("home/.kube/config", std::string("current-context: o\n") + "clusters: []\n");
  KubeLoadOptions o = Flag(config_);
  o.kubeconfig_env = other;
  o.home = dir_ / "home";
  auto t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://prod.example:6443");
  o.kubeconfig_flag = "";
  t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://other:1");
}

TEST_F(KubeConfigTest, MissingFlagFileIsAnError) {
  auto t = LoadKubeTarget(Flag(dir_ / "nope"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().str(), "kubeconfig '" + (dir_ / "nope") + "' does not exist");
}

TEST_F(KubeConfigTest, HomeConfigWhenNothingElse) {
  dir_.Write("home/.kube/ca", "HOME-CA");
  dir_.Write("home/.kube/config", R"(current-context: h
clusters: [{name: c, cluster: {server: "https://home:6443", certificate-authority: ca}}]
contexts: [{name: h, context: {cluster: c, namespace: mine}}]
)");
  KubeLoadOptions o;
  o.home = dir_ / "home";
  o.in_cluster_dir = dir_ / "no-such-sa";
  auto t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://home:6443");
  EXPECT_EQ(t->ca_pem, "HOME-CA");
  EXPECT_EQ(t->ns, "mine");
}

// kubectl's merge: the first file to define a name wins, current-context
// comes from the first file that sets one, missing files are skipped, and
// each file's relative paths resolve against its own folder.
TEST_F(KubeConfigTest, KubeconfigEnvListMerges) {
  std::string a = dir_.Write("a/config", R"(clusters:
- name: shared
  cluster: {server: "https://a:6443"}
contexts:
- name: ctx-a
  context: {cluster: shared, user: ua}
users:
- name: ua
  user: {token: token-a}
)");
  dir_.Write("b/ca.pem", "B-CA");
  std::string b = dir_.Write("b/config", R"(current-context: ctx-b
clusters:
- name: shared
  cluster: {server: "https://b-loses:6443"}
- name: only-b
  cluster: {server: "https://b:6443", certificate-authority: ca.pem}
contexts:
- name: ctx-a
  context: {cluster: only-b}
- name: ctx-b
  context: {cluster: shared, user: ua, namespace: nb}
- name: ctx-b2
  context: {cluster: only-b, user: ua}
users:
- name: ua
  user: {token: token-b-loses}
)");
  std::string c = dir_.Write("c/config", "current-context: ctx-c-loses\n");
  KubeLoadOptions o;
  o.kubeconfig_env = dir_ / "missing" + ":" + a + "::" + b + ":" + a + ":" + c;
  o.home = dir_ / "home-unused";
  auto t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://a:6443");  // ctx-b -> shared, as file a defines it
  EXPECT_EQ(t->token, "token-a");
  EXPECT_EQ(t->ns, "nb");
  EXPECT_EQ(t->source, b + " (context ctx-b)");

  o.context = "ctx-a";  // a's context, not b's
  t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://a:6443");

  o.context = "ctx-b2";
  t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://b:6443");
  EXPECT_EQ(t->ca_pem, "B-CA");  // relative to b's folder
}

TEST_F(KubeConfigTest, DataFieldsAreBase64) {
  auto t = LoadKubeTarget(Flag(dir_.Write("kube/data", R"(current-context: d
clusters: [{name: c, cluster: {server: "https://d:6443", certificate-authority-data: "Q0EtREFUQQ=="}}]
contexts: [{name: d, context: {cluster: c, user: u}}]
users:
- name: u
  user:
    client-certificate-data: Q0VSVC1EQVRB
    client-key-data: |
      S0VZLURB
      VEE=
)")));
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->ca_pem, "CA-DATA");
  EXPECT_EQ(t->client_cert_pem, "CERT-DATA");
  EXPECT_EQ(t->client_key_pem, "KEY-DATA");
}

TEST_F(KubeConfigTest, ClientCertificateFilesAreRelative) {
  dir_.Write("kube/certs/me.crt", "MY-CERT");
  dir_.Write("kube/certs/me.key", "MY-KEY");
  auto t = LoadKubeTarget(Flag(dir_.Write("kube/certcfg", R"(current-context: d
clusters: [{name: c, cluster: {server: "https://d:6443"}}]
contexts: [{name: d, context: {cluster: c, user: u}}]
users: [{name: u, user: {client-certificate: certs/me.crt, client-key: certs/me.key}}]
)")));
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->client_cert_pem, "MY-CERT");
  EXPECT_EQ(t->client_key_pem, "MY-KEY");
}

TEST_F(KubeConfigTest, ExecPlugin) {
  auto t = LoadKubeTarget(Flag(dir_.Write("kube/exec", R"(current-context: d
clusters: [{name: c, cluster: {server: "https://d:6443"}}]
contexts: [{name: d, context: {cluster: c, user: u}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: bin/get-token
      args: [--audience, hb]
      env:
      - {name: MODE, value: fast}
      installHint: install get-token
      provideClusterInfo: true
- name: v
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: kubelogin, interactiveMode: IfAvailable}
)")));
  ASSERT_TRUE(t.ok()) << t.status().str();
  ASSERT_TRUE(t->exec.has_value());
  EXPECT_EQ(t->exec->api_version, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(t->exec->command, dir_ / "kube/bin/get-token");
  EXPECT_EQ(t->exec->args, (std::vector<std::string>{"--audience", "hb"}));
  ASSERT_EQ(t->exec->env.size(), 1u);
  EXPECT_EQ(t->exec->env[0], (std::pair<std::string, std::string>{"MODE", "fast"}));
  EXPECT_EQ(t->exec->dir, dir_ / "kube");
  EXPECT_EQ(t->exec->install_hint, "install get-token");
  EXPECT_TRUE(t->exec->provide_cluster_info);
}

TEST_F(KubeConfigTest, ExecCommandWithoutSlashStaysAName) {
  auto t = LoadKubeTarget(Flag(dir_.Write("kube/exec2", R"(current-context: d
clusters: [{name: c, cluster: {server: "https://d:6443"}}]
contexts: [{name: d, context: {cluster: c, user: v}}]
users:
- name: v
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: kubelogin, interactiveMode: IfAvailable}
)")));
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->exec->command, "kubelogin");
}

TEST_F(KubeConfigTest, InClusterFallback) {
  dir_.Write("sa/token", "sa-token-123\n");
  dir_.Write("sa/ca.crt", "SA-CA");
  dir_.Write("sa/namespace", "team-a\n");
  KubeLoadOptions o;
  o.home = dir_ / "empty-home";
  o.in_cluster_dir = dir_ / "sa";
  o.in_cluster_host = "10.96.0.1";
  o.in_cluster_port = "443";
  auto t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_TRUE(t->in_cluster);
  EXPECT_EQ(t->server, "https://10.96.0.1:443");
  EXPECT_EQ(t->token, "sa-token-123");
  EXPECT_EQ(t->token_file, dir_ / "sa/token");
  EXPECT_EQ(t->ca_pem, "SA-CA");
  EXPECT_EQ(t->ns, "team-a");

  o.in_cluster_host = "fd00::1";                                   // IPv6 gets brackets
  o.kubeconfig_env = dir_ / "missing1" + ":" + dir_ / "missing2";  // none exists: still in-cluster
  t = LoadKubeTarget(o);
  ASSERT_TRUE(t.ok()) << t.status().str();
  EXPECT_EQ(t->server, "https://[fd00::1]:443");
}

TEST_F(KubeConfigTest, InClusterWithoutTokenFails) {
  KubeLoadOptions o;
  o.in_cluster_dir = dir_ / "sa-empty";
  o.in_cluster_host = "10.96.0.1";
  o.in_cluster_port = "443";
  auto t = LoadKubeTarget(o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().str().find("in-cluster service account: cannot read '" + (dir_ / "sa-empty/token") + "'"),
            std::string::npos)
      << t.status().str();
}

TEST_F(KubeConfigTest, NothingFound) {
  KubeLoadOptions o;
  o.home = dir_ / "empty-home";
  auto t = LoadKubeTarget(o);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().str(), "no Kubernetes configuration: no --kubeconfig, $KUBECONFIG is not set and " +
                                  (dir_ / "empty-home/.kube/config") +
                                  " does not exist, and hetbench is not running inside a cluster "
                                  "($KUBERNETES_SERVICE_HOST is not set)");
  o.kubeconfig_env = dir_ / "x";
  t = LoadKubeTarget(o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().str().find("none of the files in $KUBECONFIG (" + (dir_ / "x") + ") exists"), std::string::npos);
}

// Each bad input names file:line:column and what was expected.
TEST_F(KubeConfigTest, ContextNotFound) {
  std::string f = dir_ / "kube/config";
  auto t = LoadKubeTarget(Flag(config_, "gpus"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().str(), f + ":15:1: context 'gpus' not found (contexts: anon, cpu, gpu), did you mean 'gpu'?");
  std::string bad = dir_ / "kube/bad";
  EXPECT_EQ(Error("current-context: nope\ncontexts: [{name: a, context: {cluster: c}}]\n"),
            bad + ":1:18: context 'nope' not found (contexts: a)");
  EXPECT_EQ(Error("contexts: [{name: a, context: {cluster: c}}]\n"),
            bad + ": no current-context is set and no context was given (contexts: a)");
}

TEST_F(KubeConfigTest, MissingClusterUserServer) {
  std::string bad = dir_ / "kube/bad";
  EXPECT_EQ(Error(R"(current-context: a
contexts:
- name: a
  context:
    cluster: c
    user: someone
clusters:
- name: c
  cluster: {server: "https://c:1"}
users:
- name: someone-else
)"),
            bad + ":6:11: user 'someone' of context 'a' not found (users: someone-else)");
  EXPECT_EQ(Error(R"(current-context: a
contexts:
- name: a
  context: {cluster: cc}
clusters:
- name: c
  cluster: {server: "https://c:1"}
)"),
            bad + ":4:22: cluster 'cc' of context 'a' not found (clusters: c), did you mean 'c'?");
  EXPECT_EQ(Error(R"(current-context: a
contexts: [{name: a, context: {user: u}}]
)"),
            bad + ":2:12: context 'a' names no cluster");
  EXPECT_EQ(Error(R"(current-context: a
contexts: [{name: a, context: {cluster: c}}]
clusters:
- name: c
  cluster:
    certificate-authority: ca.crt
)"),
            bad + ":4:3: cluster 'c' has no server");
  EXPECT_EQ(Error(R"(current-context: a
contexts: [{name: a, context: {cluster: c}}]
clusters:
- name: c
  cluster: {server: "c.example:6443"}
)"),
            bad + ":5:21: server 'c.example:6443' is not a URL like https://host:6443");
}

TEST_F(KubeConfigTest, BadFilesAndFields) {
  std::string bad = dir_ / "kube/bad";
  const std::string head = R"(current-context: a
contexts: [{name: a, context: {cluster: c, user: u}}]
clusters:
- name: c
  cluster:
    server: https://c:6443
)";
  EXPECT_EQ(Error(head + "    certificate-authority: missing/ca.crt\n"),
            bad + ":7:28: certificate-authority: cannot read '" + (dir_ / "kube/missing/ca.crt") +
                "': No such file or directory");
  EXPECT_EQ(Error(head + "    certificate-authority-data: 'not base64!'\n"),
            bad + ":7:33: certificate-authority-data: expected base64");
  EXPECT_EQ(Error(head + "    certificate-authority: pki/ca.crt\n    certificate-authority-data: Q0E=\n"),
            bad + ":8:33: certificate-authority and certificate-authority-data are both given; keep one");
  EXPECT_EQ(Error(head + "    certificate-authority: pki/ca.crt\n    insecure-skip-tls-verify: true\n"),
            bad +
                ":8:31: cluster 'c' gives both a certificate-authority and insecure-skip-tls-verify; "
                "kubectl refuses that too (remove one)");
  EXPECT_EQ(Error(head + "    insecure-skip-tls-verify: maybe\n"),
            bad + ":7:31: insecure-skip-tls-verify: expected true or false");
  EXPECT_EQ(Error(head + "users: [{name: u, user: {tokenFile: nope.token}}]\n"),
            bad + ":7:37: tokenFile: cannot read '" + (dir_ / "kube/nope.token") + "': No such file or directory");
  EXPECT_EQ(Error(head + "users: [{name: u, user: {client-certificate-data: Q0E=}}]\n"),
            bad + ":7:9: user 'u' gives a client certificate but no client-key");
  EXPECT_EQ(Error(head + "users: [{name: u, user: {exec: {command: get-token}}}]\n"),
            bad +
                ":7:32: exec: apiVersion must be client.authentication.k8s.io/v1beta1 or "
                "client.authentication.k8s.io/v1 (it is missing)");
  EXPECT_EQ(Error(head + "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}]\n"),
            bad + ":7:32: exec: command is missing");
  EXPECT_EQ(Error(head + "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n"),
            bad +
                ":7:41: user 'u': auth-provider plugins are not supported; use an exec plugin "
                "(e.g. gke-gcloud-auth-plugin, kubelogin)");
  EXPECT_EQ(Error(head + "users: {u: {}}\n"), bad + ":7:8: users: expected a list of {name, user}, got a mapping");
  EXPECT_EQ(Error(head + "users: [{user: {}}]\n"), bad + ":7:9: an entry of users has no name");
  EXPECT_EQ(Error("- just a list\n"),
            bad + ":1:1: expected a kubeconfig (a mapping with clusters, contexts and users), got a list");
  std::string broken = Error("clusters: [\n");
  EXPECT_EQ(broken.rfind(bad + ":", 0), 0u) << broken;
  EXPECT_NE(broken.find("invalid YAML"), std::string::npos) << broken;
}

// No token, key or -data value ever reaches a message, whatever is wrong.
TEST_F(KubeConfigTest, SecretsNeverInMessages) {
  const std::string head = R"(current-context: a
contexts: [{name: a, context: {cluster: c, user: u}}]
clusters: [{name: c, cluster: {server: "https://c:6443"}}]
)";
  const std::vector<std::string> users = {
      "users: [{name: u, user: {token: [SECRET-1]}}]",
      "users: [{name: u, user: {token: {SECRET-2: x}}}]",
      "users: [{name: u, user: SECRET-3}]",
      "users: [{name: u, user: {client-key-data: 'SECRET-4!', client-certificate-data: Q0E=}}]",
      "users: [{name: u, user: {client-key-data: U0VDUkVULTU=}}]",  // "SECRET-5": key without cert
      "users: [{name: u, user: {token: SECRET-6, client-certificate-data: Q0E=}}]",
      "users: [{name: u, user: {token: SECRET-7, username: admin, password: SECRET-8}}]",
      "users: [{name: u, user: {exec: {apiVersion: x, command: c, args: [[SECRET-9]]}}}]",
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: c, "
      "env: [{name: T, value: [SECRET-10]}]}}}]",
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: c, "
      "env: [SECRET-11]}}}]",
      "users: [{name: u, user: {token: SECRET-12, tokenFile: [x]}}]",
      "users: [{name: u, user: {token: \"SECRET-13\n",  // broken YAML around a token
  };
  for (const auto& u : users) {
    std::string msg = Error(head + u + "\n");
    EXPECT_FALSE(msg.empty()) << u;
    EXPECT_EQ(msg.find("SECRET"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("U0VDUkVU"), std::string::npos) << msg;
  }
}

TEST(KubeConfigEnvTest, ReadsTheEnvironment) {
  setenv("KUBECONFIG", "/a:/b", 1);
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
  KubeLoadOptions o = KubeLoadOptionsFromEnv();
  unsetenv("KUBECONFIG");
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  EXPECT_EQ(o.kubeconfig_env, "/a:/b");
  EXPECT_EQ(o.in_cluster_host, "10.0.0.1");
  EXPECT_EQ(o.in_cluster_port, "6443");
  EXPECT_EQ(o.home, std::getenv("HOME") ? std::getenv("HOME") : "");
  EXPECT_EQ(o.kubeconfig_flag, "");
  EXPECT_EQ(o.in_cluster_dir, "/var/run/secrets/kubernetes.io/serviceaccount");
}

}  // namespace
}  // namespace hb
