// Format: https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format (version 0.0.4).
// Number spelling follows prometheus_client's floatToGoString (repr of the float, "+Inf", "-Inf", "NaN"),
// which is what vLLM's /metrics shows (le="1.0", counters "12.0").
#include "serve/prometheus_writer.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "core/check.h"

namespace perfhound::serve {
namespace {

bool valid_name(std::string_view name, bool allow_colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (allow_colon && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!(letter || (digit && i > 0))) return false;
  }
  return true;
}

void append_escaped(std::string& out, std::string_view s, bool escape_quote) {
  for (const char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && escape_quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

std::string format_count(std::uint64_t n) { return fmt::format("{}.0", n); }

}  // namespace

std::string format_prometheus_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::string s = fmt::format("{}", value);  // shortest round-trip digits, like Python's repr
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

void PrometheusWriter::begin_family(std::string_view name, std::string_view help, std::string_view type) {
  PH_CHECK(valid_name(name, /*allow_colon=*/true));
  if (!families_.empty() && families_.back() == name) {  // another series of the current family
    PH_CHECK(type == current_type_);
    return;
  }
  // A family seen before but not last would be split in two, which the format forbids.
  PH_CHECK(std::find(families_.begin(), families_.end(), name) == families_.end());
  families_.emplace_back(name);
  current_type_ = type;
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  append_escaped(out_, help, /*escape_quote=*/false);
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void PrometheusWriter::write_series(std::string_view name, std::string_view suffix, const PrometheusLabels& labels,
                                    std::string_view le, std::string_view value) {
  out_ += name;
  out_ += suffix;
  if (!labels.empty() || !le.empty()) {
    out_ += '{';
    bool first = true;
    for (const PrometheusLabel& label : labels) {
      PH_CHECK(valid_name(label.name, /*allow_colon=*/false) && label.name != "le");
      if (!first) out_ += ',';
      first = false;
      out_ += label.name;
      out_ += "=\"";
      append_escaped(out_, label.value, /*escape_quote=*/true);
      out_ += '"';
    }
    if (!le.empty()) {
      if (!first) out_ += ',';
      out_ += "le=\"";
      out_ += le;
      out_ += '"';
    }
    out_ += '}';
  }
  out_ += ' ';
  out_ += value;
  out_ += '\n';
}

void PrometheusWriter::counter(std::string_view name, std::string_view help, const PrometheusLabels& labels,
                               double value) {
  PH_CHECK(value >= 0);  // counters only go up from zero; NaN fails too
  begin_family(name, help, "counter");
  write_series(name, "", labels, "", format_prometheus_value(value));
}

void PrometheusWriter::gauge(std::string_view name, std::string_view help, const PrometheusLabels& labels,
                             double value) {
  begin_family(name, help, "gauge");
  write_series(name, "", labels, "", format_prometheus_value(value));
}

void PrometheusWriter::histogram(std::string_view name, std::string_view help, const PrometheusLabels& labels,
                                 std::span<const double> upper_bounds, std::span<const std::uint64_t> bucket_counts,
                                 double sum, std::uint64_t count) {
  PH_CHECK(bucket_counts.size() == upper_bounds.size());
  for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
    PH_CHECK(std::isfinite(upper_bounds[i]));
    PH_CHECK(i == 0 || upper_bounds[i] > upper_bounds[i - 1]);
  }
  begin_family(name, help, "histogram");
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
    cumulative += bucket_counts[i];
    write_series(name, "_bucket", labels, format_prometheus_value(upper_bounds[i]), format_count(cumulative));
  }
  PH_CHECK(cumulative <= count);
  write_series(name, "_bucket", labels, "+Inf", format_count(count));
  write_series(name, "_sum", labels, "", format_prometheus_value(sum));
  write_series(name, "_count", labels, "", format_count(count));
}

}  // namespace perfhound::serve
