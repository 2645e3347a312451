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

// Two independent samples x (the baseline) and y (the candidate): the percentile-bootstrap interval of
// statistic(y) - statistic(x). Each replicate resamples x and y separately, each with replacement at its own
// size (Efron & Tibshirani 1993, ch. 13.3 with the two-sample resampling of ch. 8), and the interval is
// the (1 - confidence) / 2 and (1 + confidence) / 2 percentiles of the replicate differences d*.
//
// p_value is the two-sided test of "no difference" read off the same replicates by the test-interval
// duality: 2 (1 + min(#{d* <= 0}, #{d* >= 0})) / (B + 1), clipped to 1, B the resamples; the +1s are the
// usual Monte Carlo correction (Davison & Hinkley 1997, "Bootstrap Methods and their Application", ch. 4)
// so it is never 0: the smallest it can be is 2 / (B + 1). It is < 1 - confidence roughly when the interval
// excludes 0.
//
// Deterministic as bootstrap_ci() (one generator: a replicate draws x's indices, then y's). Edge cases and
// errors: either sample with fewer than 2 values, a NaN, confidence or resamples out of range, or the
// statistic returning NaN, as bootstrap_ci(). Cost: O(resamples * (n_x + n_y)), O(n_x + n_y + resamples).
struct DifferenceInterval {
  double lo = 0;
  double estimate = 0;  // statistic(y) - statistic(x) on the whole samples
  double hi = 0;
  double p_value = 1;
};

Result<DifferenceInterval> bootstrap_difference_ci(std::span<const double> x, std::span<const double> y,
                                                   const SortedStatistic& statistic,
                                                   double confidence = kDefaultBootstrapConfidence,
                                                   int resamples = kDefaultBootstrapResamples,
                                                   std::uint64_t seed = kDefaultBootstrapSeed);

// The same interval and p-value for the q-th percentile (q in [0, 100], numpy-linear) as
// bootstrap_difference_ci() with that statistic, drawn in O(1) per replicate instead of O(n_x + n_y): the
// replicates have the same distribution, not the same values. A percentile of a resample needs only two of
// its order statistics, and the k-th smallest of n draws from a sorted sample s is s_(ceil(n U)) with U the
// k-th smallest of n uniforms, U ~ Beta(k, n + 1 - k); the next is U + (1 - U)(1 - W^(1 / (n - k))), W uniform
// (the smallest of the n - k uniforms above U). See H. A. David & H. N. Nagaraja (2003), Order Statistics,
// 3rd ed., ch. 2. Beta variates come from two gamma variates (G. Marsaglia & W. W. Tsang (2000), "A simple
// method for generating gamma variables", ACM TOMS 26(3)) over std::mt19937_64 with our own uniform and
// normal draws, so the results are the same on every platform. Use it for large samples (ITL gaps number in
// the hundreds of thousands). Errors as bootstrap_difference_ci(), plus q outside [0, 100].
Result<DifferenceInterval> bootstrap_percentile_difference_ci(std::span<const double> x, std::span<const double> y,
                                                              double q,
                                                              double confidence = kDefaultBootstrapConfidence,
                                                              int resamples = kDefaultBootstrapResamples,
                                                              std::uint64_t seed = kDefaultBootstrapSeed);

}  // namespace perfhound::core
