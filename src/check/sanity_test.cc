#include "check/sanity.h"
#include "util/regex.h"

#include <gtest/gtest.h>

#include "util/test_temp_dir.h"

namespace hb {
namespace {

SanitySpec Found(const std::string& pattern, const std::string& in = "stdout") {
  SanitySpec s;
  s.pattern = pattern;
  s.in = in;
  return s;
}

SanitySpec NotFound(const std::string& pattern, const std::string& in) {
  SanitySpec s = Found(pattern, in);
  s.kind = SanitySpec::Kind::kNotPattern;
  return s;
}

SanitySpec Value(const std::string& pattern, const std::string& group, const std::string& type,
                 std::vector<Comparison> checks, const std::string& reduce = "first") {
  SanitySpec s = Found(pattern);
  s.group = group;
  s.type = type;
  s.reduce = reduce;
  s.value_checks = std::move(checks);
  return s;
}

SanitySpec Count(const std::string& pattern, std::vector<Comparison> checks) {
  SanitySpec s = Found(pattern);
  s.count_checks = std::move(checks);
  return s;
}

SanitySpec ExitCodes(std::vector<int> codes) {
  SanitySpec s;
  s.kind = SanitySpec::Kind::kExitCode;
  s.exit_codes = std::move(codes);
  return s;
}

class SanityTest : public ::testing::Test {
 protected:
  SanityTest() {
    in_.stagedir = dir_.path();
    in_.stdout_path = dir_.Write("job.out",
                                 "STREAM version 5.10\n"
                                 "Triad: 1000.5\n"
                                 "Triad: 1200.25\n"
                                 "wrong: 2\n"
                                 "x x x\n"
                                 "Solution Validates\n");
    std::string err;
    for (int i = 1; i <= 11; ++i) err += "warning " + std::to_string(i) + "\n";
    in_.stderr_path = dir_.Write("job.err", err + "ERROR: bad\nERROR: worse\n");
    dir_.Write("out.txt", "result=42\nname=alpha\n");
  }

  std::string Eval(const std::vector<SanitySpec>& specs) {
    Status st = EvaluateSanity(specs, in_);
    return st.ok() ? "ok" : st.message();
  }

  TempDir dir_;
  CheckInput in_;
};

TEST_F(SanityTest, PatternMustBeFound) {
  EXPECT_EQ(Eval({Found("Solution Validates")}), "ok");
  EXPECT_EQ(Eval({Found("Solution Failed")}), "pattern 'Solution Failed' not found in stdout");
  EXPECT_EQ(Eval({Found("result=42", "out.txt")}), "ok");
  EXPECT_EQ(Eval({Found("result=43", "out.txt")}), "pattern 'result=43' not found in out.txt");
}

TEST_F(SanityTest, NotPatternNamesTheFirstOffendingLine) {
  EXPECT_EQ(Eval({NotFound("FATAL", "stderr")}), "ok");
  EXPECT_EQ(Eval({NotFound("ERROR", "stderr")}), "pattern 'ERROR' found in stderr (line 12: \"ERROR: bad\")");
  EXPECT_EQ(Eval({NotFound("^STREAM", "stdout")}),
            "pattern '^STREAM' found in stdout (line 1: \"STREAM version 5.10\")");
}

// A not_pattern whose search PCRE2 abandons must not pass (issue 16, item 3).
TEST_F(SanityTest, ARegexThatGivesUpFailsTheCheck) {
  in_.stdout_path = dir_.Write("slow.out", std::string(40, 'a') + "b\nERROR here\n");
  Regex::SetMatchLimit(100000);
  std::string got = Eval({NotFound("^(a+)+$|ERROR", "stdout")});
  Regex::SetMatchLimit(Regex::kDefaultMatchLimit);
  EXPECT_EQ(got.rfind("regex too expensive: '^(a+)+$|ERROR' gave up searching", 0), 0u) << got;
  EXPECT_NE(Eval({NotFound("^(a+)+$|ERROR", "stdout")}), "ok");  // the default limit finds line 2
}

TEST_F(SanityTest, CaretMatchesAtLineStartsLikeReframe) { EXPECT_EQ(Eval({Found("^Solution Validates$")}), "ok"); }

TEST_F(SanityTest, ValueChecks) {
  EXPECT_EQ(Eval({Value("wrong: (\\d+)", "1", "int", {{"eq", "2"}})}), "ok");
  EXPECT_EQ(Eval({Value("wrong: (\\d+)", "1", "int", {{"eq", "0"}})}),
            "'wrong: (\\d+)' group 1 in stdout: 2 is not eq 0");
  EXPECT_EQ(Eval({Value("Triad: (?P<bw>\\S+)", "bw", "float", {{"gt", "1100"}}, "max")}), "ok");
  EXPECT_EQ(Eval({Value("Triad: (?P<bw>\\S+)", "bw", "float", {{"gt", "1100"}})}),
            "'Triad: (?P<bw>\\S+)' group bw in stdout: 1000.5 is not gt 1100");
  EXPECT_EQ(Eval({Value("Triad: (\\S+)", "1", "float", {{"lt", "1000"}}, "mean")}),
            "mean of 'Triad: (\\S+)' group 1 in stdout: 1100.375 is not lt 1000");
  EXPECT_EQ(Eval({Value("STREAM version (\\S+)", "1", "str", {{"eq", "5.10"}})}), "ok");  // numeric: 5.1 == 5.10
  EXPECT_EQ(Eval({Value("name=(\\w+)", "1", "str", {{"eq", "alpha"}})}), "pattern 'name=(\\w+)' not found in stdout");
}

TEST_F(SanityTest, ValueCheckOnAMissingPatternFailsAsNotFound) {
  EXPECT_EQ(Eval({Value("missing: (\\d+)", "1", "int", {{"eq", "0"}})}),
            "pattern 'missing: (\\d+)' not found in stdout");
}

TEST_F(SanityTest, ConversionErrors) {
  EXPECT_EQ(Eval({Value("Triad: (\\S+)", "1", "int", {{"gt", "0"}})}), "conversion: '1000.5' is not an int");
}

TEST_F(SanityTest, CountChecks) {
  EXPECT_EQ(Eval({Count("x", {{"eq", "3"}})}), "ok");
  EXPECT_EQ(Eval({Count("x", {{"ge", "4"}})}), "count of 'x' in stdout: 3 is not ge 4");
  // A count of zero may be just what is asked.
  EXPECT_EQ(Eval({Count("nothing", {{"eq", "0"}})}), "ok");
}

TEST_F(SanityTest, MissingFile) {
  EXPECT_EQ(Eval({Found("x", "out2.txt")}), "file 'out2.txt' not found in the stage directory");
  EXPECT_EQ(Eval({NotFound("x", "out2.txt")}), "file 'out2.txt' not found in the stage directory");
}

TEST_F(SanityTest, NonZeroExitCodeFailsFirst) {
  in_.exit_code = 3;
  EXPECT_EQ(Eval({Found("Solution Failed")}), "exit code 3");
  EXPECT_EQ(Eval({}), "exit code 3");
  in_.exit_code = -1;  // unknown: the patterns decide
  EXPECT_EQ(Eval({Found("Solution Validates")}), "ok");
}

TEST_F(SanityTest, ExitCodeSpecReplacesTheDefaultCheck) {
  in_.exit_code = 3;
  EXPECT_EQ(Eval({ExitCodes({0, 3}), Found("Solution Validates")}), "ok");
  EXPECT_EQ(Eval({Found("Solution Failed"), ExitCodes({3})}), "pattern 'Solution Failed' not found in stdout");
  EXPECT_EQ(Eval({ExitCodes({0})}), "exit code 3 is not 0");
  EXPECT_EQ(Eval({ExitCodes({0, 1})}), "exit code 3 is not one of 0, 1");
  in_.exit_code = -1;
  EXPECT_EQ(Eval({ExitCodes({0})}), "exit code is unknown");
}

TEST_F(SanityTest, ReturnsTheFirstFailureInOrder) {
  EXPECT_EQ(Eval({Found("Solution Validates"), NotFound("ERROR", "stderr"), Found("nope")}),
            "pattern 'ERROR' found in stderr (line 12: \"ERROR: bad\")");
}

TEST(SanityValidate, InvalidRegexCarriesTheMark) {
  SanitySpec s = Found("a(b");
  s.mark = {"tests/stream.yaml", 12, 7};
  Status st = ValidateSanitySpec(s);
  EXPECT_EQ(st.str(), "tests/stream.yaml:12:7: invalid regex 'a(b': missing closing parenthesis at offset 3");
}

TEST(SanityValidate, Groups) {
  EXPECT_TRUE(ValidateSanitySpec(Value("a(\\d)(?P<n>x)", "2", "int", {{"eq", "1"}})).ok());
  EXPECT_TRUE(ValidateSanitySpec(Value("a(\\d)(?P<n>x)", "n", "str", {{"eq", "1"}})).ok());
  EXPECT_EQ(ValidateSanitySpec(Value("a(\\d)", "2", "int", {})).message(), "no group 2 in pattern 'a(\\d)' (it has 1)");
  EXPECT_EQ(ValidateSanitySpec(Value("a(\\d)", "v", "int", {})).message(), "no group named 'v' in pattern 'a(\\d)'");
}

TEST(SanityValidate, Fields) {
  EXPECT_EQ(ValidateSanitySpec(Value("a", "", "double", {})).message(), "type must be str, int or float, got 'double'");
  EXPECT_EQ(ValidateSanitySpec(Value("a", "", "int", {}, "avg")).message(),
            "reduce must be one of first, last, min, max, mean, median, sum, got 'avg'");
  EXPECT_EQ(ValidateSanitySpec(Value("a", "", "int", {{"equals", "1"}})).message(),
            "unknown comparison 'equals' (use eq, ne, lt, le, gt, ge)");
  EXPECT_EQ(ValidateSanitySpec(Count("a", {{"ge", "many"}})).message(),
            "count must be compared with a number, got 'many'");
  EXPECT_EQ(ValidateSanitySpec(ExitCodes({})).message(), "exit_code needs at least one code");
  SanitySpec np = NotFound("a", "stderr");
  np.count_checks = {{"eq", "1"}};
  EXPECT_EQ(ValidateSanitySpec(np).message(), "not_pattern takes no value or count checks");
}

TEST(SanityValidate, PerfSpec) {
  PerfSpec p;
  p.name = "triad";
  p.pattern = "Triad:\\s+(\\S+)";
  p.mark = {"t.yaml", 3, 5};
  EXPECT_TRUE(ValidatePerfSpec(p).ok());
  p.group = "2";
  EXPECT_EQ(ValidatePerfSpec(p).str(), "t.yaml:3:5: triad: no group 2 in pattern 'Triad:\\s+(\\S+)' (it has 1)");
  p.group = "1";
  p.type = "str";
  EXPECT_EQ(ValidatePerfSpec(p).message(), "triad: performance type must be int or float, got 'str'");
  p.type = "float";
  p.pattern = "Triad:(";
  EXPECT_EQ(ValidatePerfSpec(p).message(), "triad: invalid regex 'Triad:(': missing closing parenthesis at offset 7");
}

}  // namespace
}  // namespace hb
