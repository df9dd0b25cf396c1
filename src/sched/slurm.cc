#include "sched/slurm.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <sstream>

#include "util/strings.h"

namespace hb {

namespace {

using Kind = JobState::Kind;

std::string IdList(const std::vector<std::string>& ids) { return Join(ids, ","); }

// "3:0" -> {3, 0}
std::pair<int, int> ExitAndSignal(const std::string& code) {
  auto parts = Split(code, ':');
  int exit = parts.empty() || parts[0].empty() ? 0 : std::atoi(parts[0].c_str());
  int sig = parts.size() > 1 ? std::atoi(parts[1].c_str()) : 0;
  return {exit, sig};
}

std::string FirstWord(const std::string& s) {
  std::string t = Trim(s);
  size_t sp = t.find(' ');
  return sp == std::string::npos ? t : t.substr(0, sp);
}

std::map<std::string, std::string> KeyValues(const std::string& line) {
  // scontrol -o prints Key=Value words separated by spaces; values may hold
  // spaces only in a few keys we do not read (Command, WorkDir may, and come
  // after the keys we need on the same line).
  std::map<std::string, std::string> kv;
  std::istringstream in(line);
  std::string word, last;
  while (in >> word) {
    size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) {
      if (!last.empty()) kv[last] += " " + word;
      continue;
    }
    last = word.substr(0, eq);
    kv[last] = word.substr(eq + 1);
  }
  return kv;
}

// True when an option can go on an #SBATCH line as it is. sbatch reads
// directives with its own tokenizer (quotes are special, nothing is
// expanded), so an option holding quotes, backslashes, line breaks or a value
// with spaces would be read differently from what the test wrote. Such
// options are passed on the sbatch command line instead, where each is one
// argument and reaches Slurm literally.
bool DirectiveSafe(const std::string& opt) {
  if (opt.find_first_of("'\"\\\n\r\t") != std::string::npos) return false;
  auto words = Split(opt, ' ');
  if (words.size() == 1) return true;
  // "-p debug": a short option and its value.
  return words.size() == 2 && !words[0].empty() && words[0][0] == '-' && words[0].find('=') == std::string::npos &&
         !words[1].empty();
}

}  // namespace

JobState SlurmJobState(const std::string& raw_state, const std::string& reason_in, const std::string& exit_code) {
  std::string state = FirstWord(raw_state);
  std::string reason = Trim(reason_in);
  if (reason == "None" || reason == "(null)") reason.clear();
  auto [exit, sig] = ExitAndSignal(exit_code);
  JobState s;
  if (state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD" || state == "REQUEUE_FED" ||
      state == "RESV_DEL_HOLD" || state == "SUSPENDED" || state == "STOPPED") {
    s.kind = Kind::kQueued;
    s.reason = state == "PENDING" ? reason : state + (reason.empty() ? "" : ": " + reason);
  } else if (state == "CONFIGURING") {
    s.kind = Kind::kStarting;
    s.reason = "CONFIGURING";
  } else if (state == "RUNNING" || state == "COMPLETING" || state == "SIGNALING" || state == "STAGE_OUT" ||
             state == "RESIZING") {
    s.kind = Kind::kRunning;
  } else if (state == "COMPLETED" || (state == "FAILED" && sig == 0 && exit != 0)) {
    s.kind = Kind::kCompleted;
    s.exit_code = exit;
  } else if (state == "TIMEOUT") {
    s.kind = Kind::kTimeout;
    s.reason = "time limit exceeded (Slurm state TIMEOUT)";
  } else if (state == "CANCELLED") {
    s.kind = Kind::kCancelled;
    s.reason = Trim(raw_state);
  } else if (state == "FAILED") {
    s.kind = Kind::kFailed;
    s.exit_code = sig ? 128 + sig : exit;
    s.reason = sig ? "killed by signal " + std::to_string(sig) + " (Slurm state FAILED)"
                   : "Slurm state FAILED" + (reason.empty() ? "" : ": " + reason);
  } else if (state == "OUT_OF_MEMORY") {
    s.kind = Kind::kFailed;
    s.reason = "out of memory (Slurm state OUT_OF_MEMORY)";
  } else if (state == "NODE_FAIL") {
    s.kind = Kind::kFailed;
    s.reason = "node failure (Slurm state NODE_FAIL)";
  } else if (state == "PREEMPTED") {
    s.kind = Kind::kFailed;
    s.reason = "preempted (Slurm state PREEMPTED)";
  } else if (state == "BOOT_FAIL") {
    s.kind = Kind::kFailed;
    s.reason = "node boot failure (Slurm state BOOT_FAIL)";
  } else if (state == "DEADLINE") {
    s.kind = Kind::kFailed;
    s.reason = "deadline reached (Slurm state DEADLINE)";
  } else {
    s.kind = Kind::kFailed;
    s.reason = "Slurm state " + state + (reason.empty() ? "" : ": " + reason);
  }
  return s;
}

std::vector<std::string> ExpandSlurmNodelist(const std::string& list) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  std::vector<std::string> items;
  for (char c : list) {  // split on commas outside brackets
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) items.push_back(cur);
  for (const auto& item : items) {
    size_t lb = item.find('[');
    size_t rb = item.find(']');
    if (lb == std::string::npos || rb == std::string::npos || rb < lb) {
      if (!item.empty() && item != "(null)" && item != "None assigned") out.push_back(item);
      continue;
    }
    std::string prefix = item.substr(0, lb), suffix = item.substr(rb + 1);
    for (const auto& range : Split(item.substr(lb + 1, rb - lb - 1), ',')) {
      size_t dash = range.find('-');
      if (dash == std::string::npos) {
        out.push_back(prefix + range + suffix);
        continue;
      }
      std::string a = range.substr(0, dash), b = range.substr(dash + 1);
      long from = std::atol(a.c_str()), to = std::atol(b.c_str());
      for (long n = from; n <= to && n - from < 100000; ++n) {
        std::string num = std::to_string(n);
        if (num.size() < a.size()) num = std::string(a.size() - num.size(), '0') + num;
        out.push_back(prefix + num + suffix);
      }
    }
  }
  return out;
}

double ParseSlurmTime(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end) return 0;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  return t < 0 ? 0 : static_cast<double>(t);
}

Observations ParseSqueue(const std::string& out) {
  Observations obs;
  for (const auto& line : Split(out, '\n')) {
    auto f = Split(Trim(line), '|');
    if (f.size() < 4 || f[0].empty()) continue;  // truncated or foreign line
    JobObservation o;
    o.state = SlurmJobState(f[1], f[2], "0:0");
    o.nodes = ExpandSlurmNodelist(f[3]);
    obs[f[0]] = o;
  }
  return obs;
}

Observations ParseScontrolJobs(const std::string& out) {
  Observations obs;
  for (const auto& line : Split(out, '\n')) {
    auto kv = KeyValues(line);
    auto id = kv.find("JobId");
    auto st = kv.find("JobState");
    if (id == kv.end() || st == kv.end()) continue;
    JobObservation o;
    o.state = SlurmJobState(st->second, kv["Reason"], kv.count("ExitCode") ? kv["ExitCode"] : "0:0");
    o.nodes = ExpandSlurmNodelist(kv["NodeList"]);
    o.start_time = ParseSlurmTime(kv["StartTime"]);
    o.end_time = ParseSlurmTime(kv["EndTime"]);
    obs[id->second] = o;
  }
  return obs;
}

Observations ParseSacct(const std::string& out) {
  Observations obs;
  for (const auto& line : Split(out, '\n')) {
    auto f = Split(Trim(line), '|');
    if (f.size() < 7 || f[0].empty()) continue;
    JobObservation o;
    o.state = SlurmJobState(f[1], f[3], f[2]);
    o.nodes = ExpandSlurmNodelist(f[4]);
    o.start_time = ParseSlurmTime(f[5]);
    o.end_time = ParseSlurmTime(f[6]);
    obs[f[0]] = o;
  }
  return obs;
}

SlurmScheduler::SlurmScheduler(std::string name, std::unique_ptr<CommandRunner> runner, BatchOptions opts)
    : BatchScheduler(std::move(runner), std::move(opts)), name_(std::move(name)), use_sacct_(name_ == "slurm") {}

std::vector<std::string> SlurmScheduler::RequiredCommands() const {
  std::vector<std::string> cmds = {"sbatch", "squeue", "scontrol", "scancel"};
  if (name_ == "slurm") cmds.push_back("sacct");
  return cmds;
}

// As ReFrame's SlurmJobScheduler.emit_preamble (reframe/core/schedulers/slurm.py).
std::vector<std::string> SlurmScheduler::Directives(const Job& job) const {
  std::vector<std::string> d;
  auto opt = [&](const std::string& o) { d.push_back("#SBATCH " + o); };
  opt("--job-name=\"" + job.name + "\"");
  opt("--ntasks=" + std::to_string(job.num_tasks));
  if (job.num_tasks_per_node > 0) opt("--ntasks-per-node=" + std::to_string(job.num_tasks_per_node));
  if (job.num_tasks_per_core > 0) opt("--ntasks-per-core=" + std::to_string(job.num_tasks_per_core));
  if (job.num_tasks_per_socket > 0) opt("--ntasks-per-socket=" + std::to_string(job.num_tasks_per_socket));
  if (job.num_cpus_per_task > 0) opt("--cpus-per-task=" + std::to_string(job.num_cpus_per_task));
  if (job.time_limit_s > 0) {
    long t = static_cast<long>(std::ceil(job.time_limit_s));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    opt(std::string("--time=") + buf);
  }
  if (job.exclusive) opt("--exclusive");
  if (!job.pin_nodes.empty()) opt("--nodelist=" + job.pin_nodes);
  if (JobOptions(job).use_nodes_option && job.num_tasks_per_node > 0) {
    int nodes = (job.num_tasks + job.num_tasks_per_node - 1) / job.num_tasks_per_node;
    opt("--nodes=" + std::to_string(nodes));
  }
  opt("--output=" + job.stdout_path);
  opt("--error=" + job.stderr_path);
  if (job.use_smt >= 0) opt(job.use_smt ? "--hint=multithread" : "--hint=nomultithread");
  for (const auto& o : ScriptOptions(job)) {
    if (StartsWith(o, "#"))
      d.push_back(o);
    else if (DirectiveSafe(o))
      opt(o);
    else
      d.push_back("# on the sbatch command line: " + ReplaceAll(ReplaceAll(ShellQuote(o), "\n", "\\n"), "\r", "\\r"));
  }
  return d;
}

std::vector<std::string> SlurmScheduler::SubmitCommand(const Job& job) const {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  for (const auto& o : SubmitAccess(job)) argv.push_back(o);
  for (const auto& o : ScriptOptions(job))
    if (!StartsWith(o, "#") && !DirectiveSafe(o)) argv.push_back(o);
  argv.push_back(job.script_path);
  return argv;
}

Result<std::string> SlurmScheduler::ParseSubmitOutput(const CommandResult& r) const {
  // --parsable prints "<jobid>" or "<jobid>;<cluster>".
  for (const auto& line : Split(r.out, '\n')) {
    std::string id = Trim(Split(Trim(line), ';')[0]);
    if (!id.empty() && id.find_first_not_of("0123456789_") == std::string::npos) return id;
  }
  return Status::Error("sbatch printed no job id (stdout: '" + Trim(r.out) + "', stderr: '" + Trim(r.err) + "')");
}

std::vector<std::string> SlurmScheduler::CancelCommand(const std::vector<std::string>& ids) const {
  return WithIds({"scancel"}, ids);
}

// ReFrame's list of pending reasons that need a system administrator
// (reframe/core/schedulers/slurm.py, _cancel_reasons).
std::vector<std::string> SlurmScheduler::DefaultCancelReasons() const {
  return {"FrontEndDown",       "Licenses",    "NodeDown",         "PartitionDown",   "PartitionInactive",
          "PartitionNodeLimit", "QOSJobLimit", "QOSResourceLimit", "ReqNodeNotAvail", "QOSUsageThreshold"};
}

Result<Observations> SlurmScheduler::QuerySacct(const std::vector<std::string>& ids, bool* fall_back) {
  if (ids.size() > kMaxIdsPerCommand)
    return QueryInChunks(ids, [&](const std::vector<std::string>& chunk) -> Result<Observations> {
      if (*fall_back) return Observations{};  // the squeue way takes over
      return QuerySacct(chunk, fall_back);
    });
  CommandResult r = runner().Run(
      {"sacct", "-P", "-n", "-X", "-j", IdList(ids), "-o", "jobid,state,exitcode,reason,nodelist,start,end"},
      options().query_timeout);
  std::string text = r.err + r.out;
  if (text.find("accounting storage is disabled") != std::string::npos ||
      text.find("Slurm accounting storage is disabled") != std::string::npos) {
    Notice("Slurm accounting is off on this cluster (sacct says so): following jobs with squeue and scontrol");
    *fall_back = true;
    return Observations{};
  }
  if (r.exit_code != 0) {
    if (++sacct_failures_ > options().max_sacct_failures) {
      Notice("sacct failed " + std::to_string(sacct_failures_) + " times in a row (" + r.Problem("sacct") +
             "): following jobs with squeue and scontrol");
      *fall_back = true;
      return Observations{};
    }
    return Status::Error(r.Problem("sacct"));
  }
  sacct_failures_ = 0;
  Observations obs = ParseSacct(r.out);
  // The accounting record of a pending job can lag the controller and say
  // reason None; squeue has the controller's reason (BeginTime,
  // Priority...), which max_pending_time and ReFrame's cancel reasons need.
  // A job just submitted may not be in the accounting database at all yet.
  // slurmdbd also records a job's end after the controller does: a job that
  // accounting still shows queued or running but squeue no longer lists has
  // ended, and scontrol (for those ids only) says how.
  std::vector<std::string> unended;
  for (const auto& id : ids) {
    auto it = obs.find(id);
    if (it == obs.end() || !it->second.state.terminal()) unended.push_back(id);
  }
  if (unended.empty()) return obs;
  CommandResult q = runner().Run({"squeue", "-h", "-o", "%i|%T|%r|%N", "-j", IdList(unended)}, options().query_timeout);
  const bool none = q.exit_code != 0 && (q.err + q.out).find("Invalid job id") != std::string::npos;
  if (q.exit_code != 0 && !none) return obs;
  Observations queued = none ? Observations{} : ParseSqueue(q.out);
  for (const auto& [id, o] : queued) {
    if (o.state.kind != JobState::Kind::kQueued) continue;
    if (obs.count(id))
      obs[id].state.reason = o.state.reason;
    else
      obs[id] = o;
  }
  std::vector<std::string> left;
  for (const auto& id : unended)
    if (!queued.count(id) && obs.count(id)) left.push_back(id);  // in accounting, gone from the queue
  for (auto& [id, o] : ScontrolJobs(left))
    if (o.state.terminal()) obs[id] = o;
  return obs;
}

// `scontrol -o show job ID` for each id (scontrol takes one id a call):
// the controller's record of jobs that have left squeue, for as long as it
// keeps them (MinJobAge). An id it no longer knows is left out.
Observations SlurmScheduler::ScontrolJobs(const std::vector<std::string>& ids) {
  Observations out;
  for (const auto& id : ids) {
    CommandResult c = runner().Run({"scontrol", "-o", "show", "job", id}, options().query_timeout);
    if (c.exit_code != 0) continue;  // "Invalid job id specified", or a failure: the next poll asks again
    for (auto& [jid, o] : ParseScontrolJobs(c.out))
      if (jid == id) out[jid] = o;
  }
  return out;
}

Result<Observations> SlurmScheduler::QuerySqueue(const std::vector<std::string>& ids) {
  if (ids.size() > kMaxIdsPerCommand)
    return QueryInChunks(ids, [this](const std::vector<std::string>& chunk) { return QuerySqueue(chunk); });
  CommandResult q = runner().Run({"squeue", "-h", "-o", "%i|%T|%r|%N", "-j", IdList(ids)}, options().query_timeout);
  Observations obs;
  // squeue -j with only ids that have left the controller's memory says
  // "Invalid job id specified": none of them is in the queue.
  bool none = q.exit_code != 0 && (q.err + q.out).find("Invalid job id") != std::string::npos;
  if (q.exit_code != 0 && !none) return Status::Error(q.Problem("squeue"));
  if (!none) obs = ParseSqueue(q.out);
  // The jobs that left the queue, each by its id: never the controller's
  // whole list, which holds every user's jobs.
  std::vector<std::string> missing;
  for (const auto& id : ids)
    if (!obs.count(id)) missing.push_back(id);
  for (auto& [id, o] : ScontrolJobs(missing)) obs[id] = o;
  return obs;
}

Result<Observations> SlurmScheduler::Query(const std::vector<std::string>& ids) {
  if (use_sacct_) {
    bool fall_back = false;
    auto r = QuerySacct(ids, &fall_back);
    if (!fall_back) return r;
    use_sacct_ = false;
  }
  return QuerySqueue(ids);
}

namespace {

// The value of an option in any of Slurm's spellings: "--partition=x",
// "--partition x" (one word), "-p x", "-px". "" when absent.
std::string OptionValue(const std::vector<std::string>& options, const std::string& lng, const std::string& shrt) {
  std::string value;
  for (size_t i = 0; i < options.size(); ++i) {
    std::string o = Trim(options[i]);
    if (StartsWith(o, lng + "="))
      value = o.substr(lng.size() + 1);
    else if (StartsWith(o, lng + " "))
      value = Trim(o.substr(lng.size() + 1));
    else if (o == lng && i + 1 < options.size())
      value = options[i + 1];
    else if (!shrt.empty() && StartsWith(o, shrt + " "))
      value = Trim(o.substr(shrt.size() + 1));
    else if (!shrt.empty() && o == shrt && i + 1 < options.size())
      value = options[i + 1];
    else if (!shrt.empty() && StartsWith(o, shrt) && o.size() > shrt.size() && o[shrt.size()] != '-')
      value = o.substr(shrt.size());
  }
  return value;
}

bool Has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Flags that make a node unusable for new jobs.
bool Unusable(const SlurmNode& n) {
  for (const char* f : {"DOWN", "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING", "MAINT", "RESERVED",
                        "NOT_RESPONDING", "POWERED_DOWN", "POWERING_DOWN", "REBOOT_ISSUED", "FUTURE", "UNKNOWN"})
    if (Has(n.states, f)) return true;
  return false;
}

bool InState(const SlurmNode& n, const std::string& state) {
  std::string st = Upper(state);
  if (st == "ALL") return true;
  if (st == "AVAIL")
    return !Unusable(n) && (Has(n.states, "IDLE") || Has(n.states, "MIXED") || Has(n.states, "ALLOCATED") ||
                            Has(n.states, "COMPLETING"));
  if (st == "IDLE") return !Unusable(n) && Has(n.states, "IDLE");
  return Has(n.states, st);
}

}  // namespace

std::vector<SlurmNode> ParseSlurmNodes(const std::string& out) {
  std::vector<SlurmNode> nodes;
  for (const auto& line : Split(out, '\n')) {
    auto kv = KeyValues(line);
    auto name = kv.find("NodeName");
    if (name == kv.end() || name->second.empty()) continue;
    SlurmNode n;
    n.name = FirstWord(name->second);
    std::string state = FirstWord(kv["State"]);
    if (!state.empty() && state.back() == '*') {
      state.pop_back();
      n.states.push_back("NOT_RESPONDING");
    }
    for (const auto& s : Split(state, '+'))
      if (!s.empty()) n.states.push_back(Upper(s));
    for (const auto& p : Split(FirstWord(kv["Partitions"]), ','))
      if (!p.empty()) n.partitions.push_back(p);
    std::string feats = FirstWord(kv.count("ActiveFeatures") ? kv["ActiveFeatures"] : kv["AvailableFeatures"]);
    if (feats != "(null)")
      for (const auto& f : Split(feats, ','))
        if (!f.empty()) n.features.push_back(f);
    nodes.push_back(std::move(n));
  }
  return nodes;
}

std::vector<std::string> SelectSlurmNodes(const std::vector<SlurmNode>& nodes, const std::vector<std::string>& options,
                                          const std::string& state, const std::vector<std::string>& reservation_nodes) {
  std::string partition = OptionValue(options, "--partition", "-p");
  std::string constraint = OptionValue(options, "--constraint", "-C");
  std::string include = OptionValue(options, "--nodelist", "-w");
  std::string exclude = OptionValue(options, "--exclude", "-x");
  std::string reservation = OptionValue(options, "--reservation", "");
  std::vector<std::string> partitions = partition.empty() ? std::vector<std::string>{} : Split(partition, ',');
  std::vector<std::string> wanted = include.empty() ? std::vector<std::string>{} : ExpandSlurmNodelist(include);
  std::vector<std::string> excluded = exclude.empty() ? std::vector<std::string>{} : ExpandSlurmNodelist(exclude);
  // Constraints: features joined by '&' or ',' must all be there (AND);
  // '|' alternatives: any of them.
  std::vector<std::vector<std::string>> any_of;
  if (!constraint.empty()) {
    std::string c = ReplaceAll(ReplaceAll(ReplaceAll(constraint, "[", ""), "]", ""), ",", "&");
    for (const auto& conj : Split(c, '&')) {
      std::vector<std::string> alts;
      for (const auto& a : Split(conj, '|'))
        if (!Trim(a).empty()) alts.push_back(Trim(a));
      if (!alts.empty()) any_of.push_back(alts);
    }
  }
  std::vector<std::string> out;
  for (const auto& n : nodes) {
    if (!partitions.empty()) {
      bool in = false;
      for (const auto& p : partitions) in = in || Has(n.partitions, p);
      if (!in) continue;
    }
    if (!wanted.empty() && !Has(wanted, n.name)) continue;
    if (Has(excluded, n.name)) continue;
    if (!reservation.empty() && !Has(reservation_nodes, n.name)) continue;
    bool ok = true;
    for (const auto& alts : any_of) {
      bool one = false;
      for (const auto& a : alts) one = one || Has(n.features, a);
      ok = ok && one;
    }
    if (!ok) continue;
    // In a reservation of ours, RESERVED is no obstacle.
    SlurmNode m = n;
    if (!reservation.empty()) m.states.erase(std::remove(m.states.begin(), m.states.end(), "RESERVED"), m.states.end());
    if (InState(m, state)) out.push_back(n.name);
  }
  return out;
}

Result<std::vector<std::string>> SlurmScheduler::ListNodes(const std::vector<std::string>& job_options,
                                                           const std::string& state) {
  CommandResult r = runner().Run({"scontrol", "-a", "show", "-o", "node"}, options().query_timeout);
  if (r.exit_code != 0) return Status::Error("cannot list the Slurm nodes: " + r.Problem("scontrol"));
  std::vector<std::string> res_nodes;
  std::string reservation = OptionValue(job_options, "--reservation", "");
  if (!reservation.empty()) {
    CommandResult rr =
        runner().Run({"scontrol", "-a", "show", "-o", "reservation", reservation}, options().query_timeout);
    if (rr.exit_code != 0)
      return Status::Error("cannot read Slurm reservation '" + reservation + "': " + rr.Problem("scontrol"));
    auto kv = KeyValues(rr.out);
    res_nodes = ExpandSlurmNodelist(FirstWord(kv["Nodes"]));
  }
  return SelectSlurmNodes(ParseSlurmNodes(r.out), job_options, state, res_nodes);
}

NodeSpawn SlurmNodeSpawn(const Job&, int nnodes, int cpus_per_node) {
  const std::string n = std::to_string(nnodes);
  return {{"srun", "--nodes=" + n, "--ntasks=" + n, "--ntasks-per-node=1",
           "--cpus-per-task=" + std::to_string(cpus_per_node)},
          "\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)\"",
          "\"$SLURM_JOB_ID\"",
          ""};
}

}  // namespace hb
