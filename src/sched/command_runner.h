// CommandRunner: the seam through which batch-scheduler backends run their
// commands (sbatch, squeue, sacct, scontrol, scancel, qsub, qstat, ...).
// The real one (SystemCommandRunner) starts the program with the process
// spawner, waits for it with a time limit (event-driven, through a pidfd)
// and returns its exit code and output; tests use FakeCommandRunner
// (command_runner_fake.h) with outputs in the exact formats the schedulers
// print. Every runner counts the commands it ran, by program name, for the
// benchmarks. Used from the executor's thread only; not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace hb {

struct CommandResult {
  int exit_code = -1;      // the program's exit status; -1 when it did not run or was killed
  std::string out, err;    // what it printed
  bool timed_out = false;  // killed after the time limit
  bool not_found = false;  // the program does not exist (or cannot be run)
  // "sbatch: error: ..." or "sbatch timed out after 60 s": a one-line
  // description of what went wrong, for failure reasons.
  std::string Problem(const std::string& program) const;
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Runs argv (argv[0] looked up in PATH) in `cwd` ("" = current folder),
  // killing it after timeout_s seconds, with standard input from
  // `stdin_path` ("" = /dev/null).
  virtual CommandResult Run(const std::vector<std::string>& argv, double timeout_s, const std::string& cwd = "",
                            const std::string& stdin_path = "") = 0;
  // True when `program` can be found in PATH (or is an executable path).
  virtual bool Exists(const std::string& program) = 0;

  // How many times each program was run.
  const std::map<std::string, int>& counts() const { return counts_; }

 protected:
  void Count(const std::string& program) { ++counts_[program]; }

 private:
  std::map<std::string, int> counts_;
};

std::unique_ptr<CommandRunner> MakeSystemCommandRunner();

}  // namespace hb
