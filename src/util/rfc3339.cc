#include "util/rfc3339.h"

#include <cctype>
#include <cmath>
#include <ctime>

namespace hb {

namespace {

// Reads exactly `n` digits at s[*i].
bool Digits(std::string_view s, size_t* i, size_t n, int* out) {
  if (*i + n > s.size()) return false;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    char c = s[*i + k];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *out = v;
  return true;
}

bool Take(std::string_view s, size_t* i, char c) {
  if (*i < s.size() && s[*i] == c) {
    ++*i;
    return true;
  }
  return false;
}

struct Grammar {
  bool lenient;  // ParseTimestamp's extensions
};

std::optional<double> Parse(std::string_view s, Grammar g) {
  std::tm tm{};
  size_t i = 0;
  int year = 0, mon = 0, day = 0;
  if (!Digits(s, &i, 4, &year) || !Take(s, &i, '-') || !Digits(s, &i, 2, &mon) || !Take(s, &i, '-') ||
      !Digits(s, &i, 2, &day))
    return std::nullopt;
  int hour = 0, min = 0, sec = 0;
  double frac = 0;
  if (i < s.size() && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
    ++i;
    if (!Digits(s, &i, 2, &hour) || !Take(s, &i, ':') || !Digits(s, &i, 2, &min)) return std::nullopt;
    if (Take(s, &i, ':')) {
      if (!Digits(s, &i, 2, &sec)) return std::nullopt;
      if (Take(s, &i, '.')) {
        size_t start = i;
        double scale = 0.1;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
          frac += (s[i] - '0') * scale;
          scale /= 10;
          ++i;
        }
        if (i == start) return std::nullopt;
      }
    } else if (!g.lenient) {
      return std::nullopt;
    }
  } else if (!g.lenient) {
    return std::nullopt;
  }
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60) return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = min;
  tm.tm_sec = sec;
  std::string_view zone = s.substr(i);
  if (zone.empty()) {
    if (!g.lenient) return std::nullopt;
    tm.tm_isdst = -1;
    std::time_t t = std::mktime(&tm);
    if (t == -1) return std::nullopt;
    return static_cast<double>(t) + frac;
  }
  long offset = 0;
  if (zone == "Z" || zone == "z") {
  } else if (zone[0] == '+' || zone[0] == '-') {
    size_t k = 1;
    int zh = 0, zm = 0;
    if (!Digits(zone, &k, 2, &zh)) return std::nullopt;
    if (Take(zone, &k, ':')) {
      if (!Digits(zone, &k, 2, &zm)) return std::nullopt;
    } else if (g.lenient && k < zone.size()) {
      if (!Digits(zone, &k, 2, &zm)) return std::nullopt;
    } else if (!g.lenient) {
      return std::nullopt;
    }
    if (k != zone.size() || zh > 23 || zm > 59) return std::nullopt;
    offset = (zone[0] == '+' ? 1 : -1) * (zh * 3600L + zm * 60L);
  } else {
    return std::nullopt;
  }
  return static_cast<double>(timegm(&tm) - offset) + frac;
}

}  // namespace

std::optional<double> ParseRfc3339(std::string_view s) { return Parse(s, Grammar{false}); }

std::optional<double> ParseTimestamp(std::string_view s) { return Parse(s, Grammar{true}); }

std::string FormatRfc3339(double epoch) {
  std::time_t t = static_cast<std::time_t>(std::floor(epoch));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace hb
