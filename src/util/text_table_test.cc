#include "util/text_table.h"

#include <gtest/gtest.h>

namespace hb {
namespace {

TEST(TextTable, ColumnsAsWideAsTheirWidestCellNumbersToTheRight) {
  std::string t = TextTable({{"case", "value", "unit"}, {"stream", "12.5", "GB/s"}, {"a", "7", "s"}}, {false, true});
  EXPECT_EQ(t,
            "case    value  unit\n"
            "stream   12.5  GB/s\n"
            "a           7  s\n");
}

TEST(TextTable, CountsCharactersNotBytes) {
  // "★ x" is 3 characters (5 bytes): the column is 3 wide, not 5.
  std::string t = TextTable({{"var", "v"}, {"\u2605 x", "1"}, {"y", "2"}});
  EXPECT_EQ(t,
            "var  v\n"
            "\u2605 x  1\n"
            "y    2\n");
  EXPECT_EQ(DisplayWidth("\u2605 x"), 3u);
  EXPECT_EQ(DisplayWidth("\xc3\xa9t\xc3\xa9"), 3u);  // "été"
}

TEST(TextTable, ShortRowsAndNoRows) {
  EXPECT_EQ(TextTable({}), "");
  EXPECT_EQ(TextTable({{"a", "b"}, {"long"}}), "a     b\nlong\n");
}

}  // namespace
}  // namespace hb
