// A plain-text table for the terminal: a header row, a rule, then rows, columns padded to their widest cell.
// Text columns align left, number columns right. Cells are already-formatted strings (units included).
#pragma once

#include <string>
#include <vector>

namespace perfhound::report {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kRight;
};

class TableWriter {
 public:
  explicit TableWriter(std::vector<Column> columns);
  // A row must have exactly one cell per column (checked).
  void add_row(std::vector<std::string> cells);
  std::size_t row_count() const { return rows_.size(); }
  // Rendered table, each line ending in '\n'; widths count UTF-8 code points, not bytes.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace perfhound::report
