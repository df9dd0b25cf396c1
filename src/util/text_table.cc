#include "util/text_table.h"

#include <algorithm>

namespace hb {

size_t DisplayWidth(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string TextTable(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right) {
  if (rows.empty()) return "";
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (row.size() > width.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], DisplayWidth(row[i]));
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t i = 0; i < rows[r].size(); ++i) {
      const std::string& cell = rows[r][i];
      std::string pad(width[i] - DisplayWidth(cell), ' ');
      bool to_right = r > 0 && i < right.size() && right[i];
      line += to_right ? pad + cell : cell + pad;
      if (i + 1 < rows[r].size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace hb
