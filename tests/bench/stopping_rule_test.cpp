// The stopping rule and the running noise, against values worked by hand.
#include "bench/stopping_rule.h"

#include <cmath>
#include <gtest/gtest.h>

namespace perfhound::bench {
namespace {

TEST(NoiseTracker, MatchesTheSampleStandardDeviationWorkedByHand) {
  NoiseTracker t;
  for (double x : {1.0, 2.0, 3.0, 4.0}) t.add(x);
  // mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5; sample variance 5 / 3.
  EXPECT_EQ(t.count(), 4);
  EXPECT_DOUBLE_EQ(t.sum(), 10.0);
  EXPECT_DOUBLE_EQ(t.mean(), 2.5);
  EXPECT_NEAR(t.stddev(), std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(t.relative_noise(), std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
}

TEST(NoiseTracker, OneSampleIsNotYetKnownToBeQuiet) {
  NoiseTracker t;
  t.add(5);
  EXPECT_EQ(t.stddev(), 0);
  EXPECT_TRUE(std::isinf(t.relative_noise()));
}

NoiseTracker constant(int n, double value) {
  NoiseTracker t;
  for (int i = 0; i < n; ++i) t.add(value);
  return t;
}

TEST(CheckStop, ConvergesOnlyWhenCountTimeAndNoiseAllHold) {
  StoppingRule rule;  // nvbench's defaults: 10 samples, 0.5 s, 0.5%
  // 9 samples of 0.1 s: time and noise hold, count does not.
  EXPECT_FALSE(check_stop(rule, constant(9, 0.1), 0.9, 1).stop);
  // 10 samples of 0.01 s: 0.1 s of samples, under the 0.5 s minimum.
  EXPECT_FALSE(check_stop(rule, constant(10, 0.01), 0.1, 1).stop);
  // ... unless each sample timed a batch of 5 operations: 0.5 s measured.
  EXPECT_TRUE(check_stop(rule, constant(10, 0.01), 0.5, 1).stop);
  // 10 samples of 0.1 s, no noise: converged.
  const StopCheck c = check_stop(rule, constant(10, 0.1), 1.0, 1);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, StopReason::kConverged);
}

TEST(CheckStop, NoiseAboveTheTargetRunsOnUntilTheTimeout) {
  StoppingRule rule;
  NoiseTracker t;
  for (int i = 0; i < 100; ++i) t.add(i % 2 == 0 ? 0.10 : 0.11);  // about 4.8% relative noise
  EXPECT_FALSE(check_stop(rule, t, t.sum(), 14.9).stop);
  const StopCheck c = check_stop(rule, t, t.sum(), 15.0);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, StopReason::kTimeout);
  rule.max_noise = 0.05;  // a looser target is met by the same samples
  EXPECT_EQ(check_stop(rule, t, t.sum(), 1).reason, StopReason::kConverged);
}

TEST(CheckStop, TheSampleCapEndsARunThatNeverConverges) {
  StoppingRule rule;
  rule.max_samples = 4;
  NoiseTracker t;
  for (double x : {1.0, 2.0, 1.0, 2.0}) t.add(x);
  const StopCheck c = check_stop(rule, t, t.sum(), 0);
  EXPECT_TRUE(c.stop);
  EXPECT_EQ(c.reason, StopReason::kMaxSamples);
  EXPECT_EQ(stop_reason_name(c.reason), "max-samples");
}

}  // namespace
}  // namespace perfhound::bench
