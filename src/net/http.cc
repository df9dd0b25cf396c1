#include "net/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace hb {

std::string HttpResponse::Describe() const {
  if (status == 0) return "connection failed: " + error;
  return "HTTP " + std::to_string(status);
}

bool IsRetryable(const HttpResponse& r) { return r.status == 0 || r.status == 429 || r.status >= 500; }

namespace {

size_t OnBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// Reads "Retry-After: <seconds>" (the HTTP-date form is ignored).
size_t OnHeader(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  const std::string key = "retry-after:";
  if (line.size() > key.size()) {
    std::string head = line.substr(0, key.size());
    std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
    if (head == key) {
      char* end = nullptr;
      double v = std::strtod(line.c_str() + key.size(), &end);
      if (end != line.c_str() + key.size() && v >= 0) *static_cast<double*>(out) = v;
    }
  }
  return size * n;
}

class CurlTransport : public HttpTransport {
 public:
  explicit CurlTransport(CURL* curl) : curl_(curl) {}
  ~CurlTransport() override { curl_easy_cleanup(curl_); }

  HttpResponse Send(const HttpRequest& req) override {
    HttpResponse r;
    curl_easy_reset(curl_);
    curl_slist* headers = curl_slist_append(nullptr, "Expect:");  // no 100-continue round trip
    for (const auto& h : req.headers) headers = curl_slist_append(headers, h.c_str());
    errbuf_[0] = '\0';
    bool ok = headers && curl_easy_setopt(curl_, CURLOPT_URL, req.url.c_str()) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_ERRORBUFFER, errbuf_) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, OnBody) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &r.body) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_HEADERFUNCTION, OnHeader) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &r.retry_after_s) == CURLE_OK &&
              curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout_s * 1000)) == CURLE_OK;
    if (req.method != "GET") {
      ok = ok && curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size())) == CURLE_OK &&
           curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, req.body.c_str()) == CURLE_OK;
      if (req.method != "POST") ok = ok && curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, req.method.c_str()) == CURLE_OK;
    }
    CURLcode code = ok ? curl_easy_perform(curl_) : CURLE_FAILED_INIT;
    curl_slist_free_all(headers);
    if (code != CURLE_OK) {
      r.body.clear();
      r.retry_after_s = -1;
      r.error = std::string(curl_easy_strerror(code)) + (errbuf_[0] ? std::string(": ") + errbuf_ : "");
      return r;
    }
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    r.status = static_cast<int>(status);
    return r;
  }

 private:
  CURL* curl_;
  char errbuf_[CURL_ERROR_SIZE] = {};
};

double MonotonicNow() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

bool RealSleep(double s) {
  std::this_thread::sleep_for(std::chrono::duration<double>(s));
  return true;
}

}  // namespace

Result<std::unique_ptr<HttpTransport>> MakeCurlTransport() {
  static std::once_flag once;
  static CURLcode init = CURLE_OK;
  std::call_once(once, [] { init = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (init != CURLE_OK) return Status::Error(std::string("libcurl: ") + curl_easy_strerror(init));
  CURL* curl = curl_easy_init();
  if (!curl) return Status::Error("libcurl: cannot create a handle");
  return std::unique_ptr<HttpTransport>(std::make_unique<CurlTransport>(curl));
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
