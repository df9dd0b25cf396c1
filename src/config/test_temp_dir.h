// For the tests of src/config only: a fresh folder under $TMPDIR (or /tmp),
// made with mkdtemp and removed with everything in it when the TempDir
// goes. Not thread-safe; one per test.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <string>

#include "util/fs.h"

namespace hb {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/hb_config_test.XXXXXX";
    if (::mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    if (!path_.empty()) (void)RemoveTree(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `content` to `name` inside the folder (creating parent folders)
  // and returns its path.
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = JoinPath(path_, name);
    (void)MakeDirs(DirName(p));
    (void)WriteFile(p, content);
    return p;
  }

 private:
  std::string path_;
};

}  // namespace hb
