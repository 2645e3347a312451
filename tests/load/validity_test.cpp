#include "load/validity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

ValidityInputs healthy() {
  ValidityInputs in;
  in.open_loop = true;
  in.dispatch_lag_p99_s = 50e-6;
  in.loop_lag_p99_s = 100e-6;
  in.client_cpu_ratio = 0.3;
  in.emit_delay_measured = true;
  in.emit_delay_p99_s = 80e-6;
  in.completed = 100;
  return in;
}

TEST(Validity, AHealthyClientIsValid) {
  const Validity v = evaluate_validity(healthy());
  EXPECT_TRUE(v.valid);
  EXPECT_FALSE(v.client_limited);
  EXPECT_TRUE(v.reasons.empty());
}

TEST(Validity, EachClientLimitMakesTheRunInvalidWithItsNumbers) {
  ValidityInputs in = healthy();
  in.dispatch_lag_p99_s = 3.2e-3;
  Validity v = evaluate_validity(in);
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(v.client_limited);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_THAT(v.reasons[0].what, HasSubstr("dispatch lag p99 3.20 ms > 1.00 ms"));
  EXPECT_THAT(v.reasons[0].remedy, HasSubstr("MPI"));

  in = healthy();
  in.open_loop = false;
  in.dispatch_lag_p99_s = 1.0;  // closed loop has no schedule to lag behind
  EXPECT_TRUE(evaluate_validity(in).valid);

  in = healthy();
  in.loop_lag_p99_s = 6e-3;
  EXPECT_THAT(evaluate_validity(in).reasons.at(0).what, HasSubstr("event-loop lag"));
  in = healthy();
  in.client_cpu_ratio = 0.95;
  EXPECT_THAT(evaluate_validity(in).reasons.at(0).what, HasSubstr("95.0%"));
  in = healthy();
  in.emit_delay_p99_s = 2e-3;
  EXPECT_THAT(evaluate_validity(in).reasons.at(0).what, HasSubstr("emit -> client receive"));
}

// A review's 2 s run: one 1.54 ms dispatch among 38 made it INVALID. Under 100 samples the "p99" is the largest
// of them: one sample over the limit is a warning that says so; two or more (the second largest over too) are
// a limited client, as a run of 60 dispatches lagging 9 ms each must stay. From 100 samples on, the p99 decides.
TEST(Validity, OneLagSampleOverAmongTooFewIsAWarning) {
  ValidityInputs in = healthy();
  in.dispatch_lag_p99_s = 1.54e-3;
  in.dispatch_lag_samples = 38;
  in.dispatch_lag_second_s = 0.2e-3;
  Validity v = evaluate_validity(in);
  EXPECT_TRUE(v.valid);
  EXPECT_FALSE(v.client_limited);
  EXPECT_TRUE(v.warnings.empty());
  ASSERT_EQ(v.few_sample_warnings.size(), 1u);
  EXPECT_THAT(v.few_sample_warnings[0].what, HasSubstr("dispatch lag p99 1.54 ms > 1.00 ms, but from 38 samples only "
                                                       "the largest is over"));
  in.dispatch_lag_second_s = 1.2e-3;  // a second sample over: limited
  v = evaluate_validity(in);
  EXPECT_FALSE(v.valid);
  EXPECT_THAT(v.reasons.at(0).what, HasSubstr("client-limited: dispatch lag p99 1.54 ms > 1.00 ms (from 38 samples, "
                                              "the second largest 1.20 ms)"));
  in.dispatch_lag_second_s = 0.2e-3;
  in.dispatch_lag_samples = 100;  // enough samples: the p99 decides
  v = evaluate_validity(in);
  EXPECT_FALSE(v.valid);
  EXPECT_THAT(v.reasons.at(0).what, HasSubstr("client-limited: dispatch lag p99 1.54 ms > 1.00 ms"));

  in = healthy();
  in.emit_delay_p99_s = 2e-3;
  in.emit_delay_samples = 99;
  EXPECT_TRUE(evaluate_validity(in).valid);
  in.emit_delay_second_s = 1.5e-3;
  EXPECT_FALSE(evaluate_validity(in).valid);
}

TEST(Validity, TheLimitsGrowToATenthOfTheMedianTtft) {
  ValidityInputs in = healthy();
  in.ttft_p50_s = 0.5;             // limit(1 ms) = 50 ms, limit(5 ms) = 50 ms
  in.dispatch_lag_p99_s = 40e-3;   // 8% of the TTFT: the server's latency still dominates
  in.emit_delay_p99_s = 40e-3;
  in.loop_lag_p99_s = 40e-3;
  EXPECT_TRUE(evaluate_validity(in).valid);
  in.dispatch_lag_p99_s = 60e-3;   // 12%
  const Validity v = evaluate_validity(in);
  EXPECT_FALSE(v.valid);
  EXPECT_THAT(v.reasons.at(0).what, HasSubstr("dispatch lag p99 60.0 ms > 50.0 ms"));
  in = healthy();
  in.ttft_p50_s = 2e-3;            // 10% is 200 us: the 1 ms floor holds
  in.emit_delay_p99_s = 1.5e-3;
  EXPECT_FALSE(evaluate_validity(in).valid);
}

// With (nearly) every read stamped by the kernel, a lagging loop no longer moves a chunk's time: a warning.
// Below 99% stamped, the unstamped reads carry the lag into the latencies: client-limited as before.
TEST(Validity, EventLoopLagWithKernelStampsIsAWarningOnly) {
  ValidityInputs in = healthy();
  in.loop_lag_p99_s = 30e-3;
  in.stamped_read_share = 0.999;
  Validity v = evaluate_validity(in);
  EXPECT_TRUE(v.valid);
  EXPECT_FALSE(v.client_limited);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_THAT(v.warnings[0].what, HasSubstr("event-loop lag p99 30.0 ms > 5.00 ms, with 99.9% of the reads stamped"));
  in.stamped_read_share = 0.98;
  v = evaluate_validity(in);
  EXPECT_FALSE(v.valid);
  EXPECT_TRUE(v.warnings.empty());
  EXPECT_THAT(v.reasons.at(0).what, HasSubstr("client-limited: event-loop lag"));
  in.stamped_read_share = 1.0;  // the stamps do not excuse a saturated core
  in.client_cpu_ratio = 0.95;
  EXPECT_FALSE(evaluate_validity(in).valid);
}

TEST(Validity, NothingCompletedIsInvalidButNotClientLimited) {
  ValidityInputs in = healthy();
  in.completed = 0;
  const Validity v = evaluate_validity(in);
  EXPECT_FALSE(v.valid);
  EXPECT_FALSE(v.client_limited);
  EXPECT_THAT(v.reasons.at(0).what, HasSubstr("no measured request completed"));
}

}  // namespace
}  // namespace perfhound::load
