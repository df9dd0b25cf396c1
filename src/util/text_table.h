// TextTable: rows of text cells laid out in columns for a terminal, as
// `hetbench results`, `compare`, `changes` and the run's PERFORMANCE
// table print them. The first row is the header. Columns are as wide as
// their widest cell, counted in characters (UTF-8: "★" is one), two spaces
// apart; a column marked in `right` has its cells (not its header) aligned
// right, for numbers. Trailing spaces are cut; every line ends with '\n'.
#pragma once

#include <string>
#include <vector>

namespace hb {

std::string TextTable(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right = {});

// The width of `text` on a terminal, in characters: UTF-8 continuation
// bytes do not count.
size_t DisplayWidth(const std::string& text);

}  // namespace hb
