#include "cli/number_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

namespace perfhound::cli {
namespace {

// The whole text as a number (from_chars: no locale, no exceptions); a leading '+' is allowed, as strtod allows it.
// result_out_of_range for a number past what T holds (a 20-digit seed, 1e999), invalid_argument for anything else.
template <typename T>
std::errc parse_whole(const std::string& text, T& value) {
  const char* begin = text.data() + (text.size() > 1 && text[0] == '+' && text[1] != '-' ? 1 : 0);
  const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::errc::invalid_argument;
  return ec;
}

template <typename T>
std::string bounds(T lo, T hi, bool unbounded) {
  return unbounded ? fmt::format("{} or more", lo) : fmt::format("{} to {}", lo, hi);
}

}  // namespace

CLI::Validator whole_number_in(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        long long n = 0;
        const std::errc parsed = parse_whole(text, n);
        // Past a long long is past every bound, kNoUpperBound (the largest long long) too: that one is then named.
        if (parsed == std::errc::result_out_of_range) {
          return fmt::format("must be {}, got {}", bounds(lo, hi, false), text);
        }
        if (parsed != std::errc()) return fmt::format("must be a whole number, got '{}'", text);
        if (n < lo || n > hi) return fmt::format("must be {}, got {}", bounds(lo, hi, hi == kNoUpperBound), text);
        return {};
      },
      hi == kNoUpperBound ? fmt::format("N >= {}", lo) : fmt::format("{}..{}", lo, hi));
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double x = 0;
        const std::errc parsed = parse_whole(text, x);
        if (parsed == std::errc::result_out_of_range) return fmt::format("out of a double's range, got '{}'", text);
        if (parsed != std::errc() || std::isnan(x)) return fmt::format("must be a number, got '{}'", text);
        if (x < lo || x > hi) return fmt::format("must be {}, got {}", bounds(lo, hi, std::isinf(hi)), text);
        return {};
      },
      std::isinf(hi) ? fmt::format("X >= {}", lo) : fmt::format("{}..{}", lo, hi));
}

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double x = 0;
        const std::errc parsed = parse_whole(text, x);
        if (parsed == std::errc::result_out_of_range) return fmt::format("out of a double's range, got '{}'", text);
        if (parsed != std::errc() || std::isnan(x)) return fmt::format("must be a number, got '{}'", text);
        if (std::isinf(x)) return fmt::format("must be a finite number, got {}", text);  // a rate of inf: a time of 0
        return x > 0 ? std::string() : fmt::format("must be above 0, got {}", text);
      },
      "X > 0");
}

CLI::Validator condition_text() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto is = [&text](int (*test)(int)) {
          return [test](char c) { return test(static_cast<unsigned char>(c)) != 0; };
        };
        if (std::all_of(text.begin(), text.end(), is(std::isspace))) return "empty";
        // A line break, a vertical tab, an escape: printed in a condition, each breaks its one line.
        if (std::any_of(text.begin(), text.end(), is(std::iscntrl))) return "holds a control character";
        return {};
      },
      "");
}

}  // namespace perfhound::cli
