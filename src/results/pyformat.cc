#include "results/pyformat.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "util/json_field.h"

namespace hb {

namespace {

void AppendEscaped(std::string& out, uint32_t cp) {
  char buf[16];
  if (cp >= 0x10000) {  // a UTF-16 surrogate pair, as Python writes it
    cp -= 0x10000;
    std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
  } else {
    std::snprintf(buf, sizeof buf, "\\u%04x", cp);
  }
  out += buf;
}

}  // namespace

std::string PyNumber(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  return PyFloatRepr(v);
}

std::string PyJsonFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-Infinity" : "Infinity";
  return PyFloatRepr(v);
}

std::string PyJsonString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = DecodeUtf8(s, i);
    switch (cp) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (cp < 0x20 || cp > 0x7E)
          AppendEscaped(out, cp);
        else
          out += static_cast<char>(cp);
    }
  }
  return out + "\"";
}

std::string PyJsonObject(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += PyJsonString(items[i].first) + ": " + PyJsonString(items[i].second);
  }
  return out + "}";
}

std::string PyJsonDumps(const nlohmann::ordered_json& v) {
  using T = nlohmann::ordered_json::value_t;
  switch (v.type()) {
    case T::null:
      return "null";
    case T::boolean:
      return *JsonBool(v) ? "true" : "false";
    case T::number_float:
      return PyJsonFloat(*JsonNumber(v));
    case T::string:
      return PyJsonString(*JsonStringPtr(v));
    case T::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + PyJsonDumps(v[i]);
      return out + "]";
    }
    case T::object: {
      std::string out = "{";
      for (auto it = v.begin(); it != v.end(); ++it)
        out += (it == v.begin() ? "" : ", ") + PyJsonString(it.key()) + ": " + PyJsonDumps(it.value());
      return out + "}";
    }
    default:
      return v.dump();  // integers
  }
}

std::string PyJsonObject(const std::map<std::string, std::map<std::string, std::string>>& items) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, inner] : items) {
    if (!first) out += ", ";
    first = false;
    out += PyJsonString(key) + ": " +
           PyJsonObject(std::vector<std::pair<std::string, std::string>>(inner.begin(), inner.end()));
  }
  return out + "}";
}

// _format_time_rfc3339: time.strftime(datefmt) of the local time t, with
// "%:z" as +HH:MM and, as datetime.strftime does, "%f" as microseconds.
std::string PyStrftime(double t, const std::string& datefmt) {
  if (t <= 0) return "null";
  double whole = std::floor(t);
  long usec = std::lround((t - whole) * 1e6);
  if (usec >= 1000000) whole += 1, usec -= 1000000;
  time_t secs = static_cast<time_t>(whole);
  struct tm tm {};
  localtime_r(&secs, &tm);
  char tz[16] = "", us[24];
  strftime(tz, sizeof tz, "%z", &tm);
  std::string z = tz;
  if (z.size() == 5) z = z.substr(0, 3) + ":" + z.substr(3);
  std::snprintf(us, sizeof us, "%06ld", usec);
  std::string fmt;
  for (size_t i = 0; i < datefmt.size(); ++i) {
    if (datefmt[i] != '%' || i + 1 == datefmt.size()) {
      fmt += datefmt[i];
    } else if (datefmt[i + 1] == 'f') {
      fmt += us, ++i;
    } else if (datefmt.compare(i + 1, 2, ":z") == 0) {
      fmt += z, i += 2;
    } else {
      fmt += datefmt.substr(i, 2), ++i;  // %% stays for strftime
    }
  }
  char buf[1024];
  size_t n = strftime(buf, sizeof buf, fmt.c_str(), &tm);
  return std::string(buf, n);
}

// The names of `fmt`'s placeholders, or an error at the first '%' that is
// neither %% nor %(name)s (Python's %-formatting knows more: widths,
// flags, other conversions; ReFrame's header and record code do not).
Result<std::vector<std::string>> PyScanFormat(const std::string& fmt, const std::string& key) {
  std::vector<std::string> names;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') continue;
    if (fmt.compare(i, 2, "%%") == 0) {
      ++i;
      continue;
    }
    size_t close = fmt.compare(i, 2, "%(") == 0 ? fmt.find(')', i + 2) : std::string::npos;
    if (close == std::string::npos || close + 1 >= fmt.size() || fmt[close + 1] != 's') {
      std::string at = fmt.substr(i, std::min<size_t>(close == std::string::npos ? 2 : close - i + 2, 40));
      return Status::Error(key + ": '" + at + "' at offset " + std::to_string(i) +
                           ": hetbench writes %(name)s placeholders and %% only (as ReFrame's perflog "
                           "header does); write a literal '%' as %%");
    }
    names.push_back(fmt.substr(i + 2, close - i - 2));
    i = close + 1;
  }
  return names;
}

// fmt % values: unknown check_ names render as null (ReFrame sets them to
// None, then _xfmt), other unknown names as None.
std::string PyPercentFormat(const std::string& fmt, const std::map<std::string, std::string>& values) {
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

}  // namespace hb
