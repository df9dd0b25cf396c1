#include "util/ecma_regex.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

TEST(EcmaRegex, CompilesAndRefusesHugeRepeatCounts) {
  auto ok = CompileEcmaRegex("nid0[0-9]{4}");
  ASSERT_TRUE(ok.ok()) << ok.status().str();
  EXPECT_TRUE(std::regex_match("nid01234", *ok));
  EXPECT_TRUE(CompileEcmaRegex("a{2,1000}").ok());
  // The pattern fuzz/fuzz_config.cc found: libstdc++ overflows on it.
  EXPECT_EQ(CompileEcmaRegex("x{33333333333333333333}").status().message(),
            "'x{33333333333333333333}': a repeat count above 1000 (or a back-reference number of more than 4 "
            "digits) is not supported");
  EXPECT_FALSE(CompileEcmaRegex("(a)\\33333333333333333333").ok());
  EXPECT_TRUE(CompileEcmaRegex("(a)\\1").ok());
  EXPECT_FALSE(CompileEcmaRegex("a{1,1001}").ok());
  // Not a bound: escaped, or in a class.
  EXPECT_TRUE(CompileEcmaRegex("\\{99999}").ok());
  EXPECT_TRUE(CompileEcmaRegex("[{99999}]").ok());
  EXPECT_NE(CompileEcmaRegex("a(b").status().message().find("'a(b': "), std::string::npos);
}

}  // namespace
}  // namespace hb
