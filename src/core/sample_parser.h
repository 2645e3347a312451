// Reads a column of numbers from text: one value per line, or CSV / TSV with an optional header row.
// Pure (text in, values out); the caller reads the file. Lines that are blank or start with '#' are
// skipped. The delimiter is ',' if the first data line has one, else tab, else the line is one value.
// A first data line whose selected field is not a number is the header. Every other line must hold a
// finite number in the selected column: errors name the source, the line number and the text found.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::core {

struct ColumnSelector {
  // Empty: the first column. Digits: a 1-based column index. Otherwise: a header name.
  std::string spec;
};

struct SampleColumn {
  std::string column_name;  // header name, or "column N" when the file has no header
  std::vector<double> values;
  std::size_t lines_skipped = 0;  // blank and comment lines
};

Result<SampleColumn> parse_sample_column(std::string_view text, const ColumnSelector& selector,
                                         std::string_view source_name);

}  // namespace perfhound::core
