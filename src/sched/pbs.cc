#include "sched/pbs.h"

#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <initializer_list>
#include <map>

#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

namespace {

using Kind = JobState::Kind;

// Exit statuses PBS itself sets when it cannot run or finish a job.
struct ExecCode {
  int code;
  const char* name;
  const char* what;
};

// PBS Professional / OpenPBS: "Special Job Exit Values" in
// openpbs/openpbs src/include/job.h (the Reference Guide's "Job Exit Codes").
constexpr ExecCode kProCodes[] = {
    {-1, "JOB_EXEC_FAIL1", "job exec failed, before files, no retry"},
    {-2, "JOB_EXEC_FAIL2", "job exec failed, after files, no retry"},
    {-3, "JOB_EXEC_RETRY", "job execution failed, do retry"},
    {-4, "JOB_EXEC_INITABT", "job aborted on MoM initialization"},
    {-5, "JOB_EXEC_INITRST", "job aborted on MoM init, checkpoint, no migrate"},
    {-6, "JOB_EXEC_INITRMG", "job aborted on MoM init, checkpoint, ok migrate"},
    {-7, "JOB_EXEC_BADRESRT", "job restart failed"},
    {-10, "JOB_EXEC_FAILUID", "invalid uid/gid for job"},
    {-11, "JOB_EXEC_RERUN", "job rerun"},
    {-12, "JOB_EXEC_CHKP", "job was checkpointed and killed"},
    {-13, "JOB_EXEC_FAIL_PASSWORD", "job failed due to a bad password"},
    {-14, "JOB_EXEC_RERUN_SIS_FAIL", "job rerun after a sister MoM failed"},
    {-15, "JOB_EXEC_QUERST", "requeued for restart from checkpoint"},
    {-16, "JOB_EXEC_FAILHOOK_RERUN", "a hook rejected the job, requeued for later retry"},
    {-17, "JOB_EXEC_FAILHOOK_DELETE", "a hook rejected the job, deleted"},
    {-18, "JOB_EXEC_HOOK_RERUN", "a hook requested the job be requeued"},
    {-19, "JOB_EXEC_HOOK_DELETE", "a hook requested the job be deleted"},
    {-20, "JOB_EXEC_RERUN_MS_FAIL", "mother superior connection failed"},
    {-21, "JOB_EXEC_FAIL_SECURITY", "security breach in PBS directory"},
    {-22, "JOB_EXEC_HOOKERROR", "a hook raised an exception or timed out"},
    {-23, "JOB_EXEC_FAIL_KRB5", "no Kerberos credentials supplied"},
    {-24, "JOB_EXEC_KILL_NCPUS_BURST", "killed for exceeding ncpus (burst)"},
    {-25, "JOB_EXEC_KILL_NCPUS_SUM", "killed for exceeding ncpus (sum)"},
    {-26, "JOB_EXEC_KILL_VMEM", "killed for exceeding vmem"},
    {-27, "JOB_EXEC_KILL_MEM", "killed for exceeding mem"},
    {-28, "JOB_EXEC_KILL_CPUT", "killed for exceeding cput"},
    {-29, "JOB_EXEC_KILL_WALLTIME", "killed for exceeding walltime"},
    {-30, "JOB_EXEC_JOINJOB", "join job error"},
};

// Torque: Administrator Guide 6.1, "Job Exit Status" (TORQUE supplied exit
// codes), as in adaptivecomputing/torque src/include/job.h.
constexpr ExecCode kTorqueCodes[] = {
    {-1, "JOB_EXEC_FAIL1", "job exec failed, before files, no retry"},
    {-2, "JOB_EXEC_FAIL2", "job exec failed, after files, no retry"},
    {-3, "JOB_EXEC_RETRY", "job execution failed, do retry"},
    {-4, "JOB_EXEC_INITABT", "job aborted on MoM initialization"},
    {-5, "JOB_EXEC_INITRST", "job aborted on MoM init, checkpoint, no migrate"},
    {-6, "JOB_EXEC_INITRMG", "job aborted on MoM init, checkpoint, ok migrate"},
    {-7, "JOB_EXEC_BADRESRT", "job restart failed"},
    {-8, "JOB_EXEC_CMDFAIL", "exec() of the user command failed"},
    {-9, "JOB_EXEC_STDOUTFAIL", "could not create or open the stdout/stderr files"},
    {-10, "JOB_EXEC_OVERLIMIT_MEM", "job exceeded a memory limit"},
    {-11, "JOB_EXEC_OVERLIMIT_WT", "job exceeded a walltime limit"},
    {-12, "JOB_EXEC_OVERLIMIT_CPUT", "job exceeded a CPU time limit"},
    {-13, "JOB_EXEC_RETRY_CGROUP", "job execution failed while creating cgroups"},
    {-14, "JOB_EXEC_RETRY_PROLOGUE", "job execution failed in the prologue"},
};

const ExecCode* FindCode(PbsFlavor f, int code) {
  auto find = [code](const auto& table) -> const ExecCode* {
    for (const auto& c : table)
      if (c.code == code) return &c;
    return nullptr;
  };
  return f == PbsFlavor::kPro ? find(kProCodes) : find(kTorqueCodes);
}

int WalltimeCode(PbsFlavor f) { return f == PbsFlavor::kPro ? -29 : -11; }

std::string StatusText(PbsFlavor f, int x) {
  return std::string(f == PbsFlavor::kPro ? "Exit_status " : "exit_status ") + std::to_string(x);
}

JobState Waiting(const std::string& what, const std::string& comment) {
  return JobState{Kind::kQueued, what + (comment.empty() ? "" : ": " + comment), -1};
}

// Negative exit statuses: PBS could not run the job, or killed it.
JobState ExecFailure(PbsFlavor f, int x) {
  const ExecCode* c = FindCode(f, x);
  std::string detail = " (" + StatusText(f, x) + (c ? std::string(", ") + c->name : "") + ")";
  if (x == WalltimeCode(f)) return JobState{Kind::kTimeout, "time limit exceeded" + detail, -1};
  return JobState{Kind::kFailed, (c ? c->what : "PBS could not run the job") + detail, x};
}

// A finished job (F or X on PBS Pro, C on Torque). Exit statuses 0-255
// are the job script's; >= 256 mean the script was killed by signal
// (status - 256: 271 is SIGTERM, which qdel and walltime kills send);
// negative ones are PBS's own codes.
JobState Finished(PbsFlavor f, const PbsJobRecord& r) {
  if (!r.has_exit_status) return JobState{Kind::kCancelled, "deleted before it ran (no exit status)", -1};
  int x = r.exit_status;
  if (x < 0) return ExecFailure(f, x);
  bool over_walltime = r.walltime_limit > 0 && r.walltime_used >= r.walltime_limit;
  if (x > 128 && over_walltime)
    return JobState{Kind::kTimeout,
                    "time limit exceeded (ran " + FormatNumber(r.walltime_used) + " s of a " +
                        FormatNumber(r.walltime_limit) + " s walltime; " + StatusText(f, x) + ")",
                    -1};
  if (x < 256) return JobState{Kind::kCompleted, "", x};
  int sig = x % 256;
  std::string why = "killed by signal " + std::to_string(sig) + " (" + StatusText(f, x) + ")";
  // qdel sends SIGTERM, then SIGKILL: a cancellation (BatchScheduler calls
  // it a failure when hetbench did not ask for it).
  Kind kind = sig == SIGTERM || sig == SIGKILL ? Kind::kCancelled : Kind::kFailed;
  return JobState{kind, why, 128 + sig};
}

bool IsFinishedLetter(char c) { return c == 'F' || c == 'X' || c == 'C'; }

bool ParseInt(const std::string& text, int* out) {
  std::string t = Trim(text);
  if (t.empty()) return false;
  char* end = nullptr;
  long v = std::strtol(t.c_str(), &end, 10);
  if (*end != '\0') return false;
  *out = static_cast<int>(v);
  return true;
}

double Seconds(const std::string& text) {
  auto d = ParseDuration(Trim(text));
  return d ? *d : -1;
}

char StateLetter(const std::string& text) {
  std::string t = Trim(text);
  return t.size() == 1 && std::isupper(static_cast<unsigned char>(t[0])) ? t[0] : 0;
}

// ---- JSON (qstat -f -F json).

std::string JsonText(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return "";
  if (const std::string* s = JsonStringPtr(*it)) return *s;
  if (it->is_number()) return it->dump();
  return "";
}

double JsonSeconds(const nlohmann::json& obj, const char* group, const char* key) {
  auto g = obj.find(group);
  if (g == obj.end() || !g->is_object()) return -1;
  return Seconds(JsonText(*g, key));
}

PbsJobRecord RecordFromJson(const std::string& id, const nlohmann::json& j) {
  PbsJobRecord r;
  r.id = id;
  r.state = StateLetter(JsonText(j, "job_state"));
  r.comment = JsonText(j, "comment");
  r.has_exit_status = ParseInt(JsonText(j, "Exit_status"), &r.exit_status);
  r.exec_host = JsonText(j, "exec_host");
  r.start = JsonText(j, "stime");
  r.end = JsonText(j, "obittime");
  r.walltime_used = JsonSeconds(j, "resources_used", "walltime");
  r.walltime_limit = JsonSeconds(j, "Resource_List", "walltime");
  return r;
}

// ---- Text (qstat -f).

using Attributes = std::map<std::string, std::string>;

std::string Attr(const Attributes& a, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = a.find(k);
    if (it != a.end()) return it->second;
  }
  return "";
}

PbsJobRecord RecordFromText(const std::string& id, const Attributes& a, bool complete) {
  PbsJobRecord r;
  r.id = id;
  r.complete = complete;
  r.state = StateLetter(Attr(a, {"job_state"}));
  r.comment = Attr(a, {"comment"});
  r.has_exit_status = ParseInt(Attr(a, {"Exit_status", "exit_status"}), &r.exit_status);
  r.exec_host = Attr(a, {"exec_host"});
  r.start = Attr(a, {"stime", "start_time"});
  r.end = Attr(a, {"obittime", "comp_time"});
  r.walltime_used = Seconds(Attr(a, {"resources_used.walltime"}));
  r.walltime_limit = Seconds(Attr(a, {"Resource_List.walltime"}));
  return r;
}

// "    key = value": four spaces, a key without blanks, " = ".
bool AttributeLine(const std::string& line, std::string* key, std::string* value) {
  size_t eq = line.find(" = ");
  if (line.empty() || line[0] != ' ' || eq == std::string::npos) return false;
  std::string k = Trim(line.substr(0, eq));
  if (k.empty() || k.find_first_of(" \t") != std::string::npos) return false;
  *key = k;
  *value = Trim(line.substr(eq + 3));
  return true;
}

// Reads `qstat -f` text one line at a time.
class TextReader {
 public:
  void Line(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (StartsWith(line, "Job Id:")) {
      Flush(false);
      id_ = Trim(line.substr(7));
      return;
    }
    if (id_.empty()) return;
    if (Trim(line).empty()) return Flush(true);
    std::string key, value;
    if (line[0] != '\t' && AttributeLine(line, &key, &value)) {
      attrs_[key] = value;
      last_ = key;
    } else if ((line[0] == '\t' || line[0] == ' ') && !last_.empty()) {
      attrs_[last_] += line.substr(line.find_first_not_of(" \t"));  // a wrapped value
    }
  }
  std::vector<PbsJobRecord> Done() {
    Flush(false);
    return std::move(records_);
  }

 private:
  void Flush(bool complete) {
    if (!id_.empty() && attrs_.count("job_state")) records_.push_back(RecordFromText(id_, attrs_, complete));
    id_.clear();
    last_.clear();
    attrs_.clear();
  }

  std::string id_, last_;
  Attributes attrs_;
  std::vector<PbsJobRecord> records_;
};

// ---- Matching qstat's ids to ours: qsub may print "1234.pbs" and qstat
// "1234.pbs.example.org" (or the other way round).

bool SameJob(const std::string& a, const std::string& b) {
  return a == b || StartsWith(a, b + ".") || StartsWith(b, a + ".");
}

std::string Sequence(const std::string& id) { return id.substr(0, id.find('.')); }

// The entry of `by_id` that is job `id`, or nullptr.
template <typename Map>
const typename Map::mapped_type* FindJob(const Map& by_id, const std::string& id) {
  auto it = by_id.find(id);
  if (it != by_id.end()) return &it->second;
  for (auto c = by_id.lower_bound(Sequence(id)); c != by_id.end() && StartsWith(c->first, Sequence(id)); ++c)
    if (SameJob(c->first, id)) return &c->second;
  return nullptr;
}

// The observations of `ids`, under our ids.
Observations Matched(const std::vector<std::string>& ids, const Observations& found) {
  Observations out;
  for (const auto& id : ids)
    if (const JobObservation* o = FindJob(found, id)) out[id] = *o;
  return out;
}

bool Mentioned(const std::vector<std::string>& list, const std::string& id) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& x) { return SameJob(x, id); });
}

// What went wrong with qstat, every line of its complaint ("No route to
// host; qstat: cannot connect to server aqua (errno=15010)").
std::string QstatProblem(const CommandResult& r) {
  std::vector<std::string> lines;
  for (const auto& l : Split(r.err, '\n'))
    if (!Trim(l).empty() && lines.size() < 3) lines.push_back(Trim(l));
  if (r.timed_out || r.not_found || lines.empty()) return r.Problem("qstat");
  return Join(lines, "; ");
}

std::string Hms(double seconds) {
  long t = static_cast<long>(std::ceil(seconds));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
  return buf;
}

// ReFrame's _emit_lselect_option: "-l select=<nodes>:mpiprocs=<tasks per
// node>:ncpus=<cpus per node>" (PBS) or "-l nodes=<nodes>:ppn=<cpus per
// node>" (Torque), with nodes = num_tasks // tasks_per_node and every
// option that starts with neither '-' nor '#' appended as ":<option>".
// hetbench adds ":ngpus=" (PBS) / ":gpus=" (Torque) for num_gpus_per_node
// unless an option already asks for it.
std::string ResourceRequest(PbsFlavor f, const Job& job, const std::vector<std::string>& chunk_opts) {
  int tasks_per_node = job.num_tasks_per_node > 0 ? job.num_tasks_per_node : 1;
  int cpus_per_task = job.num_cpus_per_task > 0 ? job.num_cpus_per_task : 1;
  int nodes = std::max(1, job.num_tasks / tasks_per_node);
  int cpus_per_node = tasks_per_node * cpus_per_task;
  bool pro = f == PbsFlavor::kPro;
  std::string req = pro ? "-l select=" + std::to_string(nodes) + ":mpiprocs=" + std::to_string(tasks_per_node) +
                              ":ncpus=" + std::to_string(cpus_per_node)
                        : "-l nodes=" + std::to_string(nodes) + ":ppn=" + std::to_string(cpus_per_node);
  std::string gpu_key = pro ? "ngpus=" : "gpus=";
  bool gpus_asked =
      std::any_of(chunk_opts.begin(), chunk_opts.end(), [&](const std::string& o) { return StartsWith(o, gpu_key); });
  if (job.num_gpus_per_node > 0 && !gpus_asked) req += ":" + gpu_key + std::to_string(job.num_gpus_per_node);
  for (const auto& o : chunk_opts) req += ":" + o;
  return req;
}

}  // namespace

JobState PbsJobState(PbsFlavor flavor, const PbsJobRecord& r) {
  // Letters: PBS Reference Guide "Job States" (job_state); Torque qstat(1).
  switch (r.state) {
    case 'Q':
      return JobState{Kind::kQueued, r.comment.empty() ? "queued" : r.comment, -1};
    case 'H':
      return Waiting("held (job_state H)", r.comment);
    case 'W':
      return Waiting("waiting for its start time (job_state W)", r.comment);
    case 'T':
      return Waiting("in transit (job_state T)", r.comment);
    case 'S':
      return Waiting("suspended (job_state S)", r.comment);
    case 'U':
      return Waiting("suspended, workstation busy (job_state U)", r.comment);
    case 'R':
    case 'E':  // exiting: the script ended, PBS is staging files out
    case 'B':  // job array begun
      return JobState{Kind::kRunning, "", -1};
    case 'M':
      return JobState{Kind::kLost, "moved to another PBS server (job_state M); hetbench cannot follow it", -1};
    case 'F':
    case 'X':
    case 'C':
      return Finished(flavor, r);
    default:
      return JobState{};
  }
}

Result<std::vector<PbsJobRecord>> ParseQstatJson(const std::string& out) {
  auto doc = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Status::Error("printed invalid JSON");
  std::vector<PbsJobRecord> records;
  auto jobs = doc.find("Jobs");
  if (jobs == doc.end()) return records;  // none of the jobs is known
  if (!jobs->is_object()) return Status::Error("printed JSON whose \"Jobs\" is not an object");
  for (auto it = jobs->begin(); it != jobs->end(); ++it)
    if (it.value().is_object()) records.push_back(RecordFromJson(it.key(), it.value()));
  return records;
}

std::vector<PbsJobRecord> ParseQstatText(const std::string& out) {
  TextReader reader;
  for (const auto& line : Split(out, '\n')) reader.Line(line);
  return reader.Done();
}

Observations PbsObservations(PbsFlavor flavor, const std::vector<PbsJobRecord>& records) {
  Observations obs;
  for (const auto& r : records) {
    JobState s = PbsJobState(flavor, r);
    // A finished job's record cut short may hold a cut exit status.
    if (s.kind == Kind::kNone || (IsFinishedLetter(r.state) && !r.complete)) continue;
    JobObservation o;
    o.state = s;
    o.nodes = ParsePbsExecHost(r.exec_host);
    o.start_time = ParsePbsTime(r.start);
    o.end_time = s.terminal() ? ParsePbsTime(r.end) : 0;
    obs[r.id] = o;
  }
  return obs;
}

std::vector<std::string> QstatUnknownIds(const std::string& err, bool* only_those) {
  std::vector<std::string> ids;
  *only_those = true;
  for (const auto& raw : Split(err, '\n')) {
    std::string line = Trim(raw);
    if (line.empty()) continue;
    auto words = Split(line, ' ');
    // PBS: "qstat: Unknown Job Id 1234.srv"; Torque: "qstat: Unknown Job Id Error 1234.srv".
    if (line.find("Unknown Job Id") != std::string::npos) {
      ids.push_back(words.back());
    } else if (line.find("Job has finished") != std::string::npos && words.size() > 1) {
      ids.push_back(words[1]);  // "qstat: 1234.srv Job has finished, use -x or -H ..."
    } else {
      *only_those = false;
    }
  }
  return ids;
}

std::vector<std::string> ParsePbsExecHost(const std::string& exec_host) {
  std::vector<std::string> nodes;
  for (const auto& part : Split(exec_host, '+')) {
    std::string node = Trim(part.substr(0, part.find('/')));
    if (!node.empty() && std::find(nodes.begin(), nodes.end(), node) == nodes.end()) nodes.push_back(node);
  }
  return nodes;
}

double ParsePbsTime(const std::string& text) {
  std::string t = Trim(text);
  if (t.empty()) return 0;
  if (t.find_first_not_of("0123456789") == std::string::npos) return std::atof(t.c_str());
  std::tm tm{};
  const char* end = strptime(t.c_str(), "%a %b %d %H:%M:%S %Y", &tm);
  if (!end) return 0;
  tm.tm_isdst = -1;
  std::time_t v = std::mktime(&tm);
  return v < 0 ? 0 : static_cast<double>(v);
}

std::string PbsJobName(const std::string& name) {
  std::string out = name.substr(0, 15);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return out;
}

// ---- The scheduler.

PbsScheduler::PbsScheduler(std::string name, std::unique_ptr<CommandRunner> runner, BatchOptions opts)
    : BatchScheduler(std::move(runner), std::move(opts)),
      name_(std::move(name)),
      flavor_(name_ == "torque" ? PbsFlavor::kTorque : PbsFlavor::kPro),
      use_json_(flavor_ == PbsFlavor::kPro) {}

std::vector<std::string> PbsScheduler::RequiredCommands() const { return {"qsub", "qstat", "qdel"}; }

// As ReFrame's PbsJobScheduler.emit_preamble: name, output files,
// walltime, the resource request, then options that start with '-' on
// their own #PBS lines and '#' options verbatim. ReFrame ignores
// exclusive_access for PBS and Torque; hetbench asks for whole nodes with
// PBS Pro's `-l place=excl` and Torque's `-n` (node-exclusive).
std::vector<std::string> PbsScheduler::Directives(const Job& job) const {
  std::vector<std::string> d, separate, verbatim, chunk;
  auto opt = [&](const std::string& o) { d.push_back("#PBS " + o); };
  for (const auto& o : ScriptOptions(job)) {
    if (o.empty()) continue;
    (o[0] == '-' ? separate : o[0] == '#' ? verbatim : chunk).push_back(o);
  }
  opt("-N " + PbsJobName(job.name));
  if (!job.stdout_path.empty()) opt("-o " + job.stdout_path);
  if (!job.stderr_path.empty()) opt("-e " + job.stderr_path);
  if (job.time_limit_s > 0) opt("-l walltime=" + Hms(job.time_limit_s));
  opt(ResourceRequest(flavor_, job, chunk));
  if (job.exclusive) opt(flavor_ == PbsFlavor::kPro ? "-l place=excl" : "-n");
  for (const auto& o : separate) opt(o);
  d.insert(d.end(), verbatim.begin(), verbatim.end());
  return d;
}

// As ReFrame: -o and -e on the command line too (PBS wrappers for Slurm
// only read them there).
std::vector<std::string> PbsScheduler::SubmitCommand(const Job& job) const {
  std::vector<std::string> argv = {"qsub"};
  for (const auto& o : SubmitAccess(job)) argv.push_back(o);
  if (!job.stdout_path.empty()) argv.insert(argv.end(), {"-o", job.stdout_path});
  if (!job.stderr_path.empty()) argv.insert(argv.end(), {"-e", job.stderr_path});
  argv.push_back(job.script_path);
  return argv;
}

Result<std::string> PbsScheduler::ParseSubmitOutput(const CommandResult& r) const {
  // qsub prints the job id, "<sequence number>.<server>", on a line.
  for (const auto& line : Split(r.out, '\n')) {
    std::string t = Trim(line);
    std::string id = t.substr(0, t.find_first_of(" \t"));
    if (!id.empty() && std::isdigit(static_cast<unsigned char>(id[0]))) return id;
  }
  return Status::Error("qsub printed no job id (stdout: '" + Trim(r.out) + "', stderr: '" + Trim(r.err) + "')");
}

std::vector<std::string> PbsScheduler::CancelCommand(const std::vector<std::string>& ids) const {
  return WithIds({"qdel"}, ids);
}

std::vector<std::string> PbsScheduler::QstatCommand(const std::vector<std::string>& ids, bool json) const {
  std::vector<std::string> argv = {"qstat", "-f"};
  if (json) argv.insert(argv.end(), {"-F", "json"});
  if (flavor_ == PbsFlavor::kPro) argv.push_back("-x");  // include finished jobs (Torque's -x is XML)
  argv.insert(argv.end(), ids.begin(), ids.end());
  return argv;
}

void PbsScheduler::NoticeMissing(const std::vector<std::string>& unknown) {
  if (unknown.empty()) return;
  Notice(flavor_ == PbsFlavor::kPro
             ? "note: qstat says \"Unknown Job Id\" for jobs hetbench follows: PBS keeps finished jobs only while "
               "job history is on (qmgr: set server job_history_enable = True) and for job_history_duration; "
               "a job that ended unseen is reported lost after lost_after seconds"
             : "note: qstat says \"Unknown Job Id\" for jobs hetbench follows: Torque keeps completed jobs only "
               "for keep_completed seconds (a server or queue attribute); a job that ended unseen is reported "
               "lost after lost_after seconds");
}

Result<Observations> PbsScheduler::Query(const std::vector<std::string>& ids) {
  if (ids.size() > kMaxIdsPerCommand)
    return QueryInChunks(ids, [this](const std::vector<std::string>& chunk) { return Query(chunk); });
  CommandResult r = runner().Run(QstatCommand(ids, use_json_), options().query_timeout);
  bool only_unknown = false;
  std::vector<std::string> unknown = QstatUnknownIds(r.err, &only_unknown);
  // qstat exits non-zero (153, 35) when it does not know some of the jobs,
  // and still prints the others.
  if (r.timed_out || r.not_found || (r.exit_code != 0 && (!only_unknown || unknown.empty())))
    return Status::Error(QstatProblem(r));
  NoticeMissing(unknown);
  if (use_json_) return QueryJson(ids, r.out, unknown);
  auto records = ParseQstatText(r.out);
  Observations obs = Matched(ids, PbsObservations(flavor_, records));
  if (obs.empty() && unknown.empty() && !Trim(r.out).empty())
    return Status::Error("qstat printed nothing hetbench can read: '" + Split(Trim(r.out), '\n')[0] + "'");
  return obs;
}

// Reads the JSON answer; when it cannot be used, says so once and asks
// again in text, as from now on.
Result<Observations> PbsScheduler::QueryJson(const std::vector<std::string>& ids, const std::string& out,
                                             const std::vector<std::string>& unknown) {
  auto records = ParseQstatJson(out);
  std::string why;
  if (!records.ok()) {
    why = records.status().message();
  } else {
    std::map<std::string, bool> listed;
    for (const auto& rec : *records) listed[rec.id] = true;
    for (const auto& id : ids) {
      if (FindJob(listed, id) || Mentioned(unknown, id)) continue;
      why = "left out job " + id + " without saying why";
      break;
    }
  }
  if (why.empty()) return Matched(ids, PbsObservations(flavor_, *records));
  Notice("warning: `qstat -f -F json` " + why +
         " (known OpenPBS bugs, openpbs#2541, #2672): reading `qstat -f -x` "
         "text from now on");
  use_json_ = false;
  return Query(ids);
}

NodeSpawn PbsNodeSpawn(const Job&, int nnodes, int) {
  return {{"mpiexec", "-n", std::to_string(nnodes), "--ppn", "1"},
          "\"$(head -n1 \"$PBS_NODEFILE\")\"",
          "\"$PBS_JOBID\"",
          ""};
}

}  // namespace hb
