// How SessionInfo and CaseResult map to the store's columns. Lists and
// maps are JSON text; ordered_json keeps parameters in their order.
#include <cmath>

#include <nlohmann/json.hpp>

#include "results/run_report.h"
#include "results/store_internal.h"
#include "util/json_field.h"
#include "util/yaml_util.h"

namespace hb {

namespace {

using Json = nlohmann::ordered_json;

// Binds consecutive parameters: Binder(st, 1)(a)(b)(c).
class Binder {
 public:
  Binder(SqliteStmt& st, int first) : st_(st), i_(first) {}
  template <typename T>
  Binder& operator()(const T& v) {
    st_.Bind(i_++, v);
    return *this;
  }
  // NOT NULL time columns: a NaN or infinity is stored as 0 ("unknown").
  Binder& Time(double t) { return (*this)(std::isfinite(t) ? t : 0.0); }

 private:
  SqliteStmt& st_;
  int i_;
};

// Reads consecutive columns.
class Reader {
 public:
  Reader(const SqliteStmt& st, int first) : st_(st), i_(first) {}
  std::string Text() { return st_.Text(i_++); }
  int Int() { return static_cast<int>(st_.Int(i_++)); }
  double Double() { return st_.Double(i_++); }
  Json JsonValue() { return Json::parse(st_.Text(i_++), nullptr, false); }

 private:
  const SqliteStmt& st_;
  int i_;
};

std::string Pairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Json o = Json::object();
  for (const auto& [k, v] : pairs) o[k] = v;
  return JsonText(o);
}

std::vector<std::pair<std::string, std::string>> PairsFrom(const Json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) out.emplace_back(k, JsonStringOrDump(v));
  return out;
}

std::vector<std::string> ListFrom(const Json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) out.push_back(JsonStringOrDump(v));
  return out;
}

std::string Timings(const std::vector<StageTiming>& timings) {
  Json a = Json::array();
  for (const auto& t : timings)
    a.push_back({{"stage", t.stage}, {"seconds", std::isfinite(t.seconds) ? t.seconds : 0}});
  return JsonText(a);
}

std::vector<StageTiming> TimingsFrom(const Json& j) {
  std::vector<StageTiming> out;
  if (!j.is_array()) return out;
  for (const auto& t : j) {
    if (!t.is_object()) continue;
    const std::string* stage = t.contains("stage") ? JsonStringPtr(t["stage"]) : nullptr;
    std::optional<double> seconds = t.contains("seconds") ? JsonNumber(t["seconds"]) : std::nullopt;
    out.push_back({stage ? *stage : "", seconds.value_or(0.0)});
  }
  return out;
}

std::map<std::string, std::map<std::string, std::string>> ResourcesFrom(const Json& j) {
  std::map<std::string, std::map<std::string, std::string>> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items())
    for (const auto& [kk, vv] : PairsFrom(v)) out[k][kk] = vv;
  return out;
}

}  // namespace

const std::vector<std::string> kSessionColumns = {
    "session_id", "source",     "version",      "hostname",    "user",          "argv",
    "system",     "prefix",     "config_files", "start_time",  "end_time",      "exit_code",
    "num_cases",  "num_passed", "num_failed",   "num_skipped", "num_cancelled", "utf8_replaced"};

void BindSession(SqliteStmt& st, const SessionInfo& s, const std::string& source, const StoredSession& n) {
  Binder(st, 1)(s.session_id)(source)(s.version)(s.hostname)(s.user)(JsonText(Json(s.argv)))(s.system)(s.prefix)(
      JsonText(Json(s.config_files)))
      .Time(s.start_time)
      .Time(s.end_time)(s.exit_code)(n.total)(n.passed)(n.failed)(n.skipped)(n.cancelled)(
          JsonText(Json(InvalidUtf8Fields(s))));
}

StoredSession ReadSession(const SqliteStmt& st, int first) {
  Reader r(st, first);
  StoredSession out;
  SessionInfo& s = out.info;
  s.session_id = r.Text();
  out.source = r.Text();
  s.version = r.Text();
  s.hostname = r.Text();
  s.user = r.Text();
  s.argv = ListFrom(r.JsonValue());
  s.system = r.Text();
  s.prefix = r.Text();
  s.config_files = ListFrom(r.JsonValue());
  s.start_time = r.Double();
  s.end_time = r.Double();
  s.exit_code = r.Int();
  out.total = r.Int();
  out.passed = r.Int();
  out.failed = r.Int();
  out.skipped = r.Int();
  out.cancelled = r.Int();
  out.utf8_replaced = ListFrom(r.JsonValue());
  return out;
}

const std::vector<std::string> kCaseColumns = {"case_id",
                                               "name",
                                               "display_name",
                                               "unique_name",
                                               "descr",
                                               "file",
                                               "file_sha256",
                                               "parameters",
                                               "tags",
                                               "maintainers",
                                               "system",
                                               "partition",
                                               "environ",
                                               "result",
                                               "fail_stage",
                                               "fail_reason",
                                               "repetition",
                                               "attempt",
                                               "start_time",
                                               "end_time",
                                               "timings",
                                               "job_id",
                                               "job_state",
                                               "exit_code",
                                               "nodelist",
                                               "job_submit_time",
                                               "job_completion_time",
                                               "job_noticed_time",
                                               "num_tasks",
                                               "num_tasks_per_node",
                                               "num_cpus_per_task",
                                               "num_gpus_per_node",
                                               "exclusive_access",
                                               "env_vars",
                                               "modules",
                                               "extra_resources",
                                               "stagedir",
                                               "outputdir",
                                               "utf8_replaced",
                                               "scaling_axes"};

void BindCase(SqliteStmt& st, int first, const CaseResult& c, const std::string& sha) {
  Binder(st, first)(c.id)(c.name)(c.display_name)(c.unique_name)(c.descr)(c.file)(sha)(Pairs(c.parameters))(
      JsonText(Json(c.tags)))(JsonText(Json(c.maintainers)))(c.system)(c.partition)(c.environ)(c.result)(c.fail_stage)(
      c.fail_reason)(c.repetition)(c.attempt)
      .Time(c.start_time)
      .Time(c.end_time)(Timings(c.timings))(c.job_id)(c.job_state)(c.exit_code)(JsonText(Json(c.nodelist)))
      .Time(c.job_submit_time)
      .Time(c.job_completion_time)
      .Time(c.job_noticed_time)(c.num_tasks)(c.num_tasks_per_node)(c.num_cpus_per_task)(c.num_gpus_per_node)(
          c.exclusive_access ? 1 : 0)(Pairs(c.env_vars))(JsonText(Json(c.modules)))(JsonText(Json(c.extra_resources)))(
          c.stagedir)(c.outputdir)(JsonText(Json(InvalidUtf8Fields(c))))(JsonText(Json(c.scaling_axes)));
}

CaseResult ReadCase(const SqliteStmt& st, int first, std::string* sha, std::vector<std::string>* utf8_replaced) {
  Reader r(st, first);
  CaseResult c;
  c.id = r.Text();
  c.name = r.Text();
  c.display_name = r.Text();
  c.unique_name = r.Text();
  c.descr = r.Text();
  c.file = r.Text();
  *sha = r.Text();
  c.parameters = PairsFrom(r.JsonValue());
  c.tags = ListFrom(r.JsonValue());
  c.maintainers = ListFrom(r.JsonValue());
  c.system = r.Text();
  c.partition = r.Text();
  c.environ = r.Text();
  c.result = r.Text();
  c.fail_stage = r.Text();
  c.fail_reason = r.Text();
  c.repetition = r.Int();
  c.attempt = r.Int();
  c.start_time = r.Double();
  c.end_time = r.Double();
  c.timings = TimingsFrom(r.JsonValue());
  c.job_id = r.Text();
  c.job_state = r.Text();
  c.exit_code = r.Int();
  c.nodelist = ListFrom(r.JsonValue());
  c.job_submit_time = r.Double();
  c.job_completion_time = r.Double();
  c.job_noticed_time = r.Double();
  c.num_tasks = r.Int();
  c.num_tasks_per_node = r.Int();
  c.num_cpus_per_task = r.Int();
  c.num_gpus_per_node = r.Int();
  c.exclusive_access = r.Int() != 0;
  c.env_vars = PairsFrom(r.JsonValue());
  c.modules = ListFrom(r.JsonValue());
  c.extra_resources = ResourcesFrom(r.JsonValue());
  c.stagedir = r.Text();
  c.outputdir = r.Text();
  *utf8_replaced = ListFrom(r.JsonValue());
  c.scaling_axes = ListFrom(r.JsonValue());
  return c;
}

}  // namespace hb
