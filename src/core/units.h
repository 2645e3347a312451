// Human formatting and parsing of quantities. Internally durations are nanoseconds, sizes bytes, rates per
// second (STYLE.md rule 5); these functions are only for what a person reads or types.
//
// Formatting keeps three significant digits and an SI prefix chosen so the mantissa is in [1, 1000):
// 1.23 ms, 4.06 TB/s, 758 TFLOP/s. Durations use ns, us, ms, s (ASCII "us" so every terminal shows it).
// NaN formats as "n/a"; negative values keep their sign; zero formats without a prefix ("0 s", "0 B/s").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace perfhound::core {

// Nanoseconds as seconds for JSON. Division, not * 1e-9: the quotient is correctly rounded, so 1000 ns is
// exactly the double nearest 1e-6.
constexpr double ns_to_seconds(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }
constexpr double ns_to_seconds(double ns) { return ns / 1e9; }
// part / whole as a 0..1 ratio, 0 when whole is not positive (results keep the denominator beside it, so
// "0 of 0" stays distinguishable).
constexpr double ratio_or_zero(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}
constexpr double ratio_or_zero(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

std::string format_duration_ns(double ns);                  // 1234567 -> "1.23 ms"
std::string format_si(double value, std::string_view unit);  // (4.06e12, "B/s") -> "4.06 TB/s"
std::string format_bytes(double bytes);                      // binary prefixes for sizes: 268435456 -> "256 MiB"
std::string format_percent(double ratio);                    // 0.4213 -> "42.1%"
std::string format_number(double value);  // three significant digits, no unit: "0.0123"; whole from 1000 to 1e9: "8643"

// "50", "1.5k", "2M", "3e3" -> a plain number (SI prefixes k, M, G, T, decimal). Errors quote the text.
Result<double> parse_si_number(std::string_view text);
// "250ms", "1.5s", "10us", "800ns", "2m", "1h", or a bare number of seconds -> nanoseconds.
Result<std::int64_t> parse_duration_ns(std::string_view text);
// The same, but a unit is required: for times where a bare number could be meant as ms or as s and the wrong
// guess moves a result 1000x ("--time 12", "--step-overhead 300"). "'12' has no unit (write e.g. 12us, 12ms or 12s)".
Result<std::int64_t> parse_duration_with_unit_ns(std::string_view text);

}  // namespace perfhound::core
