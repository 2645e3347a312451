#include "load/sample_tracker.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.h"
#include "core/percentile.h"

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The q of each PercentileSet field, in thousandths of a percent so nearest ranks are integer arithmetic.
struct PercentileField {
  std::int64_t q_milli;
  double PercentileSet::*field;
};
constexpr PercentileField kFields[] = {
    {1'000, &PercentileSet::p1},   {5'000, &PercentileSet::p5},   {10'000, &PercentileSet::p10},
    {25'000, &PercentileSet::p25}, {50'000, &PercentileSet::p50}, {75'000, &PercentileSet::p75},
    {90'000, &PercentileSet::p90}, {95'000, &PercentileSet::p95}, {99'000, &PercentileSet::p99},
    {99'900, &PercentileSet::p999},
};

void copy_into_summary(const PercentileSet& p, SampleSummary& s) {
  s.p1 = p.p1;
  s.p5 = p.p5;
  s.p10 = p.p10;
  s.p25 = p.p25;
  s.p50 = p.p50;
  s.p75 = p.p75;
  s.p90 = p.p90;
  s.p95 = p.p95;
  s.p99 = p.p99;
  s.p999 = p.p999;
}

PercentileSet all_nan() {
  PercentileSet p;
  for (const auto& f : kFields) p.*f.field = kNaN;
  return p;
}

}  // namespace

double SampleSummary::population_stddev() const {
  if (count == 0) return kNaN;
  if (count == 1) return 0.0;
  const auto n = static_cast<double>(count);
  return stddev * std::sqrt((n - 1) / n);
}

SampleTracker::SampleTracker(std::size_t raw_limit, HistogramScale scale) : raw_limit_(raw_limit), scale_(scale) {
  PH_CHECK(raw_limit >= 1);
  PH_CHECK(scale.units_per_value > 0 && scale.highest * scale.units_per_value >= 2);
}

void SampleTracker::add(double value) {
  if (!std::isfinite(value)) {
    ++undefined_count_;
    return;
  }
  ++count_;
  // Welford (1962): exact running mean and M2 so the histogram mode keeps an exact mean and stddev.
  const double delta = value - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (value - mean_);
  if (count_ == 1) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  if (histogram_) {
    record_in_histogram(value);
    return;
  }
  raw_.push_back(value);
  if (raw_.size() > raw_limit_) switch_to_histogram();
}

void SampleTracker::record_in_histogram(double value) {
  const double units = std::round(value * scale_.units_per_value);
  if (units < 0 || units > static_cast<double>(histogram_->highest_trackable_value())) {
    ++out_of_range_;
    return;
  }
  histogram_->record(static_cast<std::int64_t>(units));
}

void SampleTracker::switch_to_histogram() {
  histogram_.emplace(static_cast<std::int64_t>(std::floor(scale_.highest * scale_.units_per_value)),
                     kSignificantDigits);
  for (double v : raw_) record_in_histogram(v);
  std::vector<double>().swap(raw_);
}

void SampleTracker::merge(const SampleTracker& other) {
  PH_CHECK(raw_limit_ == other.raw_limit_);
  PH_CHECK(scale_.units_per_value == other.scale_.units_per_value && scale_.highest == other.scale_.highest);
  undefined_count_ += other.undefined_count_;
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  // Chan, Golub & LeVeque (1979) pairwise combination of (n, mean, M2).
  const auto na = static_cast<double>(count_);
  const auto nb = static_cast<double>(other.count_);
  const double delta = other.mean_ - mean_;
  const double n = na + nb;
  mean_ += delta * nb / n;
  m2_ += other.m2_ + delta * delta * na * nb / n;
  count_ += other.count_;

  if (!histogram_ && !other.histogram_ && raw_.size() + other.raw_.size() <= raw_limit_) {
    raw_.insert(raw_.end(), other.raw_.begin(), other.raw_.end());
    return;
  }
  if (!histogram_) switch_to_histogram();
  if (other.histogram_) {
    const core::Status merged = histogram_->merge(*other.histogram_);
    PH_CHECK(merged.ok());  // same scale, so the same configuration
    out_of_range_ += other.out_of_range_;
  } else {
    for (double v : other.raw_) record_in_histogram(v);
  }
}

double SampleTracker::histogram_percentile(double q) const {
  if (histogram_->total_count() == 0) return kNaN;  // every sample was out of range
  const std::int64_t units = histogram_->value_at_percentile(q);
  // Clamped to the exact extremes: recording rounds to the nearest unit, which may move a value by half a
  // unit past min or max.
  return std::clamp(static_cast<double>(units) / scale_.units_per_value, min_, max_);
}

double SampleTracker::percentile(double q) const {
  if (count_ == 0) return kNaN;
  if (histogram_) return histogram_percentile(q);
  std::vector<double> sorted(raw_);
  std::sort(sorted.begin(), sorted.end());
  return core::percentile_of_sorted(sorted, q);
}

SampleSummary SampleTracker::summary() const {
  SampleSummary s;
  s.count = count_;
  s.undefined_count = undefined_count_;
  if (count_ == 0) {
    s.mean = s.stddev = s.min = s.max = kNaN;
    s.nearest_rank = all_nan();
    copy_into_summary(s.nearest_rank, s);
    s.exact = !histogram_.has_value();
    s.method = s.exact ? kExactMethod : kHistogramMethod;
    return s;
  }
  if (!histogram_) {
    std::vector<double> sorted(raw_);
    std::sort(sorted.begin(), sorted.end());
    const core::Summary exact = core::summarize_sorted(sorted);
    s.mean = exact.mean;
    s.stddev = exact.stddev;
    s.min = exact.min;
    s.max = exact.max;
    PercentileSet linear;
    const auto n = static_cast<std::int64_t>(sorted.size());
    for (const auto& f : kFields) {
      linear.*f.field = core::percentile_of_sorted(sorted, static_cast<double>(f.q_milli) / 1000.0);
      // Nearest rank: r = ceil(q / 100 * n), at least 1, in integers (q in thousandths of a percent).
      const std::int64_t rank = std::max<std::int64_t>(1, (f.q_milli * n + 100'000 - 1) / 100'000);
      s.nearest_rank.*f.field = sorted[static_cast<std::size_t>(rank - 1)];
    }
    copy_into_summary(linear, s);
    s.exact = true;
    s.method = kExactMethod;
    return s;
  }
  s.mean = mean_;
  s.stddev = count_ > 1 ? std::sqrt(m2_ / static_cast<double>(count_ - 1)) : kNaN;
  s.min = min_;
  s.max = max_;
  s.exact = false;
  s.method = kHistogramMethod;
  s.out_of_range_count = out_of_range_;
  PercentileSet p;
  for (const auto& f : kFields) p.*f.field = histogram_percentile(static_cast<double>(f.q_milli) / 1000.0);
  copy_into_summary(p, s);
  s.nearest_rank = p;
  return s;
}

}  // namespace perfhound::load
