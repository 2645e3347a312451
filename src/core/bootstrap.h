// Bootstrap confidence intervals for a statistic of one sample: the percentile method of Efron & Tibshirani
// (1993), "An Introduction to the Bootstrap", ch. 13.3. Draw `resamples` samples of size n with
// replacement, compute the statistic on each, and report the (1 - confidence) / 2 and (1 + confidence) / 2
// percentiles of those replicates (linear interpolation, as percentile_of_sorted(); this is also what
// scipy.stats.bootstrap(..., method='percentile') reports).
//
// Deterministic: the same samples, arguments and seed give bit-identical results on every platform (the
// generator is std::mt19937_64, whose output the standard fixes, and the index draw is our own). Write the
// seed into any output that reports an interval (STYLE.md rule 14).
//
// Caveats: the percentile interval is first-order accurate; for percentiles in a thin tail (p99 of a few
// hundred samples) its coverage falls below nominal because resamples cannot exceed the sample maximum.
// The interval usually contains the estimate but is not guaranteed to; a skewed statistic can miss it.
//
// Edge cases: n < 2 is an error (one value has no variability to resample). A constant sample gives
// lo == estimate == hi. NaN samples are an error; infinities are allowed, but a statistic that turns them
// into NaN (a percentile interpolating between two infinities computes inf - inf) makes the call fail.
// Cost: O(resamples * n) time plus the statistic's, O(n + resamples) memory.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "core/result.h"

namespace perfhound::core {

struct Interval {
  double lo = 0;
  double estimate = 0;  // the statistic of the whole sample
  double hi = 0;
};

// A statistic of a sample, given sorted ascending and non-empty.
using SortedStatistic = std::function<double(std::span<const double> sorted)>;

inline constexpr double kDefaultBootstrapConfidence = 0.95;
inline constexpr int kDefaultBootstrapResamples = 2000;
inline constexpr std::uint64_t kDefaultBootstrapSeed = 0x5eed'b007'57a9'0001;
inline constexpr int kMinBootstrapResamples = 100;

// Interval for `statistic`. Errors: fewer than 2 samples, a NaN sample, confidence not strictly inside
// (0, 1), resamples below kMinBootstrapResamples, or the statistic returning NaN.
Result<Interval> bootstrap_ci(std::span<const double> samples, const SortedStatistic& statistic,
                              double confidence = kDefaultBootstrapConfidence,
                              int resamples = kDefaultBootstrapResamples,
                              std::uint64_t seed = kDefaultBootstrapSeed);

// Interval for the q-th percentile (q in [0, 100], numpy-linear as percentile_of_sorted()). Errors as
// bootstrap_ci(), plus q outside [0, 100].
Result<Interval> bootstrap_percentile_ci(std::span<const double> samples, double q,
                                         double confidence = kDefaultBootstrapConfidence,
                                         int resamples = kDefaultBootstrapResamples,
                                         std::uint64_t seed = kDefaultBootstrapSeed);

}  // namespace perfhound::core
