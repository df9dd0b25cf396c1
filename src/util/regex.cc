#include "util/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
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

}  // namespace

Result<Regex> Regex::Compile(const std::string& pattern) {
  Translated t = TranslatePython(pattern);
  pcre2_compile_context* ctx = pcre2_compile_context_create(nullptr);
  pcre2_set_newline(ctx, PCRE2_NEWLINE_LF);
  int err = 0;
  PCRE2_SIZE err_off = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(t.text.data()), t.text.size(),
                                   PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX, &err, &err_off, ctx);
  pcre2_compile_context_free(ctx);
  if (!code) {
    size_t at = err_off < t.origin.size() ? t.origin[err_off] : pattern.size();
    return Status::Error("invalid regex '" + pattern + "': " + ErrorText(err) + " at offset " + std::to_string(at));
  }
  // JIT is an optimisation only: without it pcre2_match interprets.
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD);
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

namespace {

constexpr char kInterrupted[] = "interrupted while searching the output";
constexpr size_t kReadBlock = size_t{1} << 20;
// Segment sizes: start small so that a slow pattern is noticed within one
// short segment, grow while segments are quick.
constexpr size_t kMaxSegment = size_t{1} << 20;
constexpr double kSlowSegmentS = 0.05;
constexpr double kQuickSegmentS = 0.01;

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The text Scan holds: bytes [base, base + data.size()) of the whole text,
// and how many newlines come before a position (for Line()).
struct ScanBuffer : Regex::MatchPlace {
  std::string data;
  uint64_t base = 0;
  bool eof = false;
  uint64_t lines_before_base = 0;  // newlines in the text before `base`
  size_t counted = 0;              // data[0, counted) is in counted_lines
  uint64_t counted_lines = 0;      // newlines in data[0, counted)
  size_t match_at = 0;             // the visited match's start, in data

  Status Fill(Regex::ScanSource& src, size_t want) {
    if (!eof && data.size() < want && scratch.empty()) scratch.resize(kReadBlock);
    while (!eof && data.size() < want) {
      Result<size_t> n = src.Read(scratch.data(), scratch.size());
      if (!n.ok()) return n.status();
      if (*n == 0) eof = true;
      data.append(scratch.data(), *n);
    }
    return Status::OK();
  }
  std::string scratch;  // what Read fills before it is appended
  // Forgets data[0, n).
  void Drop(size_t n) {
    CountTo(n);
    lines_before_base += counted_lines;
    counted_lines = 0;
    counted -= n;
    data.erase(0, n);
    base += n;
  }
  void CountTo(size_t pos) {
    if (pos <= counted) return;
    counted_lines += std::count(data.begin() + counted, data.begin() + pos, '\n');
    counted = pos;
  }
  uint64_t Line() const override {
    auto* self = const_cast<ScanBuffer*>(this);
    self->CountTo(match_at);
    return lines_before_base + counted_lines + 1;
  }
  std::string LineText(size_t max_bytes) const override {
    size_t begin = match_at == 0 ? std::string::npos : data.rfind('\n', match_at - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    size_t end = data.find('\n', match_at);
    std::string line = data.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > max_bytes) line = line.substr(0, max_bytes) + "...";
    return line;
  }
};

void SetMatch(const ScanBuffer& buf, pcre2_match_data* md, int rc, RegexMatch& m) {
  PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
  uint32_t pairs = pcre2_get_ovector_count(md);
  m.offset = buf.base + ov[0];
  m.groups.resize(pairs);
  for (uint32_t g = 0; g < pairs; ++g) {
    if (static_cast<int>(g) >= rc || ov[2 * g] == PCRE2_UNSET) {
      m.groups[g].reset();
    } else {
      m.groups[g].emplace(buf.data, ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
    }
  }
}

// The end of the next segment: just past the first newline at or after
// `min_end` (a whole line), or everything read when the line goes on.
size_t SegmentEnd(const ScanBuffer& buf, size_t min_end) {
  if (min_end >= buf.data.size()) return buf.data.size();
  size_t nl = buf.data.find('\n', min_end - 1);
  return nl == std::string::npos ? buf.data.size() : nl + 1;
}

}  // namespace

bool Regex::ScanInterrupted(const Status& st) { return !st.ok() && st.message() == kInterrupted; }

// Iterates like pcre2demo.c (and Python's finditer): after an empty match,
// first try a non-empty match at the same place, then move on one byte.
// Each segment but the last is searched with PCRE2_PARTIAL_HARD: a match
// that reaches the segment's end comes back partial, and is tried again
// from its start once the next segment is appended.
Status Regex::Scan(ScanSource& source, const ScanOptions& opt, const ScanVisitor& visit) const {
  std::unique_ptr<pcre2_match_data, MatchDataFree> md(pcre2_match_data_create_from_pattern(code_, nullptr));
  std::unique_ptr<pcre2_match_context, MatchContextFree> mc(pcre2_match_context_create(nullptr));
  if (!md || !mc) return Status::Error("regex '" + pattern_ + "': out of memory");
  pcre2_set_match_limit(mc.get(), g_match_limit);
  pcre2_set_depth_limit(mc.get(), g_match_limit);
  uint32_t lookbehind = 0;
  pcre2_pattern_info(code_, PCRE2_INFO_MAXLOOKBEHIND, &lookbehind);
  // Kept before the search position: the lookbehind, and at least one byte
  // so that ^ and \b see the byte before and \A cannot match mid-text.
  const size_t keep = std::max<size_t>(lookbehind, 1);

  ScanBuffer buf;
  RegexMatch m;
  size_t start = 0;    // where the next pcre2_match starts, in buf.data
  uint32_t retry = 0;  // empty-match retry flags for that call
  size_t seg_end = 0;  // the end of the segment searched last
  size_t target = std::max<size_t>(opt.first_segment, 1);
  bool grow = false;  // a partial match needs a longer segment
  while (true) {
    if (opt.interrupted && opt.interrupted()) return Status::Error(kInterrupted);
    // Forget what no match can need any more.
    if (start > keep + kReadBlock) buf.Drop(start - keep), seg_end -= start - keep, start = keep;
    size_t min_end = std::max(start + target, grow ? seg_end + target : size_t{0});
    Status st = buf.Fill(source, min_end);
    if (!st.ok()) return st;
    seg_end = SegmentEnd(buf, min_end);
    if (start > seg_end) return Status::OK();  // stepped past the end
    const bool final = buf.eof && seg_end == buf.data.size();
    const uint32_t partial = final ? 0 : PCRE2_PARTIAL_HARD;
    grow = false;
    auto t0 = std::chrono::steady_clock::now();
    auto subj = reinterpret_cast<PCRE2_SPTR>(buf.data.data());
    while (start <= seg_end) {
      int rc = pcre2_match(code_, subj, seg_end, start, retry | partial, md.get(), mc.get());
      PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
      if (rc == PCRE2_ERROR_PARTIAL) {
        if (seg_end - ov[0] > opt.max_match_span)
          return Status::Error("regex too long a match: '" + pattern_ + "' would match more than " +
                               std::to_string(opt.max_match_span >> 20) + " MiB of the output from byte " +
                               std::to_string(buf.base + ov[0]) +
                               " (a pattern such as (?s).* runs to the end of the file); make the pattern stop "
                               "at the end of a line");
        start = ov[0];
        grow = true;
        break;
      }
      if (rc == PCRE2_ERROR_NOMATCH && retry != 0) {
        retry = 0;  // no non-empty match here: step over one byte
        ++start;
        continue;
      }
      if (rc == PCRE2_ERROR_NOMATCH) {
        if (final) return Status::OK();
        start = seg_end;
        break;
      }
      if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
        return Status::Error("regex too expensive: '" + pattern_ + "' gave up searching from byte " +
                             std::to_string(buf.base + start) + " of the output (" + ErrorText(rc) +
                             "; general: regex_match_limit is " + std::to_string(g_match_limit) +
                             "); simplify the pattern (nested quantifiers such as "
                             "(a+)+ backtrack exponentially) or raise the limit");
      if (rc < 0) return Status::Error("regex '" + pattern_ + "' failed on the output: " + ErrorText(rc));
      SetMatch(buf, md.get(), rc, m);
      buf.match_at = ov[0];
      if (!visit(m, buf)) return Status::OK();
      retry = ov[0] == ov[1] ? (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED) : 0;
      start = ov[1];
    }
    if (final && start > seg_end) return Status::OK();
    double took = SecondsSince(t0);
    if (took > kSlowSegmentS)
      target = std::max<size_t>(target / 8, 1);
    else if (took < kQuickSegmentS && target < kMaxSegment)
      target = std::min(target * 2, kMaxSegment);
  }
}

Result<size_t> StringScanSource::Read(char* dst, size_t n) {
  size_t k = std::min({n, max_read_, text_.size() - pos_});
  std::memcpy(dst, text_.data() + pos_, k);
  pos_ += k;
  return k;
}

Result<std::unique_ptr<FileScanSource>> FileScanSource::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error("cannot read '" + path + "': " + std::strerror(errno));
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<FileScanSource>(new FileScanSource(path, fd));
}

FileScanSource::~FileScanSource() {
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> FileScanSource::Read(char* dst, size_t n) {
  while (true) {
    ssize_t k = ::read(fd_, dst, n);
    if (k >= 0) return static_cast<size_t>(k);
    if (errno != EINTR) return Status::Error("cannot read '" + path_ + "': " + std::strerror(errno));
  }
}

Result<std::vector<RegexMatch>> Regex::FindAll(std::string_view subject) const {
  std::vector<RegexMatch> out;
  StringScanSource src(subject);
  Status st = Scan(src, {}, [&out](const RegexMatch& m, const MatchPlace&) {
    out.push_back(m);
    return true;
  });
  if (!st.ok()) return st;
  return out;
}

Result<std::optional<RegexMatch>> Regex::FindFirst(std::string_view subject) const {
  std::optional<RegexMatch> out;
  StringScanSource src(subject);
  Status st = Scan(src, {}, [&out](const RegexMatch& m, const MatchPlace&) {
    out = m;
    return false;
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace hb
