#include "core/units.h"

#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace perfhound::core {
namespace {

struct Prefix {
  double scale;
  std::string_view symbol;
};

// Three significant digits in a mantissa in [1, 1000).
std::string three_digits(double mantissa) {
  const double a = std::fabs(mantissa);
  if (a >= 100) return fmt::format("{:.0f}", mantissa);
  if (a >= 10) return fmt::format("{:.1f}", mantissa);
  return fmt::format("{:.2f}", mantissa);
}

// Picks the largest prefix that leaves a mantissa >= 1, then moves up one prefix if rounding to three digits
// reached 1000, so 999.7 ns prints as "1.00 us" rather than "1000 ns".
template <std::size_t N>
std::string format_with_prefixes(double value, const std::array<Prefix, N>& prefixes, std::string_view unit) {
  if (std::isnan(value)) return "n/a";
  if (std::isinf(value)) return fmt::format("{}inf {}", value < 0 ? "-" : "", unit);
  if (value == 0) return fmt::format("0 {}", unit);
  const double a = std::fabs(value);
  std::size_t i = 0;
  while (i + 1 < N && a / prefixes[i + 1].scale >= 1.0) ++i;
  std::string digits = three_digits(a / prefixes[i].scale);
  double rounded = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), rounded);
  if (rounded >= 1000.0 && i + 1 < N) digits = three_digits(a / prefixes[++i].scale);
  return fmt::format("{}{} {}{}", value < 0 ? "-" : "", digits, prefixes[i].symbol, unit);
}

constexpr std::array<Prefix, 9> kSiPrefixes{{{1e-9, "n"},
                                             {1e-6, "u"},
                                             {1e-3, "m"},
                                             {1, ""},
                                             {1e3, "k"},
                                             {1e6, "M"},
                                             {1e9, "G"},
                                             {1e12, "T"},
                                             {1e15, "P"}}};
constexpr std::array<Prefix, 6> kBinaryPrefixes{{{1, ""},
                                                 {1024.0, "Ki"},
                                                 {1024.0 * 1024, "Mi"},
                                                 {1024.0 * 1024 * 1024, "Gi"},
                                                 {1024.0 * 1024 * 1024 * 1024, "Ti"},
                                                 {1024.0 * 1024 * 1024 * 1024 * 1024, "Pi"}}};
constexpr std::array<Prefix, 4> kDurationUnits{{{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}}};

// Parses a leading floating-point number; returns it and the rest of the text.
Result<std::pair<double, std::string_view>> leading_number(std::string_view text, std::string_view what) {
  double v = 0;
  const auto* begin = text.data();
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr == begin || !std::isfinite(v)) {
    return Error{fmt::format("cannot parse '{}' as {}", text, what)};
  }
  return std::pair{v, std::string_view(ptr, static_cast<std::size_t>(end - ptr))};
}

}  // namespace

std::string format_duration_ns(double ns) {
  if (ns == 0) return "0 ns";
  if (std::isinf(ns)) return ns < 0 ? "-inf s" : "inf s";
  return format_with_prefixes(ns, kDurationUnits, "");  // the unit symbols are the "prefixes" here
}

std::string format_si(double value, std::string_view unit) { return format_with_prefixes(value, kSiPrefixes, unit); }

std::string format_bytes(double bytes) {
  if (!std::isnan(bytes) && std::fabs(bytes) < 1024 && bytes == std::floor(bytes)) {
    return fmt::format("{:.0f} B", bytes);  // whole bytes need no three-digit mantissa
  }
  return format_with_prefixes(bytes, kBinaryPrefixes, "B");
}

std::string format_percent(double ratio) {
  if (std::isnan(ratio)) return "n/a";
  const double pct = ratio * 100.0;
  if (std::fabs(pct) >= 10 || pct == 0) return fmt::format("{:.1f}%", pct);
  // Tiny shares (decode MFU is often 0.01%) keep two significant digits instead of rounding to 0.00%.
  if (std::fabs(pct) < 0.1) return fmt::format("{:.2g}%", pct);
  return fmt::format("{:.2f}%", pct);
}

std::string format_number(double value) {
  if (std::isnan(value)) return "n/a";
  // From 1000 up to a billion, whole digits ("8643", "51400"): "8.64e+03" is hard to read and a count loses
  // its last digits.
  if (std::abs(value) >= 999.5 && std::abs(value) < 1e9) return fmt::format("{:.0f}", value);
  return fmt::format("{:.3g}", value);
}

Result<double> parse_si_number(std::string_view text) {
  PH_ASSIGN_OR_RETURN(auto parsed, leading_number(text, "a number (use e.g. 50, 1.5k or 2M)"));
  auto [v, rest] = parsed;
  if (rest.empty()) return v;
  if (rest.size() == 1) {
    switch (rest[0]) {
      case 'k': case 'K': return v * 1e3;
      case 'M': return v * 1e6;
      case 'G': return v * 1e9;
      case 'T': return v * 1e12;
      default: break;
    }
  }
  return Error{fmt::format("cannot parse '{}' as a number: unknown suffix '{}' (use k, M, G or T)", text, rest)};
}

Result<std::int64_t> parse_duration_ns(std::string_view text) {
  PH_ASSIGN_OR_RETURN(auto parsed, leading_number(text, "a duration (use e.g. 250ms, 1.5s, 10us or 2h)"));
  auto [v, rest] = parsed;
  double scale = 0;
  if (rest.empty() || rest == "s") scale = 1e9;
  else if (rest == "ns") scale = 1;
  else if (rest == "us") scale = 1e3;
  else if (rest == "ms") scale = 1e6;
  else if (rest == "m" || rest == "min") scale = 60e9;
  else if (rest == "h") scale = 3600e9;
  else return Error{fmt::format("cannot parse '{}' as a duration: unknown unit '{}' (use ns, us, ms, s, m or h)", text, rest)};
  if (v < 0) return Error{fmt::format("duration '{}' is negative", text)};
  const double ns = v * scale;
  if (ns > 9.2e18) return Error{fmt::format("duration '{}' is too long", text)};
  return static_cast<std::int64_t>(std::llround(ns));
}

Result<std::int64_t> parse_duration_with_unit_ns(std::string_view text) {
  if (text == "0") return 0;  // zero is zero in any unit
  if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text.back())) != 0 || text.back() == '.')) {
    // Every unit a flag of this kind may mean: a step overhead is microseconds, a timeout seconds.
    return Error{fmt::format("'{}' has no unit (write e.g. {}us, {}ms or {}s)", text, text, text, text)};
  }
  return parse_duration_ns(text);
}

}  // namespace perfhound::core
