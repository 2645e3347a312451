#include "bench/cpu_bench.h"

#include <chrono>
#include <exception>
#include <fmt/format.h>

namespace perfhound::bench {
namespace {

using Clock = std::chrono::steady_clock;

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

double time_calls(const std::function<void()>& fn, std::int64_t calls) {
  const auto t0 = Clock::now();
  for (std::int64_t i = 0; i < calls; ++i) fn();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

std::int64_t calibrate_calls(double min_sample_s, const std::function<double(std::int64_t)>& time_batch,
                             std::int64_t* batches_run) {
  constexpr std::int64_t kMaxCalls = std::int64_t{1} << 30;
  std::int64_t calls = 1;
  for (;;) {
    const double t = time_batch(calls);
    if (batches_run != nullptr) ++*batches_run;
    if (t >= min_sample_s || calls >= kMaxCalls) return calls;
    calls *= 2;
  }
}

SampledRun run_cpu(const std::string& name, const CpuOptions& options, const std::function<void()>& fn) {
  Measurement m;
  m.name = name;
  m.mode = "cpu";
  m.work = options.work;
  try {
    std::int64_t calibration_batches = 0;
    m.operations_per_sample =
        options.calls_per_sample > 0
            ? options.calls_per_sample
            : calibrate_calls(options.min_sample_s, [&](std::int64_t calls) { return time_calls(fn, calls); },
                              &calibration_batches);
    m.details["calibration_batches"] = calibration_batches;
    m.details["clock"] = "std::chrono::steady_clock";
  } catch (const std::exception& e) {
    return {std::move(m), core::Error{fmt::format("{}: calibration: {}", name, e.what())}};
  }
  const std::int64_t calls = m.operations_per_sample;
  const auto sample = [&]() -> core::Result<double> {
    try {
      return time_calls(fn, calls) / static_cast<double>(calls);
    } catch (const std::exception& e) {
      return core::Error{e.what()};
    }
  };
  return sample_until_stable(std::move(m), options.stop, options.warmup, sample, now_s);
}

}  // namespace perfhound::bench
