// Helpers for end-to-end tests: run the real `hetbench` binary in a
// temporary folder and look at what it printed and wrote.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace e2e {

struct Output {
  int exit_code = -1;  // 128+signal when killed
  std::string out, err;
};

// A fresh temporary folder (removed by the OS's tmp cleaning; tests leave
// it for inspection when they fail).
std::string TempDir();
void Write(const std::string& path, const std::string& content);
std::string Read(const std::string& path);
bool Exists(const std::string& path);
// Files under `dir` (recursively) whose name matches the glob `pattern`.
std::vector<std::string> Find(const std::string& dir, const std::string& pattern);
// The newest JSON run report (dir/reports/run-*.json, parsed), or an empty
// object when there is none.
nlohmann::json LatestReport(const std::string& dir);
// The run report a `hetbench run` printed ("Run report: PATH"), or an empty
// object.
nlohmann::json ReportOf(const Output& o);

// Two tests: `good` passes with performance value 1.5 s; `bad` fails in
// the run stage, exit code 3 with "oops" on stderr.
inline constexpr const char* kPassAndFailTests = R"(
name: good
executable: echo
executable_opts: ['"value: 1.5"']
sanity: [{pattern: 'value: '}]
performance:
  value: {pattern: 'value: (\S+)', unit: s}
---
name: bad
executable: sh
executable_opts: ['-c', "'echo oops >&2; exit 3'"]
sanity: [{pattern: oops, in: stderr}]
)";

// A site configuration with one system `box` (any host), one local
// partition `p` and one environment `gnu`, followed by `more` (further
// top-level sections, as YAML text).
std::string LocalSite(const std::string& more = "");
// The same with the partition's other fields given (YAML flow-mapping
// entries, e.g. "scheduler: ssh, launcher: local, access: [...]").
std::string OnePartitionSite(const std::string& partition, const std::string& more = "");

// Runs hetbench with `args` in `cwd`; kills it after timeout_s.
using Env = std::vector<std::pair<std::string, std::string>>;
Output Hetbench(const std::vector<std::string>& args, const std::string& cwd, double timeout_s = 120,
                const Env& env = {});

// Starts hetbench in the background, stdout/stderr to files in cwd. Its
// results store is cwd/hb-results.db unless HETBENCH_STORE is set (in the
// test's environment or in `env`).
pid_t StartHetbench(const std::vector<std::string>& args, const std::string& cwd, const Env& env = {});
// Waits until `path` contains `text` (true) or timeout_s passes (false).
bool WaitForText(const std::string& path, const std::string& text, double timeout_s);
// Waits for a child started by StartHetbench; returns its exit code.
int WaitExit(pid_t pid, double timeout_s);

// Pids of live processes whose environment contains `needle`.
std::vector<pid_t> ProcessesWithEnv(const std::string& needle);

// What a shell command prints on stdout.
std::string Shell(const std::string& cmd);

// Waits up to timeout_s for `done()` to hold, checking every 100 ms.
bool WaitFor(const std::function<bool()>& done, double timeout_s);

}  // namespace e2e

// The helpers nearly every end-to-end test uses, by their short names (a
// header for tests only, so the using-declarations live here once).
using e2e::Exists;
using e2e::Hetbench;
using e2e::Output;
using e2e::Read;
using e2e::TempDir;
using e2e::Write;
