// The HTTP(S) transport: one POST/PUT/GET exchange through libcurl
// (HttpTransport, the seam tests replace), and SendWithRetries, the retry
// policy senders of records share (the httpjson perflog handler): retry a
// connection failure, a 429 or a 5xx with exponential back-off, a bounded
// number of times and within a total time cap, honouring Retry-After.
//
// A transport is used from one thread at a time; make one per thread. It
// keeps one libcurl handle, so consecutive requests to the same server
// share a kept-alive connection. TLS is verified against the system's CAs,
// or only against HttpClientOptions::ca_pem when one is given; CA, client
// certificate and key travel to libcurl from memory, never through files.
// Users: the httpjson perflog handler, and the Kubernetes client
// (k8s/kube_client.cc), which adds credentials on top.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "util/status.h"

namespace hb {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::string body;
  std::vector<std::string> headers;  // "Name: value"
  double timeout_s = 10;             // the whole exchange, connection included
  // A TLS client certificate and its unencrypted key (PEM), or empty. When
  // they change from one request to the next, a fresh connection is made
  // (a new certificate must not ride on one opened with the old one).
  std::string client_cert_pem, client_key_pem;
};

// Settings of a transport that hold for all its requests.
struct HttpClientOptions {
  std::string ca_pem;                     // trust only this CA (PEM); empty: the system's CAs
  bool insecure_skip_tls_verify = false;  // no certificate or host name check at all
  std::string proxy_url;                  // empty: libcurl's default (the *_proxy variables)
  // "HOST:PORT:CONNECT-HOST:CONNECT-PORT" (CURLOPT_CONNECT_TO): requests to
  // HOST:PORT go to the other address, while TLS still names HOST.
  std::string connect_to;
  bool accept_compressed = false;  // ask for gzip/deflate and decode it
};

struct HttpResponse {
  int status = 0;  // HTTP status; 0 when no response came
  std::string body;
  double retry_after_s = -1;  // the Retry-After header in seconds; -1 = absent
  std::string error;          // when status == 0: what failed (curl's words)

  // "HTTP 503" or "connection failed: Couldn't connect to server: ...".
  std::string Describe() const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // One exchange; never retries, never sleeps beyond req.timeout_s.
  virtual HttpResponse Send(const HttpRequest& req) = 0;
};

// The libcurl transport. Fails only when libcurl cannot start. It sends
// "User-Agent: hetbench/VERSION" and no "Expect: 100-continue".
Result<std::unique_ptr<HttpTransport>> MakeCurlTransport(const HttpClientOptions& options = {});

// `url` with its host replaced by `server_name`, and the connect_to entry
// that still sends its requests to the original host and port: how a
// client verifies TLS against a name other than the host it connects to
// (kubeconfig's tls-server-name). An error names the URL that cannot be
// parsed.
struct ServerNameOverride {
  std::string url;         // "https://NAME:PORT/path", without a trailing slash
  std::string connect_to;  // "NAME:PORT:HOST:PORT"
};
Result<ServerNameOverride> OverrideServerName(const std::string& url, const std::string& server_name);

struct RetryPolicy {
  int max_attempts = 4;          // the first try and up to 3 retries
  double first_backoff_s = 0.5;  // then doubled: 0.5, 1, 2 s
  double max_backoff_s = 8;      // also caps a Retry-After
  double max_total_s = 30;       // no retry starts once this much time has passed
};

// True for what is worth trying again: no response (status 0), 429, 5xx.
bool IsRetryableStatus(int status);
bool IsRetryable(const HttpResponse& r);
// The reason phrase of a status code ("Not Found"); "" for codes not
// listed (RFC 9110, section 15).
const char* HttpReasonPhrase(int status);
// `s` percent-encoded for a URL's query (RFC 3986 unreserved kept).
std::string UrlEncode(const std::string& s);

struct Delivery {
  HttpResponse last;  // the final answer
  int attempts = 0;
  bool ok() const { return last.status >= 200 && last.status < 300; }
};

// Sends `req`, retrying as `policy` says. `sleep(seconds)` waits between
// attempts and returns false to give up early (a shutdown); `now()` gives
// seconds on a monotonic clock. Both default to the real ones when empty.
Delivery SendWithRetries(HttpTransport* transport, const HttpRequest& req, const RetryPolicy& policy,
                         const std::function<bool(double)>& sleep = {}, const std::function<double()>& now = {});

}  // namespace hb
