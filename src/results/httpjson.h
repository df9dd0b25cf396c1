// The `httpjson` perflog handler, as ReFrame configures it
// (reframe/core/logging.py, HTTPJSONHandler, ReFrame 4.x): each case's
// performance record is POSTed as one JSON object to `url` (an
// Elasticsearch, Graylog or any JSON endpoint), with headers
// Content-type: application/json, Accept-Charset: UTF-8 and `extra_headers`.
//
// The record is ReFrame's _record_to_json: every attribute of the log
// record (perflog.h PerflogAttributes: check_name, check_system,
// check_partition, check_environ, check_result, check_jobid, check_tags as
// a list, ..., hostname, osuser, version) with its JSON type; the
// performance-variable fields check_perf_var, check_perf_value,
// check_perf_ref, check_perf_lower_thres, check_perf_upper_thres,
// check_perf_unit as null (they are per variable), and each variable
// flattened as check_perf_<var>_value, _ref, _lower_thres, _upper_thres,
// _unit and _result (<var> with non-word characters replaced by '_'); then
// `extras`, which win; keys starting with '_' or listed in `ignore_keys`
// are left out.
//
// Sending never blocks the run: Log() queues the record and a background
// thread POSTs it with retries (net/http.h SendWithRetries: connection
// failures, 429 and 5xx, exponential back-off, a total time cap). A record
// that cannot be delivered costs a warning naming the URL and the HTTP
// status or curl's error; after a connection failure that outlasts the
// retries the handler stops sending (the server is down) and counts the
// rest as not delivered. Finish() waits a bounded time for the queue.
// With `debug: true` nothing is sent: each record is written to
// httpjson_record_<milliseconds>.json in the current folder, as ReFrame
// does.
//
// Log, Finish and TakeWarnings are called from one thread (the run's); the
// sender thread is internal.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/http.h"
#include "results/case_result.h"

namespace hb {

struct HttpJsonConfig {
  std::string url;
  nlohmann::ordered_json extras = nlohmann::ordered_json::object();
  std::vector<std::string> ignore_keys;
  std::vector<std::string> extra_headers;  // "Name: value"
  bool debug = false;
  std::string debug_dir = ".";
  RetryPolicy retry;
  double timeout_s = 10;  // one exchange
};

// The JSON object ReFrame sends for case `c`.
nlohmann::ordered_json HttpJsonRecord(const SessionInfo& s, const CaseResult& c, const nlohmann::ordered_json& extras,
                                      const std::vector<std::string>& ignore_keys);

class HttpJsonHandler {
 public:
  HttpJsonHandler(HttpJsonConfig cfg, std::unique_ptr<HttpTransport> transport);
  ~HttpJsonHandler();
  HttpJsonHandler(const HttpJsonHandler&) = delete;
  HttpJsonHandler& operator=(const HttpJsonHandler&) = delete;

  // Queues the case's record (debug: writes it at once).
  void Log(const SessionInfo& s, const CaseResult& c);
  // Waits up to timeout_s for queued records to be delivered, then stops
  // the sender; records still queued count as not delivered.
  void Finish(double timeout_s);
  // Warnings gathered since the last call, for the console.
  std::vector<std::string> TakeWarnings();

  int delivered() const { return delivered_; }

 private:
  void SenderLoop();
  bool Pause(double seconds);  // false when stopping
  void Deliver(const std::string& body, const std::string& what);
  void Warn(const std::string& msg);

  HttpJsonConfig cfg_;
  std::unique_ptr<HttpTransport> transport_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::string, std::string>> queue_;  // body, case name
  bool stop_ = false, busy_ = false, down_ = false;
  int queued_ = 0, delivered_ = 0, failed_ = 0;
  std::vector<std::string> warnings_, seen_;
  std::thread sender_;
};

}  // namespace hb
