#include "results/run_report.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "util/fs.h"
#include "util/json_field.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

// ---- writing ----

// JSON has no NaN or infinity: they are written as null.
Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
Json OptNumber(const std::optional<double>& v) { return v ? Number(*v) : Json(nullptr); }

Json PairsToJson(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Json o = Json::object();
  for (const auto& [k, v] : pairs) o[k] = v;
  return o;
}

Json ReferenceToJson(const std::optional<Reference>& r) {
  if (!r) return nullptr;
  return {
      {"value", Number(r->value)}, {"lower", OptNumber(r->lower)}, {"upper", OptNumber(r->upper)}, {"unit", r->unit}};
}

Json PerfToJson(const PerfResult& p) {
  return {{"name", p.name},
          {"value", Number(p.value)},
          {"unit", p.unit},
          {"reference", ReferenceToJson(p.reference)},
          {"verdict", p.verdict},
          {"message", p.message},
          {"figure_of_merit", p.figure_of_merit},
          {"better", p.better}};
}

Json JobToJson(const CaseResult& c) {
  return {{"id", c.job_id},
          {"state", c.job_state},
          {"exit_code", c.exit_code},
          {"nodelist", c.nodelist},
          {"submit_time", Number(c.job_submit_time)},
          {"completion_time", Number(c.job_completion_time)},
          {"noticed_time", Number(c.job_noticed_time)}};
}

Json ResourcesToJson(const CaseResult& c) {
  return {{"num_tasks", c.num_tasks},
          {"num_tasks_per_node", c.num_tasks_per_node},
          {"num_cpus_per_task", c.num_cpus_per_task},
          {"num_gpus_per_node", c.num_gpus_per_node},
          {"exclusive_access", c.exclusive_access},
          {"extra_resources", c.extra_resources},
          {"env_vars", PairsToJson(c.env_vars)},
          {"modules", c.modules}};
}

Json CaseToJson(const CaseResult& c) {
  Json timings = Json::array();
  for (const auto& t : c.timings) timings.push_back({{"stage", t.stage}, {"seconds", Number(t.seconds)}});
  Json perf = Json::array();
  for (const auto& p : c.perf) perf.push_back(PerfToJson(p));
  return {{"id", c.id},
          {"name", c.name},
          {"display_name", c.display_name},
          {"unique_name", c.unique_name},
          {"descr", c.descr},
          {"file", c.file},
          {"parameters", PairsToJson(c.parameters)},
          {"variables", PairsToJson(c.variables)},
          {"tags", c.tags},
          {"maintainers", c.maintainers},
          {"scaling_axes", c.scaling_axes},
          {"system", c.system},
          {"partition", c.partition},
          {"environ", c.environ},
          {"result", c.result},
          {"fail_stage", c.fail_stage},
          {"fail_reason", c.fail_reason},
          {"repetition", c.repetition},
          {"attempt", c.attempt},
          {"start_time", Number(c.start_time)},
          {"end_time", Number(c.end_time)},
          {"timings", timings},
          {"job", JobToJson(c)},
          {"resources", ResourcesToJson(c)},
          {"stagedir", c.stagedir},
          {"outputdir", c.outputdir},
          {"perf", perf}};
}

// The case or session as JSON text requires: bytes that are not UTF-8
// (a job's Latin-1 output in a failure reason) become U+FFFD, and
// "utf8_replaced" lists where.
Json WithValidUtf8(Json j) {
  std::vector<std::string> replaced = RepairUtf8(j);
  if (!replaced.empty()) j["utf8_replaced"] = replaced;
  return j;
}

Json SessionToJson(const SessionInfo& s) {
  return {{"session_id", s.session_id},
          {"version", s.version},
          {"hostname", s.hostname},
          {"user", s.user},
          {"argv", s.argv},
          {"system", s.system},
          {"prefix", s.prefix},
          {"config_files", s.config_files},
          {"start_time", Number(s.start_time)},
          {"end_time", Number(s.end_time)},
          {"exit_code", s.exit_code}};
}

Json Summary(const std::vector<CaseResult>& cases) {
  int passed = 0, failed = 0, skipped = 0, cancelled = 0, dry_run = 0;
  for (const auto& c : cases) {
    passed += c.result == "pass";
    dry_run += c.result == "dry-run";
    failed += c.result == "fail";
    skipped += c.result == "skip";
    cancelled += c.result == "cancelled";
  }
  return {{"total", cases.size()}, {"passed", passed},       {"failed", failed},
          {"skipped", skipped},    {"cancelled", cancelled}, {"dry_run", dry_run}};
}

// ---- reading: missing or null fields keep their defaults; a field of the
// wrong type throws ReadError, caught in ParseRunReport ----

struct ReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void WrongType(const char* key, const char* expected, const Json& v) {
  throw ReadError(std::string(key) + ": expected " + expected + ", got " + JsonTypeName(v));
}

// The member `key`, or null when it is absent or written as null.
const Json* Field(const Json& j, const char* key) {
  if (!j.is_object()) throw ReadError(std::string("expected a mapping holding '") + key + "', got " + JsonTypeName(j));
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

void Read(const Json& j, const char* key, std::string& out) {
  if (const Json* v = Field(j, key)) {
    const std::string* s = JsonStringPtr(*v);
    if (!s) WrongType(key, "a string", *v);
    out = *s;
  }
}

void Read(const Json& j, const char* key, bool& out) {
  if (const Json* v = Field(j, key)) {
    auto b = JsonBool(*v);
    if (!b) WrongType(key, "true or false", *v);
    out = *b;
  }
}

// A whole number that fits an int: 1.8e10 or 2.5 is an error, not a
// conversion with undefined behaviour (found by fuzz/fuzz_run_report.cc).
void Read(const Json& j, const char* key, int& out) {
  if (const Json* v = Field(j, key)) {
    auto i = JsonInt(*v);
    if (!i || *i < std::numeric_limits<int>::min() || *i > std::numeric_limits<int>::max())
      throw std::out_of_range(std::string(key) + ": expected a whole number, got " + v->dump());
    out = static_cast<int>(*i);
  }
}

void Read(const Json& j, const char* key, std::vector<std::string>& out) {
  if (const Json* v = Field(j, key)) {
    if (!v->is_array()) WrongType(key, "a list of strings", *v);
    for (const auto& e : *v) {
      const std::string* s = JsonStringPtr(e);
      if (!s) WrongType(key, "a list of strings", e);
      out.push_back(*s);
    }
  }
}

void Read(const Json& j, const char* key, std::map<std::string, std::map<std::string, std::string>>& out) {
  if (const Json* v = Field(j, key)) {
    if (!v->is_object()) WrongType(key, "a mapping of mappings", *v);
    for (const auto& [name, inner] : v->items()) {
      if (!inner.is_object()) WrongType(key, "a mapping of mappings", inner);
      for (const auto& [k, x] : inner.items()) {
        const std::string* s = JsonStringPtr(x);
        if (!s) WrongType(key, "a mapping of mappings of strings", x);
        out[name][k] = *s;
      }
    }
  }
}

// Numbers: null stands for a NaN or infinity that was written.
void ReadNumber(const Json& j, const char* key, double& out, double if_null) {
  if (!j.is_object() || !j.contains(key)) {
    Field(j, key);  // a non-mapping is an error
    return;
  }
  const Json* v = Field(j, key);
  if (!v) {
    out = if_null;
    return;
  }
  auto d = JsonNumber(*v);
  if (!d) WrongType(key, "a number", *v);
  out = *d;
}

void ReadOptNumber(const Json& j, const char* key, std::optional<double>& out) {
  if (const Json* v = Field(j, key)) {
    auto d = JsonNumber(*v);
    if (!d) WrongType(key, "a number", *v);
    out = *d;
  }
}

void ReadPairs(const Json& j, const char* key, std::vector<std::pair<std::string, std::string>>& out) {
  if (const Json* v = Field(j, key)) {
    if (!v->is_object()) WrongType(key, "a mapping of strings", *v);
    for (const auto& [k, x] : v->items()) {
      const std::string* s = JsonStringPtr(x);
      if (!s) WrongType(key, "a mapping of strings", x);
      out.emplace_back(k, *s);
    }
  }
}

// The list `key`; absent or null is an empty one.
const Json& ListField(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  const Json* v = Field(j, key);
  if (!v) return kEmpty;
  if (!v->is_array()) WrongType(key, "a list", *v);
  return *v;
}

std::optional<Reference> ReferenceFromJson(const Json& j) {
  if (j.is_null()) return std::nullopt;
  Reference r;
  ReadNumber(j, "value", r.value, std::nan(""));
  ReadOptNumber(j, "lower", r.lower);
  ReadOptNumber(j, "upper", r.upper);
  Read(j, "unit", r.unit);
  return r;
}

PerfResult PerfFromJson(const Json& j) {
  PerfResult p;
  Read(j, "name", p.name);
  ReadNumber(j, "value", p.value, std::nan(""));
  Read(j, "unit", p.unit);
  if (j.contains("reference")) p.reference = ReferenceFromJson(j.at("reference"));
  Read(j, "verdict", p.verdict);
  Read(j, "message", p.message);
  Read(j, "figure_of_merit", p.figure_of_merit);
  Read(j, "better", p.better);
  if (!p.better.empty() && p.better != "higher" && p.better != "lower")
    throw ReadError("better: expected \"higher\", \"lower\" or \"\", got \"" + p.better + "\"");
  return p;
}

void JobFromJson(const Json& j, CaseResult& c) {
  Read(j, "id", c.job_id);
  Read(j, "state", c.job_state);
  Read(j, "exit_code", c.exit_code);
  Read(j, "nodelist", c.nodelist);
  ReadNumber(j, "submit_time", c.job_submit_time, 0);
  ReadNumber(j, "completion_time", c.job_completion_time, 0);
  ReadNumber(j, "noticed_time", c.job_noticed_time, 0);
}

void ResourcesFromJson(const Json& j, CaseResult& c) {
  Read(j, "num_tasks", c.num_tasks);
  Read(j, "num_tasks_per_node", c.num_tasks_per_node);
  Read(j, "num_cpus_per_task", c.num_cpus_per_task);
  Read(j, "num_gpus_per_node", c.num_gpus_per_node);
  Read(j, "exclusive_access", c.exclusive_access);
  Read(j, "extra_resources", c.extra_resources);
  ReadPairs(j, "env_vars", c.env_vars);
  Read(j, "modules", c.modules);
}

void IdentityFromJson(const Json& j, CaseResult& c) {
  Read(j, "id", c.id);
  Read(j, "name", c.name);
  Read(j, "display_name", c.display_name);
  Read(j, "unique_name", c.unique_name);
  Read(j, "descr", c.descr);
  Read(j, "file", c.file);
  ReadPairs(j, "parameters", c.parameters);
  ReadPairs(j, "variables", c.variables);
  Read(j, "tags", c.tags);
  Read(j, "maintainers", c.maintainers);
  Read(j, "scaling_axes", c.scaling_axes);
  Read(j, "system", c.system);
  Read(j, "partition", c.partition);
  Read(j, "environ", c.environ);
}

CaseResult CaseFromJson(const Json& j) {
  CaseResult c;
  IdentityFromJson(j, c);
  Read(j, "result", c.result);
  Read(j, "fail_stage", c.fail_stage);
  Read(j, "fail_reason", c.fail_reason);
  Read(j, "repetition", c.repetition);
  Read(j, "attempt", c.attempt);
  ReadNumber(j, "start_time", c.start_time, 0);
  ReadNumber(j, "end_time", c.end_time, 0);
  for (const auto& t : ListField(j, "timings")) {
    StageTiming st;
    Read(t, "stage", st.stage);
    ReadNumber(t, "seconds", st.seconds, 0);
    c.timings.push_back(st);
  }
  if (j.contains("job")) JobFromJson(j.at("job"), c);
  if (j.contains("resources")) ResourcesFromJson(j.at("resources"), c);
  Read(j, "stagedir", c.stagedir);
  Read(j, "outputdir", c.outputdir);
  for (const auto& p : ListField(j, "perf")) c.perf.push_back(PerfFromJson(p));
  return c;
}

SessionInfo SessionFromJson(const Json& j) {
  SessionInfo s;
  Read(j, "session_id", s.session_id);
  Read(j, "version", s.version);
  Read(j, "hostname", s.hostname);
  Read(j, "user", s.user);
  Read(j, "argv", s.argv);
  Read(j, "system", s.system);
  Read(j, "prefix", s.prefix);
  Read(j, "config_files", s.config_files);
  ReadNumber(j, "start_time", s.start_time, 0);
  ReadNumber(j, "end_time", s.end_time, 0);
  Read(j, "exit_code", s.exit_code);
  return s;
}

// nlohmann's messages start with "[json.exception.type_error.302] ".
std::string Plain(const std::exception& e) {
  std::string m = e.what();
  size_t close = m.find("] ");
  return m.rfind("[json.exception", 0) == 0 && close != std::string::npos ? m.substr(close + 2) : m;
}

// Checks the "schema" and "schema_version" fields.
Status CheckSchema(const Json& doc, const std::string& name) {
  if (!doc.is_object()) return Status::Error(name + ": not a hetbench run report (not a JSON object)");
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string()) {
    return Status::Error(name + ": not a hetbench run report (no \"schema\" field)");
  }
  if (*schema != kRunReportSchema) {
    return Status::Error(name + ": not a hetbench run report (schema is '" + *JsonStringPtr(*schema) + "')");
  }
  auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer()) {
    return Status::Error(name + ": schema_version is missing or not an integer");
  }
  std::optional<long long> parsed = JsonInt(*version);
  if (!parsed) return Status::Error(name + ": schema_version " + version->dump() + " is not a valid version");
  long long v = *parsed;
  std::string ours = std::to_string(kRunReportSchemaVersion);
  if (v > kRunReportSchemaVersion) {
    return Status::Error(name + ": schema_version " + std::to_string(v) + " is newer than this hetbench reads (" +
                         ours + "); upgrade hetbench");
  }
  if (v < 1) return Status::Error(name + ": schema_version " + std::to_string(v) + " is not a valid version");
  return Status::OK();
}

}  // namespace

std::vector<std::string> InvalidUtf8Fields(const CaseResult& c) {
  Json j = CaseToJson(c);
  return RepairUtf8(j);
}

std::vector<std::string> InvalidUtf8Fields(const SessionInfo& s) {
  Json j = SessionToJson(s);
  return RepairUtf8(j);
}

std::string RunReportToJson(const SessionInfo& session, const std::vector<CaseResult>& cases) {
  Json cs = Json::array();
  for (const auto& c : cases) cs.push_back(WithValidUtf8(CaseToJson(c)));
  Json doc = {{"schema", kRunReportSchema},
              {"schema_version", kRunReportSchemaVersion},
              {"session", WithValidUtf8(SessionToJson(session))},
              {"cases", cs},
              {"summary", Summary(cases)}};
  return JsonText(doc, 2) + "\n";
}

Status WriteRunReport(const std::string& path, const SessionInfo& session, const std::vector<CaseResult>& cases) {
  return WriteFileAtomic(path, RunReportToJson(session, cases));
}

Result<LoadedReport> ParseRunReport(const std::string& text, const std::string& name) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {  // parse_error, and out_of_range for a number like 1e400
    return Status::Error(name + ": not valid JSON: " + Plain(e));
  }
  Status st = CheckSchema(doc, name);
  if (!st.ok()) return st;
  LoadedReport report;
  report.schema_version = static_cast<int>(JsonInt(doc.at("schema_version")).value_or(0));  // 1..current: checked
  std::string where = "session";
  try {
    if (doc.contains("session")) report.session = SessionFromJson(doc.at("session"));
    where = "cases";
    const Json& cases = ListField(doc, "cases");
    for (size_t i = 0; i < cases.size(); ++i) {
      where = "cases[" + std::to_string(i) + "]";
      report.cases.push_back(CaseFromJson(cases.at(i)));
    }
  } catch (const Json::exception& e) {
    return Status::Error(name + ": " + where + ": " + Plain(e));
  } catch (const std::out_of_range& e) {
    return Status::Error(name + ": " + where + ": " + e.what());
  } catch (const ReadError& e) {
    return Status::Error(name + ": " + where + ": " + e.what());
  }
  return report;
}

Result<LoadedReport> ReadRunReport(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseRunReport(*text, path);
}

}  // namespace hb
