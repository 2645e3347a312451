// The CPU runner: the batch calibration on a scripted timer, and a real run whose calls are counted
// independently of the runner.
#include "bench/cpu_bench.h"

#include <gtest/gtest.h>
#include <stdexcept>

namespace perfhound::bench {
namespace {

TEST(CalibrateCalls, TheFirstPowerOfTwoWhoseBatchReachesTheTarget) {
  std::int64_t batches = 0;
  // 1 us a call, 100 us wanted: 1, 2, ..., 64 fall short, 128 calls take 128 us.
  const std::int64_t calls = calibrate_calls(100e-6, [](std::int64_t n) { return static_cast<double>(n) * 1e-6; }, &batches);
  EXPECT_EQ(calls, 128);
  EXPECT_EQ(batches, 8);
  batches = 0;
  // A call that alone takes longer than the target: one call a sample.
  EXPECT_EQ(calibrate_calls(100e-6, [](std::int64_t) { return 1e-3; }, &batches), 1);
  EXPECT_EQ(batches, 1);
}

TEST(RunCpu, EveryCallIsCalibrationWarmupOrSample) {
  std::int64_t calls = 0;
  CpuOptions options;
  options.stop.min_time_s = 0.01;
  options.stop.max_noise = 0.5;  // converge quickly on a busy CI machine
  options.stop.timeout_s = 2;
  options.warmup = 2;
  options.min_sample_s = 20e-6;
  volatile double sink = 0;
  const SampledRun r = run_cpu("accumulate", options, [&] {
    ++calls;
    for (int i = 0; i < 200; ++i) sink = sink + i;
  });
  ASSERT_FALSE(r.error);
  const Measurement& m = r.measurement;
  const std::int64_t per_sample = m.operations_per_sample;
  const std::int64_t calibration_batches = m.details["calibration_batches"].get<std::int64_t>();
  // Calibration ran batches of 1, 2, 4, ..., per_sample calls: 2 * per_sample - 1 in all.
  EXPECT_EQ(std::int64_t{1} << (calibration_batches - 1), per_sample);
  const std::int64_t expected = (2 * per_sample - 1) + (2 + static_cast<std::int64_t>(m.samples_s.size())) * per_sample;
  EXPECT_EQ(calls, expected);
  EXPECT_EQ(m.warmup_discarded, 2);
  EXPECT_GE(m.samples_s.size(), 10u);
  EXPECT_GT(m.summary.p50, 0);
  EXPECT_EQ(m.mode, "cpu");
}

TEST(RunCpu, AnExceptionEndsTheRunAsAnError) {
  int calls = 0;
  CpuOptions options;
  options.calls_per_sample = 1;
  options.warmup = 0;
  const SampledRun r = run_cpu("throws", options, [&] {
    if (++calls == 4) throw std::runtime_error("out of input");
  });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "throws: sample 4: out of input");
  EXPECT_EQ(r.measurement.samples_s.size(), 3u);
}

}  // namespace
}  // namespace perfhound::bench
