// Checks for number flags whose errors read as a user would write them: "--repeats: must be a whole number, got
// 'x'", "--device: must be 0 or more, got -1", "--alpha: must be 0.0001 to 0.5, got 2". CLI11's own range checks
// (CLI::Range, CLI::NonNegativeNumber) print the whole double range, 309 digits, and call a word "not in range".
// They run before CLI11 converts the text, so they parse it themselves and never throw.
#pragma once

#include <CLI/CLI.hpp>

#include <limits>

namespace perfhound::cli {

inline constexpr long long kNoUpperBound = std::numeric_limits<long long>::max();

// A whole number in [lo, hi] (hi = kNoUpperBound: lo or more).
CLI::Validator whole_number_in(long long lo, long long hi = kNoUpperBound);
// A number in [lo, hi] (hi = infinity: lo or more).
CLI::Validator number_in(double lo, double hi = std::numeric_limits<double>::infinity());
// A finite number above zero.
CLI::Validator positive_number();
// A condition stated in words (--framework, --hardware): not blank, and one line, as every condition is printed.
CLI::Validator condition_text();

}  // namespace perfhound::cli
