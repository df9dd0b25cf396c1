// End to end: the httpjson and syslog perflog handlers of a real run, with
// a real HTTP server (Python's http.server, started by the test) and
// sockets the test binds.
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <set>
#include <sstream>

#include "e2e_util.h"

namespace {

const char* kPerfTest = R"(
name: perf
parameters:
  n: [1, 2]
executable: echo
executable_opts: ['value {n}.5']
performance:
  value: {pattern: 'value (\S+)', group: 1, unit: GB/s}
reference:
  '*': {value: [1.5, -0.5, null, GB/s]}
sanity: [{exit_code: 0}]
)";

// Records each POST body as one line of posts.jsonl; answers 503 to the
// first request and 200 to the others; writes its port to port.txt.
const char* kServer = R"(
import http.server, sys, os
d = sys.argv[1]
count = [0]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers['Content-Length']))
        count[0] += 1
        status = 503 if count[0] == 1 else 200
        if status == 200:
            with open(os.path.join(d, 'posts.jsonl'), 'ab') as f:
                f.write(body + b'\n')
            with open(os.path.join(d, 'headers.txt'), 'a') as f:
                f.write(str(self.headers))
        self.send_response(status)
        self.send_header('Content-Length', '0')
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
with open(os.path.join(d, 'port.tmp'), 'w') as f:
    f.write(str(s.server_address[1]))
os.rename(os.path.join(d, 'port.tmp'), os.path.join(d, 'port.txt'))
s.serve_forever()
)";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

std::string Site(const std::string& handlers) { return e2e::LocalSite("logging:\n  - handlers_perflog:\n" + handlers); }

struct Server {
  pid_t pid = -1;
  std::string port;
  explicit Server(const std::string& dir) {
    Write(dir + "/server.py", kServer);
    pid = std::stoi(e2e::Shell("/usr/bin/python3 " + dir + "/server.py " + dir + " >/dev/null 2>&1 & echo $!"));
    e2e::WaitFor([&] { return e2e::Exists(dir + "/port.txt"); }, 10);
    port = Read(dir + "/port.txt");
  }
  ~Server() {
    if (pid > 0) ::kill(pid, SIGTERM);
  }
};

TEST(PerflogE2E, HttpjsonDeliversEveryRecordDespiteA503) {
  std::string dir = TempDir();
  Server server(dir);
  ASSERT_FALSE(server.port.empty());
  Write(dir + "/site.yaml", Site("      - {type: httpjson, url: 'http://127.0.0.1:" + server.port +
                                 "/rfm', extras: {facility: reframe}, extra_headers: {Authorization: Token T}}\n"));
  Write(dir + "/t.yaml", kPerfTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(o.out.find("warning"), std::string::npos) << o.out;
  std::vector<nlohmann::json> posts;
  for (const auto& line : Lines(Read(dir + "/posts.jsonl"))) posts.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(posts.size(), 2u) << "one record per case; the 503 was retried";
  std::set<double> values;
  for (const auto& p : posts) {
    EXPECT_EQ(p["check_name"].get<std::string>().rfind("perf %n=", 0), 0u) << p.dump();
    EXPECT_EQ(p["check_system"], "box");
    EXPECT_EQ(p["check_partition"], "p");
    EXPECT_EQ(p["check_environ"], "gnu");
    EXPECT_EQ(p["check_result"], "pass");
    EXPECT_EQ(p["check_perf_value_unit"], "GB/s");
    EXPECT_EQ(p["check_perf_value_ref"], 1.5);
    EXPECT_EQ(p["check_perf_value_lower_thres"], -0.5);
    EXPECT_EQ(p["facility"], "reframe");
    values.insert(p["check_perf_value_value"].get<double>());
  }
  EXPECT_EQ(values, (std::set<double>{1.5, 2.5}));
  EXPECT_NE(Read(dir + "/headers.txt").find("Authorization: Token T"), std::string::npos);
}

TEST(PerflogE2E, HttpjsonServerDownIsAWarningAndTheRunCompletes) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", Site("      - {type: httpjson, url: 'http://127.0.0.1:9/rfm'}\n"));
  Write(dir + "/t.yaml", kPerfTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 0) << o.out << o.err;
  std::string all = o.out + o.err;
  EXPECT_NE(all.find("hetbench: warning: httpjson: cannot deliver the performance record of 'perf %n="),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("to http://127.0.0.1:9/rfm: connection failed: Couldn't connect to server"), std::string::npos)
      << all;
  EXPECT_NE(all.find("2 of 2 performance records were not delivered"), std::string::npos) << all;
  // The run's other results are all there.
  EXPECT_EQ(e2e::Find(dir + "/perflogs", "perf.log").size(), 1u);
  auto reports = e2e::Find(dir + "/reports", "run-*.json");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(Read(reports[0]))["cases"].size(), 2u);
}

TEST(PerflogE2E, BadHttpjsonUrlIsAConfigurationError) {
  std::string dir = TempDir();
  Write(dir + "/site.yaml", Site("      - {type: httpjson, url: 'elastic:9200/x'}\n"));
  Write(dir + "/t.yaml", kPerfTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml"}, dir);
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("logging: handlers_perflog[0] (httpjson): url: invalid url scheme"), std::string::npos) << o.err;
}

TEST(PerflogE2E, SyslogOverAUnixDatagramSocket) {
  std::string dir = TempDir();
  std::string path = dir + "/log.sock";
  int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  Write(dir + "/site.yaml", Site("      - type: syslog\n        address: " + path +
                                 "\n        facility: local1\n        format: '%(check_name)s|%(check_perfvalues)s'\n"
                                 "        format_perfvars: '%(check_perf_value)s|%(check_perf_unit)s|'\n"));
  Write(dir + "/t.yaml", kPerfTest);
  auto o = Hetbench({"run", "-C", "site.yaml", "-c", "t.yaml", "--exec-policy", "serial"}, dir);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::set<std::string> got;
  for (int i = 0; i < 2; ++i) {
    pollfd p{fd, POLLIN, 0};
    ASSERT_GT(::poll(&p, 1, 2000), 0);
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    got.insert(std::string(buf, static_cast<size_t>(n)));
  }
  ::close(fd);
  EXPECT_EQ(got, (std::set<std::string>{std::string("<140>perf %n=1|1.5|GB/s\0", 24),
                                        std::string("<140>perf %n=2|2.5|GB/s\0", 24)}));
}

}  // namespace
