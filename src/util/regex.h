// Regex: a compiled PCRE2 pattern that behaves like the Python `re` patterns
// ReFrame users write. ReFrame's sanity functions search a whole file with
// re.finditer(patt, text, re.MULTILINE) (reframe/utility/sanity.py:
// finditer_s), so `^` and `$` match at every line; Regex does the same,
// `^` after a final newline included, as in Python (PCRE2_ALT_CIRCUMFLEX;
// it also makes `^` at the end of a segment wait for the next one).
// A few Python spellings PCRE2 reads differently are rewritten before
// compiling: `\Z` (Python: end of text only) becomes PCRE2's `\z`, and the
// quantifier `{,n}` becomes `{0,n}`. Named groups `(?P<name>...)` are native.
//
// A Regex owns its pcre2_code and is move-only. After Compile it is
// read-only: const methods may be called from several threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

struct pcre2_real_code_8;

namespace hb {

// One match: the text of every group (index 0 is the whole match); a group
// that did not take part in the match is nullopt, like Python's None.
struct RegexMatch {
  size_t offset = 0;  // byte offset of the whole match in the subject
  std::vector<std::optional<std::string>> groups;
};

class Regex {
 public:
  // Errors read "invalid regex 'a(b': missing closing parenthesis at offset 3";
  // the offset counts bytes of the pattern as written.
  static Result<Regex> Compile(const std::string& pattern);

  Regex(Regex&& other) noexcept;
  Regex& operator=(Regex&& other) noexcept;
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  ~Regex();

  const std::string& pattern() const { return pattern_; }
  // Number of capturing groups (not counting the whole match).
  int group_count() const;
  // Index of the group called `name`, or -1 when there is none.
  int GroupIndex(const std::string& name) const;
  // Resolves a group as a test file writes it: "" (the whole match), a
  // number ("2") or a name. Errors when the pattern has no such group.
  Result<int> ResolveGroup(const std::string& group) const;

  // All non-overlapping matches, left to right, as Python's re.finditer.
  // An error when PCRE2 gives up (the match limit: "regex too expensive:
  // ..."), never a silent "no match": a not_pattern or a count would
  // otherwise pass on an incomplete search.
  Result<std::vector<RegexMatch>> FindAll(std::string_view subject) const;
  // The first match, if any (errors as FindAll).
  Result<std::optional<RegexMatch>> FindFirst(std::string_view subject) const;

  // Streams `source` through the pattern and calls `visit` for each match,
  // left to right, with the same matches FindAll finds in the whole text,
  // until `visit` returns false. Memory stays bounded whatever the size of
  // the text: it is searched in segments of whole lines with PCRE2's
  // multi-segment partial matching (pcre2partial(3)), keeping only the
  // bytes a match in progress and the pattern's lookbehind need. A single
  // match may span at most ScanOptions::max_match_span bytes; a longer one
  // is an error that says so, not a silent "no match". Between segments
  // (a few milliseconds of work each; segments shrink to one line when a
  // pattern is slow) `options.interrupted` is asked, and a true answer ends
  // the scan with an error ScanInterrupted() recognises.
  struct ScanOptions {
    std::function<bool()> interrupted;
    size_t max_match_span = kDefaultMaxMatchSpan;
    // The size of the first segment (it then adapts). A seam for tests and
    // the fuzzer: 1 makes every line its own segment, a size above the
    // text's makes the whole text one segment, as a single search.
    size_t first_segment = kDefaultFirstSegment;
  };
  static constexpr size_t kDefaultMaxMatchSpan = size_t{64} << 20;
  static constexpr size_t kDefaultFirstSegment = 4096;
  class ScanSource;
  class MatchPlace;
  using ScanVisitor = std::function<bool(const RegexMatch& match, const MatchPlace& place)>;
  Status Scan(ScanSource& source, const ScanOptions& options, const ScanVisitor& visit) const;
  static bool ScanInterrupted(const Status& st);

  // The most backtracking steps one match attempt may take (PCRE2's match
  // limit; also bounds its depth). Set once at start-up from
  // `general: regex_match_limit` (docs/limits.md).
  static constexpr uint32_t kDefaultMatchLimit = 10000000;
  static void SetMatchLimit(uint32_t limit);
  static uint32_t match_limit();

 private:
  Regex(std::string pattern, pcre2_real_code_8* code) : pattern_(std::move(pattern)), code_(code) {}

  std::string pattern_;
  pcre2_real_code_8* code_ = nullptr;
};

// What Regex::Scan reads: Read() fills up to n bytes and returns how many,
// 0 at the end of the text.
class Regex::ScanSource {
 public:
  virtual ~ScanSource() = default;
  virtual Result<size_t> Read(char* dst, size_t n) = 0;
};

// A text in memory. `max_read` bounds what one Read hands out (a seam:
// tests and the fuzzer cut a text into pieces of a few bytes, as a pipe
// might).
class StringScanSource : public Regex::ScanSource {
 public:
  explicit StringScanSource(std::string_view text, size_t max_read = SIZE_MAX) : text_(text), max_read_(max_read) {}
  Result<size_t> Read(char* dst, size_t n) override;

 private:
  std::string_view text_;
  size_t max_read_;
  size_t pos_ = 0;
};

// A file, read in blocks from the start (never loaded whole). Errors name
// the file: "cannot read 'out.txt': Permission denied".
class FileScanSource : public Regex::ScanSource {
 public:
  static Result<std::unique_ptr<FileScanSource>> Open(const std::string& path);
  ~FileScanSource() override;
  Result<size_t> Read(char* dst, size_t n) override;

 private:
  FileScanSource(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
};

// Where a match Scan found lies, for messages; valid only during the
// visit. Line() is the 1-based number of the line the match starts on;
// LineText() that line without its newline, cut at max_bytes ("...").
class Regex::MatchPlace {
 public:
  virtual uint64_t Line() const = 0;
  virtual std::string LineText(size_t max_bytes) const = 0;

 protected:
  ~MatchPlace() = default;
};

}  // namespace hb
