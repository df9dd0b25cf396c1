#include "data/file_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hbw::data {

std::string ErrnoText(int err) { return std::strerror(err); }

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool PreadFull(int fd, void* buf, size_t n, off_t offset, size_t* got, std::string* err) {
  *got = 0;
  char* p = static_cast<char*>(buf);
  while (*got < n) {
    ssize_t r = ::pread(fd, p + *got, n - *got, offset + static_cast<off_t>(*got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *err = ErrnoText(errno);
      return false;
    }
    if (r == 0) break;
    *got += static_cast<size_t>(r);
  }
  return true;
}

bool ReadFile(const std::string& path, std::string* out, std::string* err) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = path + ": " + ErrnoText(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *err = path + ": " + ErrnoText(errno);
    ::close(fd);
    return false;
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  std::string e;
  bool ok = PreadFull(fd, out->data(), out->size(), 0, &got, &e);
  ::close(fd);
  if (!ok) *err = path + ": " + e;
  out->resize(got);
  return ok;
}

bool WriteFile(const std::string& path, std::string_view data, std::string* err) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = path + ": " + ErrnoText(errno);
    return false;
  }
  size_t done = 0;
  while (done < data.size()) {
    ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      *err = path + ": " + ErrnoText(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(w);
  }
  if (::close(fd) != 0) {
    *err = path + ": " + ErrnoText(errno);
    return false;
  }
  return true;
}

bool MakeDirs(const std::string& path, std::string* err) {
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    std::string prefix = path.substr(0, i);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      *err = prefix + ": " + ErrnoText(errno);
      return false;
    }
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    *err = path + ": not a folder";
    return false;
  }
  return true;
}

bool ListDir(const std::string& dir, bool dirs, const std::string& suffix, std::vector<std::string>* out,
             std::string* err) {
  out->clear();
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    *err = dir + ": " + ErrnoText(errno);
    return false;
  }
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::stat(JoinPath(dir, name).c_str(), &st) != 0) continue;
    if (dirs ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) continue;
    if (!dirs && (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix)))
      continue;
    out->push_back(name);
  }
  ::closedir(d);
  std::sort(out->begin(), out->end());
  return true;
}

}  // namespace hbw::data
