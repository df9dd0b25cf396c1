// Regex: a compiled PCRE2 pattern that behaves like the Python `re` patterns
// ReFrame users write. ReFrame's sanity functions search a whole file with
// re.finditer(patt, text, re.MULTILINE) (reframe/utility/sanity.py:
// finditer_s), so `^` and `$` match at every line; Regex does the same.
// A few Python spellings PCRE2 reads differently are rewritten before
// compiling: `\Z` (Python: end of text only) becomes PCRE2's `\z`, and the
// quantifier `{,n}` becomes `{0,n}`. Named groups `(?P<name>...)` are native.
//
// A Regex owns its pcre2_code and is move-only. After Compile it is
// read-only: const methods may be called from several threads at once.
#pragma once

#include <cstdint>
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

  // The most backtracking steps one match attempt may take (PCRE2's match
  // limit; also bounds its depth). Set once at start-up from
  // `general: regex_match_limit` (docs/limits.md).
  static constexpr uint32_t kDefaultMatchLimit = 10000000;
  static void SetMatchLimit(uint32_t limit);
  static uint32_t match_limit();

 private:
  Regex(std::string pattern, pcre2_real_code_8* code) : pattern_(std::move(pattern)), code_(code) {}
  // Visits matches until `visit` returns false.
  template <typename Visit>
  Status ForEachMatch(std::string_view subject, Visit visit) const;

  std::string pattern_;
  pcre2_real_code_8* code_ = nullptr;
};

}  // namespace hb
