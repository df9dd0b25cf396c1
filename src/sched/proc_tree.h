// The process tree as the local scheduler needs to see it: becoming a child
// subreaper (so that processes which escape a job, even with setsid, are
// reparented to hetbench and can be found and reaped), listing the children
// of a process, and reading one variable from a process's environment (the
// job mark, HETBENCH_JOB_MARK). Linux only (prctl and /proc); the
// implementation lives in proc_tree_linux.cc.
//
// Stateless functions over the live system; callable from any thread.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace hb {

// Makes the calling process a child subreaper (PR_SET_CHILD_SUBREAPER):
// orphaned descendants are reparented to it instead of to init.
Status BecomeSubreaper();

// The pids whose parent is `parent`. Reads /proc/<parent>/task/*/children
// where the kernel provides it (CONFIG_PROC_CHILDREN), else scans the PPid
// of every /proc/<pid>/stat. Processes that vanish meanwhile are skipped.
std::vector<pid_t> ListChildren(pid_t parent);

// The value of `name` in the environment pid was started with, or nullopt
// when it is not set or the process is gone or not ours to read.
std::optional<std::string> ReadProcessEnv(pid_t pid, const std::string& name);

}  // namespace hb
