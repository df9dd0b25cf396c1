#include "util/regex.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace hb {
namespace {

std::vector<std::string> Whole(const Regex& re, const std::string& text) {
  std::vector<std::string> out;
  auto all = re.FindAll(text);
  EXPECT_TRUE(all.ok()) << all.status().str();
  if (all.ok())
    for (const auto& m : *all) out.push_back(*m.groups[0]);
  return out;
}

Regex MustCompile(const std::string& pattern) {
  Result<Regex> re = Regex::Compile(pattern);
  EXPECT_TRUE(re.ok()) << re.status().str();
  return std::move(re).value();
}

TEST(Regex, InvalidPatternNamesPcreMessageAndOffset) {
  Result<Regex> re = Regex::Compile("a(b");
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().message(), "invalid regex 'a(b': missing closing parenthesis at offset 3");
}

TEST(Regex, ErrorOffsetCountsThePatternAsWritten) {
  // "{,2}" is rewritten to "{0,2}" before compiling; the offset must not move.
  Result<Regex> re = Regex::Compile("x{,2}(?<");
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().message(), "invalid regex 'x{,2}(?<': subpattern name expected at offset 8");
}

TEST(Regex, CaretAndDollarMatchAtEveryLineLikeReframe) {
  // ReFrame searches with re.MULTILINE (reframe/utility/sanity.py finditer_s).
  EXPECT_EQ(Whole(MustCompile("^x"), "x\nx\ny"), (std::vector<std::string>{"x", "x"}));
  EXPECT_EQ(Whole(MustCompile("\\d$"), "1\n2\n"), (std::vector<std::string>{"1", "2"}));
  // Python: re.findall('^', 'a\n', re.M) == ['', ''] (after the last newline too).
  EXPECT_EQ(Whole(MustCompile("^"), "a\n").size(), 2u);
}

TEST(Regex, PythonEndOfTextAnchor) {
  // Python: re.search(r'a\Z', 'a\n') is None; PCRE2's \Z would match.
  EXPECT_FALSE(MustCompile("a\\Z").FindFirst("a\n").value());
  EXPECT_TRUE(MustCompile("a\\Z").FindFirst("a").value());
}

TEST(Regex, PythonOpenLowerBoundQuantifier) {
  // Python: re.findall(r'a{,2}', 'aaa') == ['aa', 'a', '']
  EXPECT_EQ(Whole(MustCompile("a{,2}"), "aaa"), (std::vector<std::string>{"aa", "a", ""}));
  // Inside a class, "{," stays literal.
  EXPECT_EQ(Whole(MustCompile("[{,]"), "a,{"), (std::vector<std::string>{",", "{"}));
}

TEST(Regex, EmptyMatchesIterateLikePythonFinditer) {
  // Python: re.findall(r'\b|:+', 'a::bc') == ['', '', '::', '', '']
  EXPECT_EQ(Whole(MustCompile("\\b|:+"), "a::bc"), (std::vector<std::string>{"", "", "::", "", ""}));
}

TEST(Regex, GroupsByIndexAndByName) {
  Regex re = MustCompile("(?P<name>\\w+)=(\\d+)(x)?");
  EXPECT_EQ(re.group_count(), 3);
  EXPECT_EQ(re.GroupIndex("name"), 1);
  EXPECT_EQ(re.GroupIndex("nope"), -1);
  std::vector<RegexMatch> ms = re.FindAll("a=1 b=22x").value();
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(*ms[0].groups[1], "a");
  EXPECT_EQ(*ms[0].groups[2], "1");
  EXPECT_FALSE(ms[0].groups[3].has_value());  // Python's None
  EXPECT_EQ(*ms[1].groups[3], "x");
  EXPECT_EQ(ms[1].offset, 4u);
}

TEST(Regex, ResolveGroup) {
  Regex re = MustCompile("(?P<v>\\d+) (\\w)");
  EXPECT_EQ(*re.ResolveGroup(""), 0);
  EXPECT_EQ(*re.ResolveGroup("2"), 2);
  EXPECT_EQ(*re.ResolveGroup("v"), 1);
  EXPECT_EQ(re.ResolveGroup("3").status().message(), "no group 3 in pattern '(?P<v>\\d+) (\\w)' (it has 2)");
  EXPECT_EQ(re.ResolveGroup("w").status().message(), "no group named 'w' in pattern '(?P<v>\\d+) (\\w)'");
}

TEST(Regex, MovedFromRegexLeavesTheOtherUsable) {
  Regex a = MustCompile("b+");
  Regex b = std::move(a);
  EXPECT_EQ(Whole(b, "abbcb"), (std::vector<std::string>{"bb", "b"}));
  a = MustCompile("c");
  EXPECT_EQ(Whole(a, "abbcb"), (std::vector<std::string>{"c"}));
}

// PCRE2 giving up is an error, never "no match": a not_pattern would pass
// and a count would be short on an incomplete search.
TEST(Regex, MatchLimitIsAnErrorNotNoMatch) {
  Regex re = MustCompile("^(a+)+$");
  std::string text = "aaaa\n" + std::string(40, 'a') + "b\naaaa\n";
  Regex::SetMatchLimit(100000);
  auto all = re.FindAll(text);
  auto first = re.FindFirst(std::string(40, 'a') + "c");
  Regex::SetMatchLimit(Regex::kDefaultMatchLimit);
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("regex too expensive: '^(a+)+$' gave up searching from byte 4"),
            std::string::npos)
      << all.status().str();
  EXPECT_NE(all.status().message().find("regex_match_limit is 100000"), std::string::npos);
  EXPECT_FALSE(first.ok());
  // Within the limit, the true answer.
  EXPECT_EQ(Whole(re, "aaaa\nb\naaaa\n").size(), 2u);
}

struct Found {
  std::vector<std::string> texts;
  std::vector<size_t> offsets;
  std::vector<uint64_t> lines;
};

Found ScanAll(const Regex& re, const std::string& text, size_t block, Regex::ScanOptions opts = {}) {
  StringScanSource src(text, block);
  Found f;
  Status st = re.Scan(src, opts, [&](const RegexMatch& m, const Regex::MatchPlace& at) {
    f.texts.push_back(*m.groups[0]);
    f.offsets.push_back(m.offset);
    f.lines.push_back(at.Line());
    return true;
  });
  EXPECT_TRUE(st.ok()) << st.str();
  return f;
}

// 200000 numbered lines: about 3.4 MB, many segments of the scan.
std::string NumberedLines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "item " + std::to_string(i) + " value " + std::to_string(i % 97) + "\n";
  return text;
}

TEST(RegexScan, EveryLineOfALargeTextIsMatchedOnceWithItsLineNumber) {
  std::string text = NumberedLines(200000);
  Regex re = MustCompile("^item (\\d+) value (\\d+)$");
  for (size_t block : {size_t{1} << 20, size_t{4093}, size_t{7}}) {
    Found f = ScanAll(re, text, block);
    ASSERT_EQ(f.texts.size(), 200000u) << block;
    for (size_t i = 0; i < f.texts.size(); i += 9973) {
      EXPECT_EQ(f.texts[i], "item " + std::to_string(i) + " value " + std::to_string(i % 97));
      EXPECT_EQ(f.lines[i], i + 1);
      EXPECT_EQ(text.compare(f.offsets[i], f.texts[i].size(), f.texts[i]), 0);
    }
  }
}

// Matches that run over a segment's end are found whole: a pattern over
// two lines, a number 3 MB long, `$` and `\b` at the end of a piece.
TEST(RegexScan, MatchesAcrossSegmentEndsAreFoundWhole) {
  std::string text = NumberedLines(100000);
  // Line 77604 is "item 77603 value 3" (77603 % 97 == 3).
  Found two = ScanAll(MustCompile("value 3\nitem 77604 "), text, 4093);
  ASSERT_EQ(two.texts.size(), 1u);
  EXPECT_EQ(two.lines[0], 77604u);
  std::string digits(3 << 20, '7');
  std::string big = text + "x" + digits + "y\n" + text;
  Found num = ScanAll(MustCompile("x(\\d+)y$"), big, 65536);
  ASSERT_EQ(num.texts.size(), 1u);
  EXPECT_EQ(num.texts[0].size(), digits.size() + 2);
  EXPECT_EQ(num.offsets[0], text.size());
  // A word cut by a piece's end is not a word boundary.
  std::string words(5000, 'w');
  words += "abc def\n";
  for (size_t block : {size_t{1}, size_t{5001}, size_t{5002}, size_t{5003}})
    EXPECT_EQ(ScanAll(MustCompile("\\b\\w+\\b"), words, block).texts,
              (std::vector<std::string>{std::string(5000, 'w') + "abc", "def"}));
}

TEST(RegexScan, LookbehindAndStartOfTextSeeTheWholeText) {
  std::string text = NumberedLines(50000);
  Found lb = ScanAll(MustCompile("(?<=item 4999\\d value )\\d+"), text, 4096);
  EXPECT_EQ(lb.texts.size(), 10u);
  // \A is the start of the whole text, not of a segment.
  std::string heads;
  for (int i = 0; i < 100000; ++i) heads += "head\n";
  EXPECT_EQ(ScanAll(MustCompile("\\Ahead"), heads, 4096).texts.size(), 1u);
  EXPECT_EQ(ScanAll(MustCompile("^head$"), heads, 4096).texts.size(), 100000u);
  // Empty matches step through the text like Python's finditer.
  EXPECT_EQ(ScanAll(MustCompile("x*"), std::string(10000, '-'), 333).texts.size(), 10001u);
}

TEST(RegexScan, AMatchLongerThanTheSpanLimitIsAnError) {
  std::string text = "BEGIN\n" + NumberedLines(300000) + "END\n";  // 6 MB
  Regex re = MustCompile("(?s)BEGIN.*END");
  Regex::ScanOptions opts;
  opts.max_match_span = 1 << 20;
  StringScanSource src(text, 1 << 20);
  Status st = re.Scan(src, opts, [](const RegexMatch&, const Regex::MatchPlace&) { return true; });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("would match more than 1 MiB of the output from byte 0"), std::string::npos) << st.str();
  // Within the limit the match is found.
  EXPECT_EQ(ScanAll(re, text, 1 << 20).texts.size(), 1u);
}

TEST(RegexScan, InterruptedIsAskedBetweenSegmentsAndStopsTheScan) {
  std::string text = NumberedLines(200000);
  int asked = 0;
  Regex::ScanOptions opts;
  opts.interrupted = [&asked] { return ++asked == 5; };
  StringScanSource src(text, 1 << 20);
  size_t matches = 0;
  Status st = MustCompile("^item").Scan(src, opts, [&](const RegexMatch&, const Regex::MatchPlace&) {
    ++matches;
    return true;
  });
  EXPECT_TRUE(Regex::ScanInterrupted(st)) << st.str();
  EXPECT_EQ(asked, 5);
  EXPECT_GT(matches, 0u);
  EXPECT_LT(matches, 200000u);
}

TEST(RegexScan, PlaceGivesTheLineOfTheMatch) {
  std::string text = NumberedLines(30000) + "ERROR: disk full\r\n" + NumberedLines(10);
  StringScanSource src(text, 4096);
  std::string where;
  ASSERT_TRUE(MustCompile("disk")
                  .Scan(src, {},
                        [&](const RegexMatch&, const Regex::MatchPlace& at) {
                          where = std::to_string(at.Line()) + ":" + at.LineText(120) + "|" + at.LineText(5);
                          return false;
                        })
                  .ok());
  EXPECT_EQ(where, "30001:ERROR: disk full|ERROR...");
}

TEST(RegexScan, FileSourceReadsAFileAndNamesItInErrors) {
  auto missing = FileScanSource::Open("/nonexistent/out");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "cannot read '/nonexistent/out': No such file or directory");
}

// Found by fuzz/fuzz_scan.cc: an optional group starting with ^ at the
// very end of a segment must wait for the next segment, not match empty.
TEST(RegexScan, CaretAtASegmentsEndWaitsForTheNextSegment) {
  std::string text = "x\naaa";
  Found whole = ScanAll(MustCompile("(^(a+))?"), text, 1 << 20);
  Found pieces = ScanAll(MustCompile("(^(a+))?"), text, 1, [] {
    Regex::ScanOptions o;
    o.first_segment = 1;
    return o;
  }());
  EXPECT_EQ(whole.offsets, (std::vector<size_t>{0, 1, 2, 5}));  // as Python's re.finditer
  EXPECT_EQ(pieces.offsets, whole.offsets);
  EXPECT_EQ(pieces.texts, whole.texts);
}

}  // namespace
}  // namespace hb
