// perfhound::bench for CPU code: times a callable with the steady clock, in batches long enough that the
// clock's own cost (tens of nanoseconds a read) stays under 0.1% of a sample, warm-up discarded, until the
// stopping rule holds. Samples are seconds per call.
//
//   auto m = bench::run_cpu("sort 1M", {}, [&] { std::sort(v.begin(), v.end()); bench::do_not_optimize(v); });
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bench/measurement.h"
#include "bench/stopping_rule.h"

namespace perfhound::bench {

struct CpuOptions {
  StoppingRule stop;
  std::int64_t warmup = 3;            // samples discarded after calibration
  std::int64_t calls_per_sample = 0;  // 0: doubled from 1 until a batch takes min_sample_s
  double min_sample_s = 100e-6;       // the calibration target for one batch
  Work work;                          // per call, for the rate column
};

// Runs `fn` until the rule stops it; an exception from `fn` ends the run and is returned as the error,
// with the samples taken so far kept in the measurement.
SampledRun run_cpu(const std::string& name, const CpuOptions& options, const std::function<void()>& fn);

// Keeps `value` (and what it points to) alive for the optimizer, so the work that produced it is not removed:
// the same trick as Google Benchmark's DoNotOptimize.
template <class T>
inline void do_not_optimize(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

// The calls per sample calibration picks: the first power of two whose batch, timed by `time_batch(calls)`,
// takes at least `min_sample_s` (capped at 2^30 calls). Pure given time_batch; exposed for tests.
std::int64_t calibrate_calls(double min_sample_s, const std::function<double(std::int64_t)>& time_batch,
                             std::int64_t* batches_run);

}  // namespace perfhound::bench
