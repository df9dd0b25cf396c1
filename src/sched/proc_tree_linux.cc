#include "sched/proc_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace hb {

namespace {

// Reads a whole (small, /proc) file; nullopt when it cannot be opened.
std::optional<std::string> ReadProcFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::optional<pid_t> ParsePid(std::string_view s) {
  pid_t pid = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), pid);
  if (ec != std::errc() || end != s.data() + s.size() || pid <= 0) return std::nullopt;
  return pid;
}

// Calls fn(name) for each entry of a folder; false when it cannot be opened.
template <typename Fn>
bool ForEachEntry(const std::string& dir, Fn fn) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return false;
  while (dirent* e = ::readdir(d)) fn(std::string_view(e->d_name));
  ::closedir(d);
  return true;
}

// The parent pid from /proc/<pid>/stat: "pid (comm) state ppid ...". comm
// may hold spaces and parentheses, so parse after the last ')'.
std::optional<pid_t> ParentOf(std::string_view pid) {
  auto stat = ReadProcFile("/proc/" + std::string(pid) + "/stat");
  if (!stat) return std::nullopt;
  size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 4 >= stat->size()) return std::nullopt;
  std::string_view rest = std::string_view(*stat).substr(close + 4);  // ") S "
  return ParsePid(rest.substr(0, rest.find(' ')));
}

bool HaveChildrenFiles() {
  static const bool have = ::access(("/proc/self/task/" + std::to_string(::getpid()) + "/children").c_str(), R_OK) == 0;
  return have;
}

std::vector<pid_t> ChildrenFromTaskFiles(pid_t parent) {
  std::vector<pid_t> out;
  std::string task_dir = "/proc/" + std::to_string(parent) + "/task";
  ForEachEntry(task_dir, [&](std::string_view tid) {
    if (!ParsePid(tid)) return;
    auto text = ReadProcFile(task_dir + "/" + std::string(tid) + "/children");
    if (!text) return;
    size_t pos = 0;
    while (pos < text->size()) {
      size_t sp = text->find(' ', pos);
      if (sp == std::string::npos) sp = text->size();
      if (auto pid = ParsePid(std::string_view(*text).substr(pos, sp - pos))) out.push_back(*pid);
      pos = sp + 1;
    }
  });
  return out;
}

std::vector<pid_t> ChildrenFromStatScan(pid_t parent) {
  std::vector<pid_t> out;
  ForEachEntry("/proc", [&](std::string_view name) {
    auto pid = ParsePid(name);
    if (!pid) return;
    if (ParentOf(name) == parent) out.push_back(*pid);
  });
  return out;
}

}  // namespace

Status BecomeSubreaper() {
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    return Status::Error(std::string("cannot become a child subreaper: ") + std::strerror(errno));
  }
  return Status::OK();
}

std::vector<pid_t> ListChildren(pid_t parent) {
  return HaveChildrenFiles() ? ChildrenFromTaskFiles(parent) : ChildrenFromStatScan(parent);
}

std::optional<std::string> ReadProcessEnv(pid_t pid, const std::string& name) {
  auto env = ReadProcFile("/proc/" + std::to_string(pid) + "/environ");
  if (!env) return std::nullopt;
  const std::string prefix = name + "=";
  size_t pos = 0;
  while (pos < env->size()) {
    size_t end = env->find('\0', pos);
    if (end == std::string::npos) end = env->size();
    if (env->compare(pos, prefix.size(), prefix) == 0) {
      return env->substr(pos + prefix.size(), end - pos - prefix.size());
    }
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace hb
