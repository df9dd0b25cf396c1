#include "sched/oar.h"

#include <cmath>
#include <regex>

#include <nlohmann/json.hpp>

#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

namespace {

using Kind = JobState::Kind;

std::string Hms(double seconds) {  // ReFrame: '%d:%d:%d'
  long t = static_cast<long>(std::ceil(seconds));
  return std::to_string(t / 3600) + ":" + std::to_string((t / 60) % 60) + ":" + std::to_string(t % 60);
}

// A JSON value that OAR's Perl may print as a number or as a string.
bool IntOf(const nlohmann::json& v, long* out) {
  if (auto n = JsonInt(v)) {
    *out = static_cast<long>(*n);
    return true;
  }
  if (const std::string* s = JsonStringPtr(v)) {
    char* end = nullptr;
    long n = std::strtol(s->c_str(), &end, 10);
    if (!s->empty() && end && *end == '\0') {
      *out = n;
      return true;
    }
  }
  return false;
}

std::string Text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (const std::string* s = JsonStringPtr(*it)) return *s;
  if (it->is_number()) return it->dump();
  return "";
}

bool HasEvent(const nlohmann::json& job, const std::string& type) {
  auto it = job.find("events");
  if (it == job.end() || !it->is_array()) return false;
  for (const auto& e : *it)
    if (e.is_object() && Text(e, "type") == type) return true;
  return false;
}

JobState OarState(const nlohmann::json& job) {
  std::string s = Text(job, "state");
  std::string message = Text(job, "message");
  long status = 0;
  bool has_exit = job.contains("exit_code") && IntOf(job["exit_code"], &status);
  int exit_code = has_exit ? static_cast<int>((status >> 8) & 0xff) : -1;
  if (s == "Waiting" || s == "toAckReservation") return {Kind::kQueued, message, -1};
  if (s == "Hold") return {Kind::kQueued, "held (Hold)" + (message.empty() ? "" : ": " + message), -1};
  if (s == "toLaunch" || s == "Launching") return {Kind::kStarting, s, -1};
  if (s == "Running" || s == "Finishing" || s == "toError") return {Kind::kRunning, "", -1};
  if (s == "Suspended" || s == "Resuming") return {Kind::kRunning, "suspended (" + s + ")", -1};
  if (s == "Terminated") return {Kind::kCompleted, "", has_exit ? exit_code : 0};
  if (s == "Error") {
    if (HasEvent(job, "WALLTIME")) return {Kind::kTimeout, "walltime exceeded (OAR event WALLTIME)", -1};
    if (HasEvent(job, "FRAG_JOB_REQUEST")) return {Kind::kCancelled, "deleted (oardel)", -1};
    if (has_exit && status != 0) return {Kind::kCompleted, "", exit_code};
    return {Kind::kFailed, "OAR state Error" + (message.empty() ? "" : ": " + message), -1};
  }
  return {Kind::kQueued, "OAR state '" + s + "'", -1};
}

}  // namespace

Result<Observations> ParseOarstatJson(const std::string& out) {
  if (Trim(out).empty()) return Observations{};  // none of the ids is known
  nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Status::Error("oarstat -J printed no JSON object: '" + Split(Trim(out), '\n')[0] + "'");
  Observations obs;
  for (const auto& [id, job] : doc.items()) {
    if (!job.is_object()) continue;
    JobObservation o;
    o.state = OarState(job);
    auto hosts = job.find("assigned_network_address");
    if (hosts != job.end() && hosts->is_array())
      for (const auto& h : *hosts)
        if (const std::string* name = JsonStringPtr(h)) o.nodes.push_back(*name);
    long t = 0;
    if (job.contains("startTime") && IntOf(job["startTime"], &t) && t > 0) o.start_time = static_cast<double>(t);
    if (job.contains("stopTime") && IntOf(job["stopTime"], &t) && t > 0) o.end_time = static_cast<double>(t);
    obs[id] = o;
  }
  return obs;
}

OarScheduler::OarScheduler(std::string, std::unique_ptr<CommandRunner> runner, BatchOptions opts)
    : BatchScheduler(std::move(runner), std::move(opts)) {}

// As ReFrame's OarJobScheduler.emit_preamble.
std::vector<std::string> OarScheduler::Directives(const Job& job) const {
  std::vector<std::string> d;
  auto opt = [&](const std::string& o) { d.push_back("#OAR " + o); };
  opt("-n \"" + job.name + "\"");
  opt("-O " + job.stdout_path);
  opt("-E " + job.stderr_path);
  int per_node = job.num_tasks_per_node > 0 ? job.num_tasks_per_node : 1;
  int nodes = std::max(1, job.num_tasks) / per_node;
  std::string res = "-l /host=" + std::to_string(nodes) + "/core=" + std::to_string(per_node);
  if (job.time_limit_s > 0) res += ",walltime=" + Hms(job.time_limit_s);
  opt(res);
  for (const auto& o : ScriptOptions(job)) {
    if (StartsWith(o, "#"))
      d.push_back(o);
    else if (!o.empty())
      opt(o);
  }
  return d;
}

std::vector<std::string> OarScheduler::SubmitCommand(const Job& job) const {
  std::vector<std::string> argv = {"oarsub"};
  for (const auto& a : SubmitAccess(job)) argv.push_back(a);
  argv.insert(argv.end(), {"-S", job.script_path});
  return argv;
}

Result<std::string> OarScheduler::ParseSubmitOutput(const CommandResult& r) const {
  static const std::regex re(R"(OAR_JOB_ID=(\S+))");
  std::smatch m;
  if (std::regex_search(r.out, m, re)) return m[1].str();
  return Status::Error("oarsub printed no OAR_JOB_ID (stdout: '" + Trim(r.out) + "', stderr: '" + Trim(r.err) + "')");
}

std::vector<std::string> OarScheduler::CancelCommand(const std::vector<std::string>& ids) const {
  return WithIds({"oardel"}, ids);
}

Result<Observations> OarScheduler::Query(const std::vector<std::string>& ids) {
  return QueryInChunks(ids, [this](const std::vector<std::string>& chunk) -> Result<Observations> {
    std::vector<std::string> argv = {"oarstat", "-f", "-J"};
    for (const auto& id : chunk) argv.insert(argv.end(), {"-j", id});
    CommandResult r = runner().Run(argv, options().query_timeout);
    if (r.timed_out || r.not_found || r.exit_code != 0) return Status::Error(r.Problem("oarstat"));
    return ParseOarstatJson(r.out);
  });
}

}  // namespace hb
