// Rank-based two-sample comparisons: the Mann-Whitney U test and the Hodges-Lehmann shift estimate with
// its distribution-free (Moses) confidence interval. They assume nothing about the shape of either
// distribution, which suits latency samples (skewed, multi-modal, heavy-tailed).
//
// Conventions: x is the baseline, y the candidate. u1 is the U statistic of x: the number of pairs
// (x_i, y_j) with x_i > y_j, ties counting 1/2. The shift is in y-minus-x direction: a positive shift
// means y tends to be larger (for latencies: the candidate is slower).
//
// Edge cases: an empty x or y is an error, as is a NaN anywhere. Infinities are ranked normally by
// mann_whitney_u() but are an error for the Hodges-Lehmann functions (inf - inf has no meaning). n = 1 on
// either side is allowed; the normal approximation is then poor, and the interval may be unavailable (see
// hodges_lehmann_interval()).
#pragma once

#include <cstdint>
#include <span>

#include "core/result.h"

namespace perfhound::core {

struct MannWhitneyResult {
  double u1 = 0;  // U of x: #{x_i > y_j} + #{x_i == y_j} / 2
  double u2 = 0;  // U of y: n1 * n2 - u1
  // (max(u1, u2) - n1 * n2 / 2 - 0.5) / sigma, with sigma tie-corrected. Not signed by direction (compare
  // u1 with n1 * n2 / 2 for that); -inf when every value in both samples is the same (sigma = 0).
  double z = 0;
  double p_value = 1;  // two-sided, clipped to [0, 1]
};

// Two-sided Mann-Whitney U test with the normal approximation, tie correction and continuity correction,
// exactly as scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='asymptotic',
// use_continuity=True) computes it (scipy 1.10). Always asymptotic: scipy's default method='auto' uses the
// exact distribution when both samples have fewer than 8 values and there are no ties, and then differs.
// Identical samples give p = 1. O((n1 + n2) log(n1 + n2)).
Result<MannWhitneyResult> mann_whitney_u(std::span<const double> x, std::span<const double> y);

// Hodges-Lehmann two-sample shift estimate: the median of all n1 * n2 differences y_j - x_i (the mean of
// the two middle ones when n1 * n2 is even, as numpy.median). Computed by selection without forming the
// differences: O((n1 + n2) log(n1 + n2) log(n1 n2)) time and O(n1 + n2) memory.
Result<double> hodges_lehmann_shift(std::span<const double> x, std::span<const double> y);

struct ShiftInterval {
  double lo = 0;
  double shift = 0;  // hodges_lehmann_shift(x, y)
  double hi = 0;
  // The interval is [D_(rank_lo), D_(rank_hi)], D_(k) the k-th smallest difference y_j - x_i (1-based).
  std::int64_t rank_lo = 0;
  std::int64_t rank_hi = 0;
};

// Shift estimate with a distribution-free confidence interval (Moses 1965; Hollander & Wolfe,
// Nonparametric Statistical Methods, 2nd ed. 1999, section 4.3): [D_(k), D_(n1 n2 + 1 - k)] with
//   k = floor(n1 n2 / 2 + 0.5 - z_{(1 + confidence) / 2} * sqrt(n1 n2 (n1 + n2 + 1) / 12)),
// i.e. one more than the two-sided critical value of U from the continuity-corrected normal
// approximation. Under the shift model (y distributed as x + shift) with continuous data its coverage is
// the nominal one up to that approximation, which is close once both samples have ~10 values; ties make
// it approximate (no tie correction is applied to the interval). Errors as hodges_lehmann_shift(), plus
// confidence not strictly inside (0, 1), and k < 1: the samples are too small for that confidence
// (e.g. 3 and 3 values cannot give 95%); the message says so.
Result<ShiftInterval> hodges_lehmann_interval(std::span<const double> x, std::span<const double> y,
                                              double confidence = 0.95);

}  // namespace perfhound::core
