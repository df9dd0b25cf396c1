// The `syslog` perflog handler, as ReFrame configures it
// (reframe/core/logging.py, _create_syslog_handler, which makes Python's
// logging.handlers.SysLogHandler): each case's record, formatted with the
// handler's `format` and `format_perfvars` as the filelog handler formats
// a line (perflog.h), is sent to `address`: "host:port" over UDP or TCP
// (`socktype`), or a Unix socket path such as /dev/log.
//
// Framing is SysLogHandler's, byte for byte: "<PRI>" + message + "\0",
// with no header, no octet counting (also over TCP). PRI = facility * 8 +
// severity. The severity is 4 (warning) for every record: ReFrame names its
// INFO level 'info' in lower case, which SysLogHandler.mapPriority does not
// know, so it falls back to "warning"; the default facility `user` thus
// gives <12>.
//
// One handler owns one socket; not thread-safe.
#pragma once

#include <memory>
#include <string>

#include "results/case_result.h"
#include "results/perflog.h"
#include "util/status.h"

namespace hb {

struct SyslogConfig {
  std::string address;           // "host:port" or a Unix socket path
  std::string socktype = "udp";  // udp | tcp
  std::string facility = "user";
  PerflogFormat fmt;  // ReFrame's defaults for handlers: format "%(message)s", format_perfvars ""
  SyslogConfig() {
    fmt.format = "%(message)s";
    fmt.format_perfvars = "";
  }
};

// The facility's number (Python's SysLogHandler.facility_names), or -1.
int SyslogFacility(const std::string& name);
// "<PRI>message\0" for one record.
std::string SyslogFrame(int facility, const std::string& message);

// Checks facility, socktype and address; errors say what is accepted.
Status CheckSyslogConfig(const SyslogConfig& cfg);

class SyslogHandler {
 public:
  // Checks the settings (CheckSyslogConfig) and opens the socket
  // (connects for TCP and Unix sockets). Errors name the address.
  static Result<std::unique_ptr<SyslogHandler>> Open(const SyslogConfig& cfg);
  ~SyslogHandler();

  // Sends the case's record (nothing for a case ReFrame would not log).
  Status Log(const SessionInfo& s, const CaseResult& c);

 private:
  SyslogHandler(SyslogConfig cfg, int facility) : cfg_(std::move(cfg)), facility_(facility) {}
  Status Connect();
  Status Send(const std::string& frame);

  SyslogConfig cfg_;
  int facility_;
  int fd_ = -1;
  bool unix_ = false;
  std::string host_, port_;
};

}  // namespace hb
