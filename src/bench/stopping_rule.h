// When a micro-benchmark has enough samples (seed §7): after a minimum count and a minimum accumulated
// sample time, stop as soon as the relative noise (sample standard deviation / mean, nvbench's "stdrel") is
// under a target; stop anyway at a wall-clock timeout or a sample cap, and say which of the three it was.
// The defaults are nvbench's: 0.5% noise, 0.5 s of samples, at least 10 samples, 15 s timeout.
//
// nvbench's stdrel criterion also waits for the noise estimate to stop moving; this rule stops at the first
// sample where count, time and noise all hold, and reports the noise it stopped at.
#pragma once

#include <cstdint>
#include <string_view>

namespace perfhound::bench {

struct StoppingRule {
  std::int64_t min_samples = 10;
  double min_time_s = 0.5;     // accumulated measured time (the sum of the samples), not wall time
  double max_noise = 0.005;    // relative standard deviation
  double timeout_s = 15;       // wall time from the first timed sample; ends the benchmark whatever else holds
  std::int64_t max_samples = 1'000'000;  // bounds memory: every sample is kept
};

// kError: a sample failed and sampling ended there (sample_until_stable sets it; check_stop never returns it).
enum class StopReason { kConverged, kTimeout, kMaxSamples, kError };
std::string_view stop_reason_name(StopReason r);  // "converged", "timeout", "max-samples", "error"

// Running mean and variance of the samples (Welford), so each new sample costs O(1) however many there are.
class NoiseTracker {
 public:
  void add(double x);
  std::int64_t count() const { return n_; }
  double sum() const { return sum_; }
  double mean() const { return n_ > 0 ? mean_ : 0; }
  // Sample standard deviation (n - 1); 0 with fewer than 2 samples.
  double stddev() const;
  // stddev / mean; infinite with fewer than 2 samples or a mean of 0 (not yet known to be quiet).
  double relative_noise() const;

 private:
  std::int64_t n_ = 0;
  double sum_ = 0, mean_ = 0, m2_ = 0;
};

// Whether to stop after the samples seen so far, `wall_s` seconds after the first timed sample began.
// `measured_s` is the time the samples measured: their sum times the operations a sample timed (a hot batch of
// 76 launches measures 76 times its per-launch sample).
// stop false: take another sample. The timeout and the cap win over convergence only when convergence
// has not happened by then.
struct StopCheck {
  bool stop = false;
  StopReason reason = StopReason::kConverged;
};
StopCheck check_stop(const StoppingRule& rule, const NoiseTracker& samples, double measured_s, double wall_s);

}  // namespace perfhound::bench
