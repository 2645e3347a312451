// One micro-benchmark's result: every timed sample (seconds per operation), what was discarded as warm-up,
// why sampling stopped, the percentiles, the work an operation did (for rates), and what it ran under.
// Plain C++ (no CUDA types), shared by the CPU and the CUDA runners, the table, the JSON and the tests.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/stopping_rule.h"
#include "core/diagnostics.h"
#include "core/result.h"

namespace perfhound::bench {

// What one operation (one call, one kernel launch) does, so the table can print a rate at the median.
// The factories name the one figure set (g++ 12's -Wextra warns on designated initializers that leave
// members out, so `Work{.bytes = n}` is not warning-free).
struct Work {
  double bytes = 0;  // bytes moved through memory (read + written)
  double flop = 0;
  double items = 0;  // anything else counted (elements, tokens)

  static Work bytes_moved(double b) { return {b, 0, 0}; }
  static Work flop_done(double f) { return {0, f, 0}; }
  static Work items_done(double i) { return {0, 0, i}; }
};

// Percentiles are core::percentile_of_sorted (numpy's linear interpolation); the mean and the standard
// deviation are reported beside them, never alone (seed §7).
struct SampleSummary {
  std::int64_t count = 0;
  double min = 0, p10 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
  double mean = 0, stddev = 0;
};
// Edge cases: no samples gives count 0 and zeros; one sample gives it for every percentile, stddev 0.
SampleSummary summarize_samples(const std::vector<double>& samples);

// An NVML reading of the GPU (the CUDA runner fills it; CPU benchmarks leave it empty).
struct GpuClocks {
  double sm_clock_hz = 0;
  double memory_clock_hz = 0;
  double temperature_c = 0;
  std::uint64_t clock_event_reasons = 0;  // NVML's bitmask (cuda/probe_figures.h kThrottleReasonBits: the limits)
};

struct Measurement {
  std::string name;
  std::string mode;  // "cpu", "cold" (L2 flushed, one launch a sample) or "hot" (a batch of launches a sample)
  std::int64_t operations_per_sample = 1;  // calls or launches timed together; samples are per operation
  std::int64_t warmup_discarded = 0;       // samples run and thrown away first (CPU calibration runs: details)
  std::vector<double> samples_s;           // seconds per operation, in measurement order
  SampleSummary summary;
  StopReason stop = StopReason::kConverged;
  double noise = 0;         // relative standard deviation at the stop; NaN from fewer than 2 samples
  double sample_time_s = 0;  // the sum of the samples x operations per sample
  double wall_time_s = 0;    // from the first timed sample to the last
  Work work;                 // per operation
  std::optional<GpuClocks> clocks_before, clocks_after;
  nlohmann::ordered_json details = nlohmann::ordered_json::object();  // runner-specific: L2 flush bytes, rotations
  std::vector<core::Diagnostic> diagnostics;
};

// The sampling loop both runners share: `warmup` calls of `sample` thrown away, then calls until
// check_stop says so. `sample` returns one sample's seconds per operation, or an error that ends the loop
// (the samples so far are kept and the error is returned beside them). `wall_clock` returns seconds on any
// monotonic origin. Fills samples, summary, stop, noise, times and diagnostics (timeout, noise, few samples).
struct SampledRun {
  Measurement measurement;
  std::optional<core::Error> error;  // the sample that failed, if one did
};
SampledRun sample_until_stable(Measurement m, const StoppingRule& rule, std::int64_t warmup,
                               const std::function<core::Result<double>()>& sample,
                               const std::function<double()>& wall_clock);

// Throughput at the median time: work per operation / p50 (0 when the work or the median is 0).
double rate_at_median(double work_per_operation, const SampleSummary& s);

}  // namespace perfhound::bench
