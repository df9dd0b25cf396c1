#include "sched/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "sched/process.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/strings.h"

namespace hb {

std::string CommandResult::Problem(const std::string& program) const {
  if (not_found) return program + ": command not found";
  if (timed_out) return program + " did not answer in time (killed)";
  std::string text = Trim(err.empty() ? out : err);
  auto lines = Split(text, '\n');
  std::string first = lines.empty() ? "" : Trim(lines[0]);
  if (first.empty()) return program + " failed with exit code " + std::to_string(exit_code);
  return first;
}

namespace {

// Waits for `pid` to exit, at most timeout_s; returns true when it did (its
// status in *status). Uses a pidfd so the wait is event-driven.
bool WaitWithTimeout(pid_t pid, double timeout_s, int* status) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  double deadline = MonotonicNow() + timeout_s;
  while (true) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    double left = deadline - MonotonicNow();
    if (left <= 0) {
      if (pidfd >= 0) close(pidfd);
      return false;
    }
    if (pidfd >= 0) {
      pollfd p{pidfd, POLLIN, 0};
      poll(&p, 1, static_cast<int>(left * 1000) + 1);
    } else {
      usleep(2000);  // no pidfd (old kernel): short sleeps
    }
  }
  if (pidfd >= 0) close(pidfd);
  return true;
}

class SystemCommandRunner : public CommandRunner {
 public:
  SystemCommandRunner() {
    char tmpl[] = "/tmp/hb_cmd_XXXXXX";
    if (char* d = mkdtemp(tmpl)) dir_ = d;
  }
  ~SystemCommandRunner() override {
    if (!dir_.empty()) RemoveScratch(dir_);
  }

  CommandResult Run(const std::vector<std::string>& argv, double timeout_s, const std::string& cwd,
                    const std::string& stdin_path) override {
    auto start = std::chrono::steady_clock::now();
    CommandResult res = RunOnce(argv, timeout_s, cwd, stdin_path);
    if (!argv.empty() && LogEnabled(kLogDebug)) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::vector<std::string> words;
      for (const auto& a : argv) words.push_back(ShellQuote(a));
      std::string what = res.not_found   ? "not found"
                         : res.timed_out ? "killed after the time limit"
                                         : "exit " + std::to_string(res.exit_code);
      LogRecord(kLogDebug, "command: " + Join(words, " ") + " -> " + what + " in " + FormatNumber(s, 3) + " s" +
                               (res.exit_code > 0 ? " (" + res.Problem(argv[0]) + ")" : ""));
    }
    return res;
  }

  CommandResult RunOnce(const std::vector<std::string>& argv, double timeout_s, const std::string& cwd,
                        const std::string& stdin_path) {
    CommandResult res;
    if (argv.empty()) return res;
    Count(argv[0]);
    if (!Exists(argv[0])) {
      res.not_found = true;
      return res;
    }
    SpawnOptions so;
    so.argv = argv;
    so.cwd = cwd;
    so.stdin_path = stdin_path;
    so.stdout_path = dir_ + "/out";
    so.stderr_path = dir_ + "/err";
    auto pid = SpawnProcess(so);
    if (!pid.ok()) {
      res.not_found = true;
      res.err = pid.status().message();
      return res;
    }
    int status = 0;
    if (!WaitWithTimeout(*pid, timeout_s, &status)) {
      killpg(*pid, SIGKILL);
      waitpid(*pid, &status, 0);
      res.timed_out = true;
    } else if (WIFEXITED(status)) {
      res.exit_code = WEXITSTATUS(status);
    }
    auto out = ReadFile(so.stdout_path);
    auto err = ReadFile(so.stderr_path);
    if (out.ok()) res.out = std::move(out.value());
    if (err.ok()) res.err = std::move(err.value());
    return res;
  }

  bool Exists(const std::string& program) override {
    if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
    auto it = found_.find(program);
    if (it != found_.end()) return it->second;
    bool ok = false;
    const char* path = std::getenv("PATH");
    for (const auto& d : Split(path ? path : "/usr/bin:/bin", ':')) {
      std::string p = (d.empty() ? "." : d) + "/" + program;
      struct stat st;
      if (stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0) {
        ok = true;
        break;
      }
    }
    found_[program] = ok;
    return ok;
  }

 private:
  std::string dir_;
  std::map<std::string, bool> found_;
};

}  // namespace

std::unique_ptr<CommandRunner> MakeSystemCommandRunner() { return std::make_unique<SystemCommandRunner>(); }

}  // namespace hb
