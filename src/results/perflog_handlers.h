// PerflogHandlers: the perflog handlers a site configuration lists under
// logging/handlers_perflog besides `filelog` (which run_cmd writes with
// AppendPerflog): `httpjson` (httpjson.h) and `syslog` (syslog.h), with
// ReFrame's keys and defaults (reframe/schemas/config.json):
//   every handler: type, level (info), format ('%(message)s'),
//                  format_perfvars (''), datefmt ('%FT%T')
//   httpjson:      url (http or https, with a port), extras ({}),
//                  ignore_keys ([]), extra_headers ({}), debug (false),
//                  json_formatter (a Python callable: must be null here)
//   syslog:        address (required), socktype (udp), facility (user)
// Performance records are logged at level info, so a handler whose level
// is warning or above receives none. Other handler types (file, stream,
// graylog) are ReFrame's general logging, not perflogs; they are ignored.
//
// Owned by the run command; Log/Finish/TakeWarnings from one thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "net/http.h"
#include "results/case_result.h"
#include "results/httpjson.h"
#include "results/syslog.h"
#include "util/status.h"

namespace hb {

struct PerflogHandlerOptions {
  std::string debug_dir = ".";  // where httpjson debug records go
  // Makes the HTTP transport (tests pass fakes); empty = libcurl.
  std::function<Result<std::unique_ptr<HttpTransport>>()> transport;
  RetryPolicy retry;
};

class PerflogHandlers {
 public:
  // `logging` is the configuration's logging entry for the system (with
  // handlers_perflog). A bad handler is an error naming its index and key;
  // a syslog handler whose socket cannot be opened is a warning and is
  // left out (the run goes on).
  static Result<std::unique_ptr<PerflogHandlers>> Create(const nlohmann::json& logging,
                                                         const PerflogHandlerOptions& opts = {});

  // Sends the case to every handler (for a case ReFrame would log).
  void Log(const SessionInfo& s, const CaseResult& c);
  // Waits up to timeout_s for the HTTP handlers' queues.
  void Finish(double timeout_s);
  std::vector<std::string> TakeWarnings();
  size_t size() const { return http_.size() + syslog_.size(); }

 private:
  std::vector<std::unique_ptr<HttpJsonHandler>> http_;
  std::vector<std::unique_ptr<SyslogHandler>> syslog_;
  std::vector<std::string> warnings_;
};

}  // namespace hb
