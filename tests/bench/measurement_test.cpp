// The sampling loop on scripted samples and a scripted clock, and the summary against numpy's percentiles.
#include "bench/measurement.h"

#include <cmath>
#include <gtest/gtest.h>

namespace perfhound::bench {
namespace {

TEST(SummarizeSamples, PercentilesAreNumpysLinearInterpolation) {
  // numpy.percentile(range(1, 11), [10, 25, 50, 90, 99]) = 1.9, 3.25, 5.5, 9.1, 9.91
  const SampleSummary s = summarize_samples({10, 3, 1, 7, 2, 9, 4, 8, 6, 5});
  EXPECT_EQ(s.count, 10);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_NEAR(s.p10, 1.9, 1e-12);
  EXPECT_NEAR(s.p25, 3.25, 1e-12);
  EXPECT_NEAR(s.p50, 5.5, 1e-12);
  EXPECT_NEAR(s.p90, 9.1, 1e-12);
  EXPECT_NEAR(s.p99, 9.91, 1e-12);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_NEAR(s.stddev, 3.0276503540974917, 1e-12);  // sqrt(82.5 / 9)
}

TEST(SummarizeSamples, EmptyAndSingle) {
  EXPECT_EQ(summarize_samples({}).count, 0);
  const SampleSummary one = summarize_samples({2e-6});
  EXPECT_DOUBLE_EQ(one.p50, 2e-6);
  EXPECT_DOUBLE_EQ(one.p99, 2e-6);
  EXPECT_EQ(one.stddev, 0);
}

TEST(RateAtMedian, WorkOverTheMedianTime) {
  SampleSummary s;
  s.p50 = 0.5e-3;
  EXPECT_DOUBLE_EQ(rate_at_median(2e9, s), 4e12);  // 2 GB in 0.5 ms: 4 TB/s
  EXPECT_EQ(rate_at_median(0, s), 0);
}

// 2^-12 s samples add up exactly in binary floating point: the 0.5 s minimum is met at sample 2048.
TEST(SampleUntilStable, QuietSamplesStopAtTheMinimumTimeAfterTheWarmup) {
  int calls = 0;
  double clock = 0;
  Measurement m;
  m.name = "constant";
  const SampledRun r = sample_until_stable(
      m, StoppingRule{}, 3,
      [&]() -> core::Result<double> {
        ++calls;
        clock += 0.000244140625;
        return 0.000244140625;
      },
      [&] { return clock; });
  ASSERT_FALSE(r.error);
  EXPECT_EQ(calls, 3 + 2048);
  EXPECT_EQ(r.measurement.samples_s.size(), 2048u);
  EXPECT_EQ(r.measurement.warmup_discarded, 3);
  EXPECT_EQ(r.measurement.stop, StopReason::kConverged);
  EXPECT_EQ(r.measurement.noise, 0);
  EXPECT_DOUBLE_EQ(r.measurement.sample_time_s, 0.5);
  EXPECT_TRUE(r.measurement.diagnostics.empty());
}

// A hot batch: each sample is per operation but measured 64 of them, so 2^-12 s samples reach 0.5 s of
// measured time after 32 samples, not 2048.
TEST(SampleUntilStable, ABatchCountsEveryOperationTowardsTheMinimumTime) {
  Measurement m;
  m.operations_per_sample = 64;
  const SampledRun r = sample_until_stable(
      m, StoppingRule{}, 0, []() -> core::Result<double> { return 0.000244140625; }, [] { return 0.0; });
  EXPECT_EQ(r.measurement.samples_s.size(), 32u);
  EXPECT_DOUBLE_EQ(r.measurement.sample_time_s, 0.5);
}

TEST(SampleUntilStable, NoisySamplesStopAtTheTimeoutWithAWarning) {
  double clock = 0;
  int i = 0;
  StoppingRule rule;
  rule.timeout_s = 15;
  const SampledRun r = sample_until_stable(
      Measurement{}, rule, 0,
      [&]() -> core::Result<double> {
        clock += 1;  // each sample takes a second of wall time
        return ++i % 2 == 0 ? 0.10 : 0.11;
      },
      [&] { return clock; });
  // The clock is read once before the first sample (0) and after each: sample k ends at wall time k.
  EXPECT_EQ(r.measurement.samples_s.size(), 15u);
  EXPECT_EQ(r.measurement.stop, StopReason::kTimeout);
  ASSERT_FALSE(r.measurement.diagnostics.empty());
  EXPECT_EQ(r.measurement.diagnostics[0].kind->id, "bench-not-converged");
  EXPECT_EQ(r.measurement.diagnostics.back().kind->id, "few-samples-for-tail");
}

TEST(SampleUntilStable, AnErrorKeepsTheSamplesBeforeIt) {
  int i = 0;
  Measurement m;
  m.name = "flaky";
  const SampledRun r = sample_until_stable(
      m, StoppingRule{}, 2,
      [&]() -> core::Result<double> {
        if (++i == 6) return core::Error{"cudaEventSynchronize: an illegal memory access was encountered"};
        return 1.0;
      },
      [] { return 0.0; });
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "flaky: sample 4: cudaEventSynchronize: an illegal memory access was encountered");
  EXPECT_EQ(r.measurement.samples_s.size(), 3u);  // calls 3, 4, 5 after two warm-up calls
  EXPECT_EQ(r.measurement.summary.count, 3);
  // Not "converged": three identical samples have no noise, but the run ended at the failure, and says so.
  EXPECT_EQ(r.measurement.stop, StopReason::kError);
  ASSERT_FALSE(r.measurement.diagnostics.empty());
  EXPECT_EQ(r.measurement.diagnostics[0].kind->id, "bench-failed");
  EXPECT_EQ(r.measurement.diagnostics[0].message,
            "sample 4: cudaEventSynchronize: an illegal memory access was encountered; the 3 samples before it are kept");
}

TEST(SampleUntilStable, OneSampleHasNoNoiseFigure) {
  Measurement m;
  m.name = "once";
  StoppingRule rule;
  rule.max_samples = 1;
  const SampledRun r = sample_until_stable(m, rule, 0, []() -> core::Result<double> { return 2.0; }, [] { return 0.0; });
  EXPECT_EQ(r.measurement.summary.count, 1);
  EXPECT_TRUE(std::isnan(r.measurement.noise));  // not 0: one sample says nothing about spread
}

}  // namespace
}  // namespace perfhound::bench
