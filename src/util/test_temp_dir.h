// TempDir: a fresh folder from mkdtemp (under $TMPDIR, else /tmp) for one
// unit test, removed with everything in it when the TempDir goes, unless
// HETBENCH_KEEP_TEST_DIRS=1 keeps it for a look after a failure. For tests
// only (a header, so no library links it). Not thread-safe; one per test.
#pragma once

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "util/fs.h"

namespace hb {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/hb_test.XXXXXX";
    if (::mkdtemp(tmpl.data())) path_ = tmpl;
  }
  ~TempDir() {
    const char* keep = std::getenv("HETBENCH_KEEP_TEST_DIRS");
    if (path_.empty() || (keep && std::string(keep) == "1")) return;
    Status st = RemoveTree(path_);
    if (!st.ok()) std::fprintf(stderr, "TempDir: %s\n", st.message().c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return JoinPath(path_, name); }
  // Writes `content` to `name` inside the folder (creating parent folders)
  // and returns its path.
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = JoinPath(path_, name);
    Status st = MakeDirs(DirName(p));
    if (st.ok()) st = WriteFile(p, content);
    if (!st.ok()) std::fprintf(stderr, "TempDir: %s\n", st.message().c_str());
    return p;
  }

 private:
  std::string path_;
};

}  // namespace hb
