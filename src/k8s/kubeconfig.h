// Finding the Kubernetes API server and the credentials to use with it, as
// kubectl (client-go's clientcmd) finds them:
//
//   1. the file given by --kubeconfig (or the partition's `kubeconfig`),
//   2. else the files listed in $KUBECONFIG (':'-separated), merged: the
//      first file to define a cluster, context or user name wins, and
//      current-context comes from the first file that sets one; files that
//      do not exist are skipped,
//   3. else ~/.kube/config,
//   4. else the in-cluster service account (token, ca.crt and namespace in
//      /var/run/secrets/kubernetes.io/serviceaccount, server from
//      $KUBERNETES_SERVICE_HOST / _PORT).
//
// Relative paths in a kubeconfig resolve against the folder of the file
// that holds them. Every error about a file names file:line:column and what
// was expected. No message ever carries a token, a key or any -data value.
//
// LoadKubeTarget reads files and nothing else (no network, no processes:
// exec plugins run later, in the client). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace hb {

struct KubeLoadOptions {
  std::string kubeconfig_flag;  // --kubeconfig or the partition's `kubeconfig`; "" = none
  std::string kubeconfig_env;   // $KUBECONFIG as given
  std::string home;             // $HOME, for ~/.kube/config
  std::string context;          // "" = the current-context
  std::string in_cluster_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  std::string in_cluster_host, in_cluster_port;  // $KUBERNETES_SERVICE_HOST / _PORT
};

// The environment-derived fields (kubeconfig_env, home, in_cluster_host,
// in_cluster_port) from the real environment; the others keep defaults.
KubeLoadOptions KubeLoadOptionsFromEnv();

// A user's exec credential plugin (client.authentication.k8s.io).
struct KubeExec {
  std::string api_version;  // "client.authentication.k8s.io/v1beta1" or ".../v1"
  std::string command;      // a name looked up in PATH, or a path (made absolute when relative)
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to hetbench's environment
  std::string dir;                                       // the kubeconfig's folder: relative command paths resolve here
  std::string install_hint;                              // shown when the command cannot be run
  bool provide_cluster_info = false;                     // pass the cluster in KUBERNETES_EXEC_INFO
};

// Everything the client needs to talk to one API server as one user.
struct KubeTarget {
  std::string server;  // https://host:port (possibly with a path prefix)
  std::string ca_pem;  // CA certificate(s) PEM; "" = the system's CAs
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // name to verify the server's certificate against; "" = server's host
  std::string proxy_url;        // the cluster's proxy-url; "" = curl's defaults ($https_proxy)
  std::string ns;               // the context's namespace, or the service account's, else "default"
  std::string token;            // a bearer token (also the first read of token_file)
  std::string token_file;       // re-read on each 401 and each minute (rotation); wins over token
  std::string client_cert_pem, client_key_pem;
  std::optional<KubeExec> exec;
  bool in_cluster = false;
  std::string source;  // for messages: "/root/.kube/config (context gpu-service)"
};

Result<KubeTarget> LoadKubeTarget(const KubeLoadOptions& o);

}  // namespace hb
