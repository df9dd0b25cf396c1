#include "util/strings.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hb {

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view x) {
  return s.size() >= x.size() && s.substr(s.size() - x.size()) == x;
}

std::string ReplaceAll(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

std::string ShellQuote(std::string_view s) {
  if (s.empty()) return "''";
  bool safe = std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("@%+=:,./-_").find(c) != std::string_view::npos;
  });
  if (safe) return std::string(s);
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += "'";
  return out;
}

uint32_t DecodeUtf8(std::string_view s, size_t& i) {
  unsigned char c = s[i];
  int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  uint32_t cp = len == 1 ? c : c & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    unsigned char cc = s[i + k];
    if ((cc >> 6) != 2) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    ++i;
    return 0xFFFD;
  }
  i += len;
  return cp;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string ValidUtf8(std::string_view s, bool* replaced) {
  std::string out;
  out.reserve(s.size());
  bool any = false;
  for (size_t i = 0; i < s.size();) {
    size_t at = i;
    uint32_t cp = DecodeUtf8(s, i);
    if (cp == 0xFFFD && !(i - at == 3 && s.compare(at, 3, "\xEF\xBF\xBD") == 0)) any = true;
    if (cp < 0x80)
      out += static_cast<char>(cp);
    else
      AppendUtf8(out, cp);
  }
  if (replaced) *replaced = any;
  return out;
}

std::optional<uint64_t> ParseByteSize(std::string_view in) {
  std::string s = Trim(in);
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  std::string num = s.substr(0, i), unit = Trim(s.substr(i));
  if (num.empty() || num == "." || std::count(num.begin(), num.end(), '.') > 1) return std::nullopt;
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"", 1},     {"B", 1},      {"K", 0x1p10},   {"KiB", 0x1p10}, {"KB", 1e3},   {"M", 0x1p20},   {"MiB", 0x1p20},
      {"MB", 1e6}, {"G", 0x1p30}, {"GiB", 0x1p30}, {"GB", 1e9},     {"T", 0x1p40}, {"TiB", 0x1p40}, {"TB", 1e12}};
  for (const auto& [name, factor] : kUnits) {
    if (unit != name) continue;
    double v = std::strtod(num.c_str(), nullptr) * factor;
    if (!(v >= 0) || v > 0x1p63) return std::nullopt;
    return static_cast<uint64_t>(std::llround(v));
  }
  return std::nullopt;
}

std::string FormatByteSize(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  return FormatNumber(std::round(v * 1000) / 1000, 7) + " " + kUnits[u];
}

std::optional<double> ParseDuration(std::string_view in) {
  std::string s = Trim(in);
  if (s.empty()) return std::nullopt;
  // HH:MM:SS or MM:SS
  if (s.find(':') != std::string::npos) {
    auto parts = Split(s, ':');
    if (parts.size() > 3) return std::nullopt;
    double total = 0;
    for (const auto& p : parts) {
      if (p.empty() || !std::all_of(p.begin(), p.end(), ::isdigit)) return std::nullopt;
      total = total * 60 + std::atof(p.c_str());
    }
    return total;
  }
  // Plain number of seconds.
  char* end = nullptr;
  double plain = std::strtod(s.c_str(), &end);
  if (end && *end == '\0') return plain >= 0 ? std::optional<double>(plain) : std::nullopt;
  // Sequence of <number><unit>, units in decreasing order, each at most once.
  const std::string units = "dhms";
  const double factor[] = {86400, 3600, 60, 1};
  size_t i = 0;
  int last_unit = -1;
  double total = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    if (j == i || j >= s.size()) return std::nullopt;
    size_t u = units.find(static_cast<char>(std::tolower(static_cast<unsigned char>(s[j]))));
    if (u == std::string::npos || static_cast<int>(u) <= last_unit) return std::nullopt;
    std::string num(s.substr(i, j - i));
    char* e2 = nullptr;
    double v = std::strtod(num.c_str(), &e2);
    if (!e2 || *e2 != '\0') return std::nullopt;
    total += v * factor[u];
    last_unit = static_cast<int>(u);
    i = j + 1;
  }
  return total;
}

std::string FormatHMS(double seconds) {
  long t = static_cast<long>(std::ceil(seconds));
  long d = t / 86400, h = (t / 3600) % 24, m = (t / 60) % 60, s = t % 60;
  char buf[64];
  if (d > 0)
    std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:%02ld", d, h, m, s);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", h, m, s);
  return buf;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string m = ClosestMatch(word, candidates);
  return m.empty() ? "" : ", did you mean '" + m + "'?";
}

std::string FormatNumber(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::vector<std::string> ShellWords(std::string_view s) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
    } else if (c == '\'') {
      while (++i < s.size() && s[i] != '\'') cur += s[i];
    } else if (c == '"') {
      while (++i < s.size() && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < s.size() && std::string_view("\\\"").find(s[i + 1]) != std::string_view::npos) ++i;
        cur += s[i];
      }
    } else {
      cur += c;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

std::string PyFloatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(d), std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);  // "1.5e+16": shortest round-trip digits
  size_t e = sci.find('e');
  std::string digits(sci.substr(0, e));
  if (digits.size() > 1) digits.erase(1, 1);  // the '.'
  int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  std::string out = std::signbit(d) ? "-" : "";
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + ebuf;
  }
  if (exp < 0) return out + "0." + std::string(-exp - 1, '0') + digits;
  size_t int_len = static_cast<size_t>(exp) + 1;
  if (digits.size() <= int_len) return out + digits + std::string(int_len - digits.size(), '0') + ".0";
  return out + digits.substr(0, int_len) + "." + digits.substr(int_len);
}

std::string RegexEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace hb
