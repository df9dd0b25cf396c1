#include "check/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <atomic>
#include <cctype>
#include <memory>

namespace hb {

namespace {

// The pattern PCRE2 compiles, and for each of its bytes the offset of the
// byte of the original pattern it came from (to report error offsets).
struct Translated {
  std::string text;
  std::vector<size_t> origin;
};

// True when `p` at `i` starts "{,<digits>}", Python's spelling of {0,n}.
bool IsOpenLowerQuantifier(const std::string& p, size_t i) {
  if (p.compare(i, 2, "{,") != 0) return false;
  size_t j = i + 2;
  while (j < p.size() && std::isdigit(static_cast<unsigned char>(p[j]))) ++j;
  return j > i + 2 && j < p.size() && p[j] == '}';
}

// Rewrites the few Python spellings PCRE2 reads differently (see regex.h).
// Character classes are copied untouched.
Translated TranslatePython(const std::string& p) {
  Translated t;
  auto put = [&t](const std::string& s, size_t from) {
    for (char c : s) {
      t.text += c;
      t.origin.push_back(from);
    }
  };
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      put(!in_class && p[i + 1] == 'Z' ? "\\z" : p.substr(i, 2), i);
      ++i;
    } else if (!in_class && c == '[') {
      in_class = true;
      put("[", i);
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < p.size() && p[i + 1] == '^') put("^", ++i);
      if (i + 1 < p.size() && p[i + 1] == ']') put("]", ++i);
    } else if (in_class && c == ']') {
      in_class = false;
      put("]", i);
    } else if (!in_class && IsOpenLowerQuantifier(p, i)) {
      put("{0,", i);
      ++i;
    } else {
      put(std::string(1, c), i);
    }
  }
  t.origin.push_back(p.size());  // an error may point just past the end
  return t;
}

std::string ErrorText(int code) {
  PCRE2_UCHAR buf[256];
  int n = pcre2_get_error_message(code, buf, sizeof buf);
  if (n < 0) return "error " + std::to_string(code);
  return std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
}

struct MatchDataFree {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};

RegexMatch ToMatch(std::string_view subject, pcre2_match_data* md, int rc) {
  PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  uint32_t pairs = pcre2_get_ovector_count(md);
  RegexMatch m;
  m.offset = ov[0];
  m.groups.resize(pairs);
  for (uint32_t g = 0; g < pairs && static_cast<int>(g) < rc; ++g) {
    if (ov[2 * g] == PCRE2_UNSET) continue;
    m.groups[g] = std::string(subject.substr(ov[2 * g], ov[2 * g + 1] - ov[2 * g]));
  }
  return m;
}

}  // namespace

Result<Regex> Regex::Compile(const std::string& pattern) {
  Translated t = TranslatePython(pattern);
  pcre2_compile_context* ctx = pcre2_compile_context_create(nullptr);
  pcre2_set_newline(ctx, PCRE2_NEWLINE_LF);
  int err = 0;
  PCRE2_SIZE err_off = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(t.text.data()), t.text.size(),
                                   PCRE2_MULTILINE, &err, &err_off, ctx);
  pcre2_compile_context_free(ctx);
  if (!code) {
    size_t at = err_off < t.origin.size() ? t.origin[err_off] : pattern.size();
    return Status::Error("invalid regex '" + pattern + "': " + ErrorText(err) + " at offset " +
                         std::to_string(at));
  }
  // JIT is an optimisation only: without it pcre2_match interprets.
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  return Regex(pattern, code);
}

Regex::Regex(Regex&& other) noexcept : pattern_(std::move(other.pattern_)), code_(other.code_) {
  other.code_ = nullptr;
}

Regex& Regex::operator=(Regex&& other) noexcept {
  if (this != &other) {
    pcre2_code_free(code_);
    pattern_ = std::move(other.pattern_);
    code_ = other.code_;
    other.code_ = nullptr;
  }
  return *this;
}

Regex::~Regex() { pcre2_code_free(code_); }

int Regex::group_count() const {
  uint32_t n = 0;
  pcre2_pattern_info(code_, PCRE2_INFO_CAPTURECOUNT, &n);
  return static_cast<int>(n);
}

int Regex::GroupIndex(const std::string& name) const {
  int n = pcre2_substring_number_from_name(code_, reinterpret_cast<PCRE2_SPTR>(name.c_str()));
  return n > 0 ? n : -1;
}

Result<int> Regex::ResolveGroup(const std::string& group) const {
  if (group.empty()) return 0;
  bool numeric = group.find_first_not_of("0123456789") == std::string::npos;
  if (numeric) {
    int n = group.size() > 6 ? -1 : std::stoi(group);
    if (n < 0 || n > group_count()) {
      return Status::Error("no group " + group + " in pattern '" + pattern_ + "' (it has " +
                           std::to_string(group_count()) + ")");
    }
    return n;
  }
  int n = GroupIndex(group);
  if (n < 0) return Status::Error("no group named '" + group + "' in pattern '" + pattern_ + "'");
  return n;
}

namespace {
std::atomic<uint32_t> g_match_limit{Regex::kDefaultMatchLimit};

struct MatchContextFree {
  void operator()(pcre2_match_context* c) const { pcre2_match_context_free(c); }
};
}  // namespace

void Regex::SetMatchLimit(uint32_t limit) { g_match_limit = limit > 0 ? limit : kDefaultMatchLimit; }
uint32_t Regex::match_limit() { return g_match_limit; }

// Iterates like pcre2demo.c (and Python's finditer): after an empty match,
// first try a non-empty match at the same place, then move on one byte.
template <typename Visit>
Status Regex::ForEachMatch(std::string_view subject, Visit visit) const {
  std::unique_ptr<pcre2_match_data, MatchDataFree> md(
      pcre2_match_data_create_from_pattern(code_, nullptr));
  std::unique_ptr<pcre2_match_context, MatchContextFree> mc(pcre2_match_context_create(nullptr));
  if (!md || !mc) return Status::Error("regex '" + pattern_ + "': out of memory");
  pcre2_set_match_limit(mc.get(), g_match_limit);
  pcre2_set_depth_limit(mc.get(), g_match_limit);
  auto subj = reinterpret_cast<PCRE2_SPTR>(subject.data());
  PCRE2_SIZE start = 0;
  uint32_t options = 0;
  while (start <= subject.size()) {
    int rc = pcre2_match(code_, subj, subject.size(), start, options, md.get(), mc.get());
    if (rc == PCRE2_ERROR_NOMATCH && options != 0) {
      options = 0;  // no non-empty match here: step over one byte
      if (++start > subject.size()) return Status::OK();
      continue;
    }
    if (rc == PCRE2_ERROR_NOMATCH) return Status::OK();
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
      return Status::Error("regex too expensive: '" + pattern_ + "' gave up searching from byte " + std::to_string(start) +
                           " of the output (" + ErrorText(rc) + "; general: regex_match_limit is " +
                           std::to_string(g_match_limit) + "); simplify the pattern (nested quantifiers such as "
                           "(a+)+ backtrack exponentially) or raise the limit");
    if (rc < 0) return Status::Error("regex '" + pattern_ + "' failed on the output: " + ErrorText(rc));
    if (!visit(ToMatch(subject, md.get(), rc))) return Status::OK();
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    start = ov[1];
    options = ov[0] == ov[1] ? (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED) : 0;
  }
  return Status::OK();
}

Result<std::vector<RegexMatch>> Regex::FindAll(std::string_view subject) const {
  std::vector<RegexMatch> out;
  Status st = ForEachMatch(subject, [&out](RegexMatch m) {
    out.push_back(std::move(m));
    return true;
  });
  if (!st.ok()) return st;
  return out;
}

Result<std::optional<RegexMatch>> Regex::FindFirst(std::string_view subject) const {
  std::optional<RegexMatch> out;
  Status st = ForEachMatch(subject, [&out](RegexMatch m) {
    out = std::move(m);
    return false;
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace hb
