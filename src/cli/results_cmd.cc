// `hetbench results`: list, show, delete and export what the results store
// holds, and import ReFrame's perflogs and results databases into it.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "config/config_loader.h"
#include "results/importer.h"
#include "results/pyformat.h"
#include "results/run_report.h"
#include "results/store.h"
#include "run/console.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/strings.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

int Fail(const Status& st) {
  std::fprintf(stderr, "hetbench: error: %s\n", st.str().c_str());
  return 2;
}

// --store, HETBENCH_STORE, the configuration's storage entry, the default.
Result<StoreLocation> Locate(const ResultsCommandOptions& o) {
  nlohmann::json entry = nlohmann::json::object();
  if (o.store.empty() && ProcessEnv("HETBENCH_STORE").empty()) {
    auto cfg = LoadConfiguration(o.config_files);
    if (!cfg.ok()) return cfg.status();
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    auto sys = SelectSystem(*cfg, "", host);
    entry = cfg->SectionFor("storage", sys.ok() ? sys->first->name : "");
  }
  return LocateStore(o.store, false, entry, ProcessEnv);
}

// ---- text output ----

}  // namespace

std::string LocalTime(double t) {
  if (t <= 0 || !std::isfinite(t)) return "-";
  time_t secs = static_cast<time_t>(t);
  struct tm tm {};
  localtime_r(&secs, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string Duration(double start, double end) {
  if (start <= 0 || end < start) return "-";
  double s = end - start;
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
  return buf;
}

namespace {

std::string CaseName(const CaseResult& c) {
  std::string s = c.display_name.empty() ? c.name : c.display_name;
  if (c.repetition) s += " [rep " + std::to_string(c.repetition) + "]";
  if (c.attempt) s += " [retry " + std::to_string(c.attempt) + "]";
  return s;
}

std::string PerfSummary(const CaseResult& c) {
  std::vector<std::string> parts;
  for (const auto& p : c.perf)
    parts.push_back(p.name + "=" + FormatNumber(p.value) + (p.unit.empty() ? "" : " " + p.unit) +
                    (p.verdict == "fail" ? " (fail)" : ""));
  return Join(parts, ", ");
}

void Print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

int ListSessions(Store& store, const StoreQuery& q) {
  auto sessions = store.Sessions(q);
  if (!sessions.ok()) return Fail(sessions.status());
  std::vector<std::vector<std::string>> rows = {
      {"SESSION", "STARTED", "DURATION", "SYSTEM", "HOST", "CASES", "PASS", "FAIL", "SKIP", "CANCEL", "SOURCE"}};
  for (const auto& s : *sessions)
    rows.push_back({s.info.session_id, LocalTime(s.info.start_time), Duration(s.info.start_time, s.info.end_time),
                    s.info.system, s.info.hostname, std::to_string(s.total), std::to_string(s.passed),
                    std::to_string(s.failed), std::to_string(s.skipped), std::to_string(s.cancelled), s.source});
  if (rows.size() > 1) Print(TextTable(rows, {false, false, true, false, false, true, true, true, true, true, false}));
  std::printf("%zu session(s) in %s\n", sessions->size(), store.path().c_str());
  return 0;
}

int ListCases(Store& store, const StoreQuery& q) {
  auto cases = store.Cases(q);
  if (!cases.ok()) return Fail(cases.status());
  std::vector<std::vector<std::string>> rows = {
      {"SESSION", "STARTED", "CASE", "SYSTEM", "ENVIRON", "RESULT", "PERFORMANCE"}};
  for (const auto& sc : *cases) {
    const CaseResult& c = sc.c;
    rows.push_back({sc.session_id, LocalTime(c.start_time), CaseName(c), c.system + ":" + c.partition, c.environ,
                    c.result, PerfSummary(c)});
  }
  if (rows.size() > 1) Print(TextTable(rows));
  std::printf("%zu case(s) in %s\n", cases->size(), store.path().c_str());
  return 0;
}

int Show(Store& store, const std::string& id) {
  auto s = store.FindSession(id);
  if (!s.ok()) return Fail(s.status());
  StoreQuery q;
  q.session = s->info.session_id;
  auto cases = store.Cases(q);
  if (!cases.ok()) return Fail(cases.status());
  const SessionInfo& i = s->info;
  std::string out = "Session   " + i.session_id + " (" + s->source + ")\n";
  out += "Started   " + LocalTime(i.start_time) + ", took " + Duration(i.start_time, i.end_time) + "\n";
  out += "System    " + i.system + " on " + (i.hostname.empty() ? "?" : i.hostname) + " by " +
         (i.user.empty() ? "?" : i.user) + "\n";
  if (!i.version.empty()) out += "Version   " + i.version + "\n";
  if (!i.argv.empty()) out += "Command   " + Join(i.argv, " ") + "\n";
  if (!i.prefix.empty()) out += "Prefix    " + i.prefix + "\n";
  out += "Config    " + (i.config_files.empty() ? std::string("-") : Join(i.config_files, ", ")) + "\n";
  out += "Result    exit " + std::to_string(i.exit_code) + ": " + std::to_string(s->passed) + " passed, " +
         std::to_string(s->failed) + " failed, " + std::to_string(s->skipped) + " skipped, " +
         std::to_string(s->cancelled) + " cancelled (" + std::to_string(s->total) + " case(s))\n";
  std::vector<std::vector<std::string>> rows = {{"CASE", "SYSTEM", "ENVIRON", "RESULT", "TIME", "JOB", "REASON"}};
  std::vector<CaseResult> plain;
  for (const auto& sc : *cases) {
    const CaseResult& c = sc.c;
    std::string reason = c.fail_stage.empty() ? "" : c.fail_stage + ": " + c.fail_reason;
    rows.push_back({CaseName(c), c.system + ":" + c.partition, c.environ, c.result, Duration(c.start_time, c.end_time),
                    c.job_id.empty() ? "-" : c.job_id, reason});
    plain.push_back(c);
  }
  if (rows.size() > 1) out += "\n" + TextTable(rows);
  std::string perf = PerformanceTable(plain);
  if (!perf.empty()) out += "\n" + perf;
  Print(out);
  return 0;
}

int Delete(Store& store, const std::vector<std::string>& ids) {
  auto deleted = store.Delete(ids);
  if (!deleted.ok()) return Fail(deleted.status());
  for (const auto& id : *deleted) std::printf("Deleted session %s\n", id.c_str());
  return 0;
}

// ---- exports ----

std::string CsvCell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  return "\"" + ReplaceAll(s, "\"", "\"\"") + "\"";
}

std::string Num(double v) { return std::isnan(v) ? "" : PyFloatRepr(v); }
std::string OptNum(const std::optional<double>& v) { return v ? Num(*v) : ""; }

std::string ExportCsv(const std::vector<StoredCase>& cases) {
  std::string out =
      "session_id,case_id,name,display_name,parameters,tags,system,partition,environ,result,fail_stage,"
      "fail_reason,repetition,attempt,start_time,end_time,job_id,exit_code,nodelist,num_tasks,file,file_sha256,"
      "perf_var,perf_value,perf_unit,perf_ref,perf_lower_thres,perf_upper_thres,perf_result\n";
  for (const auto& sc : cases) {
    const CaseResult& c = sc.c;
    Json params = Json::object();
    for (const auto& [k, v] : c.parameters) params[k] = v;
    std::vector<std::string> row = {sc.session_id,
                                    c.id,
                                    c.name,
                                    c.display_name,
                                    JsonText(params),
                                    Join(c.tags, " "),
                                    c.system,
                                    c.partition,
                                    c.environ,
                                    c.result,
                                    c.fail_stage,
                                    c.fail_reason,
                                    std::to_string(c.repetition),
                                    std::to_string(c.attempt),
                                    Num(c.start_time),
                                    Num(c.end_time),
                                    c.job_id,
                                    std::to_string(c.exit_code),
                                    Join(c.nodelist, " "),
                                    std::to_string(c.num_tasks),
                                    c.file,
                                    sc.file_sha256};
    std::vector<std::vector<std::string>> perf;
    for (const auto& p : c.perf) {
      const auto& r = p.reference;
      perf.push_back({p.name, Num(p.value), p.unit, r ? Num(r->value) : "", r ? OptNum(r->lower) : "",
                      r ? OptNum(r->upper) : "", p.verdict});
    }
    if (perf.empty()) perf.push_back(std::vector<std::string>(7));
    for (const auto& pr : perf) {
      std::vector<std::string> cells;
      for (const auto& cell : row) cells.push_back(CsvCell(cell));
      for (const auto& cell : pr) cells.push_back(CsvCell(cell));
      out += Join(cells, ",") + "\n";
    }
  }
  return out;
}

// {"schema": "hetbench-results-export", "schema_version": 1, "sessions":
// [{"session": {...}, "cases": [...]}]}: each session and its cases as in
// the run report, plus the session's source and each case's file_sha256.
std::string ExportJson(Store& store, const std::vector<StoredCase>& cases) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<CaseResult>> by_session;
  std::map<std::string, std::vector<std::string>> sha;
  for (const auto& sc : cases) {
    if (!by_session.count(sc.session_id)) order.push_back(sc.session_id);
    by_session[sc.session_id].push_back(sc.c);
    sha[sc.session_id].push_back(sc.file_sha256);
  }
  Json sessions = Json::array();
  for (const auto& id : order) {
    auto s = store.FindSession(id);
    if (!s.ok()) continue;
    Json doc = Json::parse(RunReportToJson(s->info, by_session[id]));
    doc["session"]["source"] = s->source;
    for (size_t i = 0; i < doc["cases"].size(); ++i) doc["cases"][i]["file_sha256"] = sha[id][i];
    sessions.push_back({{"session", doc["session"]}, {"cases", doc["cases"]}});
  }
  Json out = {
      {"schema", "hetbench-results-export"}, {"schema_version", 1}, {"store", store.path()}, {"sessions", sessions}};
  return JsonText(out, 2) + "\n";
}

int Export(Store& store, const StoreQuery& q, const ResultsCommandOptions& o) {
  auto cases = store.Cases(q);
  if (!cases.ok()) return Fail(cases.status());
  std::string text = o.format == "csv" ? ExportCsv(*cases) : ExportJson(store, *cases);
  if (o.output.empty() || o.output == "-") {
    Print(text);
    return 0;
  }
  Status st = WriteFileAtomic(o.output, text);
  if (!st.ok()) return Fail(st);
  std::fprintf(stderr, "Exported %zu case(s) to %s\n", cases->size(), o.output.c_str());
  return 0;
}

int Import(Store& store, const std::vector<std::string>& paths) {
  auto imports = ReadImports(paths);
  if (!imports.ok()) return Fail(imports.status());
  for (const auto& s : *imports) {
    AddOptions opts;
    opts.source = s.source;
    opts.hash_files = false;  // the test files may have changed since
    opts.skip_existing = true;
    double t0 = WallNow();
    auto added = store.Add(s.session, s.cases, opts);
    if (!added.ok()) return Fail(added.status());
    size_t values = 0;
    for (const auto& c : s.cases) values += c.perf.size();
    if (*added)
      std::printf("Imported session %s (%s): %zu case(s), %zu performance value(s) in %.3f s\n",
                  s.session.session_id.c_str(), s.source.c_str(), s.cases.size(), values, WallNow() - t0);
    else
      std::printf("Session %s is already in the store; skipped\n", s.session.session_id.c_str());
  }
  return 0;
}

}  // namespace

Result<StoreQuery> MakeStoreQuery(const ResultsCommandOptions& o) {
  StoreQuery q;
  q.names = o.names;
  q.tags = o.tags;
  q.session = o.session;
  size_t colon = o.system.find(':');
  q.system = o.system.substr(0, colon);
  if (colon != std::string::npos) q.partition = o.system.substr(colon + 1);
  double now = WallNow();
  for (auto [text, out, flag] :
       {std::tuple{&o.since, &q.since, "--since"}, std::tuple{&o.until, &q.until, "--until"}}) {
    if (text->empty()) continue;
    Result<double> t = ParseTimeSpec(*text, now);
    if (!t.ok()) return t.status().Prefixed(flag);
    *out = *t;
  }
  return q;
}

Result<std::unique_ptr<Store>> OpenResultsStore(const ResultsCommandOptions& o, bool create) {
  auto where = Locate(o);
  if (!where.ok()) return where.status();
  StoreOptions opts;
  opts.create = create;
  opts.busy_timeout_s = where->busy_timeout_s;
  return Store::Open(where->path, opts);
}

int ResultsCommand(const ResultsCommandOptions& o) {
  if (o.action == "export" && o.format.empty()) return Fail(Status::Error("results export: give --csv or --json"));
  auto query = MakeStoreQuery(o);
  if (!query.ok()) return Fail(query.status());
  auto store = OpenResultsStore(o, o.action == "import");
  if (!store.ok()) return Fail(store.status());
  Store& s = **store;
  if (o.action == "sessions") return ListSessions(s, *query);
  if (o.action == "cases") return ListCases(s, *query);
  if (o.action == "show") return Show(s, o.args.at(0));
  if (o.action == "delete") return Delete(s, o.args);
  if (o.action == "export") return Export(s, *query, o);
  if (o.action == "import") return Import(s, o.args);
  if (o.action == "changes") return ResultsChanges(s, *query, o);
  return Fail(Status::Error("results: unknown subcommand '" + o.action + "'"));
}

}  // namespace hb
