#include "bench/stopping_rule.h"

#include <cmath>
#include <limits>

namespace perfhound::bench {

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::kConverged: return "converged";
    case StopReason::kTimeout: return "timeout";
    case StopReason::kMaxSamples: return "max-samples";
    case StopReason::kError: return "error";
  }
  return "converged";
}

void NoiseTracker::add(double x) {
  ++n_;
  sum_ += x;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
}

double NoiseTracker::stddev() const {
  if (n_ < 2) return 0;
  return std::sqrt(m2_ / static_cast<double>(n_ - 1));
}

double NoiseTracker::relative_noise() const {
  if (n_ < 2 || mean_ == 0) return std::numeric_limits<double>::infinity();
  return stddev() / std::abs(mean_);
}

StopCheck check_stop(const StoppingRule& rule, const NoiseTracker& samples, double measured_s, double wall_s) {
  if (samples.count() >= rule.min_samples && measured_s >= rule.min_time_s &&
      samples.relative_noise() <= rule.max_noise) {
    return {true, StopReason::kConverged};
  }
  if (samples.count() >= rule.max_samples) return {true, StopReason::kMaxSamples};
  if (wall_s >= rule.timeout_s) return {true, StopReason::kTimeout};
  return {};
}

}  // namespace perfhound::bench
