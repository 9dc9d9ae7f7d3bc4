#include "core/text_table.h"

#include <algorithm>
#include <cassert>

namespace dtplan::core {

TextTable::TextTable(std::vector<Column> columns, std::string title)
    : columns_(std::move(columns)), title_(std::move(title)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  assert(cells.size() == columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::string> units(columns_.size());
  bool any_unit = false;
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (!columns_[c].unit.empty()) {
      units[c] = "(" + columns_[c].unit + ")";
      any_unit = true;
    }
    width[c] = std::max(columns_[c].header.size(), units[c].size());
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::string& prefix, auto cell_of) {
    std::string out = prefix;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cell_of(c);
      std::string pad(width[c] - cell.size(), ' ');
      if (c > 0) out += "  ";
      out += columns_[c].align == Align::kRight ? pad + cell : cell + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  if (!title_.empty()) out += "# " + title_ + "\n";
  out += line("# ", [&](std::size_t c) -> const std::string& { return columns_[c].header; });
  if (any_unit) out += line("# ", [&](std::size_t c) -> const std::string& { return units[c]; });
  for (const auto& row : rows_) {
    out += line("  ", [&](std::size_t c) -> const std::string& { return row[c]; });
  }
  return out;
}

}  // namespace dtplan::core
