#include "util/strings.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

TEST(Strings, ParseDurationForms) {
  EXPECT_EQ(ParseDuration("90"), 90);
  EXPECT_EQ(ParseDuration("10m"), 600);
  EXPECT_EQ(ParseDuration("1h30m"), 5400);
  EXPECT_EQ(ParseDuration("2d"), 172800);
  EXPECT_EQ(ParseDuration("1h30m15s"), 5415);
  EXPECT_EQ(ParseDuration("01:00:05"), 3605);
  EXPECT_EQ(ParseDuration("1.5"), 1.5);
}

TEST(Strings, ParseDurationRejectsNonsense) {
  EXPECT_FALSE(ParseDuration(""));
  EXPECT_FALSE(ParseDuration("10x"));
  EXPECT_FALSE(ParseDuration("m10"));
  EXPECT_FALSE(ParseDuration("30m1h"));
  EXPECT_FALSE(ParseDuration("-5"));
  EXPECT_FALSE(ParseDuration("1:2:3:4"));
}

TEST(Strings, ShellQuoteKeepsValuesLiteral) {
  EXPECT_EQ(ShellQuote("abc"), "abc");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$(rm -rf /)"), "'$(rm -rf /)'");
}

TEST(Strings, DidYouMean) {
  std::vector<std::string> keys = {"executable", "executable_opts", "valid_systems"};
  EXPECT_EQ(ClosestMatch("exectuable", keys), "executable");
  EXPECT_EQ(ClosestMatch("valid_system", keys), "valid_systems");
  EXPECT_EQ(ClosestMatch("zzz", keys), "");
  EXPECT_EQ(DidYouMean("exectuable", keys), ", did you mean 'executable'?");
}

TEST(Strings, ByteSizes) {
  EXPECT_EQ(ParseByteSize("1048576"), 1048576u);
  EXPECT_EQ(ParseByteSize("1GiB"), uint64_t{1} << 30);
  EXPECT_EQ(ParseByteSize("4G"), uint64_t{4} << 30);  // as Slurm's --mem=4G
  EXPECT_EQ(ParseByteSize("1.5 MiB"), 1572864u);
  EXPECT_EQ(ParseByteSize("2GB"), 2000000000u);
  EXPECT_EQ(ParseByteSize("10 B"), 10u);
  for (const char* bad : {"", "G", "1 GiBs", "-1G", "1..2M", "lots", "1e3", "99999999999T"})
    EXPECT_FALSE(ParseByteSize(bad)) << bad;
  EXPECT_EQ(FormatByteSize(uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(FormatByteSize(1572864), "1.5 MiB");
  EXPECT_EQ(FormatByteSize(100), "100 B");
}

TEST(Strings, FormatHMS) {
  EXPECT_EQ(FormatHMS(5400), "01:30:00");
  EXPECT_EQ(FormatHMS(90061), "1-01:01:01");
}

TEST(Strings, SplitJoinTrim) {
  EXPECT_EQ(Split("a,b,,c", ','), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(Join({"a", "b"}, ", "), "a, b");
  EXPECT_EQ(Trim("  x y \n"), "x y");
}

}  // namespace

TEST(Strings, ShellWordsSplitsAsShlex) {
  EXPECT_EQ(ShellWords("  -t  nightly "), (std::vector<std::string>{"-t", "nightly"}));
  EXPECT_EQ(ShellWords("-S 'executable_opts=-n 4' -x\"a b\"c"),
            (std::vector<std::string>{"-S", "executable_opts=-n 4", "-xa bc"}));
  EXPECT_EQ(ShellWords(R"(a\ b "q\"x" '')"), (std::vector<std::string>{"a b", "q\"x", ""}));
}

}  // namespace hb
