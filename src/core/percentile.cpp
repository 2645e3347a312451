#include "core/percentile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.h"

namespace perfhound::core {

double percentile_of_sorted(std::span<const double> sorted, double q) {
  PH_CHECK(!sorted.empty());
  PH_CHECK(q >= 0.0 && q <= 100.0);
  const double h = static_cast<double>(sorted.size() - 1) * q / 100.0;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double frac = h - static_cast<double>(lo);
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
  // Welford's update: numerically stable for long samples of large, close values (timestamps in ns).
  double mean = 0, m2 = 0;
  std::size_t n = 0;
  for (double x : sorted) {
    PH_CHECK(!std::isnan(x));
    ++n;
    const double delta = x - mean;
    mean += delta / static_cast<double>(n);
    m2 += delta * (x - mean);
  }
  s.mean = mean;
  s.stddev = n > 1 ? std::sqrt(m2 / static_cast<double>(n - 1)) : std::numeric_limits<double>::quiet_NaN();
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
