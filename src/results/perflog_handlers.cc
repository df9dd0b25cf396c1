#include "results/perflog_handlers.h"

#include "config/config_parse.h"

#include <algorithm>
#include <climits>
#include <map>

#include "results/store.h"  // ExpandVars
#include "util/fs.h"
#include "util/json_field.h"
#include "util/strings.h"

namespace hb {

namespace {

using Json = nlohmann::json;

Status FirstError(std::initializer_list<Status> all) {
  for (const auto& st : all)
    if (!st.ok()) return st;
  return Status::OK();
}

// ReFrame's level names (reframe/core/logging.py _log_level_values).
int LevelValue(const Json& level, bool* ok) {
  static const std::map<std::string, int> kLevels = {{"critical", 50}, {"error", 40},    {"warning", 30},
                                                     {"info", 20},     {"verbose", 19},  {"debug", 10},
                                                     {"debug2", 9},    {"undefined", 0}, {"notset", 0}};
  *ok = true;
  if (auto i = JsonInt(level); i && *i >= INT_MIN && *i <= INT_MAX) return static_cast<int>(*i);
  if (const std::string* text = JsonStringPtr(level)) {
    std::string s = *text;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (auto it = kLevels.find(s); it != kLevels.end()) return it->second;
  }
  *ok = false;
  return 0;
}

// Reads one handler's keys with type checks; errors name "handlers_perflog[i] (type): key".
class HandlerFields {
 public:
  HandlerFields(const Json& h, size_t index) : h_(h) {
    auto type = h.find("type");
    where_ = "logging: handlers_perflog[" + std::to_string(index) + "] (" +
             (type != h.end() && JsonStringPtr(*type) ? *JsonStringPtr(*type) : std::string("?")) + ")";
  }

  Status CheckKeys(std::vector<std::string> allowed) const {
    for (const char* k : {"type", "level", "format", "format_perfvars", "datefmt"}) allowed.push_back(k);
    for (const auto& [k, v] : h_.items())
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        return Status::Error(where_ + ": unknown key '" + k + "'" + DidYouMean(k, allowed));
    return Status::OK();
  }
  Status String(const char* key, std::string* out, bool required = false) const {
    if (!h_.contains(key) || h_[key].is_null())
      return required ? Status::Error(where_ + ": '" + key + "' is required") : Status::OK();
    const std::string* s = JsonStringPtr(h_[key]);
    if (!s) return Error(key, "a string");
    *out = *s;
    return Status::OK();
  }
  Status Bool(const char* key, bool* out) const {
    if (!h_.contains(key)) return Status::OK();
    std::optional<bool> b = JsonBool(h_[key]);
    if (!b) return Error(key, "true or false");
    *out = *b;
    return Status::OK();
  }
  Status Object(const char* key, Json* out) const {
    if (!h_.contains(key) || h_[key].is_null()) return Status::OK();
    if (!h_[key].is_object()) return Error(key, "a mapping");
    *out = h_[key];
    return Status::OK();
  }
  Status StringList(const char* key, std::vector<std::string>* out) const {
    if (!h_.contains(key) || h_[key].is_null()) return Status::OK();
    if (!h_[key].is_array()) return Error(key, "a list of strings");
    for (const auto& v : h_[key]) {
      const std::string* s = JsonStringPtr(v);
      if (!s) return Error(key, "a list of strings");
      out->push_back(*s);
    }
    return Status::OK();
  }
  Status Error(const std::string& key, const std::string& expected) const {
    return Status::Error(where_ + ": " + key + ": expected " + expected + ", got " + h_[key].dump());
  }
  Status Fail(const std::string& msg) const { return Status::Error(where_ + ": " + msg); }
  const std::string& where() const { return where_; }

 private:
  const Json& h_;
  std::string where_;
};

// urllib.parse.urlparse's checks in _create_httpjson_handler.
Status CheckUrl(const HandlerFields& f, const std::string& url) {
  size_t sep = url.find("://");
  std::string scheme = sep == std::string::npos ? "" : url.substr(0, sep);
  if (scheme != "http" && scheme != "https")
    return f.Fail("url: invalid url scheme: use 'http' or 'https' ('" + url + "')");
  std::string rest = url.substr(sep + 3);
  std::string hostport = rest.substr(0, rest.find_first_of("/?#"));
  hostport = hostport.substr(hostport.rfind('@') == std::string::npos ? 0 : hostport.rfind('@') + 1);
  size_t colon = hostport.rfind(':');
  bool bracketed = !hostport.empty() && hostport.back() == ']';
  std::string host = colon == std::string::npos || bracketed ? hostport : hostport.substr(0, colon);
  if (host.empty()) return f.Fail("url: invalid hostname ('" + url + "')");
  std::string port = colon == std::string::npos || bracketed ? "" : hostport.substr(colon + 1);
  if (port.empty()) return f.Fail("url: no port given ('" + url + "'); write it, e.g. http://host:9200/index/_doc");
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535)
    return f.Fail("url: invalid port ('" + url + "')");
  return Status::OK();
}

Result<HttpJsonConfig> ParseHttpJson(const Json& h, const HandlerFields& f, const PerflogHandlerOptions& opts) {
  HttpJsonConfig cfg;
  Json extras = Json::object(), headers = Json::object();
  std::string formatter;
  Status st = FirstError({f.CheckKeys({"url", "extras", "ignore_keys", "extra_headers", "debug", "json_formatter"}),
                          f.String("url", &cfg.url, true), f.Object("extras", &extras),
                          f.StringList("ignore_keys", &cfg.ignore_keys), f.Object("extra_headers", &headers),
                          f.Bool("debug", &cfg.debug)});
  if (!st.ok()) return st;
  if (h.contains("json_formatter") && !h["json_formatter"].is_null())
    return f.Fail(
        "json_formatter: a Python callable cannot be used by hetbench; remove it (records are sent "
        "as ReFrame's default formatter makes them; use ignore_keys and extras to shape them)");
  st = CheckUrl(f, cfg.url);
  if (!st.ok()) return st;
  cfg.extras = nlohmann::ordered_json(extras);
  for (const auto& [k, v] : headers.items()) {
    if (!JsonStringPtr(v)) return f.Error("extra_headers", "string values");
    // A CR or LF would end the header and start another of the value's
    // choosing (header injection); RFC 9110 field names are tokens.
    const std::string value = *JsonStringPtr(v);
    bool bad_name = k.empty() || k.find_first_not_of(
                                     "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != std::string::npos;
    if (bad_name || value.find_first_of("\r\n") != std::string::npos || value.find('\0') != std::string::npos)
      return f.Fail("extra_headers: '" + k + "': " +
                    (bad_name ? std::string("a header name is letters, digits and !#$%&'*+-.^_`|~ only")
                              : std::string("a header value must not contain a line break (CR or LF) or NUL")));
    cfg.extra_headers.push_back(k + ": " + value);
  }
  cfg.debug_dir = opts.debug_dir;
  cfg.retry = opts.retry;
  return cfg;
}

Result<SyslogConfig> ParseSyslog(const HandlerFields& f) {
  SyslogConfig cfg;
  Status st = FirstError({f.CheckKeys({"address", "socktype", "facility"}), f.String("address", &cfg.address, true),
                          f.String("socktype", &cfg.socktype), f.String("facility", &cfg.facility),
                          f.String("format", &cfg.fmt.format), f.String("format_perfvars", &cfg.fmt.format_perfvars),
                          f.String("datefmt", &cfg.fmt.datefmt)});
  if (!st.ok()) return st;
  st = CheckPerflogFormat(cfg.fmt);
  if (st.ok()) st = CheckSyslogConfig(cfg);
  if (!st.ok()) return st.Prefixed(f.where());
  return cfg;
}

// The handler, or null when it is to receive nothing (its level), or when
// (syslog) its socket cannot be opened: a warning, and the run goes on.
Result<std::unique_ptr<HttpJsonHandler>> MakeHttpJson(const Json& h, const HandlerFields& f,
                                                      const PerflogHandlerOptions& opts, bool receives,
                                                      std::vector<std::string>* warnings) {
  auto cfg = ParseHttpJson(h, f, opts);
  if (!cfg.ok()) return cfg.status();
  if (!receives) return std::unique_ptr<HttpJsonHandler>();
  auto transport = opts.transport ? opts.transport() : MakeCurlTransport();
  if (!transport.ok()) return transport.status().Prefixed(f.where());
  if (cfg->debug) warnings->push_back("httpjson: running in debug mode; no data will be sent to the server");
  return std::make_unique<HttpJsonHandler>(std::move(cfg.value()), std::move(transport.value()));
}

Result<std::unique_ptr<SyslogHandler>> MakeSyslog(const HandlerFields& f, bool receives,
                                                  std::vector<std::string>* warnings) {
  auto cfg = ParseSyslog(f);
  if (!cfg.ok()) return cfg.status();
  if (!receives) return std::unique_ptr<SyslogHandler>();
  auto handler = SyslogHandler::Open(*cfg);
  if (handler.ok()) return handler;
  warnings->push_back(handler.status().str() + "; this handler is left out");
  return std::unique_ptr<SyslogHandler>();
}

// _create_filelog_handler: basedir (and prefix) with environment variables
// expanded, basedir under the system's prefix; ReFrame's schema defaults
// for what a listed handler leaves out.
Result<FilelogConfig> ParseFilelog(const Json& h, const HandlerFields& f, const PerflogHandlerOptions& opts,
                                   bool multiline) {
  FilelogConfig cfg;
  cfg.fmt.format = "%(message)s";
  cfg.fmt.format_perfvars = "";
  cfg.fmt.ignore_keys.clear();
  cfg.fmt.multiline = multiline;
  cfg.basedir = "./perflogs";
  bool locking = false;
  std::string lock_mode;
  Status st = FirstError(
      {f.CheckKeys({"basedir", "prefix", "append", "ignore_keys", "locking_enable", "locking_file_mode"}),
       f.String("format", &cfg.fmt.format), f.String("format_perfvars", &cfg.fmt.format_perfvars),
       f.String("datefmt", &cfg.fmt.datefmt), f.String("basedir", &cfg.basedir), f.String("prefix", &cfg.prefix, true),
       f.Bool("append", &cfg.append), f.StringList("ignore_keys", &cfg.fmt.ignore_keys),
       f.Bool("locking_enable", &locking), f.String("locking_file_mode", &lock_mode)});
  if (!st.ok()) return st;
  if (lock_mode.find_first_not_of("01234567") != std::string::npos)
    return f.Error("locking_file_mode", "an octal mode such as '664'");
  cfg.prefix = ExpandVars(cfg.prefix, ProcessEnv);
  std::string base = opts.basedir.empty() ? ExpandVars(cfg.basedir, ProcessEnv) : opts.basedir;
  cfg.basedir = AbsPath(StartsWith(base, "/") ? base : JoinPath(opts.prefix, base));
  st = CheckFilelogConfig(cfg);
  if (!st.ok()) return st.Prefixed(f.where());
  return cfg;
}

Status CheckLoggingKeys(const Json& logging) {
  static const std::vector<std::string> kKeys = {"level",     "perflog_compat",   "perflog_multiline", "handlers",
                                                 "handlers$", "handlers_perflog", "target_systems"};
  for (const auto& [k, v] : logging.items())
    if (std::find(kKeys.begin(), kKeys.end(), k) == kKeys.end())
      return Status::Error("logging: unknown key '" + k + "'" + DidYouMean(k, kKeys));
  for (const char* k : {"perflog_compat", "perflog_multiline"})
    if (logging.contains(k) && !logging[k].is_boolean())
      return Status::Error(std::string("logging: ") + k + ": expected true or false, got " + logging[k].dump());
  return Status::OK();
}

}  // namespace

Status PerflogHandlers::Add(const Json& h, size_t i, const PerflogHandlerOptions& opts, int logger_level,
                            bool multiline) {
  if (!h.is_object() || !h.contains("type") || !JsonStringPtr(h["type"]))
    return Status::Error("logging: handlers_perflog[" + std::to_string(i) + "]: expected a mapping with 'type'");
  HandlerFields f(h, i);
  const std::string type = *JsonStringPtr(h["type"]);
  for (const char* k : {"perflog_compat", "perflog_multiline"})
    if (h.contains(k))
      return f.Fail(std::string(k) + ": a key of the logging entry, beside handlers_perflog, not of a handler");
  if (type == "file" || type == "stream" || type == "graylog")
    return f.Fail(
        "hetbench writes performance records with filelog (one file per test, ReFrame's perflog), "
        "httpjson and syslog handlers; for records in one file use filelog with a prefix, and put "
        "file and stream handlers under `handlers`, for the main log");
  if (type != "filelog" && type != "httpjson" && type != "syslog")
    return Status::Error("logging: handlers_perflog[" + std::to_string(i) + "]: unknown handler type '" + type + "'" +
                         DidYouMean(type, {"filelog", "httpjson", "syslog", "file", "stream", "graylog"}));
  bool ok = true;
  int level = h.contains("level") ? LevelValue(h["level"], &ok) : 20;  // info
  if (!ok) return f.Error("level", "a level name (critical, error, warning, info, verbose, debug, debug2)");
  bool would_receive = level <= 20 && logger_level <= 20;
  bool receives = would_receive && !opts.check_only;
  if (type == "filelog") {
    auto cfg = ParseFilelog(h, f, opts, multiline);
    if (!cfg.ok()) return cfg.status();
    if (receives) files_.push_back(std::make_unique<FilelogHandler>(std::move(cfg.value())));
    return Status::OK();
  }
  if (multiline && would_receive)
    return f.Fail(
        "logging: perflog_multiline (perflog_compat): hetbench writes one record per performance "
        "variable to filelog handlers only; this handler would get one per case");
  if (type == "httpjson") {
    auto handler = MakeHttpJson(h, f, opts, receives, &warnings_);
    if (!handler.ok()) return handler.status();
    if (*handler) http_.push_back(std::move(handler.value()));
    return Status::OK();
  }
  auto handler = MakeSyslog(f, receives, &warnings_);
  if (!handler.ok()) return handler.status();
  if (*handler) syslog_.push_back(std::move(handler.value()));
  return Status::OK();
}

Result<std::unique_ptr<PerflogHandlers>> PerflogHandlers::Create(const Json& logging,
                                                                 const PerflogHandlerOptions& opts) {
  auto fail = [&](const Status& st) -> Status {
    return opts.config_files.size() == 1 ? Status::Error(SourceMark{opts.config_files[0]}, st.message()) : st;
  };
  auto out = std::make_unique<PerflogHandlers>();
  const Json entry = logging.is_object() ? logging : Json::object();
  Status st = CheckLoggingKeys(entry);
  if (!st.ok()) return fail(st);
  bool ok = true;
  int logger_level = entry.contains("level") ? LevelValue(entry["level"], &ok) : 0;  // undefined
  if (!ok) return fail(Status::Error("logging: level: expected a level name, got " + entry["level"].dump()));
  const Json list = entry.contains("handlers_perflog") ? entry["handlers_perflog"] : Json::array();
  if (!list.is_array()) return fail(Status::Error("logging: handlers_perflog: expected a list of handlers"));
  bool multiline = false;
  for (const char* key : {"perflog_multiline", "perflog_compat"}) {
    if (!entry.contains(key)) continue;
    std::optional<bool> b = JsonBool(entry[key]);
    if (!b)
      return fail(Status::Error(std::string("logging: ") + key + ": expected true or false, got " + entry[key].dump()));
    multiline |= *b;
  }
  bool any_filelog = false;
  for (size_t i = 0; i < list.size(); ++i) {
    st = out->Add(list[i], i, opts, logger_level, multiline);
    if (!st.ok()) return fail(st);
    any_filelog |= list[i]["type"] == "filelog";
  }
  if (!any_filelog && logger_level <= 20 && !opts.check_only) {  // ReFrame's builtin handler (settings.py)
    FilelogConfig builtin;
    builtin.fmt.multiline = multiline;
    builtin.basedir = AbsPath(opts.basedir.empty() ? JoinPath(opts.prefix, "perflogs") : opts.basedir);
    out->files_.push_back(std::make_unique<FilelogHandler>(std::move(builtin)));
  }
  return out;
}

namespace {
// The configuration loader checks every logging entry with Create at load
// (config/config_parse.h), so that a bad handler is an error with its
// file:line:column before anything runs, in `list` as in `run`.
[[maybe_unused]] const bool kLoggingCheckRegistered = [] {
  RegisterLoggingCheck([](const Json& entry) -> Status {
    PerflogHandlerOptions opts;
    opts.check_only = true;
    auto r = PerflogHandlers::Create(entry, opts);
    return r.ok() ? Status::OK() : r.status();
  });
  return true;
}();
}  // namespace

std::vector<std::string> PerflogHandlers::FilelogDirs() const {
  std::vector<std::string> dirs;
  for (const auto& f : files_) dirs.push_back(f->config().basedir);
  return dirs;
}

void PerflogHandlers::Log(const SessionInfo& s, const CaseResult& c) {
  if (!ShouldLogPerformance(c)) return;
  for (auto& f : files_) {
    Status st = f->Log(s, c);
    if (!st.ok()) warnings_.push_back("perflog: " + st.str());
  }
  for (auto& h : http_) h->Log(s, c);
  for (auto& h : syslog_) {
    Status st = h->Log(s, c);
    if (!st.ok()) warnings_.push_back(st.str());
  }
}

void PerflogHandlers::Finish(double timeout_s) {
  for (auto& h : http_) h->Finish(timeout_s);
}

std::vector<std::string> PerflogHandlers::TakeWarnings() {
  std::vector<std::string> out;
  out.swap(warnings_);
  for (auto& h : http_) {
    auto w = h->TakeWarnings();
    out.insert(out.end(), w.begin(), w.end());
  }
  return out;
}

}  // namespace hb
