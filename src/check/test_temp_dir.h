// TempDir: a fresh folder from mkdtemp for one unit test, removed with its
// contents when the test ends. Test-only (header, so no library links it).
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "util/fs.h"

namespace hb {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hbtest.XXXXXX").string();
    char* p = ::mkdtemp(tmpl.data());
    path_ = p ? p : "";
  }
  ~TempDir() { RemoveTree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `content` to `name` (relative to the folder) and returns the path.
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = JoinPath(path_, name);
    MakeDirs(DirName(p));
    WriteFile(p, content);
    return p;
  }

 private:
  std::string path_;
};

}  // namespace hb
