// Bucket layout of HdrHistogram (Gil Tene; C port HdrHistogram_c, src/hdr_histogram.c), with the lowest
// discernible value fixed at 1 (unit magnitude 0):
//   sub_bucket_count = 2^ceil(log2(2 * 10^d)); half of it, h, is the first power of two >= 10^d.
//   Bucket 0 counts 0 .. 2h - 1 exactly; bucket b >= 1 covers [h * 2^b, 2h * 2^b) in h ranges of width 2^b.
//   A value's bucket is found from its count of leading zeros, its sub-bucket by a shift.
// A value v in bucket b >= 1 is at least h * 2^b and shares its range with at most 2^b - 1 larger values,
// so (highest_equivalent(v) - v) / v < 1 / h <= 10^-d: the precision contract in the header.
#include "core/log_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

namespace perfhound::core {

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

std::string describe(std::int64_t highest, int digits) {
  return "highest trackable value " + std::to_string(highest) + ", " + std::to_string(digits) +
         " significant digits";
}

}  // namespace

Result<LogHistogram> LogHistogram::create(std::int64_t highest_trackable_value, int significant_digits) {
  if (significant_digits < kMinSignificantDigits || significant_digits > kMaxSignificantDigits) {
    return Error{"log histogram: significant digits " + std::to_string(significant_digits) +
                 " out of range (use 1 to 5; 3 gives 0.1% relative error)"};
  }
  if (highest_trackable_value < 2) {
    return Error{"log histogram: highest trackable value " + std::to_string(highest_trackable_value) +
                 " is below 2 (use the largest value to record, e.g. 3600000000000 for one hour in ns)"};
  }
  return LogHistogram(highest_trackable_value, significant_digits);
}

LogHistogram::LogHistogram(std::int64_t highest_trackable_value, int significant_digits)
    : highest_trackable_value_(highest_trackable_value), significant_digits_(significant_digits) {
  PH_CHECK(significant_digits >= kMinSignificantDigits && significant_digits <= kMaxSignificantDigits);
  PH_CHECK(highest_trackable_value >= 2);
  std::int64_t single_unit_resolution = 2;  // 2 * 10^d: the largest value HdrHistogram counts exactly
  for (int i = 0; i < significant_digits; ++i) single_unit_resolution *= 10;
  const auto sub_bucket_count =
      static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(single_unit_resolution)));
  const int sub_bucket_count_magnitude = std::countr_zero(static_cast<std::uint64_t>(sub_bucket_count));
  sub_bucket_half_count_magnitude_ = sub_bucket_count_magnitude - 1;
  sub_bucket_half_count_ = sub_bucket_count / 2;
  sub_bucket_mask_ = sub_bucket_count - 1;
  leading_zero_count_base_ = 64 - sub_bucket_count_magnitude;

  // Buckets needed so the top one reaches highest_trackable_value; the doubling stops before it would
  // overflow int64 (hdr_histogram.c, buckets_needed_to_cover_value).
  std::int64_t smallest_untrackable = sub_bucket_count;
  int buckets = 1;
  while (smallest_untrackable <= highest_trackable_value) {
    if (smallest_untrackable > kInt64Max / 2) {
      ++buckets;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets;
  }
  // Bucket 0 uses all sub_bucket_count ranges; each later one only its upper half (the lower half would
  // repeat the previous bucket at coarser width).
  counts_.assign(static_cast<std::size_t>(buckets + 1) * static_cast<std::size_t>(sub_bucket_half_count_), 0);
  min_ = kInt64Max;
}

int LogHistogram::bucket_index(std::int64_t value) const noexcept {
  // OR-ing in the mask puts every value below sub_bucket_count in bucket 0 and keeps clz defined for 0.
  return leading_zero_count_base_ - std::countl_zero(static_cast<std::uint64_t>(value | sub_bucket_mask_));
}

std::size_t LogHistogram::counts_index(int bucket, std::int64_t sub_bucket) const noexcept {
  return static_cast<std::size_t>(
      (static_cast<std::int64_t>(bucket + 1) << sub_bucket_half_count_magnitude_) +
      (sub_bucket - sub_bucket_half_count_));
}

std::int64_t LogHistogram::lowest_value_at_index(std::size_t index) const noexcept {
  auto bucket = static_cast<int>(static_cast<std::int64_t>(index) >> sub_bucket_half_count_magnitude_) - 1;
  std::int64_t sub_bucket =
      (static_cast<std::int64_t>(index) & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket < 0) {  // the lower half of bucket 0
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub_bucket << bucket;
}

std::int64_t LogHistogram::bucket_size_at_index(std::size_t index) const noexcept {
  const auto bucket =
      static_cast<int>(static_cast<std::int64_t>(index) >> sub_bucket_half_count_magnitude_) - 1;
  return std::int64_t{1} << std::max(bucket, 0);
}

void LogHistogram::record(std::int64_t value, std::int64_t count) noexcept {
  PH_CHECK(count >= 0);
  if (value < 0) {
    underflow_count_ += count;
    return;
  }
  if (value > highest_trackable_value_) {
    overflow_count_ += count;
    return;
  }
  if (count == 0) return;  // must not move min/max
  const int bucket = bucket_index(value);
  counts_[counts_index(bucket, value >> bucket)] += count;
  total_count_ += count;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

Status LogHistogram::merge(const LogHistogram& other) {
  if (other.highest_trackable_value_ != highest_trackable_value_ ||
      other.significant_digits_ != significant_digits_) {
    return Error{"log histogram: cannot merge a histogram with " +
                 describe(other.highest_trackable_value_, other.significant_digits_) + " into one with " +
                 describe(highest_trackable_value_, significant_digits_) +
                 " (create both with the same config)"};
  }
  // Index by index is also right for other == *this: each counter is read before it is written.
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  total_count_ += other.total_count_;
  overflow_count_ += other.overflow_count_;
  underflow_count_ += other.underflow_count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  return Status::success();
}

std::vector<std::pair<std::int64_t, std::int64_t>> LogHistogram::nonempty_buckets() const {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) out.emplace_back(lowest_value_at_index(i), counts_[i]);
  }
  return out;
}

void LogHistogram::reset() noexcept {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_count_ = overflow_count_ = underflow_count_ = 0;
  min_ = kInt64Max;
  max_ = 0;
}

double LogHistogram::mean() const noexcept {
  if (total_count_ == 0) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    const std::int64_t mid = lowest_value_at_index(i) + bucket_size_at_index(i) / 2;
    sum += static_cast<double>(counts_[i]) * static_cast<double>(mid);
  }
  return sum / static_cast<double>(total_count_);
}

std::int64_t LogHistogram::value_at_percentile(double q) const noexcept {
  PH_CHECK(q >= 0.0 && q <= 100.0);
  if (total_count_ == 0) return 0;
  const double n = static_cast<double>(total_count_);
  // q * n first: exact for integer q and n < 2^46, so only the division rounds. A non-integer q (99.9 has
  // no exact double) can still land a few ulps above the integer rank the caller meant; 8 ulps of slack
  // absorbs that. A q with three decimals moves the rank in steps of 10^-5, which the slack (rank * 2e-15)
  // stays below for any n under 10^9.
  const double exact_rank = q * n / 100.0;
  const double rank_d = std::ceil(exact_rank - exact_rank * 8 * std::numeric_limits<double>::epsilon());
  const std::int64_t rank = std::clamp(static_cast<std::int64_t>(rank_d), std::int64_t{1}, total_count_);
  if (rank == 1) return min_;
  std::int64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      // lowest + (size - 1), not next-bucket-start - 1: the top bucket's end can be 2^63.
      const std::int64_t highest = lowest_value_at_index(i) + (bucket_size_at_index(i) - 1);
      return std::min(highest, max_);
    }
  }
  PH_CHECK(false);  // the counters sum to total_count_
  return max_;
}

std::int64_t LogHistogram::lowest_equivalent_value(std::int64_t value) const noexcept {
  PH_CHECK(value >= 0 && value <= highest_trackable_value_);
  const int bucket = bucket_index(value);
  return (value >> bucket) << bucket;
}

std::int64_t LogHistogram::highest_equivalent_value(std::int64_t value) const noexcept {
  PH_CHECK(value >= 0 && value <= highest_trackable_value_);
  const int bucket = bucket_index(value);
  return ((value >> bucket) << bucket) + ((std::int64_t{1} << bucket) - 1);
}

}  // namespace perfhound::core
