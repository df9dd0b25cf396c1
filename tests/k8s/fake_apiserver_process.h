// FakeApiServer: tests/k8s/fake_apiserver.py as a child process of an
// end-to-end test (its state directory, kubeconfig, control endpoints and
// the objects it holds). Shared by the Kubernetes tests and the
// heterogeneous-site test.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "../e2e/e2e_util.h"

namespace k8s_e2e {

inline const std::string kFakeSource = HB_SOURCE_DIR;
inline const std::string kFakePython = "/usr/bin/python3";

// The fake API server as a child process.
class FakeApiServer {
 public:
  explicit FakeApiServer(std::string dir) : dir_(std::move(dir)) {}
  ~FakeApiServer() { Stop(SIGTERM); }

  void Start(const std::vector<std::string>& flags = {}) {
    std::remove((dir_ + "/ready").c_str());
    std::vector<std::string> args = {kFakePython,
                                     kFakeSource + "/tests/k8s/fake_apiserver.py",
                                     "--dir",
                                     dir_,
                                     "--pod-start-delay",
                                     "0.1",
                                     "--admit-delay",
                                     "0.3"};
    if (!port_.empty()) args.insert(args.end(), {"--port", port_});
    args.insert(args.end(), flags.begin(), flags.end());
    flags_ = flags;
    pid_ = fork();
    if (pid_ == 0) {
      std::string log = dir_ + "/server.log";
      FILE* f = freopen(log.c_str(), "a", stderr);
      (void)f;
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(kFakePython.c_str(), argv.data());
      _exit(127);
    }
    ASSERT_TRUE(e2e::WaitFor([&] { return e2e::Exists(dir_ + "/ready"); }, 30)) << e2e::Read(dir_ + "/server.log");
    port_ = e2e::Read(dir_ + "/port");
    while (!port_.empty() && (port_.back() == '\n' || port_.back() == ' ')) port_.pop_back();
  }
  // SIGTERM: the server stops its pods too; SIGKILL: they survive (as on a
  // real node when the API server restarts).
  void Stop(int sig) {
    if (pid_ <= 0) return;
    kill(pid_, sig);
    int status;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  void Restart() {
    Stop(SIGKILL);
    Start(flags_);
  }

  // A request to the server's /fake control endpoints (no auth needed).
  std::string Control(const std::string& method, const std::string& path, const std::string& body = "") {
    std::string py =
        "import ssl,sys,urllib.request as u\n"
        "c=ssl.create_default_context(cafile=sys.argv[1])\n"
        "d=sys.argv[4].encode() if sys.argv[4] else None\n"
        "r=u.Request('https://127.0.0.1:'+sys.argv[2]+sys.argv[3],data=d,method=sys.argv[5],"
        "headers={'Content-Type':'application/json'})\n"
        "print(u.urlopen(r,context=c,timeout=10).read().decode())\n";
    e2e::Write(dir_ + "/control.py", py);
    return e2e::Shell(kFakePython + " " + dir_ + "/control.py " + dir_ + "/pki/ca.crt " + port_ + " '" + path + "' '" +
                      body + "' " + method + " 2>&1");
  }
  nlohmann::json State() {
    std::string s = Control("GET", "/fake/state");
    auto j = nlohmann::json::parse(s, nullptr, false);
    return j.is_discarded() ? nlohmann::json::object() : j;
  }
  // The objects of one kind in the server's state ("jobs", "pods"...).
  std::vector<nlohmann::json> Objects(const std::string& kind) {
    std::vector<nlohmann::json> out;
    auto st = State();
    std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& v) {
      if (v.is_object()) {
        if (v.contains("kind") && v["kind"].is_string() && v.contains("metadata")) {
          std::string k = v["kind"];
          std::string want = kind == "jobs" ? "Job" : kind == "pods" ? "Pod" : kind == "services" ? "Service" : kind;
          if (k == want) out.push_back(v);
          return;
        }
        for (const auto& [key, x] : v.items()) walk(x);
      } else if (v.is_array()) {
        for (const auto& x : v) walk(x);
      }
    };
    walk(st);
    return out;
  }
  const std::string& dir() const { return dir_; }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }

 private:
  std::string dir_;
  std::string port_;
  std::vector<std::string> flags_;
  pid_t pid_ = -1;
};

}  // namespace k8s_e2e
