// LogHistogram: a log-bucketed histogram of non-negative int64 values (latencies in ns) with a bounded
// relative error, in the layout of HdrHistogram (Gil Tene, http://hdrhistogram.org).
//
// Precision: with d significant decimal digits every value v is counted in a bucket [lo, hi] that contains
// it with (hi - v) / v < 10^-d (values below 2 * 10^d are counted exactly). value_at_percentile() reports
// a bucket's highest value, so a reported percentile r and the true order statistic x satisfy
// x <= r <= x * (1 + 10^-d).
//
// Memory is fixed at construction: bucket_count() int64 counters, each a distinct value range ("sub-bucket"
// in HdrHistogram's terms): (max(0, ceil(log2((highest + 1) / (2 h)))) + 2) * h counters where h is 10^d
// rounded up to a power of two (1024 for 3 digits); 3 digits up to one hour in ns is 33,792 counters
// (264 KiB). record() touches one counter and never allocates or locks, so it is safe on a timed path;
// keep one histogram per thread and merge() afterwards (STYLE.md rule 10). Not thread-safe.
//
// Out-of-range values are counted, never clamped into a bucket: a value above highest_trackable_value()
// adds to overflow_count(), a negative one to underflow_count(). Neither is part of total_count(), min(),
// max(), mean() or the percentiles, so a caller reporting percentiles must also report those two counts.
//
// Edge cases: an empty histogram (total_count() == 0) has min() == max() == value_at_percentile(q) == 0
// and mean() == NaN. With one value v, min() == max() == every percentile == v exactly, because results
// are clamped to the exact [min, max]. Counts are int64 and not checked for overflow (2^63 samples).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/result.h"

namespace perfhound::core {

class LogHistogram {
 public:
  static constexpr int kMinSignificantDigits = 1;
  static constexpr int kMaxSignificantDigits = 5;

  // Errors: significant_digits outside [1, 5], or highest_trackable_value < 2; the message quotes the value.
  static Result<LogHistogram> create(std::int64_t highest_trackable_value, int significant_digits);

  // For configs fixed in code; an invalid config is a bug (PH_CHECK). Use create() for configs from input.
  LogHistogram(std::int64_t highest_trackable_value, int significant_digits);

  // Counts `value` `count` times (count >= 0, checked). Values outside [0, highest_trackable_value()] go to
  // underflow_count() / overflow_count() instead of a bucket. Never allocates.
  void record(std::int64_t value, std::int64_t count = 1) noexcept;

  // Adds every count of `other` to this one. Error, with this unchanged, if the two differ in
  // highest_trackable_value or significant_digits (their buckets would not line up).
  Status merge(const LogHistogram& other);

  // The non-empty buckets in value order, as (lowest equivalent value, count): with min() and max(), what
  // another process needs to rebuild this histogram exactly (load/client_health_wire.h).
  std::vector<std::pair<std::int64_t, std::int64_t>> nonempty_buckets() const;

  // Back to empty; keeps the config and the memory.
  void reset() noexcept;

  // Values counted in buckets; excludes overflow_count() and underflow_count().
  std::int64_t total_count() const noexcept { return total_count_; }
  std::int64_t overflow_count() const noexcept { return overflow_count_; }
  std::int64_t underflow_count() const noexcept { return underflow_count_; }

  // Exact smallest and largest recorded in-range value; 0 when empty.
  std::int64_t min() const noexcept { return total_count_ == 0 ? 0 : min_; }
  std::int64_t max() const noexcept { return total_count_ == 0 ? 0 : max_; }

  // Mean with each count taken at its bucket's midpoint (lowest + size / 2, as HdrHistogram's mean does),
  // so it carries the same relative error bound as the buckets (exact below 2 * 10^d). NaN when empty.
  double mean() const noexcept;

  // Nearest-rank percentile: for N = total_count() and q in [0, 100] (checked), rank r = ceil(q / 100 * N),
  // at least 1; the result is the highest value of the bucket holding the r-th smallest value, clamped to
  // max(). Rank 1 reports min() exactly, so q = 0 is the exact minimum and q = 100 the exact maximum. q is
  // taken as the decimal the caller wrote: q / 100 * N within a few ulps of an integer counts as that
  // integer (0.07 * 100 is 7.000000000000001 in doubles; p7 of 100 values is still the 7th). 0 when empty.
  std::int64_t value_at_percentile(double q) const noexcept;

  // The bucket that `value` (in [0, highest_trackable_value()], checked) falls in: its lowest and highest
  // value. Two values are counted together exactly when their lowest_equivalent_value()s are equal.
  std::int64_t lowest_equivalent_value(std::int64_t value) const noexcept;
  std::int64_t highest_equivalent_value(std::int64_t value) const noexcept;

  std::int64_t highest_trackable_value() const noexcept { return highest_trackable_value_; }
  int significant_digits() const noexcept { return significant_digits_; }
  // Number of counters (memory is bucket_count() * 8 bytes); depends only on the config.
  std::size_t bucket_count() const noexcept { return counts_.size(); }

 private:
  int bucket_index(std::int64_t value) const noexcept;
  std::size_t counts_index(int bucket, std::int64_t sub_bucket) const noexcept;
  std::int64_t lowest_value_at_index(std::size_t index) const noexcept;
  std::int64_t bucket_size_at_index(std::size_t index) const noexcept;

  std::int64_t highest_trackable_value_;
  int significant_digits_;
  int sub_bucket_half_count_magnitude_;
  std::int64_t sub_bucket_half_count_;
  std::int64_t sub_bucket_mask_;
  int leading_zero_count_base_;
  std::vector<std::int64_t> counts_;
  std::int64_t total_count_ = 0;
  std::int64_t overflow_count_ = 0;
  std::int64_t underflow_count_ = 0;
  std::int64_t min_;
  std::int64_t max_ = 0;
};

}  // namespace perfhound::core
