#include "results/perflog.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "results/pyformat.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;
using Attrs = std::map<std::string, std::string>;  // name -> rendered text

// ---- what a record may name (reframe/core/pipeline.py, logging.py) ----

// ReFrame's loggable test attributes that hetbench does not record: a format
// naming one is an error. (All are in the builtin ignore_keys.)
const std::set<std::string>& UnrecordedTestAttrs() {
  static const std::set<std::string> k = {"check_build_locally",    "check_build_time_limit",    "check_executable",
                                          "check_executable_opts",  "check_keep_files",          "check_local",
                                          "check_max_pending_time", "check_postbuild_cmds",      "check_postrun_cmds",
                                          "check_prebuild_cmds",    "check_prerun_cmds",         "check_readonly_files",
                                          "check_sourcepath",       "check_sourcesdir",          "check_strict_check",
                                          "check_time_limit",       "check_valid_prog_environs", "check_valid_systems"};
  return k;
}

// Python's LogRecord attributes that only make sense inside ReFrame's own
// process (where it logged from, its threads).
const std::set<std::string>& UnrecordedLogAttrs() {
  static const std::set<std::string> k = {
      "args",     "exc_info", "exc_text",    "filename",        "funcName",   "lineno",   "module", "msecs",
      "pathname", "process",  "processName", "relativeCreated", "stack_info", "taskName", "thread", "threadName"};
  return k;
}

// What format_perfvars may name (CheckFieldFormatter._format_perf).
const std::vector<std::string>& PerfFields() {
  static const std::vector<std::string> k = {"check_perf_var",   "check_perf_value",       "check_perf_unit",
                                             "check_perf_ref",   "check_perf_lower_thres", "check_perf_upper_thres",
                                             "check_perf_result"};
  return k;
}

// Attributes whose value is a list or a mapping (not for folder names).
bool Structured(const std::string& name) {
  static const std::set<std::string> k = {"check_env_vars",    "check_extra_resources", "check_job_nodelist",
                                          "check_maintainers", "check_modules",         "check_tags",
                                          "check_perfvalues",  "check_variables",       "check_#ALL"};
  return k.count(name) > 0;
}

bool Unrecorded(const std::string& name) {
  return UnrecordedTestAttrs().count(name) > 0 || UnrecordedLogAttrs().count(name) > 0;
}

Status NotRecorded(const std::string& key, const std::string& name) {
  return Status::Error(key + ": %(" + name +
                       ")s: hetbench does not record this attribute, so it cannot "
                       "be written as ReFrame would; remove it");
}

// ---- ReFrame's names for a test (reframe/core/pipeline.py) ----

std::string DisplayName(const CaseResult& c) { return c.display_name.empty() ? c.name : c.display_name; }

std::string Hashcode(const CaseResult& c) { return TestHashcode(c.name, c.parameters); }

// short_name: the unique name for simple tests, <class>_<hashcode> else.
std::string ShortName(const CaseResult& c) { return c.parameters.empty() ? c.name : c.name + "_" + Hashcode(c); }

std::string UniqueName(const CaseResult& c) {
  if (!c.unique_name.empty()) return c.unique_name;
  return c.parameters.empty() ? c.name : ShortName(c);
}

// info(): "<display_name> /<hashcode> @<system:partition>+<environ>"
std::string Info(const CaseResult& c) {
  return DisplayName(c) + " /" + Hashcode(c) + " @" + c.system + ":" + c.partition + "+" + c.environ;
}

// osext.osgroup(): the name of the process's group, or None.
Json OsGroup() {
  group gr{}, *found = nullptr;
  char buf[4096];
  if (getgrgid_r(getgid(), &gr, buf, sizeof buf, &found) != 0 || !found) return nullptr;
  return found->gr_name;
}

double WallClock() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// ---- the record's attributes, typed as ReFrame has them ----

Json IntOrNull(int n) { return n > 0 ? Json(n) : Json(nullptr); }
Json TimeOrNull(double t) { return t > 0 ? Json(t) : Json(nullptr); }
Json StrOrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
Json ListOrNull(const std::vector<std::string>& v) { return v.empty() ? Json(nullptr) : Json(v); }
// A number the user most likely wrote as an int stays one (PyNumber).
Json Number(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15 ? Json(static_cast<long long>(v)) : Json(v);
}

Json EnvVars(const CaseResult& c) {
  Json o = Json::object();
  for (const auto& [k, v] : c.env_vars) o[k] = v;
  return o;
}

double CompletionTime(const CaseResult& c) { return c.job_completion_time > 0 ? c.job_completion_time : c.end_time; }

// The test's loggable attributes: the ones %(check_#ALL)s lists. Names and
// unset values as ReFrame 4's RegressionTest has them.
PerflogAttrs LoggableAttrs(const CaseResult& c) {
  PerflogAttrs a = {
      {"check_descr", c.descr},
      {"check_display_name", DisplayName(c)},
      {"check_env_vars", EnvVars(c)},
      {"check_environ", c.environ},
      {"check_exclusive_access", c.exclusive_access},
      {"check_extra_resources", Json(c.extra_resources)},
      {"check_hashcode", Hashcode(c)},
      {"check_job_completion_time_unix", TimeOrNull(CompletionTime(c))},
      {"check_job_exitcode", c.exit_code != -1 ? Json(c.exit_code) : Json(nullptr)},
      {"check_job_nodelist", ListOrNull(c.nodelist)},
      {"check_job_submit_time", TimeOrNull(c.job_submit_time)},
      {"check_jobid", StrOrNull(c.job_id)},
      {"check_maintainers", Json(c.maintainers)},
      {"check_modules", Json(c.modules)},
      {"check_name", DisplayName(c)},
      {"check_num_cpus_per_task", IntOrNull(c.num_cpus_per_task)},
      {"check_num_gpus_per_node", IntOrNull(c.num_gpus_per_node)},
      {"check_num_tasks", c.num_tasks},
      {"check_num_tasks_per_core", nullptr},
      {"check_num_tasks_per_node", IntOrNull(c.num_tasks_per_node)},
      {"check_num_tasks_per_socket", nullptr},
      {"check_outputdir", StrOrNull(c.outputdir)},
      {"check_partition", c.partition},
      {"check_perfvalues", ""},  // expanded with format_perfvars
      {"check_prefix", c.file.empty() ? Json(nullptr) : Json(AbsPath(DirName(c.file)))},
      {"check_short_name", ShortName(c)},
      {"check_stagedir", StrOrNull(c.stagedir)},
      {"check_system", c.system},
      {"check_tags", Json(c.tags)},
      {"check_unique_name", UniqueName(c)},
      {"check_use_multithreading", nullptr},
      {"check_variables", EnvVars(c)},  // ReFrame's deprecated alias of env_vars
  };
  // Parameters and loggable variables are loggable attributes too; a test
  // attribute wins a clash.
  for (const auto& [k, v] : c.parameters) a.emplace("check_" + k, v);
  for (const auto& [k, v] : c.variables) a.emplace("check_" + k, v);
  return a;
}

// One variable's check_perf_* fields, typed (pipeline.py's perfvalues:
// value, ref, lower, upper, unit, result; ref 0 and no thresholds without
// a reference, which assert_reference then passes).
PerflogAttrs PerfFieldAttrs(const PerfResult& p) {
  const std::optional<Reference>& r = p.reference;
  return {{"check_perf_var", p.name},
          {"check_perf_value", p.value},
          {"check_perf_unit", p.unit},
          {"check_perf_ref", r ? Number(r->value) : Json(0)},
          {"check_perf_lower_thres", r && r->lower ? Number(*r->lower) : Json(nullptr)},
          {"check_perf_upper_thres", r && r->upper ? Number(*r->upper) : Json(nullptr)},
          {"check_perf_result", p.verdict == "fail" ? "fail" : "pass"}};
}

// The record of one case as a handler formats it: PerflogAttributes, the
// logging module's own attributes, and (multiline) one variable's
// check_perf_* (LoggerAdapter.log_result); null where ReFrame has None.
PerflogAttrs RecordAttrs(const PerflogFormat& fmt, const SessionInfo& s, const CaseResult& c, const PerfResult* var,
                         double now) {
  PerflogAttrs a = PerflogAttributes(s, c);
  a["asctime"] = PyStrftime(now, fmt.datefmt);  // RFC3339Formatter.formatTime
  a["created"] = now;
  a["levelname"] = "info";
  a["levelno"] = 20;
  a["name"] = "reframe";
  a["msg"] = a["message"];
  // LoggerAdapter's extras hold check_perf_* as None, except _result.
  for (const auto& f : PerfFields())
    if (f != "check_perf_result") a[f] = nullptr;
  if (var)
    for (auto& [k, v] : PerfFieldAttrs(*var)) a[k] = v;
  return a;
}

// ReFrame's _xfmt: strings as they are, lists joined with ',', anything
// else as json.dumps.
std::string Xfmt(const Json& v) {
  if (const std::string* s = JsonStringPtr(v)) return *s;
  if (!v.is_array()) return PyJsonDumps(v);
  std::vector<std::string> items;
  for (const auto& e : v) items.push_back(JsonStringPtr(e) ? *JsonStringPtr(e) : PyJsonDumps(e));
  return Join(items, ",");
}

// Python's '%s' % v for the values a record holds raw.
std::string PyStr(const Json& v) {
  if (const std::string* s = JsonStringPtr(v)) return *s;
  if (v.is_null()) return "None";
  if (auto b = JsonBool(v)) return *b ? "True" : "False";
  if (v.is_number_float()) return PyFloatRepr(*JsonNumber(v));
  return PyJsonDumps(v);  // integers (lists and mappings never get here)
}

// ---- the '%' format language: %(name)s placeholders and %% ----

struct Placeholder {
  std::string name;
  std::string delim;  // the text after it, up to the next '%' (header use)
};

// What ReFrame's header regex r'\%\((.*?)\)s(.*?(?=%|$))?' finds.
std::vector<Placeholder> Placeholders(const std::string& fmt) {
  std::vector<Placeholder> out;
  size_t i = 0;
  while ((i = fmt.find("%(", i)) != std::string::npos) {
    size_t close = fmt.find(")s", i + 2);
    if (close == std::string::npos) break;
    size_t end = fmt.find('%', close + 2);
    if (end == std::string::npos) end = fmt.size();
    out.push_back({fmt.substr(i + 2, close - i - 2), fmt.substr(close + 2, end - close - 2)});
    i = end;
  }
  return out;
}

// _guess_delim: the one character following every placeholder, else '|'.
std::string GuessDelim(const std::string& fmt) {
  std::set<char> delims;
  size_t i = 0;
  while ((i = fmt.find("%(", i)) != std::string::npos) {
    size_t close = fmt.find(")s", i + 2);
    if (close == std::string::npos) break;
    if (close + 2 < fmt.size()) delims.insert(fmt[close + 2]);
    i = close + 2;
  }
  return delims.size() == 1 ? std::string(1, *delims.begin()) : "|";
}

bool Ignored(const PerflogFormat& fmt, const std::string& name) {
  return std::find(fmt.ignore_keys.begin(), fmt.ignore_keys.end(), name) != fmt.ignore_keys.end();
}

// Replaces %(check_#ALL)s with the sorted loggable attributes less ignore_keys.
std::string ExpandAll(const PerflogFormat& fmt, const CaseResult& c) {
  const std::string kAll = "%(check_#ALL)s";
  if (fmt.format.find(kAll) == std::string::npos) return fmt.format;
  std::vector<std::string> names;
  for (const auto& [name, value] : LoggableAttrs(c)) {  // std::map: sorted
    if (!Ignored(fmt, name)) names.push_back("%(" + name + ")s");
  }
  return ReplaceAll(fmt.format, kAll, Join(names, GuessDelim(fmt.format)));
}

// The header of %(check_perfvalues)s: each format_perfvars name with
// "check_perf" replaced by the variable's name, then rstrip(delimiter).
void AppendPerfHeader(std::string& header, const PerflogFormat& fmt, const CaseResult& c) {
  std::string last_delim;
  for (const auto& p : c.perf) {
    for (const auto& ph : Placeholders(fmt.format_perfvars)) {
      header += ReplaceAll(ph.name, "check_perf", p.name) + ph.delim;
      last_delim = ph.delim;
    }
  }
  while (!last_delim.empty() && !header.empty() && last_delim.find(header.back()) != std::string::npos) {
    header.pop_back();
  }
}

// One format_perfvars group per variable, joined by its last character;
// the fields as Python's %s writes them.
std::string PerfValues(const PerflogFormat& fmt, const CaseResult& c) {
  const std::string& pf = fmt.format_perfvars;
  std::string body = pf.empty() ? "" : pf.substr(0, pf.size() - 1);
  std::string delim = pf.empty() ? "" : pf.substr(pf.size() - 1);
  std::vector<std::string> chunks;
  for (const auto& p : c.perf) {
    Attrs v;
    for (const auto& [k, val] : PerfFieldAttrs(p)) v[k] = PyStr(val);
    chunks.push_back(PyPercentFormat(body, v));
  }
  return Join(chunks, delim);
}

// The record rendered for `format` (CheckFieldFormatter.formatMessage).
Attrs FormatValues(const PerflogFormat& fmt, const PerflogAttrs& record, const CaseResult& c) {
  Attrs a;
  for (const auto& [k, v] : record) a[k] = StartsWith(k, "check_") ? Xfmt(v) : PyStr(v);
  a["check_job_completion_time"] = PyStrftime(CompletionTime(c), fmt.datefmt);
  a["check_perfvalues"] = PerfValues(fmt, c);
  return a;
}

// The folder of a record: prefix % record.__dict__ (MultiFileHandler.emit),
// the raw values as Python's %s; asctime and message are not set yet.
Result<std::string> FolderFor(const std::string& prefix, PerflogAttrs record) {
  record.erase("asctime");
  record.erase("message");
  Attrs raw;
  for (const auto& [k, v] : record) raw[k] = PyStr(v);
  auto names = PyScanFormat(prefix, "prefix");
  if (!names.ok()) return names.status();
  for (const auto& n : *names)
    if (!raw.count(n)) return Status::Error("logging failed: unknown placeholder in filename pattern: '" + n + "'");
  return PyPercentFormat(prefix, raw);
}

// ---- appending to the file ----

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Status Errno(const std::string& what, const std::string& path) {
  return Status::Error("cannot " + what + " '" + path + "': " + std::strerror(errno));
}

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("write", path);
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

// Creates `path` holding `content` atomically: written aside, then linked.
// Returns false when the file already exists.
Result<bool> CreateWith(const std::string& path, const std::string& content) {
  static std::atomic<int> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  Status st = WriteFile(tmp, content);
  if (!st.ok()) return st;
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc == 0) return true;
  if (err == EEXIST) return false;
  errno = err;
  return Errno("create", path);
}

// The first line of the open file (ReFrame: fp.readline().strip()).
std::string FirstLine(int fd) {
  std::string line;
  char buf[4096];
  off_t off = 0;
  ssize_t n;
  while ((n = ::pread(fd, buf, sizeof buf, off)) > 0) {
    std::string chunk(buf, static_cast<size_t>(n));
    size_t nl = chunk.find('\n');
    line += chunk.substr(0, nl);
    if (nl != std::string::npos) break;
    off += n;
  }
  return Trim(line);
}

// True while `fd` is still the file at `path` (not rotated meanwhile).
bool StillAt(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

Status Rotate(const std::string& path) {
  int n = 0;
  while (PathExists(path + ".h" + std::to_string(n))) ++n;
  std::string to = path + ".h" + std::to_string(n);
  if (::rename(path.c_str(), to.c_str()) != 0) return Errno("rename", path);
  return Status::OK();
}

// One attempt: Ok(true) when `lines` were written, Ok(false) to try again.
// `fresh` empties a file of the same header first (append: false).
Result<bool> TryAppend(const std::string& path, const std::string& header, const std::string& lines, bool fresh) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (f.fd < 0 && errno == ENOENT) return CreateWith(path, header + "\n" + lines);
  if (f.fd < 0) return Errno("open", path);
  while (::flock(f.fd, LOCK_EX) != 0) {
    if (errno != EINTR) return Errno("lock", path);
  }
  if (!StillAt(f.fd, path)) return false;
  if (FirstLine(f.fd) != header) {
    Status st = Rotate(path);
    if (!st.ok()) return st;
    return false;
  }
  if (fresh && ::ftruncate(f.fd, 0) != 0) return Errno("truncate", path);
  Status st = WriteAll(f.fd, fresh ? header + "\n" + lines : lines, path);
  if (!st.ok()) return st;
  return true;
}

Status AppendWithHeader(const std::string& path, const std::string& header, const std::string& lines, bool fresh) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    Result<bool> done = TryAppend(path, header, lines, fresh);
    if (!done.ok()) return done.status();
    if (*done) return Status::OK();
  }
  return Status::Error("cannot append to '" + path + "': it keeps being replaced");
}

}  // namespace

Status CheckPerflogFormat(const PerflogFormat& fmt) {
  auto names = PyScanFormat(fmt.format, "format");
  if (!names.ok()) return names.status();
  for (const auto& n : *names) {
    if (n != "check_#ALL") {
      if (Unrecorded(n)) return NotRecorded("format", n);
      continue;
    }
    std::vector<std::string> missing;
    for (const auto& u : UnrecordedTestAttrs())
      if (!Ignored(fmt, u)) missing.push_back(u);
    if (!missing.empty())
      return Status::Error("format: %(check_#ALL)s would include " + Join(missing, ", ") +
                           ", which hetbench does not record; list them in ignore_keys (as ReFrame's "
                           "builtin handler does)");
  }
  auto perf = PyScanFormat(fmt.format_perfvars, "format_perfvars");
  if (!perf.ok()) return perf.status();
  for (const auto& n : *perf)
    if (std::find(PerfFields().begin(), PerfFields().end(), n) == PerfFields().end())
      return Status::Error("format_perfvars: %(" + n + ")s: only " + Join(PerfFields(), ", ") +
                           " are known here (ReFrame fails on other names)");
  return Status::OK();
}

Status CheckFilelogConfig(const FilelogConfig& cfg) {
  Status st = CheckPerflogFormat(cfg.fmt);
  if (!st.ok()) return st;
  auto names = PyScanFormat(cfg.prefix, "prefix");
  if (!names.ok()) return names.status();
  PerflogAttrs known = RecordAttrs(cfg.fmt, SessionInfo(), CaseResult(), nullptr, 0);
  for (const auto& n : *names) {
    if (Unrecorded(n)) return NotRecorded("prefix", n);
    if (Structured(n))
      return Status::Error("prefix: %(" + n +
                           ")s is a list or a mapping; name folders by text or numbers "
                           "(e.g. %(check_system)s/%(check_partition)s)");
    if (n == "asctime" || n == "message")
      return Status::Error("prefix: %(" + n + ")s is not known when ReFrame picks the file");
    if (!StartsWith(n, "check_") && !known.count(n)) return Status::Error("prefix: unknown placeholder %(" + n + ")s");
  }
  return Status::OK();
}

PerflogAttrs PerflogAttributes(const SessionInfo& s, const CaseResult& c) {
  PerflogAttrs a = LoggableAttrs(c);
  a["check_result"] = c.result;
  a["check_job_completion_time"] = PyStrftime(CompletionTime(c), "%FT%T%:z");
  a["check_info"] = Info(c);
  bool failed = c.result != "pass";
  a["check_fail_phase"] = failed ? StrOrNull(c.fail_stage) : Json(nullptr);
  a["check_fail_reason"] = failed ? StrOrNull(c.fail_reason) : Json(nullptr);
  a["version"] = s.version;
  a["hostname"] = s.hostname;
  a["osuser"] = s.user;
  a["osgroup"] = OsGroup();
  // LoggerAdapter.log_performance's message.
  a["message"] = "sent by " + s.user;
  return a;
}

bool ShouldLogPerformance(const CaseResult& c) {
  if (c.perf.empty()) return false;
  return c.result == "pass" || (c.result == "fail" && c.fail_stage == "performance");
}

std::string PerflogPath(const std::string& basedir, const CaseResult& c) {
  return JoinPath(JoinPath(JoinPath(basedir, c.system), c.partition), c.name + ".log");
}

// __generate_header: attribute names less "check_", in format order.
std::string PerflogHeader(const PerflogFormat& fmt, const CaseResult& c) {
  std::string header;
  for (const auto& ph : Placeholders(ExpandAll(fmt, c))) {
    if (ph.name == "check_perfvalues")
      AppendPerfHeader(header, fmt, c);
    else
      header += StartsWith(ph.name, "check_") ? ph.name.substr(6) : ph.name;
    header += ph.delim;
  }
  return header;
}

std::vector<std::string> PerflogRecords(const PerflogFormat& fmt, const SessionInfo& session, const CaseResult& c) {
  double now = WallClock();
  std::string expanded = ExpandAll(fmt, c);
  std::vector<std::string> out;
  if (!fmt.multiline || c.perf.empty()) {
    out.push_back(PyPercentFormat(expanded, FormatValues(fmt, RecordAttrs(fmt, session, c, nullptr, now), c)));
    return out;
  }
  for (const auto& p : c.perf)
    out.push_back(PyPercentFormat(expanded, FormatValues(fmt, RecordAttrs(fmt, session, c, &p, now), c)));
  return out;
}

std::string PerflogRecord(const PerflogFormat& fmt, const SessionInfo& session, const CaseResult& c) {
  PerflogFormat one = fmt;
  one.multiline = false;
  return PerflogRecords(one, session, c).front();
}

Status FilelogHandler::Log(const SessionInfo& session, const CaseResult& c) {
  if (!ShouldLogPerformance(c)) return Status::OK();
  std::string header = PerflogHeader(cfg_.fmt, c);
  std::vector<std::string> lines = PerflogRecords(cfg_.fmt, session, c);
  for (size_t i = 0; i < lines.size(); ++i) {
    const PerfResult* var = cfg_.fmt.multiline && i < c.perf.size() ? &c.perf[i] : nullptr;
    auto folder = FolderFor(cfg_.prefix, RecordAttrs(cfg_.fmt, session, c, var, 0));
    if (!folder.ok()) return folder.status();
    // The folder comes from names (system, partition, ...): it must stay
    // below the handler's basedir.
    auto path = SafeJoin(cfg_.basedir, JoinPath(*folder, c.name + ".log"));
    if (!path.ok()) return path.status().Prefixed("perflog");
    Status st = MakeDirs(DirName(*path));
    bool fresh = !cfg_.append && !started_.count(*path);
    if (st.ok()) st = AppendWithHeader(*path, header, lines[i] + "\n", fresh);
    if (!st.ok()) return st;
    started_.insert(*path);
  }
  return Status::OK();
}

Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c,
                     const PerflogFormat& fmt) {
  FilelogConfig cfg;
  cfg.fmt = fmt;
  cfg.basedir = basedir;
  return FilelogHandler(cfg).Log(session, c);
}

Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c) {
  return AppendPerflog(basedir, session, c, PerflogFormat());
}

}  // namespace hb
