#include "net/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "util/clock.h"
#include "util/log.h"
#include "util/strings.h"
#include "version.h"

namespace hb {

std::string HttpResponse::Describe() const {
  if (status == 0) return "connection failed: " + error;
  return "HTTP " + std::to_string(status);
}

bool IsRetryableStatus(int status) { return status == 0 || status == 429 || status >= 500; }
bool IsRetryable(const HttpResponse& r) { return IsRetryableStatus(r.status); }

const char* HttpReasonPhrase(int code) {
  switch (code) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

std::string UrlEncode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

size_t OnBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// Reads "Retry-After: <seconds>" (the HTTP-date form is ignored) from the
// last header block: a 100 Continue starts a new one.
size_t OnHeader(char* data, size_t size, size_t n, void* out) {
  auto* retry_after = static_cast<double*>(out);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) *retry_after = -1;
  const std::string key = "retry-after:";
  if (line.size() > key.size()) {
    std::string head = line.substr(0, key.size());
    std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
    if (head == key) {
      char* end = nullptr;
      double v = std::strtod(line.c_str() + key.size(), &end);
      while (end && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) ++end;
      if (end != line.c_str() + key.size() && end && *end == '\0' && v >= 0) *retry_after = v;
    }
  }
  return size * n;
}

class CurlTransport : public HttpTransport {
 public:
  CurlTransport(CURL* curl, HttpClientOptions o) : curl_(curl), o_(std::move(o)) {}
  ~CurlTransport() override { curl_easy_cleanup(curl_); }

  // Every request is a debug record of the main log (util/log.h): the
  // Kubernetes API calls are a Kubernetes partition's scheduler commands.
  HttpResponse Send(const HttpRequest& req) override {
    auto start = std::chrono::steady_clock::now();
    HttpResponse r = SendOnce(req);
    if (LogEnabled(kLogDebug)) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      LogRecord(kLogDebug, "http: " + req.method + " " + req.url + " -> " +
                               (r.error.empty() ? std::to_string(r.status) : r.error) + " in " + FormatNumber(s, 3) +
                               " s");
    }
    return r;
  }

  HttpResponse SendOnce(const HttpRequest& req) {
    HttpResponse r;
    // A header with a line break would smuggle in headers of its own (libcurl
    // sends it as given): refused, whoever built it.
    for (const auto& h : req.headers)
      if (h.find_first_of("\r\n") != std::string::npos) {
        r.error = "refused: a request header contains a line break (CR or LF)";
        return r;
      }
    curl_easy_reset(curl_);                                       // keeps the open connections
    curl_slist* headers = curl_slist_append(nullptr, "Expect:");  // no 100-continue round trip
    for (const auto& h : req.headers) headers = curl_slist_append(headers, h.c_str());
    connect_to_ = o_.connect_to.empty() ? nullptr : curl_slist_append(nullptr, o_.connect_to.c_str());
    errbuf_[0] = '\0';
    bool ok = headers && (o_.connect_to.empty() || connect_to_) && SetCommon(req, &r) && SetTls(req) &&
              SetMethod(req) && Set(CURLOPT_HTTPHEADER, headers) && Set(CURLOPT_CONNECT_TO, connect_to_);
    CURLcode code = ok ? curl_easy_perform(curl_) : CURLE_FAILED_INIT;
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to_);
    connect_to_ = nullptr;
    if (code != CURLE_OK) {
      r.body.clear();
      r.retry_after_s = -1;
      r.error = ok ? std::string(curl_easy_strerror(code)) + (errbuf_[0] ? std::string(": ") + errbuf_ : "")
                   : "libcurl refused an option (hetbench needs libcurl 7.77 or later, built with OpenSSL)";
      return r;
    }
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    r.status = static_cast<int>(status);
    return r;
  }

 private:
  template <typename T>
  bool Set(CURLoption opt, T value) {
    return curl_easy_setopt(curl_, opt, value) == CURLE_OK;
  }

  bool SetCommon(const HttpRequest& req, HttpResponse* r) {
    bool ok = Set(CURLOPT_URL, req.url.c_str()) && Set(CURLOPT_ERRORBUFFER, errbuf_) && Set(CURLOPT_NOSIGNAL, 1L) &&
              Set(CURLOPT_WRITEFUNCTION, OnBody) && Set(CURLOPT_WRITEDATA, &r->body) &&
              Set(CURLOPT_HEADERFUNCTION, OnHeader) && Set(CURLOPT_HEADERDATA, &r->retry_after_s) &&
              Set(CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout_s * 1000)) && Set(CURLOPT_TCP_KEEPALIVE, 1L) &&
              Set(CURLOPT_USERAGENT, "hetbench/" HETBENCH_VERSION);
    if (ok && o_.accept_compressed) ok = Set(CURLOPT_ACCEPT_ENCODING, "");
    if (ok && !o_.proxy_url.empty()) ok = Set(CURLOPT_PROXY, o_.proxy_url.c_str());
    return ok;
  }

  bool SetTls(const HttpRequest& req) {
    bool ok = true;
    if (o_.insecure_skip_tls_verify) ok = Set(CURLOPT_SSL_VERIFYPEER, 0L) && Set(CURLOPT_SSL_VERIFYHOST, 0L);
    if (ok && !o_.ca_pem.empty()) {
      curl_blob ca{const_cast<char*>(o_.ca_pem.data()), o_.ca_pem.size(), CURL_BLOB_COPY};
      // Only this CA: not the system's as well.
      ok = Set(CURLOPT_CAINFO_BLOB, &ca) && Set(CURLOPT_CAINFO, nullptr) && Set(CURLOPT_CAPATH, nullptr);
    }
    const bool fresh = req.client_cert_pem != cert_ || req.client_key_pem != key_;
    cert_ = req.client_cert_pem;
    key_ = req.client_key_pem;
    if (ok && fresh) ok = Set(CURLOPT_FRESH_CONNECT, 1L);
    if (ok && !req.client_cert_pem.empty()) {
      curl_blob cert{const_cast<char*>(req.client_cert_pem.data()), req.client_cert_pem.size(), CURL_BLOB_COPY};
      curl_blob key{const_cast<char*>(req.client_key_pem.data()), req.client_key_pem.size(), CURL_BLOB_COPY};
      ok = Set(CURLOPT_SSLCERT_BLOB, &cert) && Set(CURLOPT_SSLKEY_BLOB, &key) && Set(CURLOPT_SSLCERTTYPE, "PEM") &&
           Set(CURLOPT_SSLKEYTYPE, "PEM");
    }
    return ok;
  }

  // A body goes with POST, PUT and PATCH (even an empty one), and with any
  // method that has one; a DELETE without one sends none.
  bool SetMethod(const HttpRequest& req) {
    bool ok = true;
    if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH")
      ok = Set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size())) &&
           Set(CURLOPT_POSTFIELDS, req.body.c_str());
    if (ok && req.method != "GET" && req.method != "POST") ok = Set(CURLOPT_CUSTOMREQUEST, req.method.c_str());
    return ok;
  }

  CURL* curl_;
  HttpClientOptions o_;
  char errbuf_[CURL_ERROR_SIZE] = {};
  curl_slist* connect_to_ = nullptr;
  std::string cert_, key_;  // the client certificate of the previous request
};

bool RealSleep(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
  return true;
}

}  // namespace

Result<std::unique_ptr<HttpTransport>> MakeCurlTransport(const HttpClientOptions& options) {
  static std::once_flag once;
  static CURLcode init = CURLE_OK;
  std::call_once(once, [] { init = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (init != CURLE_OK) return Status::Error(std::string("libcurl: ") + curl_easy_strerror(init));
  CURL* curl = curl_easy_init();
  if (!curl) return Status::Error("libcurl: cannot create a handle");
  return std::unique_ptr<HttpTransport>(std::make_unique<CurlTransport>(curl, options));
}

Result<ServerNameOverride> OverrideServerName(const std::string& url, const std::string& server_name) {
  CURLU* u = curl_url();
  char *host = nullptr, *port = nullptr, *out = nullptr;
  bool ok = u && curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
            curl_url_set(u, CURLUPART_HOST, server_name.c_str(), 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_URL, &out, 0) == CURLUE_OK;
  ServerNameOverride r;
  if (ok) {
    r.url = out;
    while (!r.url.empty() && r.url.back() == '/') r.url.pop_back();
    r.connect_to = server_name + ":" + port + ":" + host + ":" + port;
  }
  curl_free(out);
  curl_free(host);
  curl_free(port);
  curl_url_cleanup(u);
  if (!ok) return Status::Error("cannot use the server name '" + server_name + "' with URL " + url);
  return r;
}

Delivery SendWithRetries(HttpTransport* transport, const HttpRequest& req, const RetryPolicy& policy,
                         const std::function<bool(double)>& sleep, const std::function<double()>& now) {
  auto clock = now ? now : MonotonicNow;
  auto wait = sleep ? sleep : RealSleep;
  const double start = clock();
  Delivery d;
  double backoff = policy.first_backoff_s;
  while (true) {
    d.last = transport->Send(req);
    ++d.attempts;
    if (!IsRetryable(d.last) || d.attempts >= policy.max_attempts) return d;
    double pause = d.last.retry_after_s >= 0 ? d.last.retry_after_s : backoff;
    pause = std::min(pause, policy.max_backoff_s);
    if (clock() - start + pause > policy.max_total_s) return d;
    if (!wait(pause)) return d;
    backoff *= 2;
  }
}

}  // namespace hb
