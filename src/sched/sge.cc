#include "sched/sge.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <regex>
#include <set>

#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

namespace {

using Kind = JobState::Kind;

// Scheduling info of a queued job is read again after this many seconds.
constexpr double kInfoRefresh = 30;
// qacct's -b window opens this long before a job was last seen, for
// clocks that differ between this host and the execution hosts.
constexpr double kClockSkew = 120;

std::string CurrentUser() {
  if (const passwd* pw = getpwuid(geteuid())) return pw->pw_name;
  const char* u = std::getenv("USER");
  return u && *u ? u : "*";
}

bool Has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// "1:30:0" (ReFrame's '%d:%d:%d').
std::string Hms(double seconds) {
  long t = static_cast<long>(std::ceil(seconds));
  return std::to_string(t / 3600) + ":" + std::to_string((t / 60) % 60) + ":" + std::to_string(t % 60);
}

// ---- A small XML reader: elements, text, entities; attributes, comments,
// declarations and processing instructions are skipped. Enough for qstat.

struct XmlElement {
  std::string name, text;
  std::vector<XmlElement> children;
  const XmlElement* Child(const std::string& n) const {
    for (const auto& c : children)
      if (c.name == n) return &c;
    return nullptr;
  }
  std::string ChildText(const std::string& n) const {
    const XmlElement* c = Child(n);
    return c ? Trim(c->text) : "";
  }
};

std::string DecodeEntities(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    size_t semi = in[i] == '&' ? in.find(';', i) : std::string_view::npos;
    if (semi == std::string_view::npos || semi - i > 10) {
      out += in[i];
      continue;
    }
    std::string_view e = in.substr(i + 1, semi - i - 1);
    long code = -1;
    if (e == "amp")
      code = '&';
    else if (e == "lt")
      code = '<';
    else if (e == "gt")
      code = '>';
    else if (e == "quot")
      code = '"';
    else if (e == "apos")
      code = '\'';
    else if (e.size() > 1 && e[0] == '#')
      code = e[1] == 'x' ? std::strtol(std::string(e.substr(2)).c_str(), nullptr, 16)
                         : std::strtol(std::string(e.substr(1)).c_str(), nullptr, 10);
    if (code <= 0 || code > 127) {  // unknown, or not ASCII: kept as written
      out += in[i];
      continue;
    }
    out += static_cast<char>(code);
    i = semi;
  }
  return out;
}

// Reads one XML document into elements with their text (entities decoded)
// and children; attributes, comments, declarations and processing
// instructions are skipped. Enough for qstat -xml, and strict: anything
// cut short or mismatched is an error.
class XmlReader {
 public:
  explicit XmlReader(std::string_view in) : in_(in) {}

  Result<XmlElement> Read() {
    while (i_ < in_.size()) {
      Status st = in_[i_] == '<' ? Markup() : Text();
      if (!st.ok()) return st;
    }
    if (!open_.empty()) return Status::Error("XML cut short inside <" + open_.back().name + ">");
    if (!done_) return Status::Error("no XML document");
    return std::move(root_);
  }

 private:
  Status Text() {
    size_t lt = std::min(in_.find('<', i_), in_.size());
    std::string_view text = in_.substr(i_, lt - i_);
    i_ = lt;
    if (!open_.empty())
      open_.back().text += DecodeEntities(text);
    else if (!Trim(text).empty())
      return Status::Error("text outside the XML document");
    return Status::OK();
  }

  Status Markup() {
    std::string_view rest = in_.substr(i_);
    if (rest.starts_with("<?")) return Skip("?>");
    if (rest.starts_with("<!--")) return Skip("-->");
    if (rest.starts_with("<!")) return Skip(">");
    size_t gt = in_.find('>', i_);
    if (gt == std::string_view::npos) return Status::Error("XML cut short in a tag");
    std::string_view tag = in_.substr(i_ + 1, gt - i_ - 1);
    i_ = gt + 1;
    if (tag.starts_with("/")) return Close(Trim(tag.substr(1)));
    bool empty = tag.ends_with("/");
    if (empty) tag.remove_suffix(1);
    std::string name(tag.substr(0, tag.find_first_of(" \t\r\n")));
    if (name.empty()) return Status::Error("XML: a tag without a name");
    if (done_) return Status::Error("XML: more than one document element");
    if (open_.size() >= 64) return Status::Error("XML nested more than 64 deep");
    open_.push_back(XmlElement{name, "", {}});
    return empty ? Close(name) : Status::OK();
  }

  Status Skip(std::string_view end) {
    size_t e = in_.find(end, i_);
    if (e == std::string_view::npos) return Status::Error("XML cut short in a declaration or comment");
    i_ = e + end.size();
    return Status::OK();
  }

  Status Close(const std::string& name) {
    if (open_.empty() || open_.back().name != name) return Status::Error("XML: unexpected </" + name + ">");
    XmlElement e = std::move(open_.back());
    open_.pop_back();
    if (open_.empty()) {
      root_ = std::move(e);
      done_ = true;
    } else {
      open_.back().children.push_back(std::move(e));
    }
    return Status::OK();
  }

  std::string_view in_;
  size_t i_ = 0;
  std::vector<XmlElement> open_;  // the elements not yet closed, outermost first
  XmlElement root_;
  bool done_ = false;
};

void CollectJobLists(const XmlElement& e, std::vector<SgeQueuedJob>* out) {
  for (const auto& c : e.children) {
    if (c.name != "job_list") {
      CollectJobLists(c, out);
      continue;
    }
    SgeQueuedJob j{c.ChildText("JB_job_number"), c.ChildText("state"), c.ChildText("queue_name"),
                   c.ChildText("JAT_start_time")};
    if (!j.id.empty() && !j.state.empty()) out->push_back(j);
  }
}

// ---- qstat -j text: "key: value" lines, records between "====" lines.

// "1:      11/30/2026 08:50:17 [0:25841]: error: can't chdir ..." -> "error: can't chdir ...".
std::string ErrorReasonText(const std::string& value) {
  static const std::regex prefix(R"(^\d+:\s*(\d\d/\d\d/\d{4} \d\d:\d\d:\d\d \[[^\]]*\]:\s*)?)");
  return Trim(std::regex_replace(value, prefix, ""));
}

// The reason a state letter set gives, for queued jobs.
std::string QueuedReason(const std::string& s) {
  if (Has(s, 'h')) return "held (" + s + ")";
  if (Has(s, 'R')) return "rescheduled (" + s + ")";
  if (Has(s, 'S')) return "suspended with its queue (" + s + ")";
  if (Has(s, 'T')) return "suspended by a load threshold (" + s + ")";
  if (Has(s, 's')) return "suspended (" + s + ")";
  return s;
}

// qstat's complaint, at most three lines of it.
std::string QstatProblem(const CommandResult& r) {
  std::vector<std::string> lines;
  for (const auto& l : Split(r.err + "\n" + r.out, '\n'))
    if (!Trim(l).empty() && lines.size() < 3) lines.push_back(Trim(l));
  if (r.timed_out || r.not_found || lines.empty()) return r.Problem("qstat");
  return Join(lines, "; ");
}

}  // namespace

// ---- Pure functions.

JobState SgeJobState(const std::string& s) {
  // Letters (sge_status(5)): d deleted, E error, h hold, q queued, r
  // running, R restarted, s/S/T suspended (job, queue, threshold), t
  // transferring, w waiting, z zombie (finished).
  if (s == "z") return JobState{};
  if (Has(s, 'E')) return JobState{Kind::kFailed, "error state (" + s + ")", -1};
  if (Has(s, 'd')) return JobState{Kind::kRunning, "being deleted (" + s + ")", -1};
  if (Has(s, 'q') || Has(s, 'w') || Has(s, 's') || Has(s, 'S') || Has(s, 'T'))
    return JobState{Kind::kQueued, QueuedReason(s), -1};
  if (Has(s, 't')) return JobState{Kind::kStarting, "transferring (" + s + ")", -1};
  if (Has(s, 'r')) return JobState{Kind::kRunning, "", -1};
  return JobState{Kind::kQueued, "Grid Engine state '" + s + "'", -1};
}

Result<std::vector<SgeQueuedJob>> ParseQstatXml(const std::string& out) {
  auto doc = XmlReader(out).Read();
  if (!doc.ok()) return doc.status();
  if (doc->name != "job_info")
    return Status::Error("XML whose document element is <" + doc->name + ">, not <job_info>");
  std::vector<SgeQueuedJob> jobs;
  CollectJobLists(*doc, &jobs);
  return jobs;
}

std::map<std::string, SgeJobDetails> ParseQstatDetails(const std::string& out) {
  std::map<std::string, SgeJobDetails> all;
  std::string id;
  bool in_info = false;
  for (const auto& raw : Split(out, '\n')) {
    std::string line = Trim(raw);
    bool continued = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
    if (StartsWith(line, "====")) {
      id.clear();
      in_info = false;
      continue;
    }
    if (continued && in_info && !id.empty() && !line.empty()) {
      all[id].scheduling_info += "; " + line;
      continue;
    }
    in_info = false;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
    if (key == "job_number") {
      id = value;
      all[id];
    } else if (id.empty()) {
      continue;
    } else if (key == "scheduling info") {
      all[id].scheduling_info = value;
      in_info = true;
    } else if (StartsWith(key, "error reason") && all[id].error_reason.empty()) {
      // "error reason    1:      11/30/2026 ...": the task number follows the key.
      all[id].error_reason = ErrorReasonText(Trim(line.substr(std::string("error reason").size())));
    }
  }
  return all;
}

std::vector<SgeAccounting> ParseQacct(const std::string& out) {
  std::vector<SgeAccounting> records;
  SgeAccounting cur;
  bool has_failed = false, has_exit = false, complete = false;
  auto flush = [&] {
    if (!cur.id.empty() && has_failed && has_exit && complete) records.push_back(cur);
    cur = SgeAccounting{};
    has_failed = has_exit = complete = false;
  };
  for (const auto& raw : Split(out, '\n')) {
    std::string line = Trim(raw);
    if (StartsWith(line, "====")) {
      flush();
      continue;
    }
    size_t sp = line.find_first_of(" \t");
    if (sp == std::string::npos) continue;
    std::string key = line.substr(0, sp), value = Trim(line.substr(sp));
    if (key == "jobnumber") {
      cur.id = value;
    } else if (key == "taskid") {
      cur.task = value;
    } else if (key == "hostname") {
      cur.host = value;
    } else if (key == "start_time") {
      cur.start_time = ParseSgeTime(value);
    } else if (key == "end_time") {
      cur.end_time = ParseSgeTime(value);
    } else if (key == "failed") {
      // "37  : qmaster enforced h_rt, h_cpu, or h_vmem limit"
      char* end = nullptr;
      cur.failed = static_cast<int>(std::strtol(value.c_str(), &end, 10));
      has_failed = end != value.c_str();
      size_t colon = value.find(':');
      cur.failed_text = colon == std::string::npos ? "" : Trim(value.substr(colon + 1));
    } else if (key == "ru_wallclock") {
      cur.wallclock = std::strtod(value.c_str(), nullptr);  // "6s" (8.1), "6" (6.2)
      complete = has_exit;
    } else if (key == "exit_status") {
      char* end = nullptr;
      cur.exit_status = static_cast<int>(std::strtol(value.c_str(), &end, 10));
      has_exit = end != value.c_str();
    } else if (has_exit) {
      complete = true;  // a key after exit_status: the record was not cut there
    }
  }
  flush();
  return records;
}

JobState SgeAccountingState(const SgeAccounting& a) {
  std::string what = "qacct: failed " + std::to_string(a.failed) + (a.failed_text.empty() ? "" : " : " + a.failed_text);
  switch (a.failed) {
    case 0:
      if (a.wallclock == 0 && a.start_time > 0 && a.end_time - a.start_time >= 2)
        return JobState{Kind::kCancelled,
                        "deleted by force (qdel -f): the accounting record has no usage after " +
                            FormatNumber(a.end_time - a.start_time) + " s",
                        -1};
      return JobState{Kind::kCompleted, "", a.exit_status};
    case 24:  // migrating
    case 25:  // rescheduling
      return JobState{};
    case 37:
      return JobState{Kind::kTimeout, "time limit exceeded (" + what + ")", -1};
    case 100:
      if (a.exit_status == 137) return JobState{Kind::kCancelled, "deleted (" + what + ", exit_status 137)", -1};
      return JobState{Kind::kFailed, what + ", exit_status " + std::to_string(a.exit_status), a.exit_status};
    default:
      return JobState{Kind::kFailed, what, -1};
  }
}

double ParseSgeTime(const std::string& text) {
  std::string t = Trim(text);
  std::tm tm{};
  const char* end = strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end) {
    tm = std::tm{};
    end = strptime(t.c_str(), "%a %b %d %H:%M:%S %Y", &tm);
  }
  if (!end) return 0;
  tm.tm_isdst = -1;
  std::time_t v = std::mktime(&tm);
  return v < 0 ? 0 : static_cast<double>(v);
}

std::string QacctTime(double epoch) {
  std::time_t t = static_cast<std::time_t>(std::floor(epoch));
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M.%S", &tm);
  return buf;
}

Result<std::string> ParseSgeParallelEnv(const nlohmann::json& so) { return ReadSgeParallelEnv(JsonField(so)); }

Result<std::string> ReadSgeParallelEnv(const JsonField& so) {
  JsonField f = so["pe"];
  if (f.absent()) return std::string();
  const std::string* pe = JsonStringPtr(f.json());
  if (!pe || pe->empty() || pe->find_first_of(" \t\n") != std::string::npos) {
    return f.Placed("sched_options: 'pe' must be the name of a parallel environment (e.g. smp)");
  }
  return *pe;
}

// ---- The scheduler.

SgeScheduler::SgeScheduler(std::unique_ptr<CommandRunner> runner, BatchOptions opts, std::string pe)
    : BatchScheduler(std::move(runner), std::move(opts)), pe_(std::move(pe)), user_(CurrentUser()) {}

std::vector<std::string> SgeScheduler::RequiredCommands() const { return {"qsub", "qstat", "qdel", "qacct"}; }

// As ReFrame's SgeJobScheduler.emit_preamble: -N "name", -o, -e, -wd,
// -l h_rt=%d:%d:%d, then the options in order ('#' options verbatim).
// hetbench adds `-S /bin/bash`: the job script is bash, and Grid Engine's
// default shell_start_mode (posix_compliant) runs it with the queue's shell
// (csh by default) whatever its #! line. And `-pe <pe> <slots>` (slots =
// num_tasks x num_cpus_per_task) when the partition names a parallel
// environment. Grid Engine has no standard way to ask for exclusive nodes or
// GPUs; as ReFrame, hetbench ignores exclusive_access and num_gpus_per_node
// (use resources templates or job_options, e.g. -l gpu=2).
std::vector<std::string> SgeScheduler::Directives(const Job& job) const {
  std::vector<std::string> d;
  auto opt = [&](const std::string& o) { d.push_back("#$ " + o); };
  opt("-N \"" + job.name + "\"");
  if (!job.stdout_path.empty()) opt("-o " + job.stdout_path);
  if (!job.stderr_path.empty()) opt("-e " + job.stderr_path);
  if (!job.workdir.empty()) opt("-wd " + job.workdir);
  opt("-S /bin/bash");
  if (job.time_limit_s > 0) opt("-l h_rt=" + Hms(job.time_limit_s));
  std::string pe = PeOf(job);
  if (!pe.empty())
    opt("-pe " + pe + " " + std::to_string(std::max(1, job.num_tasks) * std::max(1, job.num_cpus_per_task)));
  for (const auto& o : ScriptOptions(job)) {
    if (StartsWith(o, "#"))
      d.push_back(o);
    else if (!o.empty())
      opt(o);
  }
  return d;
}

std::string SgeScheduler::PeOf(const Job& job) const {
  if (job.sched_options.is_null()) return pe_;
  auto pe = ParseSgeParallelEnv(job.sched_options);  // checked before anything runs (instance_key)
  return pe.ok() ? *pe : pe_;
}

Status SgeScheduler::Submit(Job* job) {
  if (PeOf(*job).empty() && std::max(1, job->num_tasks) * std::max(1, job->num_cpus_per_task) > 1)
    Notice(
        "note: Grid Engine gives jobs one slot unless they ask for a parallel environment: set the partition's "
        "sched_options: {pe: <name>} (e.g. smp or mpi) to request num_tasks x num_cpus_per_task slots");
  Status st = BatchScheduler::Submit(job);
  if (st.ok()) known_[job->id].seen = job->submit_time;
  return st;
}

std::vector<std::string> SgeScheduler::SubmitCommand(const Job& job) const {
  std::vector<std::string> argv = {"qsub", "-terse"};
  for (const auto& o : SubmitAccess(job)) argv.push_back(o);
  argv.push_back(job.script_path);
  return argv;
}

Result<std::string> SgeScheduler::ParseSubmitOutput(const CommandResult& r) const {
  // -terse: "4", or "6.1-3:1" for an array. Without it (a wrapper that
  // ignores -terse): "Your job 4 ("name") has been submitted", as ReFrame reads.
  for (const auto& raw : Split(r.out, '\n')) {
    std::string line = Trim(raw);
    for (const char* prefix : {"Your job-array ", "Your job "})
      if (StartsWith(line, prefix)) line = line.substr(std::string(prefix).size());
    size_t n = 0;
    while (n < line.size() && std::isdigit(static_cast<unsigned char>(line[n]))) ++n;
    if (n > 0 && (n == line.size() || line[n] == '.' || line[n] == ' ')) return line.substr(0, n);
  }
  return Status::Error("qsub printed no job id (stdout: '" + Trim(r.out) + "', stderr: '" + Trim(r.err) + "')");
}

std::vector<std::string> SgeScheduler::CancelCommand(const std::vector<std::string>& ids) const {
  return WithIds({"qdel"}, ids);
}

Result<Observations> SgeScheduler::Query(const std::vector<std::string>& ids) {
  CommandResult r = runner().Run({"qstat", "-xml", "-u", user_}, options().query_timeout);
  if (r.exit_code != 0 || r.timed_out) return Status::Error(QstatProblem(r));
  auto listed = ParseQstatXml(r.out);
  if (!listed.ok()) return Status::Error("qstat -xml printed " + listed.status().message());
  std::set<std::string> wanted(ids.begin(), ids.end());
  std::erase_if(known_, [&](const auto& k) { return !wanted.count(k.first); });  // ended, lost or cancelled
  Observations obs;
  std::vector<std::string> details, errored, missing;
  for (const auto& j : *listed)
    if (wanted.count(j.id)) Observe(j, &obs, &details, &errored);
  details.insert(details.end(), errored.begin(), errored.end());
  if (!details.empty()) {
    Status st = AddDetails(details, errored, &obs);
    if (!st.ok()) return st;
  }
  for (auto& [id, o] : obs)
    if (o.state.kind == Kind::kQueued && !known_[id].info.empty()) o.state.reason += ": " + known_[id].info;
  for (const auto& id : ids)
    if (!obs.count(id)) missing.push_back(id);
  if (!missing.empty()) AddAccounting(missing, &obs);
  return obs;
}

// What qstat says of one job; notes the jobs that need `qstat -j`.
void SgeScheduler::Observe(const SgeQueuedJob& j, Observations* obs, std::vector<std::string>* details,
                           std::vector<std::string>* errored) {
  JobObservation o;
  o.state = SgeJobState(j.state);
  // z (finished) is left to qacct. Array tasks share the job number: a
  // task that runs wins over queued ones.
  if (o.state.kind == Kind::kNone || (obs->count(j.id) && obs->at(j.id).state.kind != Kind::kQueued)) return;
  size_t at = j.queue.find('@');
  if (at != std::string::npos) o.nodes = {j.queue.substr(at + 1)};
  o.start_time = ParseSgeTime(j.start);
  Known& k = known_[j.id];
  k.seen = WallNow();
  k.missing_since = 0;
  if (o.state.kind == Kind::kFailed) {
    errored->push_back(j.id);
  } else if (o.state.kind != Kind::kQueued) {
    k.info_at = 0;
    k.info.clear();
  } else if (!sched_info_off_ && Now() - k.info_at > kInfoRefresh) {
    details->push_back(j.id);
  }
  (*obs)[j.id] = o;
}

// One `qstat -j` for the jobs whose scheduling info (kept in known_) or
// error reason (added to the failure) is wanted; then one qdel for the jobs
// in an error state (they would stay in Eqw until someone clears them).
Status SgeScheduler::AddDetails(const std::vector<std::string>& ids, const std::vector<std::string>& errored,
                                Observations* obs) {
  CommandResult r = runner().Run({"qstat", "-j", Join(ids, ",")}, options().query_timeout);
  bool none = r.exit_code != 0 && (r.err + r.out).find("do not exist") != std::string::npos;
  if ((r.exit_code != 0 || r.timed_out) && !none) {
    if (!errored.empty()) return Status::Error(QstatProblem(r));
    return Status::OK();  // scheduling info only: go without it this time
  }
  auto details = ParseQstatDetails(r.out);
  double now = Now();
  for (const auto& id : ids) {
    JobObservation& o = (*obs)[id];
    const SgeJobDetails& d = details[id];
    if (o.state.kind == Kind::kFailed) {
      o.state.reason += d.error_reason.empty() ? "" : ": " + d.error_reason;
      o.state.reason += "; deleted with qdel";
      continue;
    }
    Known& k = known_[id];
    k.info_at = now;
    k.info = d.scheduling_info;
    if (k.info.find("Collecting of scheduler job information is turned off") != std::string::npos) {
      sched_info_off_ = true;  // schedd_job_info false: do not ask again
      k.info.clear();
    }
  }
  if (!errored.empty()) {
    CommandResult q = runner().Run(CancelCommand(errored), options().query_timeout);
    if (q.exit_code != 0) Notice("warning: deleting jobs in an error state: " + q.Problem("qdel"));
  }
  return Status::OK();
}

void SgeScheduler::AddAccounting(const std::vector<std::string>& ids, Observations* obs) {
  double now = Now(), from = std::numeric_limits<double>::infinity();
  for (const auto& id : ids) {
    Known& k = known_[id];
    if (k.missing_since == 0) k.missing_since = now;
    from = std::min(from, k.seen > 0 ? k.seen : WallNow() - 86400);
  }
  auto record = [&](const CommandResult& r, const std::string& id) {
    SgeAccounting last;
    for (const auto& a : ParseQacct(r.out))
      if (a.id == id) last = a;
    if (last.id.empty()) return false;
    JobObservation o;
    o.state = SgeAccountingState(last);
    if (o.state.kind == Kind::kNone) return false;
    if (!last.host.empty()) o.nodes = {last.host};
    o.start_time = last.start_time;
    o.end_time = last.end_time;
    (*obs)[id] = o;
    return true;
  };
  CommandResult r =
      runner().Run({"qacct", "-o", user_, "-E", "-b", QacctTime(from - kClockSkew), "-j"}, options().query_timeout);
  // "no jobs running since startup": no accounting file (yet).
  bool empty = r.exit_code != 0 && (r.out + r.err).find("no jobs running since startup") != std::string::npos;
  if (r.exit_code != 0 && !empty) Notice("warning: qacct failed: " + r.Problem("qacct"));
  double fallback_after = options().lost_after / 6;
  for (const auto& id : ids) {
    if (record(r, id) || now - known_[id].missing_since <= fallback_after) continue;
    // Left qstat a while ago and no record ended in the window: ask for it alone.
    CommandResult one = runner().Run({"qacct", "-j", id}, options().query_timeout);
    if (one.exit_code == 0 && record(one, id)) continue;
    Notice(
        "note: a job left qstat and qacct has no record of it yet (is Grid Engine's accounting on? "
        "reporting_params accounting=true); such a job is reported lost after lost_after (" +
        FormatNumber(options().lost_after) + " s)");
  }
}

NodeSpawn SgeNodeSpawn(const Job&, int nnodes, int) {
  std::vector<std::string> spawner = {"mpirun", "-np", std::to_string(nnodes), "--npernode", "1"};
  if (::geteuid() == 0) spawner.push_back("--allow-run-as-root");
  return {spawner, "\"$(head -n1 \"$PE_HOSTFILE\" | cut -d' ' -f1)\"", "\"$JOB_ID\"", ""};
}

}  // namespace hb
