// PerflogHandlers: the perflog handlers a site configuration lists under
// logging/handlers_perflog, with ReFrame's keys and defaults
// (reframe/schemas/config.json, reframe/core/logging.py):
//   every handler: type, level (info), format ('%(message)s'),
//                  format_perfvars (''), datefmt ('%FT%T')
//   filelog:       prefix (required), basedir ('./perflogs', under the
//                  system's prefix), append (true), ignore_keys ([]),
//                  locking_enable, locking_file_mode (perflog.h always
//                  locks the perflog itself; no lock file is made)
//   httpjson:      url (http or https, with a port), extras ({}),
//                  ignore_keys ([]), extra_headers ({}), debug (false),
//                  json_formatter (a Python callable: must be null here)
//   syslog:        address (required), socktype (udp), facility (user)
// and of the logging entry itself: level (undefined), perflog_multiline and
// its older name perflog_compat (one record per performance variable;
// filelog handlers only here). Performance records are logged at level
// info, so a logger or handler whose level is warning or above receives
// none. A listed handler replaces ReFrame's builtin one, as in ReFrame;
// when none of type filelog is listed, hetbench still writes the builtin
// filelog handler's perflogs (ReFrame would write none). A key hetbench
// cannot honour, or a format asking for what it does not record
// (perflog.h CheckPerflogFormat), is an error naming the handler's index
// and the key. Types `file`, `stream` and `graylog` under
// handlers_perflog are errors that say what to use instead; `file` and
// `stream` under `handlers` are the main log's (results/main_log.h).
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
#include "results/perflog.h"
#include "results/syslog.h"
#include "util/status.h"

namespace hb {

struct PerflogHandlerOptions {
  std::string prefix = ".";               // relative filelog basedirs are under it (ReFrame: the system's prefix)
  std::string basedir;                    // when set (--perflog-dir), every filelog handler's basedir
  std::vector<std::string> config_files;  // the one file, if one, is named in errors
  std::string debug_dir = ".";            // where httpjson debug records go
  // Makes the HTTP transport (tests pass fakes); empty = libcurl.
  std::function<Result<std::unique_ptr<HttpTransport>>()> transport;
  RetryPolicy retry;
  // Only check the entry (no handler is made, no socket opened): how the
  // configuration loader validates logging entries at load.
  bool check_only = false;
};

class PerflogHandlers {
 public:
  // `logging` is the configuration's logging entry for the system (with
  // handlers_perflog). A bad handler is an error naming its index and key;
  // a syslog handler whose socket cannot be opened is a warning and is
  // left out (the run goes on). Nothing is written until Log.
  static Result<std::unique_ptr<PerflogHandlers>> Create(const nlohmann::json& logging,
                                                         const PerflogHandlerOptions& opts = {});

  // Sends the case to every handler (for a case ReFrame would log).
  void Log(const SessionInfo& s, const CaseResult& c);
  // Waits up to timeout_s for the HTTP handlers' queues.
  void Finish(double timeout_s);
  std::vector<std::string> TakeWarnings();
  // The handlers that receive records.
  size_t size() const { return files_.size() + http_.size() + syslog_.size(); }
  // The basedirs of the filelog handlers that receive records.
  std::vector<std::string> FilelogDirs() const;

 private:
  Status Add(const nlohmann::json& h, size_t index, const PerflogHandlerOptions& opts, int logger_level,
             bool multiline);

  std::vector<std::unique_ptr<FilelogHandler>> files_;
  std::vector<std::unique_ptr<HttpJsonHandler>> http_;
  std::vector<std::unique_ptr<SyslogHandler>> syslog_;
  std::vector<std::string> warnings_;
};

}  // namespace hb
