// Exact summary statistics over a sample: count, mean, stddev, min, percentiles, max.
//
// Percentile definition (docs/metrics.md): linear interpolation between order statistics, the method numpy
// uses by default (`numpy.percentile(x, q)`, method="linear", Hyndman & Fan 1996 type 7). For ascending
// x[0..n-1] and q in [0, 100]: h = (n - 1) * q / 100, result = x[floor(h)] + (h - floor(h)) *
// (x[floor(h) + 1] - x[floor(h)]). So p0 is the minimum, p100 the maximum, p50 of an even count the midpoint.
//
// Edge cases: n = 0 gives count 0 and NaN for every statistic; n = 1 gives that value for every percentile,
// mean = the value and stddev = NaN (the sample standard deviation divides by n - 1). NaN samples are a
// caller bug (PH_CHECK); infinities are allowed and propagate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace perfhound::core {

// q in [0, 100]; `sorted` ascending and non-empty (checked).
double percentile_of_sorted(std::span<const double> sorted, double q);

// The fewest samples for pQ to be more than the largest value or two: the top (100 - q)% must hold at least one
// sample, so ceil(100 / (100 - q)). p99 100, p99.9 1000, p95 20, p50 2 (docs/metrics.md, few-samples-for-tail).
// q in [0, 100); a relative 1e-9 absorbs q's decimal rounding (p99.9 is 1000, not 1001).
std::uint64_t samples_for_percentile(double q);

// The tail percentiles of `quoted` (p90 up, below p100) that `samples` values cannot carry, lowest first, said as
// "p90 (needs 10), p95 (needs 20) and p99 (needs 100)"; empty when each is carried. The one wording of
// few-samples-for-tail, so that what it does not name may be quoted, in stats, load and audit alike.
std::string short_tails(std::uint64_t samples, std::span<const double> quoted);

struct Summary {
  std::size_t count = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1 in the denominator)
  double min = 0;
  double p50 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  double p999 = 0;  // p99.9
  double max = 0;
};

Summary summarize(std::span<const double> samples);
// Same, for samples the caller has already sorted ascending (avoids a copy on large inputs).
Summary summarize_sorted(std::span<const double> sorted);

}  // namespace perfhound::core
