#include "results/syslog.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

namespace hb {

int SyslogFacility(const std::string& name) {
  static const std::map<std::string, int> kFacilities = {
      {"kern", 0},    {"user", 1},    {"mail", 2},    {"daemon", 3},  {"auth", 4},    {"security", 4},
      {"syslog", 5},  {"lpr", 6},     {"news", 7},    {"uucp", 8},    {"cron", 9},    {"authpriv", 10},
      {"ftp", 11},    {"local0", 16}, {"local1", 17}, {"local2", 18}, {"local3", 19}, {"local4", 20},
      {"local5", 21}, {"local6", 22}, {"local7", 23}};
  auto it = kFacilities.find(name);
  return it == kFacilities.end() ? -1 : it->second;
}

std::string SyslogFrame(int facility, const std::string& message) {
  const int kWarning = 4;  // see syslog.h
  std::string frame = "<" + std::to_string(facility * 8 + kWarning) + ">" + message;
  frame.push_back('\0');
  return frame;
}

Status CheckSyslogConfig(const SyslogConfig& cfg) {
  if (SyslogFacility(cfg.facility) < 0)
    return Status::Error(
        "syslog handler: unknown facility '" + cfg.facility +
        "' (kern, user, mail, daemon, auth, syslog, lpr, news, uucp, cron, authpriv, ftp, local0..local7)");
  if (cfg.socktype != "udp" && cfg.socktype != "tcp")
    return Status::Error("syslog handler: socktype must be 'udp' or 'tcp', got '" + cfg.socktype + "'");
  if (cfg.address.empty()) return Status::Error("syslog handler: 'address' is required (host:port or a socket path)");
  // As ReFrame: "host:port" when it splits at the first ':', else a path.
  size_t colon = cfg.address.find(':');
  std::string port = colon == std::string::npos ? "0" : cfg.address.substr(colon + 1);
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos)
    return Status::Error("syslog handler: address port not an integer: '" + port + "'");
  return Status::OK();
}

Result<std::unique_ptr<SyslogHandler>> SyslogHandler::Open(const SyslogConfig& cfg) {
  Status st = CheckSyslogConfig(cfg);
  if (!st.ok()) return st;
  std::unique_ptr<SyslogHandler> h(new SyslogHandler(cfg, SyslogFacility(cfg.facility)));
  size_t colon = cfg.address.find(':');
  h->unix_ = colon == std::string::npos;
  if (!h->unix_) {
    h->host_ = cfg.address.substr(0, colon);
    h->port_ = cfg.address.substr(colon + 1);
  }
  st = h->Connect();
  if (!st.ok()) return st;
  return h;
}

SyslogHandler::~SyslogHandler() {
  if (fd_ >= 0) ::close(fd_);
}

Status SyslogHandler::Connect() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  int type = (cfg_.socktype == "tcp" ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC;
  auto fail = [&](const std::string& what) {
    Status st = Status::Error("syslog handler: cannot " + what + " " + cfg_.address + ": " + std::strerror(errno));
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return st;
  };
  if (unix_) {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    if (cfg_.address.size() >= sizeof a.sun_path)
      return Status::Error("syslog handler: socket path too long: " + cfg_.address);
    std::strncpy(a.sun_path, cfg_.address.c_str(), sizeof a.sun_path - 1);
    fd_ = ::socket(AF_UNIX, type, 0);
    if (fd_ < 0) return fail("open a socket for");
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return fail("connect to");
    return Status::OK();
  }
  addrinfo hints{};
  hints.ai_socktype = type & ~SOCK_CLOEXEC;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host_.c_str(), port_.c_str(), &hints, &res);
  if (rc != 0) return Status::Error("syslog handler: cannot resolve " + cfg_.address + ": " + gai_strerror(rc));
  Status st = Status::Error("syslog handler: no address for " + cfg_.address);
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    fd_ = ::socket(ai->ai_family, type, ai->ai_protocol);
    if (fd_ < 0) {
      st = fail("open a socket for");
      continue;
    }
    // UDP too is connected, so sends go to one peer and errors come back.
    if (::connect(fd_, ai->ai_addr, ai->ai_addrlen) == 0) {
      st = Status::OK();
      break;
    }
    st = fail("connect to");
  }
  ::freeaddrinfo(res);
  return st;
}

Status SyslogHandler::Send(const std::string& frame) {
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n = ::send(fd_, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Error("syslog handler: cannot send to " + cfg_.address + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status SyslogHandler::Log(const SessionInfo& s, const CaseResult& c) {
  if (!ShouldLogPerformance(c)) return Status::OK();
  std::string frame = SyslogFrame(facility_, PerflogRecord(cfg_.fmt, s, c));
  Status st = fd_ >= 0 ? Send(frame) : Status::Error("not connected");
  if (st.ok() || (cfg_.socktype == "udp" && !unix_)) return st;
  // As SysLogHandler does for a Unix socket: reconnect once and resend.
  Status again = Connect();
  return again.ok() ? Send(frame) : again;
}

}  // namespace hb
