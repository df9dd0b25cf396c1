// FakeCommandRunner: a CommandRunner for tests. It answers each command
// with the next canned result queued for that program (or a default), and
// records every command line it was asked to run. Test-only (header).
#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sched/command_runner.h"
#include "util/strings.h"

namespace hb {

class FakeCommandRunner : public CommandRunner {
 public:
  // Queues the answer to the next run of `program`.
  void Expect(const std::string& program, CommandResult r) { queued_[program].push_back(std::move(r)); }
  void Expect(const std::string& program, int exit_code, const std::string& out, const std::string& err = "") {
    CommandResult r;
    r.exit_code = exit_code;
    r.out = out;
    r.err = err;
    Expect(program, r);
  }
  // Programs that do not exist.
  void Missing(const std::string& program) { missing_.insert(program); }

  CommandResult Run(const std::vector<std::string>& argv, double, const std::string&,
                    const std::string& stdin_path) override {
    Count(argv[0]);
    calls.push_back(Join(argv, " ") + (stdin_path.empty() ? "" : " < " + stdin_path));
    if (missing_.count(argv[0])) {
      CommandResult r;
      r.not_found = true;
      return r;
    }
    auto& q = queued_[argv[0]];
    if (q.empty()) {
      CommandResult r;
      r.exit_code = 0;
      return r;
    }
    CommandResult r = q.front();
    q.pop_front();
    return r;
  }
  bool Exists(const std::string& program) override { return !missing_.count(program); }

  std::vector<std::string> calls;  // every command line, in order

 private:
  std::map<std::string, std::deque<CommandResult>> queued_;
  std::set<std::string> missing_;
};

}  // namespace hb
