#include "model/placeholder.h"

#include <gtest/gtest.h>

#include <map>

namespace hb {
namespace {

std::optional<std::string> Lookup(const std::string& n) {
  static const std::map<std::string, std::string> kValues = {
      {"threads", "2"}, {"size", "1 M"}, {"stagedir", "/tmp/stage"}, {"deps.build.stagedir", "/b"}};
  auto it = kValues.find(n);
  if (it == kValues.end()) return std::nullopt;
  return it->second;
}

TEST(Placeholder, FindsOnlyLoneIdentifiers) {
  auto refs = FindPlaceholders("run {threads} \\d{3} ${HOME} awk '{print $1}' {{x}} {deps.build.stagedir}");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].name, "threads");
  EXPECT_EQ(refs[0].offset, 4u);
  EXPECT_EQ(refs[1].name, "deps.build.stagedir");
}

TEST(Placeholder, ExpandsAndQuotesForTheShell) {
  EXPECT_EQ(ExpandPlaceholders("-n {threads} -s {size}", Lookup, true), "-n 2 -s '1 M'");
  EXPECT_EQ(ExpandPlaceholders("-s {size}", Lookup, false), "-s 1 M");
}

TEST(Placeholder, LeavesOtherBracesAlone) {
  EXPECT_EQ(ExpandPlaceholders("a{2,3} \\d{3} ${threads} {{threads}} }}", Lookup, true),
            "a{2,3} \\d{3} ${threads} {threads} }");
  EXPECT_EQ(ExpandPlaceholders("awk '{print $1}'", Lookup, true), "awk '{print $1}'");
  EXPECT_EQ(ExpandPlaceholders("{unknown}", Lookup, true), "{unknown}");
}

}  // namespace
}  // namespace hb
