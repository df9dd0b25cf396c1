#include "check/extract.h"

#include <gtest/gtest.h>

#include <cmath>

#include "util/test_temp_dir.h"

namespace hb {
namespace {

std::vector<ExtractedValue> Values(const std::vector<std::string>& texts, const std::string& type) {
  std::vector<ExtractedValue> out;
  for (const auto& t : texts) out.push_back(*ConvertValue(t, type));
  return out;
}

std::string Reduced(const std::vector<std::string>& texts, const std::string& type, const std::string& reduce) {
  Result<ExtractedValue> v = ReduceValues(Values(texts, type), reduce);
  return v.ok() ? v->text : "error: " + v.status().message();
}

TEST(Extract, ConversionsFollowPython) {
  EXPECT_EQ(ConvertValue(" 1_000 ", "int")->number, 1000);  // int(' 1_000 ')
  EXPECT_EQ(ConvertValue("-7", "int")->number, -7);
  EXPECT_EQ(ConvertValue("1.5", "int").status().message(), "conversion: '1.5' is not an int");
  EXPECT_EQ(ConvertValue("0x10", "int").status().message(), "conversion: '0x10' is not an int");
  EXPECT_EQ(ConvertValue("abc", "int").status().message(), "conversion: 'abc' is not an int");
  EXPECT_EQ(ConvertValue("1.", "float")->number, 1.0);
  EXPECT_EQ(ConvertValue(".5e1", "float")->number, 5.0);
  EXPECT_EQ(ConvertValue("1_0.5e1_0", "float")->number, 105000000000.0);
  EXPECT_TRUE(std::isinf(*ConvertValue(" -inf ", "float")->number));
  EXPECT_TRUE(std::isnan(*ConvertValue("NaN", "float")->number));
  for (const char* bad : {"1e", "0x1p3", "nan(1)", "1_.5", "", "1.2.3"}) {
    EXPECT_FALSE(ConvertValue(bad, "float").ok()) << bad;
  }
  EXPECT_EQ(ConvertValue("abc", "float").status().message(), "conversion: 'abc' is not a float");
  EXPECT_FALSE(ConvertValue("abc", "str")->number.has_value());
}

TEST(Extract, EveryReduce) {
  std::vector<std::string> v = {"3", "1", "4", "1", "5"};
  EXPECT_EQ(Reduced(v, "int", "first"), "3");
  EXPECT_EQ(Reduced(v, "int", "last"), "5");
  EXPECT_EQ(Reduced(v, "int", "min"), "1");
  EXPECT_EQ(Reduced(v, "int", "max"), "5");
  EXPECT_EQ(Reduced(v, "int", "sum"), "14");
  EXPECT_EQ(Reduced(v, "int", "mean"), "2.8");
  EXPECT_EQ(Reduced(v, "int", "median"), "3");
  EXPECT_EQ(Reduced({"1", "2", "10", "4"}, "float", "median"), "3");  // statistics.median: mean of middle two
  EXPECT_EQ(Reduced({"2.5"}, "float", "mean"), "2.5");
}

TEST(Extract, StringReduces) {
  EXPECT_EQ(Reduced({"b", "a", "c"}, "str", "min"), "a");  // Python compares str
  EXPECT_EQ(Reduced({"b", "a", "c"}, "str", "max"), "c");
  EXPECT_EQ(Reduced({"b", "a"}, "str", "mean"), "error: reduce 'mean' needs type int or float");
  // max of numbers is numeric, not lexicographic.
  EXPECT_EQ(Reduced({"9", "10"}, "int", "max"), "10");
}

TEST(Extract, ComparisonsAreNumericWhenBothSidesAreNumbers) {
  ExtractedValue two = *ConvertValue("2", "int");
  EXPECT_TRUE(CheckComparisons(two, {{"eq", "2.0"}, {"lt", "10"}, {"ge", "2"}, {"ne", "3"}}, "x").ok());
  EXPECT_EQ(CheckComparisons(two, {{"gt", "10"}}, "what").message(), "what: 2 is not gt 10");
  // A str value that reads as a number still compares as a number.
  ExtractedValue s = *ConvertValue("9", "str");
  EXPECT_TRUE(CheckComparisons(s, {{"lt", "10"}}, "x").ok());
  ExtractedValue word = *ConvertValue("beta", "str");
  EXPECT_TRUE(CheckComparisons(word, {{"gt", "alpha"}, {"eq", "beta"}}, "x").ok());
  EXPECT_EQ(CheckComparisons(word, {{"eq", "gamma"}}, "x").message(), "x: beta is not eq gamma");
  ExtractedValue nan = *ConvertValue("nan", "float");
  EXPECT_FALSE(CheckComparisons(nan, {{"gt", "0"}}, "x").ok());
  EXPECT_TRUE(CheckComparisons(nan, {{"ne", "0"}}, "x").ok());
}

TEST(Extract, OutputFilesResolveAndStream) {
  TempDir dir;
  std::string out = dir.Write("job.out", "hello\nworld\n");
  OutputFiles files({dir.path(), out, dir.path() + "/job.err", 0});
  EXPECT_EQ(*files.Resolve("stdout"), out);
  Regex re = std::move(Regex::Compile("^(\\w+)$")).value();
  std::vector<std::string> seen;
  ASSERT_TRUE(files
                  .Scan("stdout", re,
                        [&](const RegexMatch& m, const Regex::MatchPlace& at) {
                          seen.push_back(*m.groups[1] + "@" + std::to_string(at.Line()));
                          return true;
                        })
                  .ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"hello@1", "world@2"}));
  EXPECT_EQ(files.Resolve("stderr").status().message(), "stderr file '" + dir.path() + "/job.err' not found");
  EXPECT_EQ(files.Resolve("out.txt").status().message(), "file 'out.txt' not found in the stage directory");
  EXPECT_EQ(files.Resolve("/nonexistent/x").status().message(), "file '/nonexistent/x' not found");
  dir.Write("sub/r.txt", "r");
  EXPECT_EQ(*files.Resolve("sub/r.txt"), dir.path() + "/sub/r.txt");
  EXPECT_EQ(*files.Resolve(dir.path() + "/sub/r.txt"), dir.path() + "/sub/r.txt");
}

// The streaming reducer gives what reducing the whole list gives.
TEST(Extract, ValueReducerMatchesWholeListReduce) {
  for (std::string reduce : {"first", "last", "min", "max", "mean", "median", "sum"}) {
    ValueReducer r("float", reduce);
    for (const char* t : {"3", "1.5", "7", "1.5", "2"}) ASSERT_TRUE(r.Add(std::string(t)).ok());
    std::string want = reduce == "first"    ? "3"
                       : reduce == "last"   ? "2"
                       : reduce == "min"    ? "1.5"
                       : reduce == "max"    ? "7"
                       : reduce == "mean"   ? "3"
                       : reduce == "median" ? "2"
                                            : "15";
    EXPECT_EQ(r.Value()->text, want) << reduce;
  }
  ValueReducer words("str", "mean");
  EXPECT_EQ(words.Add(std::string("x")).message(), "reduce 'mean' needs type int or float");
  EXPECT_EQ(ValueReducer("int", "max").Value().status().message(), "nothing to reduce");
}

}  // namespace
}  // namespace hb
