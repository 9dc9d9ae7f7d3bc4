#pragma once
// TextTable: the human output format of every subcommand, styled after nccl-tests: `#`-headed
// header and units rows, then aligned data rows.
//
//   # collective    size   time_us
//   #                (B)      (us)
//     all_reduce       8     25.20

#include <string>
#include <vector>

namespace dtplan::core {

enum class Align : bool { kLeft, kRight };

struct Column {
  std::string header;
  std::string unit{};  // printed in parentheses on the second header row; empty for none
  Align align = Align::kRight;
};

class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns, std::string title = {});

  // @pre cells.size() == number of columns.
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] std::size_t rows() const { return rows_.size(); }

  // The whole table, every line ending in '\n'. Deterministic for equal contents.
  [[nodiscard]] std::string render() const;

 private:
  std::vector<Column> columns_;
  std::string title_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace dtplan::core
