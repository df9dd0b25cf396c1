// The process spawner: the one seam through which hetbench starts a local
// process. SpawnProcess starts a program in a new process group (pgid ==
// pid) with stdin from /dev/null (or a file) and stdout/stderr in files, and returns its
// pid; it never waits for it. Reaping is the caller's business (the local
// scheduler reaps every child with waitpid(-1) from the executor's loop).
//
// It uses posix_spawn (vfork-like, so starting many small jobs stays cheap)
// and gives the child a clean signal state: the mask hetbench had before
// EventWaiter blocked SIGCHLD & co. (EventWaiter::OriginalMask()), and the
// default action for SIGCHLD, SIGINT, SIGTERM, SIGHUP and SIGPIPE. A failure
// to change folder or to exec the program is reported as an error.
//
// Stateless; callable from any thread, though hetbench calls it from the
// executor's thread only.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace hb {

struct SpawnOptions {
  // argv[0] is the program: a path, or a name looked up in hetbench's PATH.
  std::vector<std::string> argv;
  std::string cwd;  // "" = hetbench's current folder
  // Added to hetbench's environment; a name already there is replaced.
  std::vector<std::pair<std::string, std::string>> env;
  // Created or truncated (mode 0644) after changing to cwd, so relative
  // paths are relative to cwd. "" = /dev/null.
  std::string stdout_path;
  std::string stderr_path;
  // Standard input from this file ("" = /dev/null): bsub reads its job
  // script there.
  std::string stdin_path;
};

Result<pid_t> SpawnProcess(const SpawnOptions& opts);

}  // namespace hb
