#include "util/fs.h"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/log.h"

namespace fs = std::filesystem;

namespace hb {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot read '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::Error("cannot write '" + path + "': " + std::strerror(errno));
  out << content;
  out.close();
  if (!out) return Status::Error("cannot write '" + path + "': " + std::strerror(errno));
  return Status::OK();
}

Status WriteFileAtomic(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  Status s = WriteFile(tmp, content);
  std::error_code ec;
  if (s.ok()) {
    fs::rename(tmp, path, ec);
    if (ec) s = Status::Error("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
  }
  if (!s.ok()) fs::remove(tmp, ec);  // no half-written file left behind
  return s;
}

Status MakeDirs(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Status::Error("cannot create folder '" + path + "': " + ec.message());
  return Status::OK();
}

Status RemoveTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) return Status::Error("cannot remove '" + path + "': " + ec.message());
  return Status::OK();
}

void RemoveScratch(const std::string& path) {
  Status st = RemoveTree(path);
  if (!st.ok()) LogRecord(kLogWarning, st.message() + " (a scratch folder of hetbench's; remove it by hand)");
}

Status CopyTree(const std::string& from, const std::string& to) {
  if (IsWithin(to, from))
    return Status::Error("cannot copy '" + from + "' into '" + to +
                         "', which is inside it: it would copy its own "
                         "copy (a sourcesdir that holds hetbench's prefix? use a folder of sources only)");
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return Status::Error("cannot create folder '" + to + "': " + ec.message());
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) return Status::Error("cannot copy '" + from + "' to '" + to + "': " + ec.message());
  return Status::OK();
}

Status CopyFile(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) return Status::Error("cannot copy '" + from + "' to '" + to + "': " + ec.message());
  return Status::OK();
}

Status TruncateWithMarker(const std::string& path, uint64_t size, const std::string& marker) {
  std::error_code ec;
  fs::resize_file(path, size, ec);
  if (ec) return Status::Error("cannot cut '" + path + "': " + ec.message());
  FILE* f = std::fopen(path.c_str(), "ab");
  if (!f) return Status::Error("cannot append to '" + path + "': " + std::strerror(errno));
  bool ok = std::fwrite(marker.data(), 1, marker.size(), f) == marker.size();
  ok = std::fclose(f) == 0 && ok;
  return ok ? Status::OK() : Status::Error("cannot append to '" + path + "': " + std::strerror(errno));
}

uint64_t FileSize(const std::string& path) {
  std::error_code ec;
  auto n = fs::file_size(path, ec);
  return ec ? 0 : static_cast<uint64_t>(n);
}

namespace {
// Absolute and normal, with the symbolic links of the longest existing
// prefix resolved.
fs::path Resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) p = fs::absolute(path, ec).lexically_normal();
  return p;
}
}  // namespace

bool IsWithin(const std::string& path, const std::string& folder) {
  fs::path p = Resolved(path), f = Resolved(folder);
  auto pi = p.begin(), fi = f.begin();
  for (; fi != f.end(); ++fi, ++pi) {
    if (fi->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *fi) return false;
  }
  return true;
}

Result<std::string> SafeJoin(const std::string& folder, const std::string& name) {
  if (name.find('\0') != std::string::npos) return Status::Error("'" + name + "' has a NUL byte");
  if (!name.empty() && name[0] == '/')
    return Status::Error("'" + name + "' is an absolute path; expected a path relative to " + folder);
  std::string joined = JoinPath(folder, name);
  if (!IsWithin(joined, folder)) return Status::Error("'" + name + "' leads outside " + folder);
  return joined;
}

Result<std::string> SafePath(const std::string& folder, const std::vector<std::string>& names) {
  std::string path = folder;
  for (const auto& name : names) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos)
      return Status::Error("'" + name + "' cannot be a folder name (below " + folder +
                           "): expected a name without '/', NUL or '..'");
    path = JoinPath(path, name);
  }
  if (!IsWithin(path, folder)) return Status::Error("'" + path + "' leads outside " + folder);
  return path;
}

Status RemoveTreeWithin(const std::string& path, const std::string& folder) {
  if (!IsWithin(path, folder) || Resolved(path) == Resolved(folder))
    return Status::Error("not removing '" + path + "': it is not inside " + folder);
  return RemoveTree(path);
}

bool IsDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool PathExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

std::string AbsPath(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) return path;
  std::string out = p.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string DirName(const std::string& path) {
  fs::path p(path);
  std::string d = p.parent_path().string();
  return d.empty() ? "." : d;
}

std::string BaseName(const std::string& path) { return fs::path(path).filename().string(); }

std::string JoinPath(const std::string& a, const std::string& b) {
  if (b.empty()) return a;
  if (b[0] == '/' || a.empty()) return b;
  return (fs::path(a) / b).string();
}

std::string ThisHostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

std::string ThisUserName() {
  if (const passwd* pw = ::getpwuid(::geteuid())) return pw->pw_name;
  return std::to_string(::geteuid());
}

}  // namespace hb
