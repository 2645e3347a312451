#include "core/sample_parser.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <optional>

namespace perfhound::core {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line, char delimiter) {
  std::vector<std::string_view> fields;
  if (delimiter == '\0') {
    fields.push_back(trim(line));
    return fields;
  }
  std::size_t start = 0;
  while (true) {
    const auto pos = line.find(delimiter, start);
    fields.push_back(trim(line.substr(start, pos == std::string_view::npos ? pos : pos - start)));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return fields;
}

std::optional<double> to_number(std::string_view field) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || ptr != field.data() + field.size() || field.empty() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

// A value that cannot be read, not a column name: a number out of a double's range ("1e-400", "1e400") or one
// with a unit after it ("12ms"). A name that merely starts with a digit ("99p_ms", "1st_run") is a header.
bool looks_numeric(std::string_view field) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec == std::errc::result_out_of_range) return true;
  if (ec != std::errc()) return false;
  const std::string_view rest(ptr, static_cast<std::size_t>(field.data() + field.size() - ptr));
  for (const std::string_view unit : {"ns", "us", "ms", "s", "%"}) {
    if (rest == unit) return true;
  }
  return false;
}

bool is_index(std::string_view spec) {
  return !spec.empty() && spec.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

Result<SampleColumn> parse_sample_column(std::string_view text, const ColumnSelector& selector,
                                         std::string_view source_name) {
  SampleColumn out;
  char delimiter = 0;
  bool first_data_line = true;
  std::size_t column = 0;  // 0-based, resolved on the first data line
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto eol = text.find('\n', pos);
    const std::string_view raw = text.substr(pos, eol == std::string_view::npos ? eol : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') {
      ++out.lines_skipped;
      continue;
    }
    if (first_data_line) {
      delimiter = line.find(',') != std::string_view::npos ? ',' : line.find('\t') != std::string_view::npos ? '\t' : 0;
    }
    const auto fields = split(line, delimiter);
    if (first_data_line) {
      first_data_line = false;
      const bool named = !selector.spec.empty() && !is_index(selector.spec);
      const bool header = !to_number(fields[0]).has_value() || named;
      if (header && !named && looks_numeric(fields[0])) {
        // Taken for a header, this first value would be dropped without a word (1e-400, 1e400, "12ms").
        return Error{fmt::format("{} line {}: cannot parse '{}' as a number (out of range, or a unit after it?), and "
                                 "it is not a column name",
                                 source_name, line_no, fields[0])};
      }
      if (selector.spec.empty()) {
        column = 0;
      } else if (is_index(selector.spec)) {
        std::size_t index = 0;
        const auto parsed = std::from_chars(selector.spec.data(), selector.spec.data() + selector.spec.size(), index);
        if (parsed.ec != std::errc() || index == 0 || index > fields.size()) {
          return Error{fmt::format("{} line {}: --column {} is out of range (the line has {} column{})", source_name,
                                   line_no, selector.spec, fields.size(), fields.size() == 1 ? "" : "s")};
        }
        column = index - 1;
      } else {
        column = fields.size();
        for (std::size_t i = 0; i < fields.size(); ++i) {
          if (fields[i] == selector.spec) column = i;
        }
        if (column == fields.size()) {
          return Error{fmt::format("{} line {}: no column named '{}' in the header '{}'", source_name, line_no,
                                   selector.spec, line)};
        }
      }
      if (header) {
        out.column_name = std::string(fields[column]);
        continue;
      }
      out.column_name = fmt::format("column {}", column + 1);
    }
    if (column >= fields.size()) {
      return Error{fmt::format("{} line {}: has {} column{}, expected at least {}", source_name, line_no,
                               fields.size(), fields.size() == 1 ? "" : "s", column + 1)};
    }
    const auto value = to_number(fields[column]);
    if (!value) {
      return Error{fmt::format("{} line {}: cannot parse '{}' as a number in {}", source_name, line_no, fields[column],
                               out.column_name)};
    }
    out.values.push_back(*value);
  }
  return out;
}

}  // namespace perfhound::core
