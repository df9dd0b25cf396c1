#include "results/main_log.h"

#include <cstdio>
#include <ctime>
#include <map>
#include <memory>

#include "results/pyformat.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/log.h"
#include "util/strings.h"

namespace hb {

namespace {

using Json = nlohmann::json;

// ReFrame's level names (reframe/core/logging.py _log_level_values).
bool ParseLevel(const Json& v, int* out) {
  static const std::map<std::string, int> kLevels = {{"critical", 50}, {"error", 40},    {"warning", 30},
                                                     {"info", 20},     {"verbose", 19},  {"debug", 10},
                                                     {"debug2", 9},    {"undefined", 0}, {"notset", 0}};
  const std::string* name = JsonStringPtr(v);
  if (!name) return false;
  auto it = kLevels.find(*name);
  if (it == kLevels.end()) return false;
  *out = it->second;
  return true;
}

struct Handler {
  std::string where;  // "logging: handlers[0] (file)"
  int level = kLogInfo;
  std::string format = "%(message)s", datefmt = "%FT%T";
};

class Formatter {
 public:
  Formatter(Handler h, const MainLogOptions& o) : h_(std::move(h)) {
    fixed_ = {{"name", "hetbench"},
              {"check_info", "hetbench"},
              {"hostname", o.hostname},
              {"osuser", o.user},
              {"version", o.version}};
  }
  std::string Line(int level, double time, const std::string& text) const {
    std::map<std::string, std::string> v = fixed_;
    v["asctime"] = PyStrftime(time, h_.datefmt);
    v["levelname"] = LogLevelName(level);
    v["message"] = text;
    return PyPercentFormat(h_.format, v) + "\n";
  }

 private:
  Handler h_;
  std::map<std::string, std::string> fixed_;
};

Status CheckKeys(const Json& h, const std::string& where, const std::vector<std::string>& keys) {
  for (const auto& [k, v] : h.items())
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      return Status::Error(where + ": unknown key '" + k + "'" + DidYouMean(k, keys) + " (keys: " + Join(keys, ", ") +
                           ")");
  return Status::OK();
}

Result<Handler> ReadCommon(const Json& h, const std::string& where, int logger_level) {
  Handler out;
  out.where = where;
  if (h.contains("level") && !ParseLevel(h["level"], &out.level))
    return Status::Error(where + ": level: expected one of critical, error, warning, info, verbose, debug, debug2");
  out.level = std::max(out.level, logger_level);
  for (auto [key, field] : {std::pair{"format", &out.format}, std::pair{"datefmt", &out.datefmt}}) {
    if (!h.contains(key)) continue;
    const std::string* s = JsonStringPtr(h[key]);
    if (!s) return Status::Error(where + ": " + key + ": expected a string");
    *field = *s;
  }
  auto names = PyScanFormat(out.format, where + ": format");
  if (!names.ok()) return names.status();
  static const std::vector<std::string> kKnown = {"asctime",    "levelname", "message", "name",
                                                  "check_info", "hostname",  "osuser",  "version"};
  for (const auto& n : *names)
    if (std::find(kKnown.begin(), kKnown.end(), n) == kKnown.end())
      return Status::Error(where + ": format: %(" + n +
                           ")s: the main log's records are not about one test case, so "
                           "hetbench knows only " +
                           Join(kKnown, ", ") + DidYouMean(n, kKnown));
  return out;
}

void AddFileSink(const Handler& h, const MainLogOptions& o, std::shared_ptr<FILE> f) {
  auto fmt = std::make_shared<Formatter>(h, o);
  AddLogSink(h.level, [fmt, f](int level, double time, const std::string& text) {
    std::string line = fmt->Line(level, time, text);
    std::fwrite(line.data(), 1, line.size(), f.get());
    std::fflush(f.get());
  });
}

Result<std::shared_ptr<FILE>> Open(const std::string& path, bool append, const std::string& where) {
  Status st = MakeDirs(DirName(AbsPath(path)));
  FILE* f = st.ok() ? std::fopen(path.c_str(), append ? "a" : "w") : nullptr;
  if (!f)
    return Status::Error(where + ": cannot open the log file '" + path + "'" + (st.ok() ? "" : ": " + st.message()));
  return std::shared_ptr<FILE>(f, [](FILE* p) { std::fclose(p); });
}

Status AddHandler(const Json& h, size_t i, int logger_level, const MainLogOptions& o) {
  std::string where = "logging: handlers[" + std::to_string(i) + "]";
  if (!h.is_object() || !h.contains("type") || !JsonStringPtr(h["type"]))
    return Status::Error(where + ": expected a mapping with 'type' (file or stream)");
  const std::string type = *JsonStringPtr(h["type"]);
  where += " (" + type + ")";
  if (type == "file") {
    Status st = CheckKeys(h, where, {"type", "name", "level", "format", "datefmt", "append", "timestamp"});
    if (!st.ok()) return st;
    if (!h.contains("name") || !JsonStringPtr(h["name"]))
      return Status::Error(where + ": name: the log file is required");
    auto common = ReadCommon(h, where, logger_level);
    if (!common.ok()) return common.status();
    std::string name = *JsonStringPtr(h["name"]);
    if (h.contains("timestamp") && !(h["timestamp"].is_boolean() || h["timestamp"].is_string()))
      return Status::Error(where + ": timestamp: expected true, false or a strftime format");
    if (h.contains("timestamp") && h["timestamp"] != false) {  // ReFrame: name_<time>.ext
      std::string tfmt = JsonStringPtr(h["timestamp"]) ? *JsonStringPtr(h["timestamp"]) : "%FT%T";
      std::time_t now = std::time(nullptr);
      std::string stamp = PyStrftime(static_cast<double>(now), tfmt);
      size_t dot = name.rfind('.');
      size_t slash = name.rfind('/');
      if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        name += "_" + stamp;
      else
        name = name.substr(0, dot) + "_" + stamp + name.substr(dot);
    }
    if (h.contains("append") && !h["append"].is_boolean())
      return Status::Error(where + ": append: expected true or false");
    auto f = Open(name, h.contains("append") && JsonBool(h["append"]).value_or(false), where);  // checked above
    if (!f.ok()) return f.status();
    AddFileSink(*common, o, *f);
    return Status::OK();
  }
  if (type == "stream") {
    Status st = CheckKeys(h, where, {"type", "name", "level", "format", "datefmt"});
    if (!st.ok()) return st;
    auto common = ReadCommon(h, where, logger_level);
    if (!common.ok()) return common.status();
    std::string name = "stdout";
    if (h.contains("name")) name = JsonStringOrDump(h["name"]);
    if (name != "stdout" && name != "stderr") return Status::Error(where + ": name: expected stdout or stderr");
    FILE* stream = name == "stdout" ? stdout : stderr;
    AddFileSink(*common, o, std::shared_ptr<FILE>(stream, [](FILE*) {}));
    return Status::OK();
  }
  if (type == "graylog")
    return Status::Error(where +
                         ": hetbench cannot send to Graylog; remove this handler, or send performance "
                         "records to an HTTP endpoint with an httpjson perflog handler");
  return Status::Error(where + ": unknown handler type '" + type + "'" + DidYouMean(type, {"file", "stream"}) +
                       " (the main log's handlers are file and stream; perflogs go under handlers_perflog)");
}

}  // namespace

Status SetUpMainLog(const Json& logging, const MainLogOptions& o) {
  ClearLogSinks();
  auto fail = [&](const Status& st) -> Status {
    ClearLogSinks();
    return o.config_files.size() == 1 ? Status::Error(SourceMark{o.config_files[0]}, st.message()) : st;
  };
  if (o.verbosity > 0) {
    int level = o.verbosity == 1 ? kLogVerbose : o.verbosity == 2 ? kLogDebug : kLogDebug2;
    AddLogSink(level,
               [](int, double, const std::string& text) { std::fprintf(stderr, "hetbench: %s\n", text.c_str()); });
  }
  const Json entry = logging.is_object() ? logging : Json::object();
  int logger_level = 0;
  if (entry.contains("level") && !ParseLevel(entry["level"], &logger_level))
    return fail(Status::Error("logging: level: expected a level name"));
  if (entry.contains("handlers") || entry.contains("handlers$")) {
    const Json list = entry.contains("handlers") ? entry["handlers"] : entry["handlers$"];
    if (!list.is_array()) return fail(Status::Error("logging: handlers: expected a list of handlers"));
    for (size_t i = 0; i < list.size(); ++i) {
      Status st = AddHandler(list[i], i, logger_level, o);
      if (!st.ok()) return fail(st);
    }
    return Status::OK();
  }
  if (!o.default_file.empty()) {
    Handler h;
    h.where = o.default_file;
    h.level = std::max<int>(kLogDebug, logger_level);
    h.format = "[%(asctime)s] %(levelname)s: %(message)s";
    auto f = Open(o.default_file, true, "the log file");
    if (!f.ok()) return fail(f.status());
    AddFileSink(h, o, *f);
  }
  return Status::OK();
}

}  // namespace hb
