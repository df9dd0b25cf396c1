#include "check/regex.h"

#include <gtest/gtest.h>

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
  EXPECT_NE(all.status().message().find("regex too expensive: '^(a+)+$' gave up searching from byte 4"), std::string::npos)
      << all.status().str();
  EXPECT_NE(all.status().message().find("regex_match_limit is 100000"), std::string::npos);
  EXPECT_FALSE(first.ok());
  // Within the limit, the true answer.
  EXPECT_EQ(Whole(re, "aaaa\nb\naaaa\n").size(), 2u);
}

}  // namespace
}  // namespace hb
