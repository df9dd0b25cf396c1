// Helpers shared by the sched tests (header-only, tests only): a temporary
// folder removed at the end of a test, and waiting for real processes the
// way the executor does (EventWaiter, then Poll).
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>

#include "util/fs.h"
#include "util/test_temp_dir.h"

namespace hb::testing {

using ::hb::TempDir;

inline double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Calls step() until done() holds or timeout_s passes; true when done.
inline bool WaitFor(const std::function<bool()>& done, const std::function<void()>& step, double timeout_s) {
  double end = Seconds() + timeout_s;
  while (!done()) {
    if (Seconds() > end) return false;
    step();
  }
  return true;
}

// The pid written in a file, or 0 when the file is not there (yet).
inline pid_t PidFromFile(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok() || text->empty()) return 0;
  return static_cast<pid_t>(std::atol(text->c_str()));
}

// True when pid no longer exists at all: not running and not a zombie.
inline bool ProcessGone(pid_t pid) { return ::kill(pid, 0) != 0 && !PathExists("/proc/" + std::to_string(pid)); }

}  // namespace hb::testing
