// KubeApi: the seam through which the Kubernetes backend speaks to an API
// server. The real implementation is KubeClient (kube_client.h: libcurl +
// OpenSSL, credentials from a kubeconfig or the in-cluster service
// account); unit tests of the scheduler use a fake KubeApi, and the
// integration tests run the real client against tests/k8s/fake_apiserver.py
// over real HTTPS.
//
// One request = one HTTP exchange. Send never retries on its own and never
// sleeps: callers (the scheduler) decide when to try again, so the
// executor's main loop never blocks for long. The only exception is a 401
// with exec-plugin or service-account credentials, which Send answers by
// refreshing the credential once and repeating the request.
//
// Used from one thread; not thread-safe.
#pragma once

#include <map>
#include <string>

#include "util/status.h"

namespace hb {

struct KubeRequest {
  std::string method = "GET";  // GET, POST, DELETE, PATCH, PUT
  std::string path;            // "/apis/batch/v1/namespaces/ns/jobs?labelSelector=..." (already URL-encoded)
  std::string body;            // JSON, or "" for none
  std::string content_type = "application/json";
  double timeout_s = 30;  // whole exchange, connection included
};

struct KubeResponse {
  int status = 0;  // HTTP status; 0 when no response came (connection failed)
  std::string body;
  double retry_after_s = -1;    // the Retry-After header in seconds; -1 = absent
  std::string transport_error;  // when status == 0: what failed (no secrets in it)
};

class KubeApi {
 public:
  virtual ~KubeApi() = default;
  // The error is only for a request that could not be made at all (bad
  // credentials file, exec plugin failing); a connection failure is a
  // KubeResponse with status 0 and transport_error set.
  virtual Result<KubeResponse> Send(const KubeRequest& req) = 0;
  // The namespace the kubeconfig's context (or the service account) names;
  // "default" when none does.
  virtual std::string DefaultNamespace() const = 0;
  // "https://host:port" of the API server (for messages).
  virtual std::string Server() const = 0;
  // How many requests were sent, by "METHOD kind" (e.g. "GET pods",
  // "POST jobs"), for the benchmarks.
  const std::map<std::string, int>& counts() const { return counts_; }

 protected:
  void Count(const std::string& key) { ++counts_[key]; }

 private:
  std::map<std::string, int> counts_;
};

}  // namespace hb
