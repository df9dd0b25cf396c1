// KubeClient: the real KubeApi (kube_api.h), speaking HTTPS to an API
// server with the credentials of a KubeTarget (kubeconfig.h), through the
// project's HTTP transport (net/http.h, libcurl).
//
// TLS is verified against the target's CA (or the system's CAs) unless the
// kubeconfig asks for insecure-skip-tls-verify; tls-server-name is the name
// verified while connecting to the server's address. CA, client
// certificate and key travel to libcurl from memory, never through files.
// One transport is reused, so requests share a kept-alive connection.
//
// Credentials, in the order client-go uses them: an exec plugin (run on
// first use, its ExecCredential cached until its expirationTimestamp), a
// token file (re-read every minute), a token, a client certificate. On a
// 401, an exec or token-file credential is refreshed once and, when that
// gave a different credential, the request is repeated once; Send does
// nothing else of its own (no sleeping, no other retries). Tokens go only
// into the Authorization header: never into a URL, a message or an error.
//
// counts() counts each HTTP exchange (a repeat after a 401 counts again)
// by "METHOD kind", kind being the resource the path names (KubeRequestKind).
//
// Owned by the Kubernetes scheduler; used from one thread; not thread-safe.
#pragma once

#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "k8s/kube_api.h"
#include "k8s/kubeconfig.h"
#include "util/status.h"

namespace hb {

// Makes the client. Fails when the CA, client certificate or key is not
// PEM. `warn` receives warnings (once each), e.g. that TLS verification is
// off.
Result<std::unique_ptr<KubeApi>> MakeKubeClient(const KubeTarget& t, std::function<void(const std::string&)> warn);

// The resource a request is about, for counts(): the plural of the path's
// resource, or its subresource when there is one.
// "/api/v1/namespaces/ns/pods?watch=0" -> "pods",
// "/api/v1/namespaces/ns/pods/x/log" -> "log", "/api/v1/namespaces/ns" ->
// "namespaces", "/version" -> "version".
std::string KubeRequestKind(const std::string& path);

// What an exec plugin printed (client.authentication.k8s.io ExecCredential).
struct ExecCredential {
  std::string token, client_cert_pem, client_key_pem;
  std::optional<std::time_t> expires;  // none = valid until a 401
};

// Parses the plugin's stdout; `api_version` is what the kubeconfig asked for
// (the answer must match it). Errors never quote the output.
Result<ExecCredential> ParseExecCredential(const std::string& out, const std::string& api_version);

}  // namespace hb
