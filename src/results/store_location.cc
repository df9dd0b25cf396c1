// Where the results store is (LocateStore) and the times of its queries
// (ParseTimeSpec).
#include <time.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "results/store.h"
#include "util/fs.h"
#include "util/json_field.h"
#include "util/rfc3339.h"
#include "util/strings.h"

namespace hb {

std::string ProcessEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}

std::string ExpandVars(const std::string& text, const EnvLookup& env) {
  std::string out;
  auto is_name = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    size_t start = i + 1, end;
    std::string name;
    if (text[start] == '{') {
      end = text.find('}', start);
      if (end == std::string::npos) {
        out += text[i];
        continue;
      }
      name = text.substr(start + 1, end - start - 1);
    } else {
      end = start;
      while (end < text.size() && is_name(text[end])) ++end;
      if (end == start) {
        out += text[i];
        continue;
      }
      name = text.substr(start, end - start);
      --end;
    }
    std::string value = env(name);
    out += value.empty() ? text.substr(i, end - i + 1) : value;
    i = end;
  }
  return out;
}

StoreLocation LocateStore(const std::string& flag, bool no_store, const nlohmann::json& entry, const EnvLookup& env) {
  StoreLocation loc;
  loc.enabled = !no_store;
  // `entry` was checked at load (config/config_parse.cc, CheckStorage):
  // sqlite_conn_timeout is seconds or a duration such as "30s".
  const JsonField storage(entry, "storage");
  std::optional<double> timeout = JsonNumber(storage["sqlite_conn_timeout"].json());
  if (!timeout) timeout = ParseDuration(storage["sqlite_conn_timeout"].StringOr(""));
  if (timeout && *timeout > 0) loc.busy_timeout_s = *timeout;
  if (!flag.empty()) {
    loc.path = AbsPath(flag);
    loc.origin = "--store";
    return loc;
  }
  if (std::string e = env("HETBENCH_STORE"); !e.empty()) {
    loc.path = AbsPath(e);
    loc.origin = "HETBENCH_STORE";
    return loc;
  }
  if (JsonBool(storage["enable"].json()) == false) loc.enabled = false;
  if (std::string file = storage["sqlite_db_file"].StringOr(""); !file.empty()) {
    loc.path = AbsPath(ExpandVars(file, env));
    loc.origin = "configuration";
    return loc;
  }
  std::string data = env("XDG_DATA_HOME");
  if (data.empty() || data[0] != '/') data = JoinPath(env("HOME"), ".local/share");
  loc.path = AbsPath(JoinPath(data, "hetbench/results.db"));
  loc.origin = "default";
  return loc;
}

Result<double> ParseTimeSpec(const std::string& text, double now) {
  std::string s = Trim(text);
  if (s == "now") return now;
  // An age has a unit (ParseDuration alone takes "2024" for seconds).
  if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back())) && s.find_first_of("-:") == std::string::npos)
    if (std::optional<double> age = ParseDuration(s)) return now - *age;
  if (std::optional<double> t = ParseTimestamp(s)) return *t;
  return Status::Error("'" + text +
                       "' is neither a date (2024-05-01, 2024-05-01T12:30[:00][Z|+02:00]) "
                       "nor an age (7d, 24h, 30m)");
}

}  // namespace hb
