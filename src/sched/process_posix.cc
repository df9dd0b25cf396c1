#include "sched/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include "util/signals.h"

extern char** environ;

namespace hb {

namespace {

std::string Errno(int err) { return std::strerror(err); }

// Owns a posix_spawnattr_t; every setter is checked.
class SpawnAttr {
 public:
  SpawnAttr() { err_ = posix_spawnattr_init(&attr_); }
  ~SpawnAttr() {
    if (err_ == 0) posix_spawnattr_destroy(&attr_);
  }
  SpawnAttr(const SpawnAttr&) = delete;
  SpawnAttr& operator=(const SpawnAttr&) = delete;

  // New process group, the original signal mask, default dispositions.
  int Prepare() {
    if (err_ != 0) return err_;
    sigset_t dflt;
    sigemptyset(&dflt);
    for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2}) sigaddset(&dflt, sig);
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (int e = posix_spawnattr_setflags(&attr_, flags)) return e;
    if (int e = posix_spawnattr_setpgroup(&attr_, 0)) return e;
    if (int e = posix_spawnattr_setsigmask(&attr_, &EventWaiter::OriginalMask())) return e;
    return posix_spawnattr_setsigdefault(&attr_, &dflt);
  }
  const posix_spawnattr_t* get() const { return &attr_; }

 private:
  posix_spawnattr_t attr_;
  int err_ = 0;
};

// Owns a posix_spawn_file_actions_t; every action is checked.
class FileActions {
 public:
  FileActions() { err_ = posix_spawn_file_actions_init(&fa_); }
  ~FileActions() {
    if (err_ == 0) posix_spawn_file_actions_destroy(&fa_);
  }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;

  // chdir first, so that relative output paths are relative to cwd.
  int Prepare(const SpawnOptions& o) {
    if (err_ != 0) return err_;
    if (!o.cwd.empty()) {
      if (int e = posix_spawn_file_actions_addchdir_np(&fa_, o.cwd.c_str())) return e;
    }
    const char* in = o.stdin_path.empty() ? "/dev/null" : o.stdin_path.c_str();
    if (int e = posix_spawn_file_actions_addopen(&fa_, 0, in, O_RDONLY, 0)) return e;
    if (int e = AddOutput(1, o.stdout_path)) return e;
    if (int e = AddOutput(2, o.stderr_path)) return e;
    return CloseOthers();
  }
  const posix_spawn_file_actions_t* get() const { return &fa_; }

 private:
  int AddOutput(int fd, const std::string& path) {
    if (path.empty()) return posix_spawn_file_actions_addopen(&fa_, fd, "/dev/null", O_WRONLY, 0);
    return posix_spawn_file_actions_addopen(&fa_, fd, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  // Descriptors hetbench opened without O_CLOEXEC must not leak into jobs
  // (a leaked pipe end would keep a reader waiting for EOF forever).
  int CloseOthers() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(&fa_, 3);
#else
    return 0;
#endif
  }

  posix_spawn_file_actions_t fa_;
  int err_ = 0;
};

// hetbench's environment with opts.env added (replacing equal names).
std::vector<std::string> MergedEnv(const SpawnOptions& o) {
  std::set<std::string> replaced;
  for (const auto& [k, v] : o.env) replaced.insert(k);
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    std::string name = eq ? std::string(*e, eq - *e) : std::string(*e);
    if (!replaced.count(name)) out.emplace_back(*e);
  }
  for (const auto& [k, v] : o.env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

Result<pid_t> SpawnProcess(const SpawnOptions& opts) {
  if (opts.argv.empty()) return Status::Error("cannot start a process: empty command");
  const std::string what = "cannot start '" + opts.argv[0] + "'" + (opts.cwd.empty() ? "" : " in '" + opts.cwd + "'");
  SpawnAttr attr;
  if (int e = attr.Prepare()) return Status::Error(what + ": posix_spawnattr: " + Errno(e));
  FileActions actions;
  if (int e = actions.Prepare(opts)) return Status::Error(what + ": file actions: " + Errno(e));
  std::vector<std::string> argv = opts.argv;
  std::vector<std::string> env = MergedEnv(opts);
  std::vector<char*> argv_c = CStrings(argv), env_c = CStrings(env);
  pid_t pid = -1;
  // glibc reports a failed chdir, open or exec of the child as the result.
  int e = posix_spawnp(&pid, argv_c[0], actions.get(), attr.get(), argv_c.data(), env_c.data());
  if (e != 0) return Status::Error(what + ": " + Errno(e));
  return pid;
}

}  // namespace hb
