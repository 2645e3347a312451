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

std::string format_duration_ns(double ns);                  // 1234567 -> "1.23 ms"
std::string format_si(double value, std::string_view unit);  // (4.06e12, "B/s") -> "4.06 TB/s"
std::string format_bytes(double bytes);                      // binary prefixes for sizes: 268435456 -> "256 MiB"
std::string format_percent(double ratio);                    // 0.4213 -> "42.1%"
std::string format_number(double value);                     // three significant digits, no unit: "0.0123"

// "50", "1.5k", "2M", "3e3" -> a plain number (SI prefixes k, M, G, T, decimal). Errors quote the text.
Result<double> parse_si_number(std::string_view text);
// "250ms", "1.5s", "10us", "800ns", "2m", "1h", or a bare number of seconds -> nanoseconds.
Result<std::int64_t> parse_duration_ns(std::string_view text);

}  // namespace perfhound::core
