// One metric of a baseline A against a candidate B: the change with its confidence interval, the p-value of
// the test, and the verdict (docs/compare.md). Pure: numbers in, numbers out.
//
// Three shapes of evidence, three functions:
//   compare_distributions - many values per side (per-request latencies, or one value per run of several
//       runs): Mann-Whitney U (two-sided, normal approximation with tie and continuity correction) for the
//       p-value, the Hodges-Lehmann shift of B - A with its Moses interval for the change (core/rank_tests.h).
//   compare_percentiles  - the q-th percentile of two samples (p99 of one run against p99 of another): the
//       two-sample percentile bootstrap of pQ(B) - pQ(A), its interval, and the p-value by the test-interval
//       duality (core/bootstrap.h).
//   compare_values       - one number per side (the throughput of one run each): the ratio, and no test.
//
// The change is reported absolute (shift, in the metric's unit) and relative to A's center (change =
// shift / a, so -0.10 is "10% lower"); the interval is at confidence 1 - alpha so that it and the test speak
// at the same level.
//
// The verdict: kNoTest when there is no test (one value per side, an empty side); otherwise significant when
// p < alpha, and then kBetter or kWorse by the direction B moved (for Mann-Whitney the sign of U_B - n_a n_b
// / 2, i.e. whether a value of B tends to exceed one of A; for the bootstrap the sign of the estimate) and
// whether lower or higher is better; else kNoDifference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "core/bootstrap.h"
#include "core/result.h"

namespace perfhound::compare {

enum class Direction { kLowerIsBetter, kHigherIsBetter };
enum class Verdict { kBetter, kWorse, kNoDifference, kNoTest };
enum class TestMethod { kNone, kMannWhitney, kBootstrap };

std::string_view direction_name(Direction d);  // "lower is better" / "higher is better"
std::string_view verdict_name(Verdict v);      // "better", "worse", "no significant difference", "no test"
std::string_view test_name(TestMethod m);      // "none", "mann-whitney u", "percentile bootstrap"

inline constexpr double kDefaultAlpha = 0.05;

struct CompareOptions {
  double alpha = kDefaultAlpha;  // significance level, in (0, 1); intervals are at 1 - alpha
  int resamples = core::kDefaultBootstrapResamples;  // compare_percentiles only
  std::uint64_t seed = core::kDefaultBootstrapSeed;  // compare_percentiles only
};

struct MetricComparison {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::size_t n_a = 0;
  std::size_t n_b = 0;
  double a = kNaN;      // A's center: the median of its values (numpy-linear), its pQ, or its one value
  double b = kNaN;      // B's center, the same way
  double ratio = kNaN;  // b / a; NaN when a is 0
  // B - A in the metric's unit (Hodges-Lehmann shift, bootstrap estimate, or b - a), and its interval at
  // confidence 1 - alpha; the interval is NaN when there is none (see note).
  double shift = kNaN;
  double shift_lo = kNaN;
  double shift_hi = kNaN;
  // shift / a, shift_lo / a, shift_hi / a: the change relative to A; NaN when a is 0.
  double change = kNaN;
  double change_lo = kNaN;
  double change_hi = kNaN;
  double p_value = kNaN;      // NaN without a test
  // Mann-Whitney only: the smallest p-value any data could give at these n (complete separation, no ties).
  // When it is not below alpha the test cannot find a difference however large, and note says so.
  double min_p_value = kNaN;
  TestMethod method = TestMethod::kNone;
  Verdict verdict = Verdict::kNoTest;
  std::string note;  // why there is no test or no interval, or why the test cannot reject; empty otherwise
};

// The verdict rule above. `b_direction` is +1 when B moved up, -1 down, 0 not at all.
Verdict judge(double p_value, double alpha, int b_direction, Direction direction);

// Many values per side. Edge cases: an empty side gives kNoTest with a note (no error); n = 1 on a side is
// tested, but no p-value below 0.083 is possible then (min_p_value), so the verdict is kNoDifference with a note; samples too
// small for a 1 - alpha Moses interval keep their p-value and verdict and get NaN interval bounds and a note.
// Errors: a NaN or infinite value, alpha outside (0, 1).
core::Result<MetricComparison> compare_distributions(std::span<const double> a, std::span<const double> b,
                                                     Direction direction, const CompareOptions& options = {});

// The q-th percentile (q in [0, 100]) of two samples. Edge cases: a side with fewer than 2 values gives
// kNoTest with a note (nothing to resample); so does a side with fewer than samples_for_percentile(q) values,
// where pq is about the largest value (p99 from fewer than 100). Errors: a NaN or infinite value, q or alpha out of range,
// resamples below core::kMinBootstrapResamples.
core::Result<MetricComparison> compare_percentiles(std::span<const double> a, std::span<const double> b, double q,
                                                   Direction direction, const CompareOptions& options = {});

// The fewest values whose top (100 - q)% holds one: 100 for p99, 20 for p95, 10 for p90, 2 for p50 (at least 2);
// for q = 100 (the maximum) no count is enough.
std::size_t samples_for_percentile(double q);

// One value per side: center, ratio, shift = b - a and change, no interval, verdict kNoTest with `note`.
MetricComparison compare_values(double a, double b, std::string note);

// The smallest two-sided Mann-Whitney p-value (normal approximation, continuity correction, no ties) for
// samples of n_a and n_b values: both samples completely separated. 1 when either is 0.
double mann_whitney_min_p_value(std::size_t n_a, std::size_t n_b);

// The geometric mean of ratios, exp(mean(log r)), as benchstat summarises a metric over several benchmarks.
// Errors: no ratios, or a ratio that is not finite and positive (the message quotes it and its position).
core::Result<double> geomean(std::span<const double> ratios);

}  // namespace perfhound::compare
