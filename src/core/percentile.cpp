#include "core/percentile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/check.h"

namespace perfhound::core {

std::uint64_t samples_for_percentile(double q) {
  PH_CHECK(q >= 0.0 && q < 100.0);
  return static_cast<std::uint64_t>(std::ceil(100.0 / (100.0 - q) * (1 - 1e-9)));
}

std::string short_tails(std::uint64_t samples, std::span<const double> quoted) {
  std::vector<double> tails(quoted.begin(), quoted.end());
  std::sort(tails.begin(), tails.end());
  std::vector<std::string> short_ones;
  for (const double q : tails) {
    if (q < 90 || q >= 100) continue;
    const std::uint64_t needed = samples_for_percentile(q);
    if (samples < needed) short_ones.push_back(fmt::format("p{:g} (needs {})", q, needed));
  }
  std::string text;
  for (std::size_t i = 0; i < short_ones.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == short_ones.size() ? " and " : ", ") + short_ones[i];
  }
  return text;
}

double percentile_of_sorted(std::span<const double> sorted, double q) {
  PH_CHECK(!sorted.empty());
  PH_CHECK(q >= 0.0 && q <= 100.0);
  const double h = static_cast<double>(sorted.size() - 1) * q / 100.0;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double frac = h - static_cast<double>(lo);
  // A rank that lands on an order statistic is that statistic, even when its neighbour is infinite (numpy
  // computes 2 + 0 * inf = NaN for percentile([1, 2, inf], 50); the order statistic is the honest answer).
  if (frac == 0) return sorted[lo];
  // x_lo + frac * (x_hi - x_lo) is numpy's form; it keeps p of a constant sample exactly that constant.
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

Summary summarize_sorted(std::span<const double> sorted) {
  Summary s;
  s.count = sorted.size();
  if (sorted.empty()) {
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    s.mean = s.stddev = s.min = s.p50 = s.p90 = s.p95 = s.p99 = s.p999 = s.max = nan;
    return s;
  }
  // Corrected two-pass algorithm (Chan, Golub & LeVeque 1983, eq. 1.7): the second pass's sum of deviations
  // cancels the first pass's rounding of the mean, so large close values (timestamps in ns) keep their
  // digits. One-pass Welford loses ~1e-8 relative on 1000 values near 1e9 (tests/core/percentile_test.cpp).
  // Values past 1e150 are scaled by a power of two first (exact): their sum, or a deviation's square, would
  // pass the largest double, and three values near 1.5e308 had a mean of inf. Values all under 1e-150 are
  // scaled up alike, or their squares underflow (1e-200, 2e-200, 3e-200 had a stddev of 0).
  const double largest = std::max(std::abs(sorted.front()), std::abs(sorted.back()));
  const bool extreme = std::isfinite(largest) && (largest > 1e150 || (largest > 0 && largest < 1e-150));
  // (Clamped: 2^1074, for the smallest subnormal, is past the largest double.)
  const double scale = extreme ? std::ldexp(1.0, std::clamp(-std::ilogb(largest), -1000, 1000)) : 1.0;
  const auto n = static_cast<double>(sorted.size());
  double sum = 0;
  for (double x : sorted) {
    PH_CHECK(!std::isnan(x));
    sum += x * scale;
  }
  const double first_mean = sum / n;
  double deviations = 0, squares = 0;
  for (double x : sorted) {
    const double d = x * scale - first_mean;
    deviations += d;
    squares += d * d;
  }
  s.mean = (std::isfinite(first_mean) ? first_mean + deviations / n : first_mean) / scale;
  s.stddev = sorted.size() > 1 ? std::sqrt((squares - deviations * deviations / n) / (n - 1)) / scale
                               : std::numeric_limits<double>::quiet_NaN();
  s.min = sorted.front();
  s.max = sorted.back();
  s.p50 = percentile_of_sorted(sorted, 50);
  s.p90 = percentile_of_sorted(sorted, 90);
  s.p95 = percentile_of_sorted(sorted, 95);
  s.p99 = percentile_of_sorted(sorted, 99);
  s.p999 = percentile_of_sorted(sorted, 99.9);
  return s;
}

Summary summarize(std::span<const double> samples) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return summarize_sorted(sorted);
}

}  // namespace perfhound::core
