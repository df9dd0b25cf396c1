// For the run layer's unit tests: a Session opened the way `hetbench run`
// opens one, from a site configuration and a test file written into a
// TempDir. A header for tests only.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "run/session.h"
#include "util/test_temp_dir.h"

namespace hb {

// Writes `site` and `tests` into `dir` and opens a session of every case,
// with `dir`/prefix as its prefix; null (and a test failure) on error.
inline std::unique_ptr<Session> OpenTestSession(const TempDir& dir, const std::string& site, const std::string& tests) {
  SessionOptions so;
  so.config_files = {dir.Write("site.yaml", site)};
  so.test_paths = {dir.Write("tests.yaml", tests)};
  so.prefix = dir / "prefix";
  so.hostname = "anyhost";
  auto s = OpenSession(so);
  if (!s.ok()) {
    ADD_FAILURE() << s.status().str();
    return nullptr;
  }
  return std::move(s.value());
}

}  // namespace hb
