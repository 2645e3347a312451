// SampleTracker: the distribution of one per-request metric of a load run (a latency in seconds, a token
// count, a rate), with memory bounded on long runs (docs/metrics.md, "The load metric dictionary").
//
// Up to `raw_limit` samples are kept as they are and summarized exactly: mean and stddev by
// core::summarize (corrected two-pass), percentiles by linear interpolation between order statistics
// (numpy's default). When one more sample arrives, every sample moves into a core::LogHistogram (3
// significant digits, HdrHistogram layout) and the raw samples are freed. From then on the percentiles are
// nearest-rank values reported as their bucket's highest value: the reported r and the true order
// statistic x satisfy x <= r <= x * (1 + 10^-3) (docs/metrics.md, "Log-bucketed histogram"), with each
// value first rounded to the scale's unit (1 ns for seconds) and results clamped to the exact min and max.
// Count, mean, stddev (Welford's update, merged with Chan, Golub & LeVeque's pairwise formula), min and max
// stay exact in both modes; the summary says which method its percentiles used.
//
// The histogram holds values in [0, scale.highest]; in histogram mode a value outside it (a negative
// schedule lag, a latency above one hour) is still counted in count, mean, stddev, min and max, but not in
// the percentiles, and out_of_range_count says how many there were. In raw mode nothing is out of range.
//
// Not samples: NaN (an undefined latency, e.g. the TPOT of a one-token output) and +-infinity (a rate over a
// zero duration). add() counts them in undefined_count() and they enter no statistic.
//
// Edge cases of summary(): no samples -> count 0 and every statistic NaN; one sample -> every percentile,
// min, max and mean are that value and stddev is NaN (sample standard deviation, n - 1).
//
// Not thread-safe; keep one per thread and merge() afterwards (STYLE.md rule 10). add() allocates while in
// raw mode (vector growth), so it belongs after the timed path, where records are aggregated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/log_histogram.h"

namespace perfhound::load {

// How a quantity maps onto the histogram's integers: a value v is recorded as llround(v * units_per_value),
// and histogram values are turned back with / units_per_value. highest is the largest value bucketed.
struct HistogramScale {
  double units_per_value;
  double highest;
};
// Seconds, recorded as integer nanoseconds up to one hour (the configuration the brief fixes for latencies).
inline constexpr HistogramScale kSecondsScale{1e9, 3600.0};
// Token counts: integers up to 10^9 (exact below 2000, 0.1% above).
inline constexpr HistogramScale kCountScale{1.0, 1e9};
// Rates and ratios (tokens/s, tokens per chunk) at 10^-3 resolution up to 10^7.
inline constexpr HistogramScale kRateScale{1e3, 1e7};

inline constexpr std::string_view kExactMethod = "exact (numpy linear)";
inline constexpr std::string_view kHistogramMethod = "histogram (nearest rank, 3 digits)";

// The percentiles every summary reports (the union of what perfhound and its peers print).
struct PercentileSet {
  double p1 = 0;
  double p5 = 0;
  double p10 = 0;
  double p25 = 0;
  double p50 = 0;
  double p75 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  double p999 = 0;  // p99.9
};

struct SampleSummary {
  std::uint64_t count = 0;            // samples (NaN and infinities excluded)
  std::uint64_t undefined_count = 0;  // NaN / infinite values passed to add()
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); NaN for n < 2
  double min = 0;
  double p1 = 0;
  double p5 = 0;
  double p10 = 0;
  double p25 = 0;
  double p50 = 0;
  double p75 = 0;
  double p90 = 0;
  double p95 = 0;
  double p99 = 0;
  double p999 = 0;  // p99.9
  double max = 0;
  // The same percentiles by the nearest-rank definition (the smallest sample with at least ceil(q/100 n)
  // samples at or below it): exact order statistics in raw mode, equal to the fields above in histogram mode.
  PercentileSet nearest_rank;
  bool exact = true;                      // false once the tracker moved to the histogram
  std::string_view method = kExactMethod;  // kExactMethod or kHistogramMethod
  std::uint64_t out_of_range_count = 0;   // histogram mode: samples outside [0, highest], not in percentiles

  // numpy's np.std (denominator n): NaN for n = 0, 0 for n = 1. Derived from stddev, exact to rounding.
  double population_stddev() const;
};

class SampleTracker {
 public:
  static constexpr std::size_t kDefaultRawLimit = 1'000'000;
  static constexpr int kSignificantDigits = 3;

  // raw_limit >= 1 (checked); scale.units_per_value > 0 and scale.highest * units_per_value >= 2 (checked).
  explicit SampleTracker(std::size_t raw_limit = kDefaultRawLimit, HistogramScale scale = kSecondsScale);

  // One sample. NaN and infinities count in undefined_count() only.
  void add(double value);

  // Adds every sample of `other`. Both must have the same raw_limit and scale (a bug otherwise: checked).
  // The result is in raw mode only if the combined count is within raw_limit; the counts, mean and
  // stddev are those of the concatenated samples.
  void merge(const SampleTracker& other);

  SampleSummary summary() const;
  // The q-th percentile (q in [0, 100]) as summary() computes its fixed ones: numpy-linear in raw mode, the
  // nearest rank's bucket in histogram mode; NaN with no sample in range. For a percentile summary() does not
  // carry (an SLO gate's @p97) that must agree with the ones it does.
  double percentile(double q) const;

  std::uint64_t count() const { return count_; }
  std::uint64_t undefined_count() const { return undefined_count_; }
  bool exact() const { return !histogram_.has_value(); }
  std::size_t raw_limit() const { return raw_limit_; }
  HistogramScale scale() const { return scale_; }

 private:
  void switch_to_histogram();
  void record_in_histogram(double value);
  double histogram_percentile(double q) const;

  std::size_t raw_limit_;
  HistogramScale scale_;
  std::vector<double> raw_;
  std::optional<core::LogHistogram> histogram_;
  std::uint64_t out_of_range_ = 0;
  std::uint64_t count_ = 0;
  std::uint64_t undefined_count_ = 0;
  // Welford's running mean and sum of squared deviations, for the histogram mode's exact mean and stddev.
  double mean_ = 0;
  double m2_ = 0;
  double min_ = 0;
  double max_ = 0;
};

}  // namespace perfhound::load
