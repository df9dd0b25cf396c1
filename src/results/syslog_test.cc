#include "results/syslog.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "util/test_temp_dir.h"

namespace hb {
namespace {

SessionInfo Session() {
  SessionInfo s;
  s.user = "alice";
  return s;
}

CaseResult Case() {
  CaseResult c;
  c.name = "stream";
  c.system = "hpc";
  c.partition = "gpu";
  c.environ = "gnu";
  c.perf = {{"triad", 21116.7, "MB/s", std::nullopt, "none", ""}};
  return c;
}

// Reads one datagram (or what a stream peer sent) within 2 s.
std::string Receive(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, 2000) <= 0) return "<nothing>";
  char buf[4096];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  return n < 0 ? "<error>" : std::string(buf, static_cast<size_t>(n));
}

// A socket of `type` bound to 127.0.0.1 on a free port; sets *port.
int BoundLoopback(int type, int* port) {
  int fd = ::socket(AF_INET, type, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return -1;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

TEST(Syslog, FramesAsPythonsSysLogHandler) {
  EXPECT_EQ(SyslogFrame(SyslogFacility("user"), "hello"), std::string("<12>hello\0", 10));
  EXPECT_EQ(SyslogFrame(SyslogFacility("local3"), "x"), std::string("<156>x\0", 7));
  EXPECT_EQ(SyslogFacility("nope"), -1);
}

TEST(Syslog, ConfigErrorsSayWhatIsAccepted) {
  SyslogConfig cfg;
  cfg.address = "localhost:514";
  cfg.facility = "users";
  EXPECT_NE(CheckSyslogConfig(cfg).str().find("unknown facility 'users'"), std::string::npos);
  cfg.facility = "user";
  cfg.socktype = "sctp";
  EXPECT_NE(CheckSyslogConfig(cfg).str().find("'udp' or 'tcp'"), std::string::npos);
  cfg.socktype = "udp";
  cfg.address = "localhost:syslog";
  EXPECT_NE(CheckSyslogConfig(cfg).str().find("port not an integer: 'syslog'"), std::string::npos);
}

TEST(Syslog, SendsOverUdp) {
  int port = 0;
  int fd = BoundLoopback(SOCK_DGRAM, &port);
  ASSERT_GE(fd, 0);
  SyslogConfig cfg;
  cfg.address = "127.0.0.1:" + std::to_string(port);
  cfg.fmt.format = "%(check_system)s|%(check_partition)s|%(check_perfvalues)s";
  cfg.fmt.format_perfvars = "%(check_perf_var)s=%(check_perf_value)s %(check_perf_unit)s|";
  auto h = SyslogHandler::Open(cfg);
  ASSERT_TRUE(h.ok()) << h.status().str();
  ASSERT_TRUE((*h)->Log(Session(), Case()).ok());
  EXPECT_EQ(Receive(fd), std::string("<12>hpc|gpu|triad=21116.7 MB/s\0", 31));
  ::close(fd);
}

TEST(Syslog, DefaultFormatIsReframesMessageOverAUnixDatagramSocket) {
  TempDir dir;
  std::string path = dir / "log.sock";
  int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  SyslogConfig cfg;
  cfg.address = path;
  cfg.facility = "local0";
  auto h = SyslogHandler::Open(cfg);
  ASSERT_TRUE(h.ok()) << h.status().str();
  ASSERT_TRUE((*h)->Log(Session(), Case()).ok());
  EXPECT_EQ(Receive(fd), std::string("<132>sent by alice\0", 19));
  // A case ReFrame would not log sends nothing.
  CaseResult skipped = Case();
  skipped.result = "skip";
  ASSERT_TRUE((*h)->Log(Session(), skipped).ok());
  EXPECT_EQ(Receive(fd), "<nothing>");
  ::close(fd);
}

TEST(Syslog, TcpAndMissingSockets) {
  int port = 0;
  int ls = BoundLoopback(SOCK_STREAM, &port);
  ASSERT_GE(ls, 0);
  ASSERT_EQ(::listen(ls, 1), 0);
  SyslogConfig cfg;
  cfg.address = "127.0.0.1:" + std::to_string(port);
  cfg.socktype = "tcp";
  auto h = SyslogHandler::Open(cfg);
  ASSERT_TRUE(h.ok()) << h.status().str();
  int c = ::accept(ls, nullptr, nullptr);
  ASSERT_TRUE((*h)->Log(Session(), Case()).ok());
  EXPECT_EQ(Receive(c), std::string("<12>sent by alice\0", 18));
  ::close(c);
  ::close(ls);

  SyslogConfig missing;
  missing.address = "/nonexistent/dev-log";
  auto m = SyslogHandler::Open(missing);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().str().find("cannot connect to /nonexistent/dev-log"), std::string::npos) << m.status().str();
}

}  // namespace
}  // namespace hb
