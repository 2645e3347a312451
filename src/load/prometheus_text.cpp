// Grammar and escapes as the Prometheus text format spec states them
// (https://prometheus.io/docs/instrumenting/exposition_formats/#text-format-details) and as the reference
// parser applies them (prometheus/common expfmt/text_parse.go: blanks around label tokens, a trailing comma
// in the label set, only \\ \" \n as escapes, values through strconv.ParseFloat, timestamps through
// strconv.ParseInt).
#include "load/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <system_error>

#include <fmt/format.h>

namespace perfhound::load {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_name_start(char c, bool allow_colon) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
}
bool is_name_char(char c, bool allow_colon) { return is_name_start(c, allow_colon) || (c >= '0' && c <= '9'); }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// strconv.ParseFloat's decimal forms plus its spellings of infinity and NaN; hex floats are not accepted.
std::optional<double> parse_value(std::string_view token) {
  std::string_view rest = token;
  bool negative = false;
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest.empty()) return std::nullopt;
  if (is_name_start(rest[0], false)) {
    if (iequals(rest, "inf") || iequals(rest, "infinity")) {
      return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    if (iequals(rest, "nan")) return std::numeric_limits<double>::quiet_NaN();
    return std::nullopt;
  }
  if (rest[0] != '.' && (rest[0] < '0' || rest[0] > '9')) return std::nullopt;  // e.g. "+-1"
  double value = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (ec != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
  return negative ? -value : value;
}

bool parse_timestamp(std::string_view token) {
  if (!token.empty() && token[0] == '+') {
    token.remove_prefix(1);
    if (!token.empty() && token[0] == '-') return false;  // "+-5"
  }
  std::int64_t ms = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), ms);
  return ec == std::errc() && end == token.data() + token.size();
}

// One sample line (not blank, not a comment), `number` 1-based for messages.
core::Result<PrometheusSample> parse_sample_line(std::string_view line, std::size_t number) {
  const auto fail = [number](const std::string& what) { return core::Error{fmt::format("line {}: {}", number, what)}; };
  std::size_t i = 0;
  const auto skip_blanks = [&] {
    while (i < line.size() && is_blank(line[i])) ++i;
  };
  const auto token_end = [&](std::size_t from) {
    while (from < line.size() && !is_blank(line[from])) ++from;
    return from;
  };
  skip_blanks();

  PrometheusSample sample;
  const std::size_t name_begin = i;
  if (!is_name_start(line[i], true)) {
    return fail(fmt::format("expected a metric name, found '{}' (names are [a-zA-Z_:][a-zA-Z0-9_:]*)",
                            line.substr(i, token_end(i) - i)));
  }
  while (i < line.size() && is_name_char(line[i], true)) ++i;
  sample.name = std::string(line.substr(name_begin, i - name_begin));
  if (i < line.size() && !is_blank(line[i]) && line[i] != '{') {
    return fail(fmt::format("unexpected '{}' after metric name '{}' (names are [a-zA-Z_:][a-zA-Z0-9_:]*)", line[i],
                            sample.name));
  }
  skip_blanks();

  bool braces = false;
  if (i < line.size() && line[i] == '{') {
    braces = true;
    const std::size_t labels_begin = ++i;
    const std::string in = fmt::format("in the labels of '{}'", sample.name);
    for (;;) {
      skip_blanks();
      if (i >= line.size()) return fail(fmt::format("missing '}}' {}", in));
      if (line[i] == '}') break;
      const std::size_t label_begin = i;
      if (!is_name_start(line[i], false)) {
        return fail(fmt::format("expected a label name or '}}' {}, found '{}'", in, line.substr(i, token_end(i) - i)));
      }
      while (i < line.size() && is_name_char(line[i], false)) ++i;
      const std::string_view label = line.substr(label_begin, i - label_begin);
      skip_blanks();
      if (i >= line.size() || line[i] != '=') {
        return fail(fmt::format("expected '=' after label name '{}' {}", label, in));
      }
      ++i;
      skip_blanks();
      if (i >= line.size() || line[i] != '"') {
        return fail(fmt::format("expected '\"' to open the value of label '{}' {}", label, in));
      }
      ++i;
      for (;;) {
        if (i >= line.size()) {
          return fail(fmt::format("unterminated value of label '{}' {} (a value ends with an unescaped '\"')", label,
                                  in));
        }
        const char c = line[i++];
        if (c == '"') break;
        if (c != '\\') continue;
        if (i >= line.size()) continue;  // reported as unterminated on the next turn
        const char e = line[i++];
        if (e != '\\' && e != '"' && e != 'n') {
          return fail(fmt::format("invalid escape '\\{}' in the value of label '{}' (use \\\\, \\\" or \\n)", e, label));
        }
      }
      skip_blanks();
      if (i >= line.size()) return fail(fmt::format("missing '}}' {}", in));
      if (line[i] == ',') {
        ++i;
        continue;
      }
      if (line[i] == '}') break;
      return fail(fmt::format("expected ',' or '}}' after the value of label '{}' {}", label, in));
    }
    sample.labels = std::string(line.substr(labels_begin, i - labels_begin));
    ++i;  // the '}'
    skip_blanks();
  }

  const std::string subject = sample.name + (braces ? "{...}" : "");
  if (i >= line.size()) return fail(fmt::format("expected a value after '{}'", subject));
  const std::size_t value_end = token_end(i);
  const std::string_view value_token = line.substr(i, value_end - i);
  const std::optional<double> value = parse_value(value_token);
  if (!value) {
    return fail(fmt::format("cannot parse '{}' as the value of '{}' (use a number, +Inf, -Inf or NaN)", value_token,
                            subject));
  }
  sample.value = *value;
  i = value_end;
  skip_blanks();
  if (i < line.size()) {
    const std::size_t ts_end = token_end(i);
    const std::string_view ts = line.substr(i, ts_end - i);
    if (!parse_timestamp(ts)) {
      return fail(fmt::format("cannot parse '{}' as the timestamp of '{}' (an integer, milliseconds since the epoch)",
                              ts, subject));
    }
    i = ts_end;
    skip_blanks();
    if (i < line.size()) {
      return fail(fmt::format("unexpected '{}' after the timestamp of '{}' (a sample line ends there)",
                              line.substr(i), subject));
    }
  }
  return sample;
}

}  // namespace

core::Result<std::vector<PrometheusSample>> parse_prometheus_text(std::string_view text) {
  std::vector<PrometheusSample> samples;
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t first = 0;
    while (first < line.size() && is_blank(line[first])) ++first;
    if (first == line.size() || line[first] == '#') continue;
    PH_ASSIGN_OR_RETURN(PrometheusSample sample, parse_sample_line(line, number));
    samples.push_back(std::move(sample));
  }
  return samples;
}

std::optional<double> sum_samples(std::span<const PrometheusSample> samples, std::string_view name) {
  std::optional<double> sum;
  for (const PrometheusSample& s : samples) {
    if (s.name == name) sum = sum.value_or(0.0) + s.value;
  }
  return sum;
}

}  // namespace perfhound::load
