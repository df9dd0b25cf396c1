#include "sched/flux.h"

#include <cmath>

#include "util/strings.h"

namespace hb {

namespace {

using Kind = JobState::Kind;

constexpr const char* kJobsFormat =
    "{id.f58plain}|{state}|{result}|{returncode}|{nodelist}|{t_run}|{t_inactive}|{exception.note}";

// "node[1-3],gpu7" -> {node1, node2, node3, gpu7} (Flux's RFC 29 hostlist;
// simple ranges only, as flux jobs prints them).
std::vector<std::string> Hostlist(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find('[', i), comma = text.find(',', i);
    if (open == std::string::npos || (comma != std::string::npos && comma < open)) {
      std::string h = Trim(text.substr(i, comma == std::string::npos ? std::string::npos : comma - i));
      if (!h.empty()) out.push_back(h);
      if (comma == std::string::npos) break;
      i = comma + 1;
      continue;
    }
    size_t close = text.find(']', open);
    if (close == std::string::npos) break;
    std::string prefix = text.substr(i, open - i);
    for (const auto& range : Split(text.substr(open + 1, close - open - 1), ',')) {
      size_t dash = range.find('-');
      std::string lo = range.substr(0, dash), hi = dash == std::string::npos ? lo : range.substr(dash + 1);
      long a = std::strtol(lo.c_str(), nullptr, 10), b = std::strtol(hi.c_str(), nullptr, 10);
      for (long n = a; n <= b && n - a < 100000; ++n) {
        std::string num = std::to_string(n);
        while (num.size() < lo.size()) num = "0" + num;  // node[01-03]
        out.push_back(prefix + num);
      }
    }
    i = close + 1;
    if (i < text.size() && text[i] == ',') ++i;
  }
  return out;
}

}  // namespace

std::string FluxAsciiId(const std::string& id) {
  std::string t = Trim(id);
  if (StartsWith(t, "\xc6\x92")) return "f" + t.substr(2);
  return t;
}

Observations ParseFluxJobs(const std::string& out) {
  Observations obs;
  for (const auto& raw : Split(out, '\n')) {
    std::string line = Trim(raw);
    auto f = Split(line, '|');
    if (f.size() < 7) continue;
    std::string id = FluxAsciiId(f[0]), state = Trim(f[1]), result = Trim(f[2]), rc = Trim(f[3]);
    // The exception's note is free text: all after the 7th delimiter.
    size_t at = 0;
    for (int i = 0; i < 7 && at != std::string::npos; ++i) at = line.find('|', i == 0 ? 0 : at + 1);
    std::string note = at == std::string::npos ? "" : Trim(line.substr(at + 1));
    if (id.empty() || state.empty()) continue;
    JobObservation o;
    if (state == "DEPEND" || state == "PRIORITY" || state == "SCHED") {
      o.state = {Kind::kQueued, state, -1};
    } else if (state == "RUN" || state == "CLEANUP") {
      o.state = {Kind::kRunning, "", -1};
    } else if (state == "INACTIVE") {
      char* end = nullptr;
      long code = std::strtol(rc.c_str(), &end, 10);
      bool has_rc = !rc.empty() && end && *end == '\0';
      if (result == "CANCELED") {
        o.state = {Kind::kCancelled, note.empty() ? "canceled" : note, -1};
      } else if (result == "TIMEOUT") {
        o.state = {Kind::kTimeout, note.empty() ? "time limit exceeded" : note, -1};
      } else if (has_rc && code < 0) {
        o.state = {Kind::kFailed, "killed by signal " + std::to_string(-code) + (note.empty() ? "" : ": " + note),
                   static_cast<int>(128 - code)};
      } else if (result == "COMPLETED" || (result == "FAILED" && has_rc)) {
        o.state = {Kind::kCompleted, note, has_rc ? static_cast<int>(code) : 0};
      } else {
        o.state = {
            Kind::kFailed,
            "Flux result " + (result.empty() ? std::string("unknown") : result) + (note.empty() ? "" : ": " + note),
            -1};
      }
    } else {
      o.state = {Kind::kQueued, "Flux state '" + state + "'", -1};
    }
    o.nodes = Hostlist(Trim(f[4]));
    o.start_time = std::strtod(Trim(f[5]).c_str(), nullptr);
    o.end_time = std::strtod(Trim(f[6]).c_str(), nullptr);
    obs[id] = o;
  }
  return obs;
}

FluxScheduler::FluxScheduler(std::string, std::unique_ptr<CommandRunner> runner, BatchOptions opts)
    : BatchScheduler(std::move(runner), std::move(opts)) {}

std::vector<std::string> FluxScheduler::Directives(const Job& job) const {
  std::vector<std::string> d;
  auto opt = [&](const std::string& o) { d.push_back("# flux: " + o); };
  opt("--job-name=" + job.name);
  if (!job.stdout_path.empty()) opt("--output=" + job.stdout_path);
  if (!job.stderr_path.empty()) opt("--error=" + job.stderr_path);
  opt("-n " + std::to_string(job.num_tasks));
  if (job.num_cpus_per_task > 0) opt("-c " + std::to_string(job.num_cpus_per_task));
  if (job.num_tasks_per_node > 0) {
    opt("-N " + std::to_string(std::max(1, job.num_tasks / job.num_tasks_per_node)));
    if (job.num_gpus_per_node > 0)
      opt("-g " + std::to_string(std::max(1, job.num_gpus_per_node / job.num_tasks_per_node)));
  }
  if (job.time_limit_s > 0) opt("-t " + std::to_string(static_cast<long>(std::ceil(job.time_limit_s))) + "s");
  if (job.exclusive) opt("--exclusive");
  for (const auto& o : ScriptOptions(job)) {
    if (StartsWith(o, "#"))
      d.push_back(o);
    else if (!o.empty())
      opt(o);
  }
  return d;
}

std::vector<std::string> FluxScheduler::SubmitCommand(const Job& job) const {
  std::vector<std::string> argv = {"flux", "batch"};
  for (const auto& a : SubmitAccess(job)) argv.push_back(a);
  argv.push_back(job.script_path);
  return argv;
}

Result<std::string> FluxScheduler::ParseSubmitOutput(const CommandResult& r) const {
  for (const auto& line : Split(r.out, '\n')) {
    std::string id = FluxAsciiId(line);
    if (id.size() > 1 && id[0] == 'f' && id.find_first_of(" \t") == std::string::npos) return id;
  }
  return Status::Error("flux batch printed no job id (stdout: '" + Trim(r.out) + "', stderr: '" + Trim(r.err) + "')");
}

std::vector<std::string> FluxScheduler::CancelCommand(const std::vector<std::string>& ids) const {
  return WithIds({"flux", "cancel"}, ids);
}

Result<Observations> FluxScheduler::Query(const std::vector<std::string>& ids) {
  return QueryInChunks(ids, [this](const std::vector<std::string>& chunk) -> Result<Observations> {
    CommandResult r = runner().Run(WithIds({"flux", "jobs", "-n", "-o", kJobsFormat}, chunk), options().query_timeout);
    // Unknown ids: "JobID <id> unknown" on stderr; exit 1 only when none is known.
    bool none_known = r.exit_code != 0 && r.err.find(" unknown") != std::string::npos && Trim(r.out).empty();
    if (r.timed_out || r.not_found || (r.exit_code != 0 && !none_known)) return Status::Error(r.Problem("flux jobs"));
    return ParseFluxJobs(r.out);
  });
}

}  // namespace hb
