// The probe's arithmetic, without a GPU: work counted per figure, rates per repeat, median / p10 / p90.
// Expected values are worked out by hand in each test.
#include "cuda/probe_figures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace perfhound::cuda {
namespace {

TEST(ProbeFigures, GemmFlopIsTwoMnk) {
  // 2 * 8192^3 = 2 * 549,755,813,888 = 1,099,511,627,776 FLOP.
  EXPECT_DOUBLE_EQ(gemm_flop(8192, 8192, 8192), 1099511627776.0);
  EXPECT_DOUBLE_EQ(gemm_flop(128, 192, 256), 2.0 * 128 * 192 * 256);
  // 2 * 8192^3 FLOP in 1.45 ms = 758.28 TFLOP/s.
  const std::vector<double> t{1.45e-3};
  EXPECT_NEAR(rates_from_times(gemm_flop(8192, 8192, 8192), t)[0] / 1e12, 758.28, 0.01);
}

TEST(ProbeFigures, CopyCountsReadPlusWritten) {
  // A 4 GiB copy moves 8 GiB: 8,589,934,592 bytes in 2.2 ms = 3,904.5 GB/s.
  const double bytes = copy_traffic_bytes(4.0 * (1ull << 30));
  EXPECT_DOUBLE_EQ(bytes, 8589934592.0);
  const std::vector<double> t{2.2e-3};
  EXPECT_NEAR(rates_from_times(bytes, t)[0] / 1e9, 3904.52, 0.01);
}

TEST(ProbeFigures, FmaIsTwoFlop) {
  // 132 SMs x 8 blocks x 256 threads = 270,336 threads; 8 chains x 65,536 FMA each = 524,288 FMA per thread;
  // 2 x 270,336 x 524,288 = 283,467,841,536 FLOP.
  EXPECT_DOUBLE_EQ(fma_flop(270336, 524288), 283467841536.0);
}

TEST(ProbeFigures, MedianAndSpreadOverRepeats) {
  // Ten values 1..10 (shuffled): median 5.5; p10 = x[0.9] = 1 + 0.9 = 1.9; p90 = x[8.1] = 9 + 0.1 = 9.1.
  const std::vector<double> v{7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
  const FigureSummary s = summarize_repeats(v);
  EXPECT_EQ(s.repeats, 10u);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_NEAR(s.p10, 1.9, 1e-12);
  EXPECT_NEAR(s.p90, 9.1, 1e-12);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
}

TEST(ProbeFigures, EdgeCasesOfTheSummary) {
  const FigureSummary none = summarize_repeats({});
  EXPECT_EQ(none.repeats, 0u);
  EXPECT_TRUE(std::isnan(none.median));
  const std::vector<double> one{4.5};
  const FigureSummary s = summarize_repeats(one);
  EXPECT_EQ(s.repeats, 1u);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.p10, 4.5);
  EXPECT_DOUBLE_EQ(s.p90, 4.5);
}

TEST(ProbeFigures, RatePercentilesComeFromPerRepeatRates) {
  // Times 1, 2, 4 ms for 1 GB: rates 1000, 500, 250 GB/s; the median rate is 500 GB/s (the median time's).
  const std::vector<double> t{1e-3, 2e-3, 4e-3};
  const FigureSummary s = summarize_repeats(rates_from_times(1e9, t));
  EXPECT_DOUBLE_EQ(s.median, 500e9);
  // p10 = x[0.2] = 250 + 0.2 * 250 = 300 GB/s.
  EXPECT_NEAR(s.p10, 300e9, 1);
}

TEST(ProbeFigures, PerOperationTimes) {
  // 10,000 launches in 25 ms: 2.5 us each.
  const std::vector<double> t{25e-3};
  EXPECT_NEAR(per_operation_times(t, 10000)[0], 2.5e-6, 1e-15);
}

TEST(ProbeFigures, ClockDropBeyondOnePercent) {
  EXPECT_FALSE(clock_dropped(1980e6, 1980e6));
  EXPECT_FALSE(clock_dropped(1980e6, 1965e6));  // one 15 MHz step: 0.76%
  EXPECT_TRUE(clock_dropped(1980e6, 1950e6));   // 1.5%
  EXPECT_FALSE(clock_dropped(0, 1000e6));       // unknown before
  EXPECT_FALSE(clock_dropped(1980e6, 2000e6));  // rose
}

// The bits of nvml.h's nvmlClocksEventReason* constants: the limits are named, the settings are not throttling.
TEST(ProbeFigures, ThrottleReasonsNameTheLimits) {
  EXPECT_EQ(throttle_reasons(0), "");
  EXPECT_EQ(throttle_reasons(0x1 | 0x2 | 0x10 | 0x100), "");  // idle, application clocks, sync boost, display
  EXPECT_EQ(throttle_reasons(0x20), "thermal (software)");
  EXPECT_EQ(throttle_reasons(0x4 | 0x40), "power cap, thermal (hardware)");
  EXPECT_EQ(throttle_reasons(0x8 | 0x80 | 0x1), "hardware slowdown, power brake");
}

TEST(ProbeFigures, BandwidthBufferFitsTheFreeMemory) {
  const std::uint64_t gib = 1ull << 30;
  // 140 GiB free: two 4 GiB buffers fit in half of it.
  EXPECT_EQ(bandwidth_buffer_bytes(4 * gib, 140 * gib), 4 * gib);
  // 10 GiB free: two buffers must fit in 5 GiB, so 4 -> 2 GiB.
  EXPECT_EQ(bandwidth_buffer_bytes(4 * gib, 10 * gib), 2 * gib);
  // 3 GiB free: 1.5 GiB for two, so 512 MiB each.
  EXPECT_EQ(bandwidth_buffer_bytes(4 * gib, 3 * gib), 512ull << 20);
  // Too little for two 16 MiB buffers.
  EXPECT_EQ(bandwidth_buffer_bytes(4 * gib, 40ull << 20), 0u);
  // Rounded down to 16 MiB.
  EXPECT_EQ(bandwidth_buffer_bytes((100ull << 20) + 5, 140 * gib), 96ull << 20);
}

}  // namespace
}  // namespace perfhound::cuda
