#include "e2e_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace e2e {

namespace {

// The folders TempDir made; removed when the test program exits, unless
// HETBENCH_KEEP_TEST_DIRS=1 keeps them for a look after a failure.
struct MadeDirs {
  std::vector<std::string> paths;
  pid_t owner = getpid();  // a forked child that exits must not remove them
  ~MadeDirs() {
    if (getpid() != owner) return;
    const char* keep = std::getenv("HETBENCH_KEEP_TEST_DIRS");
    if (keep && std::string(keep) == "1") {
      for (const auto& p : paths) std::fprintf(stderr, "e2e: kept %s (HETBENCH_KEEP_TEST_DIRS=1)\n", p.c_str());
      return;
    }
    for (const auto& p : paths) {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
      if (ec) std::fprintf(stderr, "e2e: could not remove %s: %s\n", p.c_str(), ec.message().c_str());
    }
  }
};
MadeDirs& Made() {
  static MadeDirs made;
  return made;
}

}  // namespace

std::string TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/hb_e2e_XXXXXX";
  if (!mkdtemp(tmpl.data())) {
    std::fprintf(stderr, "e2e: mkdtemp %s: %s\n", tmpl.c_str(), std::strerror(errno));
    std::abort();
  }
  Made().paths.push_back(tmpl);
  return tmpl;
}

void Write(const std::string& path, const std::string& content) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << content;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

std::vector<std::string> Find(const std::string& dir, const std::string& pattern) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
    if (fnmatch(pattern.c_str(), e.path().filename().c_str(), 0) == 0) out.push_back(e.path().string());
  return out;
}

nlohmann::json LatestReport(const std::string& dir) {
  auto files = Find(dir + "/reports", "run-*.json");
  if (files.empty()) return nlohmann::json::object();
  // The last written: session ids sort by time only to the second (and a
  // PID with more digits sorts first), so two quick runs need the clock.
  auto written = [](const std::string& f) {
    std::error_code ec;
    return std::filesystem::last_write_time(f, ec);
  };
  std::stable_sort(files.begin(), files.end(),
                   [&](const std::string& a, const std::string& b) { return written(a) < written(b); });
  return nlohmann::json::parse(Read(files.back()));
}

nlohmann::json ReportOf(const Output& o) {
  const std::string key = "Run report: ";
  size_t at = o.out.rfind(key);
  if (at == std::string::npos) return nlohmann::json::object();
  size_t end = o.out.find('\n', at);
  std::string path =
      o.out.substr(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size());
  return nlohmann::json::parse(Read(path), nullptr, false);
}

pid_t StartHetbench(const std::vector<std::string>& args, const std::string& cwd, const Env& env) {
  pid_t pid = fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (chdir(cwd.c_str()) != 0) _exit(127);
    int out = open("hb.stdout", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open("hb.stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(HETBENCH_BIN));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    setenv("CI", "true", 1);
    // Every run stores its session; tests never write to the user's store
    // under ~/.local: a store in the test's folder unless the test names one.
    setenv("HETBENCH_STORE", "hb-results.db", 0);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    execv(HETBENCH_BIN, argv.data());
    _exit(127);
  }
  return pid;
}

int WaitExit(pid_t pid, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

Output Hetbench(const std::vector<std::string>& args, const std::string& cwd, double timeout_s, const Env& env) {
  Output o;
  pid_t pid = StartHetbench(args, cwd, env);
  o.exit_code = WaitExit(pid, timeout_s);
  o.out = Read(cwd + "/hb.stdout");
  o.err = Read(cwd + "/hb.stderr");
  return o;
}

bool WaitForText(const std::string& path, const std::string& text, double timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (Read(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::vector<pid_t> ProcessesWithEnv(const std::string& needle) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::string env = Read("/proc/" + std::string(e->d_name) + "/environ");
    std::string stat = Read("/proc/" + std::string(e->d_name) + "/stat");
    size_t close = stat.rfind(')');
    bool zombie = close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
    if (!zombie && env.find(needle) != std::string::npos) out.push_back(pid);
  }
  closedir(d);
  return out;
}

std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

bool WaitFor(const std::function<bool()>& done, double timeout_s) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

std::string OnePartitionSite(const std::string& partition, const std::string& more) {
  return R"(
systems:
  - name: box
    hostnames: ['.*']
    partitions:
      - {name: p, environs: [gnu], )" +
         partition + R"(}
environments:
  - {name: gnu, cc: gcc}
)" + more;
}

std::string LocalSite(const std::string& more) { return OnePartitionSite("scheduler: local, launcher: local", more); }

}  // namespace e2e
