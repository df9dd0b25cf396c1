#include "results/importer.h"

#include <cmath>
#include <limits>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "check/reference.h"
#include "results/run_report.h"
#include "results/sqlite_stmt.h"
#include "results/store.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/sha256.h"
#include "util/strings.h"

namespace hb {

namespace {

using Json = nlohmann::json;

// ---- what ReFrame and hetbench share ----

// ReFrame's display name "stream %threads=2 %size=10": base name and
// parameters (reframe/core/pipeline.py, display_name).
void SplitDisplayName(const std::string& display, CaseResult* c) {
  c->display_name = display;
  size_t pct = display.find(" %");
  c->name = Trim(display.substr(0, pct));
  while (pct != std::string::npos) {
    size_t next = display.find(" %", pct + 2);
    std::string kv = display.substr(pct + 2, next == std::string::npos ? std::string::npos : next - pct - 2);
    size_t eq = kv.find('=');
    if (eq != std::string::npos) c->parameters.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    pct = next;
  }
}

// hetbench's case id: name%k=v...@system:partition+environ.
std::string CaseId(const CaseResult& c) {
  std::string id = c.name;
  for (const auto& [k, v] : c.parameters) id += "%" + k + "=" + v;
  return id + "@" + c.system + ":" + c.partition + "+" + c.environ;
}

// A performance value; ReFrame records a missing reference as 0 without
// thresholds. `verdict` is ReFrame's result when it recorded one.
PerfResult MakePerf(const std::string& name, double value, const std::string& unit, std::optional<double> ref,
                    std::optional<double> lower, std::optional<double> upper, const std::string& verdict) {
  std::optional<Reference> r;
  if (ref && (*ref != 0 || lower || upper)) r = Reference{*ref, lower, upper, unit, {}};
  PerfResult p = EvaluateReference(name, value, unit, r);
  if (r && (verdict == "pass" || verdict == "fail") && verdict != p.verdict) {
    p.verdict = verdict;
    p.message.clear();
  }
  return p;
}

std::optional<double> Number(const std::string& s) {
  if (s.empty() || s == "None" || s == "null") return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (*end) return std::nullopt;
  return v;
}

bool IsNone(const std::string& s) { return s.empty() || s == "None" || s == "null"; }

// env_vars as ReFrame logs them: a JSON object (json.dumps in perflogs).
std::vector<std::pair<std::string, std::string>> EnvVars(const Json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) out.emplace_back(k, JsonStringOrDump(v));
  return out;
}

SessionInfo SessionFromCases(const std::vector<CaseResult>& cases) {
  SessionInfo s;
  std::map<std::string, int> systems;
  for (const auto& c : cases) {
    ++systems[c.system];
    if (c.start_time > 0 && (s.start_time == 0 || c.start_time < s.start_time)) s.start_time = c.start_time;
    s.end_time = std::max(s.end_time, c.end_time);
    if (c.result == "fail") s.exit_code = 1;
  }
  int most = 0;
  for (const auto& [sys, n] : systems)
    if (n > most) most = n, s.system = sys;
  return s;
}

// ---- perflogs ----

struct PerfColumns {
  std::string var;
  int value = -1, unit = -1, ref = -1, lower = -1, upper = -1, result = -1;
};

// Each variable's columns: VAR_value followed by VAR_unit, then any of
// VAR_ref, VAR_lower_thres, VAR_upper_thres, VAR_result.
std::vector<PerfColumns> FindPerfColumns(const std::vector<std::string>& fields) {
  std::vector<PerfColumns> out;
  for (size_t i = 0; i + 1 < fields.size(); ++i) {
    if (!EndsWith(fields[i], "_value")) continue;
    std::string var = fields[i].substr(0, fields[i].size() - 6);
    if (var.empty() || fields[i + 1] != var + "_unit") continue;
    PerfColumns p;
    p.var = var;
    p.value = static_cast<int>(i);
    p.unit = static_cast<int>(i + 1);
    for (size_t j = i + 2; j < fields.size() && StartsWith(fields[j], var + "_"); ++j) {
      std::string rest = fields[j].substr(var.size() + 1);
      int* slot = rest == "ref"           ? &p.ref
                  : rest == "lower_thres" ? &p.lower
                  : rest == "upper_thres" ? &p.upper
                  : rest == "result"      ? &p.result
                                          : nullptr;
      if (slot) *slot = static_cast<int>(j);
    }
    out.push_back(p);
  }
  return out;
}

class PerflogLine {
 public:
  PerflogLine(const std::map<std::string, int>& index, std::vector<std::string> values, SourceMark mark)
      : index_(index), values_(std::move(values)), mark_(std::move(mark)) {}
  std::string Get(const std::string& field) const {
    auto it = index_.find(field);
    return it == index_.end() ? "" : values_[it->second];
  }
  std::string At(int i) const { return i < 0 ? "" : values_[i]; }
  bool Has(const std::string& field) const { return index_.count(field) > 0; }
  // A number field: nullopt when absent or None/null; an error when not a number.
  Result<std::optional<double>> Num(const std::string& field, int i = -1) const {
    std::string v = i >= 0 ? At(i) : Get(field);
    if (IsNone(v)) return std::optional<double>();
    std::optional<double> n = Number(v);
    if (!n) return Status::Error(mark_, field + " '" + v + "' is not a number");
    return n;
  }
  const SourceMark& mark() const { return mark_; }

 private:
  const std::map<std::string, int>& index_;
  std::vector<std::string> values_;
  SourceMark mark_;
};

// The value when it is a whole number an int holds, else `dflt` (1.7e10
// would be undefined behaviour as a cast: found by fuzz/fuzz_import.cc).
int IntOr(std::optional<double> v, int dflt) {
  if (!v) return dflt;
  double x = *v;
  if (!(x >= std::numeric_limits<int>::min() && x <= std::numeric_limits<int>::max()) || x != std::floor(x))
    return dflt;
  return static_cast<int>(x);
}
int IntOr(const Result<std::optional<double>>& v, int dflt) { return v.ok() ? IntOr(*v, dflt) : dflt; }

Status FillJob(const PerflogLine& l, CaseResult* c) {
  Result<std::optional<double>> done = l.Num("job_completion_time_unix");
  if (!done.ok()) return done.status();
  double t = done->value_or(0);
  if (t == 0 && !IsNone(l.Get("job_completion_time"))) {
    Result<double> parsed = ParseTimeSpec(l.Get("job_completion_time"), 0);
    if (parsed.ok()) t = *parsed;
  }
  c->start_time = c->end_time = c->job_completion_time = t;
  Result<std::optional<double>> submit = l.Num("job_submit_time");
  if (submit.ok()) c->job_submit_time = submit->value_or(0);
  if (!IsNone(l.Get("jobid"))) c->job_id = l.Get("jobid");
  c->exit_code = IntOr(l.Num("job_exitcode"), -1);
  if (!IsNone(l.Get("job_nodelist"))) c->nodelist = Split(l.Get("job_nodelist"), ',');
  c->num_tasks = IntOr(l.Num("num_tasks"), 1);
  c->num_tasks_per_node = IntOr(l.Num("num_tasks_per_node"), 0);
  c->num_cpus_per_task = IntOr(l.Num("num_cpus_per_task"), 0);
  c->num_gpus_per_node = IntOr(l.Num("num_gpus_per_node"), 0);
  c->exclusive_access = l.Get("exclusive_access") == "true";
  return Status::OK();
}

Result<CaseResult> CaseFromLine(const PerflogLine& l, const std::vector<PerfColumns>& perf, const std::string& path) {
  CaseResult c;
  std::filesystem::path p(path);
  std::string stem = p.filename().string();
  stem = stem.substr(0, stem.find(".log"));
  SplitDisplayName(IsNone(l.Get("name")) ? stem : l.Get("name"), &c);
  c.system = l.Has("system") ? l.Get("system") : p.parent_path().parent_path().filename().string();
  c.partition = l.Has("partition") ? l.Get("partition") : p.parent_path().filename().string();
  c.environ = l.Get("environ");
  c.result = l.Has("result") ? l.Get("result") : "pass";
  if (c.result != "pass" && c.result != "fail")
    return Status::Error(l.mark(), "result '" + c.result + "' is neither pass nor fail");
  if (c.result == "fail") c.fail_stage = "performance";
  c.unique_name = IsNone(l.Get("unique_name")) ? "" : l.Get("unique_name");
  c.descr = l.Get("descr");
  if (!l.Get("modules").empty()) c.modules = Split(l.Get("modules"), ',');
  c.env_vars = EnvVars(Json::parse(l.Get("env_vars"), nullptr, false));
  if (Status st = FillJob(l, &c); !st.ok()) return st;
  for (const auto& pc : perf) {
    Result<std::optional<double>> value = l.Num(pc.var + "_value", pc.value);
    if (!value.ok()) return value.status();
    if (!*value) continue;  // ReFrame logs None for a value it could not extract
    auto ref = l.Num(pc.var + "_ref", pc.ref), lower = l.Num(pc.var + "_lower_thres", pc.lower),
         upper = l.Num(pc.var + "_upper_thres", pc.upper);
    for (const auto* r : {&ref, &lower, &upper})
      if (!r->ok()) return r->status();
    c.perf.push_back(MakePerf(pc.var, **value, l.At(pc.unit), *ref, *lower, *upper, l.At(pc.result)));
  }
  c.id = CaseId(c);
  return c;
}

bool IsPerflogName(const std::string& name) {
  if (EndsWith(name, ".log")) return true;
  size_t h = name.rfind(".log.h");
  if (h == std::string::npos || h + 6 == name.size()) return false;
  return std::all_of(name.begin() + static_cast<long>(h) + 6, name.end(),
                     [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
}

Result<std::vector<std::string>> PerflogFiles(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    size_t before = files.size();
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && IsPerflogName(it->path().filename().string())) files.push_back(it->path().string());
    if (ec) return Status::Error("cannot read folder '" + path + "': " + ec.message());
    if (files.size() == before) return Status::Error(path + ": no ReFrame perflogs (*.log) in this folder");
    std::sort(files.begin() + static_cast<long>(before), files.end());
  }
  return files;
}

// ---- ReFrame run reports (reframe/frontend/reporting/__init__.py) ----

// A member as text: a string as it is, a number or list as its JSON; "" when
// absent or null.
std::string Str(const Json& j, const char* key) {
  const Json& v = JsonMember(j, key);
  return v.is_null() ? "" : JsonStringOrDump(v);
}

std::optional<double> Num(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return std::nullopt;
  if (auto d = JsonNumber(*it)) return d;
  if (const std::string* text = JsonStringPtr(*it)) return Number(*text);
  return std::nullopt;
}

std::optional<double> NumAt(const Json& a, size_t i) {
  if (!a.is_array() || i >= a.size() || !a[i].is_number()) return std::nullopt;
  return JsonNumber(a[i]);
}

std::vector<std::string> Strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end()) return out;
  if (const std::string* text = JsonStringPtr(*it)) return Split(*text, ',');
  if (!it->is_array()) return out;
  for (const auto& v : *it) out.push_back(JsonStringOrDump(v));
  return out;
}

std::string Result4(const std::string& r) {
  if (r == "success" || r == "pass") return "pass";
  if (r == "abort" || r == "aborted") return "cancelled";
  return r;
}

std::string Stage(const std::string& phase) {
  if (StartsWith(phase, "compile")) return "build";
  if (StartsWith(phase, "run")) return "run";
  return phase;
}

void FillReportJob(const Json& tc, CaseResult* c) {
  c->job_id = Str(tc, "jobid");
  c->exit_code = IntOr(Num(tc, "job_exitcode"), -1);
  c->nodelist = Strings(tc, "job_nodelist");
  c->job_submit_time = Num(tc, "job_submit_time").value_or(0);
  c->job_completion_time = Num(tc, "job_completion_time_unix").value_or(0);
  c->num_tasks = IntOr(Num(tc, "num_tasks"), 1);
  c->num_tasks_per_node = IntOr(Num(tc, "num_tasks_per_node"), 0);
  c->num_cpus_per_task = IntOr(Num(tc, "num_cpus_per_task"), 0);
  c->num_gpus_per_node = IntOr(Num(tc, "num_gpus_per_node"), 0);
  auto exclusive = tc.find("exclusive_access");
  c->exclusive_access = exclusive != tc.end() && JsonBool(*exclusive).value_or(false);
  c->modules = Strings(tc, "modules");
  if (tc.contains("env_vars")) c->env_vars = EnvVars(tc["env_vars"]);
}

void FillReportTimes(const Json& tc, const SessionInfo& s, CaseResult* c) {
  static const std::pair<const char*, const char*> kStages[] = {{"time_setup", "setup"},
                                                                {"time_compile", "build"},
                                                                {"time_run", "run"},
                                                                {"time_sanity", "sanity"},
                                                                {"time_performance", "performance"}};
  for (const auto& [key, stage] : kStages)
    if (auto t = Num(tc, key)) c->timings.push_back({stage, *t});
  c->end_time = c->job_completion_time > 0 ? c->job_completion_time : s.end_time;
  std::optional<double> total = Num(tc, "time_total");
  c->start_time = total && c->end_time > 0 ? c->end_time - *total : s.start_time;
}

CaseResult CaseFromReport(const Json& tc, int run_index, const SessionInfo& s) {
  CaseResult c;
  SplitDisplayName(Str(tc, "name"), &c);
  c.unique_name = Str(tc, "unique_name");
  c.descr = Str(tc, "descr");
  c.file = Str(tc, "filename");
  c.tags = Strings(tc, "tags");
  c.maintainers = Strings(tc, "maintainers");
  c.system = Str(tc, "system");
  c.partition = Str(tc, "partition");
  c.environ = Str(tc, "environ");
  c.result = Result4(Str(tc, "result"));
  c.fail_stage = Stage(Str(tc, "fail_phase"));
  c.fail_reason = Str(tc, "fail_reason");
  c.attempt = run_index;
  c.stagedir = Str(tc, "stagedir");
  c.outputdir = Str(tc, "outputdir");
  FillReportJob(tc, &c);
  FillReportTimes(tc, s, &c);
  // perfvalues: {"sys:part:var": [value, ref, lower, upper, unit, result]}
  if (tc.contains("perfvalues") && tc["perfvalues"].is_object()) {
    for (const auto& [key, t] : tc["perfvalues"].items()) {
      std::optional<double> value = NumAt(t, 0);
      if (!value) continue;
      std::string unit = t.size() > 4 && JsonStringPtr(t[4]) ? *JsonStringPtr(t[4]) : "";
      std::string verdict = t.size() > 5 && JsonStringPtr(t[5]) ? *JsonStringPtr(t[5]) : "";
      std::string var = key.substr(key.rfind(':') + 1);
      c.perf.push_back(MakePerf(var, *value, unit, NumAt(t, 1), NumAt(t, 2), NumAt(t, 3), verdict));
    }
  }
  c.id = CaseId(c);
  return c;
}

SessionInfo SessionFromReport(const Json& si, const std::string& text) {
  SessionInfo s;
  s.session_id = Str(si, "uuid");
  if (s.session_id.empty()) s.session_id = "reframe-" + Sha256Hex(text).substr(0, 16);
  s.version = Str(si, "version");
  s.hostname = Str(si, "hostname");
  s.user = Str(si, "user");
  s.argv = Split(Str(si, "cmdline"), ' ');
  s.prefix = Str(si, "prefix_output");
  s.config_files = Strings(si, "config_files");
  s.start_time = Num(si, "time_start_unix").value_or(0);
  s.end_time = Num(si, "time_end_unix").value_or(s.start_time);
  s.exit_code = Num(si, "num_failures").value_or(0) > 0 ? 1 : 0;
  return s;
}

// ---- what a file is ----

bool IsSqlite(const std::string& path) {
  char magic[16] = {0};
  std::ifstream in(path, std::ios::binary);
  return in.read(magic, sizeof magic) && std::string(magic, 16) == std::string("SQLite format 3\0", 16);
}

// A hetbench run report (it opens with its "schema" field) or a ReFrame one.
Result<ImportedSession> ReadJsonReport(const std::string& text, const std::string& path) {
  if (text.substr(0, 64).find("\"schema\"") == std::string::npos) return ParseReframeReport(text, path);
  Result<LoadedReport> rep = ParseRunReport(text, path);
  if (!rep.ok()) return rep.status();
  return ImportedSession{rep->session, rep->cases, "hetbench-report"};
}

}  // namespace

Result<std::vector<CaseResult>> ParseReframePerflog(const std::string& text, const std::string& path) {
  std::vector<std::string> lines = Split(text, '\n');
  for (auto& l : lines)
    if (!l.empty() && l.back() == '\r') l.pop_back();
  if (lines.empty() || lines[0].empty())
    return Status::Error(SourceMark{path, 1, 0}, "empty file, not a ReFrame perflog");
  std::vector<std::string> fields = Split(lines[0], '|');
  std::map<std::string, int> index;
  for (size_t i = 0; i < fields.size(); ++i) index.emplace(fields[i], static_cast<int>(i));
  std::vector<PerfColumns> perf = FindPerfColumns(fields);
  if (!index.count("result") && perf.empty())
    return Status::Error(SourceMark{path, 1, 0},
                         "not a ReFrame perflog header (no 'result' field and no "
                         "performance variables VAR_value|VAR_unit)");
  std::vector<CaseResult> out;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (Trim(lines[i]).empty()) continue;
    SourceMark mark{path, static_cast<int>(i + 1), 0};
    std::vector<std::string> values = Split(lines[i], '|');
    if (values.size() != fields.size())
      return Status::Error(mark, "expected " + std::to_string(fields.size()) +
                                     " '|'-separated fields as the header "
                                     "names, found " +
                                     std::to_string(values.size()));
    Result<CaseResult> c = CaseFromLine(PerflogLine(index, std::move(values), mark), perf, path);
    if (!c.ok()) return c.status();
    out.push_back(std::move(c).value());
  }
  return out;
}

Result<ImportedSession> ReadReframePerflogs(const std::vector<std::string>& paths) {
  Result<std::vector<std::string>> files = PerflogFiles(paths);
  if (!files.ok()) return files.status();
  ImportedSession out;
  out.source = "reframe-perflog";
  std::string all;
  for (const auto& f : *files) {
    Result<std::string> text = ReadFile(f);
    if (!text.ok()) return text.status();
    Result<std::vector<CaseResult>> cases = ParseReframePerflog(*text, f);
    if (!cases.ok()) return cases.status();
    for (auto& c : *cases) out.cases.push_back(std::move(c));
    all += *text + '\0';
  }
  std::stable_sort(out.cases.begin(), out.cases.end(),
                   [](const CaseResult& a, const CaseResult& b) { return a.start_time < b.start_time; });
  out.session = SessionFromCases(out.cases);
  out.session.session_id = "perflog-" + Sha256Hex(all).substr(0, 16);
  out.session.prefix = paths.size() == 1 ? AbsPath(paths[0]) : "";
  return out;
}

Result<ImportedSession> ParseReframeReport(const std::string& text, const std::string& name) {
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Status::Error(name + ": not valid JSON");
  if (!doc.is_object() || !doc.contains("session_info") || !doc["session_info"].is_object() || !doc.contains("runs") ||
      !doc["runs"].is_array())
    return Status::Error(name + ": not a ReFrame run report (no session_info and runs)");
  ImportedSession out;
  out.source = "reframe-report";
  out.session = SessionFromReport(doc["session_info"], text);
  const Json& runs = doc["runs"];
  for (size_t r = 0; r < runs.size(); ++r) {
    const Json& run = runs[r];
    if (!run.is_object() || !run.contains("testcases") || !run["testcases"].is_array())
      return Status::Error(name + ": runs[" + std::to_string(r) + "] has no testcases list");
    int index = static_cast<int>(Num(run, "run_index").value_or(static_cast<double>(r)));
    for (size_t i = 0; i < run["testcases"].size(); ++i) {
      const Json& tc = run["testcases"][i];
      if (!tc.is_object() || Str(tc, "name").empty())
        return Status::Error(name + ": runs[" + std::to_string(r) + "].testcases[" + std::to_string(i) +
                             "] is not a test case (no name)");
      out.cases.push_back(CaseFromReport(tc, index, out.session));
    }
  }
  if (!out.cases.empty()) out.session.system = out.cases[0].system;
  return out;
}

Result<std::vector<ImportedSession>> ReadReframeDatabase(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Status::Error("cannot open '" + path + "': " + msg);
  }
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> closer(db, sqlite3_close_v2);
  auto version = SqliteStmt::Prepare(db, "SELECT schema_version FROM metadata", path);
  if (!version.ok()) return Status::Error(path + ": not a ReFrame results database (" + sqlite3_errmsg(db) + ")");
  Result<bool> row = version->Step();
  if (!row.ok()) return row.status();
  std::string v = *row ? version->Text(0) : "";
  if (v != "1.0")
    return Status::Error(path + ": ReFrame results database schema version '" + v + "'; hetbench imports version 1.0");
  auto sessions = SqliteStmt::Prepare(db, "SELECT uuid, json_blob FROM sessions ORDER BY session_start_unix", path);
  if (!sessions.ok()) return sessions.status();
  std::vector<ImportedSession> out;
  for (;;) {
    row = sessions->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    Result<ImportedSession> s = ParseReframeReport(sessions->Text(1), path + ": session " + sessions->Text(0));
    if (!s.ok()) return s.status();
    s->source = "reframe-db";
    out.push_back(std::move(s).value());
  }
  return out;
}

Result<std::vector<ImportedSession>> ReadImports(const std::vector<std::string>& paths) {
  std::vector<ImportedSession> out;
  std::vector<std::string> perflogs;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return Status::Error("cannot read '" + path + "': no such file or folder");
    if (std::filesystem::is_directory(path, ec)) {
      perflogs.push_back(path);
    } else if (IsSqlite(path)) {
      Result<std::vector<ImportedSession>> db = ReadReframeDatabase(path);
      if (!db.ok()) return db.status();
      for (auto& s : *db) out.push_back(std::move(s));
    } else if (Result<std::string> text = ReadFile(path); !text.ok()) {
      return text.status();
    } else if (StartsWith(Trim(text->substr(0, 64)), "{")) {
      Result<ImportedSession> s = ReadJsonReport(*text, path);
      if (!s.ok()) return s.status();
      out.push_back(std::move(s).value());
    } else {
      perflogs.push_back(path);
    }
  }
  if (!perflogs.empty()) {
    Result<ImportedSession> s = ReadReframePerflogs(perflogs);
    if (!s.ok()) return s.status();
    out.push_back(std::move(s).value());
  }
  return out;
}

}  // namespace hb
