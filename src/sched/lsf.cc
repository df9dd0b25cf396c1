#include "sched/lsf.h"

#include <cctype>
#include <cmath>
#include <regex>

#include "util/strings.h"

namespace hb {

namespace {

using Kind = JobState::Kind;

constexpr const char* kBjobsFormat = "jobid stat exit_code exec_host pend_reason delimiter='|'";

std::string Problem(const CommandResult& r, const std::string& program) {
  std::vector<std::string> lines;
  for (const auto& l : Split(r.err + "\n" + r.out, '\n'))
    if (!Trim(l).empty() && lines.size() < 3) lines.push_back(Trim(l));
  if (r.timed_out || r.not_found || lines.empty()) return r.Problem(program);
  return Join(lines, "; ");
}

}  // namespace

JobState LsfJobState(const std::string& stat, const std::string& exit_code, const std::string& pend_reason) {
  // bjobs(1), "Output: STAT".
  if (stat == "PEND") return {Kind::kQueued, pend_reason, -1};
  if (stat == "PSUSP") return {Kind::kQueued, "held (PSUSP)" + (pend_reason.empty() ? "" : ": " + pend_reason), -1};
  if (stat == "WAIT") return {Kind::kQueued, "waiting in a chunk (WAIT)", -1};
  if (stat == "RUN") return {Kind::kRunning, "", -1};
  if (stat == "USUSP") return {Kind::kRunning, "suspended by its owner or an administrator (USUSP)", -1};
  if (stat == "SSUSP") return {Kind::kRunning, "suspended by LSF (SSUSP)", -1};
  if (stat == "PROV") return {Kind::kStarting, "waiting for its hosts to be provisioned (PROV)", -1};
  if (stat == "UNKWN") return {Kind::kRunning, "LSF lost contact with the job's host (UNKWN)", -1};
  if (stat == "DONE") return {Kind::kCompleted, "", 0};
  if (stat == "EXIT") {
    char* end = nullptr;
    long code = std::strtol(exit_code.c_str(), &end, 10);
    if (!exit_code.empty() && end && *end == '\0') return {Kind::kCompleted, "", static_cast<int>(code)};
    return {Kind::kFailed, "LSF says EXIT without an exit code (killed before it ran, or by bkill)", -1};
  }
  if (stat == "ZOMBI") return {Kind::kCancelled, "killed while its host was unreachable (ZOMBI)", -1};
  return {Kind::kQueued, "LSF state '" + stat + "'", -1};
}

std::vector<std::string> ParseLsfExecHost(const std::string& exec_host) {
  std::vector<std::string> hosts;
  for (const auto& part : Split(exec_host, ':')) {
    std::string h = Trim(part);
    size_t star = h.find('*');
    if (star != std::string::npos) h = h.substr(star + 1);
    if (!h.empty() && h != "-" && std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  return hosts;
}

Observations ParseBjobs(const std::string& out) {
  Observations obs;
  for (const auto& raw : Split(out, '\n')) {
    std::string line = Trim(raw);
    auto f = Split(line, '|');
    if (f.size() < 4) continue;
    std::string id = Trim(f[0]);
    if (id.empty() || !std::isdigit(static_cast<unsigned char>(id[0]))) continue;
    // pend_reason is free text and may hold the delimiter: all after the 4th.
    size_t at = 0;
    for (int i = 0; i < 4 && at != std::string::npos; ++i) at = line.find('|', at == 0 && i == 0 ? 0 : at + 1);
    std::string reason = at == std::string::npos ? "" : Trim(line.substr(at + 1));
    if (reason == "-") reason.clear();
    if (!reason.empty() && reason.back() == ';') reason.pop_back();
    JobObservation o;
    o.state = LsfJobState(Trim(f[1]), Trim(f[2]) == "-" ? "" : Trim(f[2]), reason);
    o.nodes = ParseLsfExecHost(Trim(f[3]));
    obs[id] = o;
  }
  return obs;
}

std::vector<std::string> BjobsUnknownIds(const std::string& err) {
  static const std::regex re(R"(Job <([0-9\[\]]+)> is not found)");
  std::vector<std::string> ids;
  for (auto it = std::sregex_iterator(err.begin(), err.end(), re); it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[1]);
  return ids;
}

LsfScheduler::LsfScheduler(std::string, std::unique_ptr<CommandRunner> runner, BatchOptions opts)
    : BatchScheduler(std::move(runner), std::move(opts)) {}

// As ReFrame's LsfJobScheduler.emit_preamble.
std::vector<std::string> LsfScheduler::Directives(const Job& job) const {
  std::vector<std::string> d;
  auto opt = [&](const std::string& o) { d.push_back("#BSUB " + o); };
  opt("-J " + job.name);
  if (!job.stdout_path.empty()) opt("-o " + job.stdout_path);
  if (!job.stderr_path.empty()) opt("-e " + job.stderr_path);
  if (job.num_tasks_per_node > 0)
    opt("-nnodes " + std::to_string(job.num_tasks / job.num_tasks_per_node));
  else
    opt("-n " + std::to_string(job.num_tasks));
  if (job.num_cpus_per_task > 0) opt("-R \"affinity[core(" + std::to_string(job.num_cpus_per_task) + ")]\"");
  if (job.time_limit_s > 0) opt("-W " + std::to_string(static_cast<long>(std::ceil(job.time_limit_s / 60))));
  for (const auto& o : ScriptOptions(job)) {
    if (StartsWith(o, "#"))
      d.push_back(o);
    else if (!o.empty())
      opt(o);
  }
  if (job.exclusive) opt("-x");
  return d;
}

std::vector<std::string> LsfScheduler::SubmitCommand(const Job& job) const {
  std::vector<std::string> argv = {"bsub"};
  for (const auto& a : SubmitAccess(job)) argv.push_back(a);
  return argv;
}

Result<std::string> LsfScheduler::ParseSubmitOutput(const CommandResult& r) const {
  static const std::regex re(R"(Job <([0-9]+)> is submitted)");
  std::smatch m;
  if (std::regex_search(r.out, m, re)) return m[1].str();
  return Status::Error("bsub printed no job id (stdout: '" + Trim(r.out) + "', stderr: '" + Trim(r.err) + "')");
}

std::vector<std::string> LsfScheduler::CancelCommand(const std::vector<std::string>& ids) const {
  return WithIds({"bkill"}, ids);
}

Result<Observations> LsfScheduler::Query(const std::vector<std::string>& ids) {
  return QueryInChunks(ids, [this](const std::vector<std::string>& chunk) -> Result<Observations> {
    CommandResult r = runner().Run(WithIds({"bjobs", "-o", kBjobsFormat, "-noheader"}, chunk), options().query_timeout);
    // bjobs exits 255 when some ids are unknown, and still prints the others.
    if (r.timed_out || r.not_found || (r.exit_code != 0 && BjobsUnknownIds(r.err).empty()))
      return Status::Error(Problem(r, "bjobs"));
    return ParseBjobs(r.out);
  });
}

}  // namespace hb
