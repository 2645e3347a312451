#include "audit/import_helpers.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "core/json_type_name.h"

namespace perfhound::audit {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<double> leading_number(std::string_view s) {
  s = trim(s);
  std::size_t end = 0;
  while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.')) ++end;
  if (end == 0) return std::nullopt;
  return std::strtod(std::string(s.substr(0, end)).c_str(), nullptr);
}

}  // namespace

core::Result<std::optional<std::string>> condition_text(const SourceDocument& doc, std::string_view pointer) {
  PH_ASSIGN_OR_RETURN(const auto text, doc.string(pointer));
  if (!text) return std::optional<std::string>{};
  const std::string_view t = trim(*text);
  if (t.empty()) return std::optional<std::string>{};
  return std::optional<std::string>{std::string(t)};
}

namespace {

// A tool writes its numbers as JSON numbers: anything else at `pointer` is an error.
core::Status tool_number(const SourceDocument& doc, std::string_view pointer) {
  const nlohmann::json* v = doc.find(pointer);
  if (v == nullptr || v->is_number()) return {};
  if (v->is_string()) {
    return doc.field_error(pointer, fmt::format("expected a number, got the string \"{}\" (the tool writes a number "
                                                "here: was the file edited?)",
                                                v->get_ref<const std::string&>()));
  }
  return doc.field_error(pointer, fmt::format("expected a number, got {}", core::json_type_name(*v)));
}

}  // namespace

core::Result<std::optional<double>> number_in(const SourceDocument& doc, std::string_view pointer, Range range,
                                              Writer writer) {
  if (writer == Writer::kTool) PH_TRY(tool_number(doc, pointer));
  PH_ASSIGN_OR_RETURN(const auto v, doc.number(pointer));
  if (!v) return v;
  const double x = *v;
  const bool whole = std::isfinite(x) && std::floor(x) == x;
  const auto refuse = [&](std::string_view expected) {
    return doc.field_error(pointer, fmt::format("expected {}, got {:g}", expected, x));
  };
  switch (range) {
    case Range::kFinite:
      if (!std::isfinite(x)) return refuse("a finite number");
      break;
    case Range::kNonNegative:
      if (!(x >= 0) || std::isinf(x)) return refuse("a number >= 0");
      break;
    case Range::kPositive:
      if (!(x > 0) || std::isinf(x)) return refuse("a number > 0");
      break;
    case Range::kPositiveOrInf:
      if (!(x > 0)) return refuse("a number > 0 (or inf)");
      break;
    case Range::kWholePositive:
      if (!whole || x < 1) return refuse("a whole number >= 1");
      break;
    case Range::kWholeNonNegative:
      if (!whole || x < 0) return refuse("a whole number >= 0");
      break;
  }
  return v;
}

core::Result<std::optional<std::int64_t>> count_in(const SourceDocument& doc, std::string_view pointer, Writer writer) {
  if (writer == Writer::kTool) PH_TRY(tool_number(doc, pointer));
  return doc.count(pointer);
}

core::Status check_percentile_order(const SourceDocument& doc, std::vector<PercentileField> fields) {
  std::stable_sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.q < b.q; });
  // The largest value so far and where it was: any later (higher) percentile below it is out of order.
  for (std::size_t i = 1, top = 0; i < fields.size(); ++i) {
    const PercentileField& lower = fields[top];
    const PercentileField& higher = fields[i];
    // A relative 1e-9 absorbs a writer's last-digit rounding, nothing a real distribution could show.
    if (higher.value < lower.value - 1e-9 * std::fabs(lower.value)) {
      return doc.field_error(higher.pointer,
                             fmt::format("{:g} is below {} ({:g}): a higher percentile cannot be lower, so the file "
                                         "is inconsistent",
                                         higher.value, SourceDocument::field_name(lower.pointer), lower.value));
    }
    if (higher.value > lower.value) top = i;
  }
  return {};
}

std::optional<bool> warmup_discards(std::string_view text) {
  const std::string_view t = trim(text);
  if (t == "none" || t == "no" || t == "false" || t == "off") return false;
  if (t == "yes" || t == "true") return true;
  if (const auto n = leading_number(t)) return *n > 0;
  return std::nullopt;
}

std::optional<double> percentile_number(std::string_view digits) {
  double q = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), q);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || !(q >= 0 && q <= 100)) {
    return std::nullopt;
  }
  return q;
}

std::optional<double> seconds_per_unit(std::string_view unit) {
  const std::string_view u = trim(unit);
  if (u == "ms") return 1e-3;
  if (u == "s" || u == "sec" || u == "secs" || u == "seconds") return 1.0;
  if (u == "us") return 1e-6;
  if (u == "ns") return 1e-9;
  return std::nullopt;
}

std::optional<double> number_after(std::string_view text, std::string_view marker) {
  const auto at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return leading_number(text.substr(at + marker.size()));
}

}  // namespace perfhound::audit
