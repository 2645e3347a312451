#include "report/table_writer.h"

#include <algorithm>

#include "core/check.h"

namespace perfhound::report {
namespace {

// Display width as code points: continuation bytes (10xxxxxx) take no column.
std::size_t display_width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

void append_padded(std::string& out, const std::string& cell, std::size_t width, Align align) {
  const std::size_t pad = width - display_width(cell);
  if (align == Align::kRight) out.append(pad, ' ');
  out += cell;
  if (align == Align::kLeft) out.append(pad, ' ');
}

}  // namespace

TableWriter::TableWriter(std::vector<Column> columns) : columns_(std::move(columns)) { PH_CHECK(!columns_.empty()); }

void TableWriter::add_row(std::vector<std::string> cells) {
  PH_CHECK(cells.size() == columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TableWriter::render() const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  auto emit = [&](const auto& cell_of) {
    std::string line;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) line += "  ";
      append_padded(line, cell_of(c), widths[c], columns_[c].align);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();  // no trailing blanks for golden tests
    out += line;
    out += '\n';
  };
  emit([&](std::size_t c) -> const std::string& { return columns_[c].header; });
  std::size_t total = 0;
  for (auto w : widths) total += w;
  out.append(total + 2 * (widths.size() - 1), '-');
  out += '\n';
  for (const auto& row : rows_) emit([&](std::size_t c) -> const std::string& { return row[c]; });
  return out;
}

}  // namespace perfhound::report
