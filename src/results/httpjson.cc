#include "results/httpjson.h"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <regex>

#include "results/perflog.h"
#include "results/pyformat.h"
#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

// _sanitize: re.sub(r'\W', '_', name).
std::string Sanitize(const std::string& name) {
  std::string out = name;
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  return out;
}

bool CanSend(const std::string& key, const std::vector<std::string>& ignore) {
  return !StartsWith(key, "_") && std::find(ignore.begin(), ignore.end(), key) == ignore.end();
}

double NowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

Json HttpJsonRecord(const SessionInfo& s, const CaseResult& c, const Json& extras,
                    const std::vector<std::string>& ignore_keys) {
  PerflogAttrs attrs = PerflogAttributes(s, c);
  attrs.erase("check_perfvalues");  // flattened below
  attrs.erase("message");           // a LogRecord attribute: never sent
  for (const char* k : {"check_perf_var", "check_perf_value", "check_perf_ref", "check_perf_lower_thres",
                        "check_perf_upper_thres", "check_perf_unit"})
    attrs[k] = nullptr;
  Json out = Json::object();
  for (const auto& [k, v] : attrs)
    if (CanSend(k, ignore_keys)) out[k] = v;
  if (CanSend("check_perfvalues", ignore_keys)) {
    for (const auto& p : c.perf) {
      const std::string pre = "check_perf_" + Sanitize(p.name) + "_";
      const auto& r = p.reference;
      out[pre + "value"] = p.value;
      out[pre + "ref"] = r ? Json(r->value) : Json(0);
      out[pre + "lower_thres"] = r && r->lower ? Json(*r->lower) : Json(nullptr);
      out[pre + "upper_thres"] = r && r->upper ? Json(*r->upper) : Json(nullptr);
      out[pre + "unit"] = p.unit;
      out[pre + "result"] = p.verdict == "fail" ? "fail" : "pass";
    }
  }
  for (auto it = extras.begin(); it != extras.end(); ++it)
    if (CanSend(it.key(), ignore_keys)) out[it.key()] = it.value();
  return out;
}

HttpJsonHandler::HttpJsonHandler(HttpJsonConfig cfg, std::unique_ptr<HttpTransport> transport)
    : cfg_(std::move(cfg)), transport_(std::move(transport)) {
  if (cfg_.debug) return;
  // The sender takes no signals: the run's main loop waits for SIGCHLD and
  // SIGINT itself, and a signal taken by this thread would be lost to it.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  sender_ = std::thread([this] { SenderLoop(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

HttpJsonHandler::~HttpJsonHandler() { Finish(0); }

void HttpJsonHandler::Log(const SessionInfo& s, const CaseResult& c) {
  std::string body = PyJsonDumps(HttpJsonRecord(s, c, cfg_.extras, cfg_.ignore_keys));
  if (cfg_.debug) {
    std::string stem = JoinPath(cfg_.debug_dir, "httpjson_record_" + std::to_string(static_cast<long long>(NowMs())));
    std::string path = stem + ".json";
    for (int n = 1; PathExists(path); ++n) path = stem + "_" + std::to_string(n) + ".json";
    Status st = WriteFile(path, body);
    if (!st.ok()) Warn("httpjson (debug): " + st.str());
    return;
  }
  std::lock_guard<std::mutex> l(mu_);
  ++queued_;
  queue_.emplace_back(std::move(body), c.display_name.empty() ? c.name : c.display_name);
  cv_.notify_all();
}

void HttpJsonHandler::SenderLoop() {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    auto [body, what] = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    l.unlock();
    Deliver(body, what);
    l.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

bool HttpJsonHandler::Pause(double seconds) {
  std::unique_lock<std::mutex> l(mu_);
  return !cv_.wait_for(l, std::chrono::duration<double>(seconds), [&] { return stop_; });
}

void HttpJsonHandler::Deliver(const std::string& body, const std::string& what) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (down_) {
      ++failed_;
      return;
    }
  }
  HttpRequest req;
  req.url = cfg_.url;
  req.body = body;
  req.timeout_s = cfg_.timeout_s;
  req.headers = {"Content-type: application/json", "Accept-Charset: UTF-8"};
  req.headers.insert(req.headers.end(), cfg_.extra_headers.begin(), cfg_.extra_headers.end());
  Delivery d = SendWithRetries(transport_.get(), req, cfg_.retry, [this](double s) { return Pause(s); });
  std::lock_guard<std::mutex> l(mu_);
  if (d.ok()) {
    ++delivered_;
    return;
  }
  ++failed_;
  std::string why = d.last.Describe();
  if (d.last.status == 0) {
    down_ = true;
    why += "; not sending further records there in this run";
  }
  if (std::find(seen_.begin(), seen_.end(), d.last.Describe()) != seen_.end()) return;
  seen_.push_back(d.last.Describe());
  warnings_.push_back("httpjson: cannot deliver the performance record of '" + what + "' to " + cfg_.url + ": " + why +
                      " (" + std::to_string(d.attempts) + (d.attempts == 1 ? " attempt)" : " attempts)"));
}

void HttpJsonHandler::Warn(const std::string& msg) {
  std::lock_guard<std::mutex> l(mu_);
  warnings_.push_back(msg);
}

void HttpJsonHandler::Finish(double timeout_s) {
  if (!sender_.joinable()) return;
  {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, std::chrono::duration<double>(timeout_s), [&] { return queue_.empty() && !busy_; });
    stop_ = true;
    failed_ += static_cast<int>(queue_.size());
    queue_.clear();
    cv_.notify_all();
  }
  sender_.join();
  if (failed_ > 0)
    warnings_.push_back("httpjson: " + std::to_string(failed_) + " of " + std::to_string(queued_) +
                        " performance records were not delivered to " + cfg_.url +
                        " (the run report and the results store have every value)");
}

std::vector<std::string> HttpJsonHandler::TakeWarnings() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  out.swap(warnings_);
  return out;
}

}  // namespace hb
