#include "results/perflog.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "results/pyformat.h"
#include "results/sha256.h"
#include "util/fs.h"
#include "util/strings.h"

namespace hb {

namespace {

using Attrs = std::map<std::string, std::string>;

// ---- ReFrame's names for a test (reframe/core/pipeline.py) ----

std::string DisplayName(const CaseResult& c) { return c.display_name.empty() ? c.name : c.display_name; }

// hashcode: sha256 of the base name then each sorted "param=value", 8 hex digits.
std::string Hashcode(const CaseResult& c) {
  std::vector<std::string> params;
  for (const auto& [k, v] : c.parameters) params.push_back(k + "=" + v);
  std::sort(params.begin(), params.end());
  return Sha256Hex(c.name + Join(params, "")).substr(0, 8);
}

// short_name: the unique name for simple tests, <class>_<hashcode> else.
std::string ShortName(const CaseResult& c) {
  return c.parameters.empty() ? c.name : c.name + "_" + Hashcode(c);
}

std::string UniqueName(const CaseResult& c) {
  if (!c.unique_name.empty()) return c.unique_name;
  return c.parameters.empty() ? c.name : ShortName(c);
}

// info(): "<display_name> /<hashcode> @<system:partition>+<environ>"
std::string Info(const CaseResult& c) {
  return DisplayName(c) + " /" + Hashcode(c) + " @" + c.system + ":" + c.partition + "+" + c.environ;
}

// ---- the record's attributes, typed as ReFrame has them ----

using Json = nlohmann::ordered_json;

Json IntOrNull(int n) { return n > 0 ? Json(n) : Json(nullptr); }
Json TimeOrNull(double t) { return t > 0 ? Json(t) : Json(nullptr); }
Json StrOrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
Json ListOrNull(const std::vector<std::string>& v) { return v.empty() ? Json(nullptr) : Json(v); }

Json EnvVars(const CaseResult& c) {
  Json o = Json::object();
  for (const auto& [k, v] : c.env_vars) o[k] = v;
  return o;
}

double CompletionTime(const CaseResult& c) {
  return c.job_completion_time > 0 ? c.job_completion_time : c.end_time;
}

// time.strftime(datefmt, time.localtime(t)) with ReFrame's "%:z" (+HH:MM).
std::string FormatTime(double t, const std::string& datefmt) {
  if (t <= 0) return "null";
  time_t secs = static_cast<time_t>(std::floor(t));
  struct tm tm {};
  localtime_r(&secs, &tm);
  char tz[16] = "";
  strftime(tz, sizeof tz, "%z", &tm);
  std::string z = tz;
  if (z.size() == 5) z = z.substr(0, 3) + ":" + z.substr(3);
  std::string fmt = ReplaceAll(datefmt, "%:z", z);
  char buf[256];
  size_t n = strftime(buf, sizeof buf, fmt.c_str(), &tm);
  return std::string(buf, n);
}

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
      {"check_short_name", ShortName(c)},
      {"check_stagedir", StrOrNull(c.stagedir)},
      {"check_system", c.system},
      {"check_tags", Json(c.tags)},
      {"check_unique_name", UniqueName(c)},
      {"check_use_multithreading", nullptr},
  };
  // Parameters and loggable variables are loggable attributes too; a test
  // attribute wins a clash.
  for (const auto& [k, v] : c.parameters) a.emplace("check_" + k, v);
  for (const auto& [k, v] : c.variables) a.emplace("check_" + k, v);
  return a;
}

// ReFrame's _xfmt: strings as they are, lists joined with ',', anything
// else as json.dumps.
std::string Xfmt(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) return PyJsonDumps(v);
  std::vector<std::string> items;
  for (const auto& e : v) items.push_back(e.is_string() ? e.get<std::string>() : PyJsonDumps(e));
  return Join(items, ",");
}

// Everything a format may name, rendered: PerflogAttributes, with
// check_job_completion_time in the handler's datefmt.
Attrs AllAttrs(const PerflogFormat& fmt, const SessionInfo& s, const CaseResult& c) {
  Attrs a;
  for (const auto& [k, v] : PerflogAttributes(s, c)) a[k] = Xfmt(v);
  a["check_job_completion_time"] = FormatTime(CompletionTime(c), fmt.datefmt);
  return a;
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

// fmt % values: unknown check_ names render as null (ReFrame sets them to
// None, then _xfmt), other unknown names as None.
std::string Substitute(const std::string& fmt, const Attrs& values) {
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt.compare(i, 2, "%%") == 0) {
      out += '%';
      ++i;
      continue;
    }
    size_t close = fmt.compare(i, 2, "%(") == 0 ? fmt.find(")s", i + 2) : std::string::npos;
    if (close == std::string::npos) {
      out += fmt[i];
      continue;
    }
    std::string name = fmt.substr(i + 2, close - i - 2);
    auto it = values.find(name);
    out += it != values.end() ? it->second : StartsWith(name, "check_") ? "null" : "None";
    i = close + 1;
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

// Replaces %(check_#ALL)s with the sorted loggable attributes less ignore_keys.
std::string ExpandAll(const PerflogFormat& fmt, const CaseResult& c) {
  const std::string kAll = "%(check_#ALL)s";
  if (fmt.format.find(kAll) == std::string::npos) return fmt.format;
  std::vector<std::string> names;
  for (const auto& [name, value] : LoggableAttrs(c)) {  // std::map: sorted
    if (std::find(fmt.ignore_keys.begin(), fmt.ignore_keys.end(), name) == fmt.ignore_keys.end()) {
      names.push_back("%(" + name + ")s");
    }
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

// One format_perfvars group per variable, joined by its last character.
std::string PerfValues(const PerflogFormat& fmt, const CaseResult& c) {
  const std::string& pf = fmt.format_perfvars;
  std::string body = pf.empty() ? "" : pf.substr(0, pf.size() - 1);
  std::string delim = pf.empty() ? "" : pf.substr(pf.size() - 1);
  std::vector<std::string> chunks;
  for (const auto& p : c.perf) {
    const std::optional<Reference>& r = p.reference;
    std::string lower = r && r->lower ? PyNumber(*r->lower) : "None";
    std::string upper = r && r->upper ? PyNumber(*r->upper) : "None";
    Attrs v = {{"check_perf_var", p.name},           {"check_perf_value", PyFloatRepr(p.value)},
               {"check_perf_unit", p.unit},          {"check_perf_ref", r ? PyNumber(r->value) : "0"},
               {"check_perf_lower_thres", lower},    {"check_perf_upper_thres", upper},
               {"check_perf_lower", lower},          {"check_perf_upper", upper}};
    chunks.push_back(Substitute(body, v));
  }
  return Join(chunks, delim);
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
  struct stat a {}, b {};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

Status Rotate(const std::string& path) {
  int n = 0;
  while (PathExists(path + ".h" + std::to_string(n))) ++n;
  std::string to = path + ".h" + std::to_string(n);
  if (::rename(path.c_str(), to.c_str()) != 0) return Errno("rename", path);
  return Status::OK();
}

// One attempt: Ok(true) when `line` was written, Ok(false) to try again.
Result<bool> TryAppend(const std::string& path, const std::string& header, const std::string& line) {
  Fd f;
  f.fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (f.fd < 0 && errno == ENOENT) return CreateWith(path, header + "\n" + line);
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
  Status st = WriteAll(f.fd, line, path);
  if (!st.ok()) return st;
  return true;
}

Status AppendWithHeader(const std::string& path, const std::string& header, const std::string& line) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    Result<bool> done = TryAppend(path, header, line);
    if (!done.ok()) return done.status();
    if (*done) return Status::OK();
  }
  return Status::Error("cannot append to '" + path + "': it keeps being replaced");
}

}  // namespace

PerflogAttrs PerflogAttributes(const SessionInfo& s, const CaseResult& c) {
  PerflogAttrs a = LoggableAttrs(c);
  a["check_result"] = c.result;
  a["check_job_completion_time"] = FormatTime(CompletionTime(c), "%FT%T%:z");
  a["check_info"] = Info(c);
  a["version"] = s.version;
  a["hostname"] = s.hostname;
  a["osuser"] = s.user;
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
    if (ph.name == "check_perfvalues") AppendPerfHeader(header, fmt, c);
    else header += StartsWith(ph.name, "check_") ? ph.name.substr(6) : ph.name;
    header += ph.delim;
  }
  return header;
}

std::string PerflogRecord(const PerflogFormat& fmt, const SessionInfo& session, const CaseResult& c) {
  Attrs a = AllAttrs(fmt, session, c);
  a["check_perfvalues"] = PerfValues(fmt, c);
  return Substitute(ExpandAll(fmt, c), a);
}

Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c,
                     const PerflogFormat& fmt) {
  if (!ShouldLogPerformance(c)) return Status::OK();
  std::string path = PerflogPath(basedir, c);
  Status st = MakeDirs(DirName(path));
  if (!st.ok()) return st;
  return AppendWithHeader(path, PerflogHeader(fmt, c), PerflogRecord(fmt, session, c) + "\n");
}

Status AppendPerflog(const std::string& basedir, const SessionInfo& session, const CaseResult& c) {
  return AppendPerflog(basedir, session, c, PerflogFormat());
}

}  // namespace hb
