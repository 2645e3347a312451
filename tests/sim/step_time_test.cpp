// Step time = max(flops / derated compute roof, bytes / derated memory roof) + overhead, by hand.
#include "sim/step_time.h"

#include <gtest/gtest.h>

namespace perfhound::sim {
namespace {

// 1 PFLOP/s and 4 TB/s at 0.5 and 0.75: 500,000 FLOP and 3,000 B per ns; 300 us overhead.
constexpr StepTimeModel kModel{1e15, 4e12, 0.5, 0.75, 300'000};

TEST(StepTime, ComputeBoundStepTakesItsFlopsOverTheDeratedPeak) {
  model::StepCost c;
  c.flops = 5e12;        // 10,000,000 ns at 500,000 FLOP/ns
  c.weight_bytes = 3e9;  // 1,000,000 ns at 3,000 B/ns
  const StepTime t = step_time(c, kModel);
  EXPECT_FALSE(t.memory_bound);
  EXPECT_DOUBLE_EQ(t.compute_time_s, 0.01);
  EXPECT_DOUBLE_EQ(t.memory_time_s, 0.001);
  EXPECT_EQ(t.roofline_ns, 10'000'000);
  EXPECT_EQ(t.dur_ns, 10'300'000);
}

TEST(StepTime, MemoryBoundStepTakesItsBytesOverTheDeratedBandwidth) {
  model::StepCost c;
  c.flops = 1e6;
  c.weight_bytes = 16e9;  // 16e9 / 3e12 s = 5,333,333.3 ns
  c.kv_bytes = 2e9;       // with the weights 18e9 B: 6,000,000 ns (the FLOPs take 2 ns)
  const StepTime t = step_time(c, kModel);
  EXPECT_TRUE(t.memory_bound);
  EXPECT_EQ(t.roofline_ns, 6'000'000);
  EXPECT_EQ(t.dur_ns, 6'300'000);
}

TEST(StepTime, BoundIsRoundedToTheNearestNanosecondAndAnEmptyStepIsTheOverhead) {
  model::StepCost c;
  c.weight_bytes = 4000;  // 1.33 ns -> 1
  EXPECT_EQ(step_time(c, kModel).roofline_ns, 1);
  c.weight_bytes = 5000;  // 1.67 ns -> 2
  EXPECT_EQ(step_time(c, kModel).roofline_ns, 2);
  const StepTime empty = step_time(model::StepCost{}, kModel);
  EXPECT_EQ(empty.roofline_ns, 0);
  EXPECT_EQ(empty.dur_ns, 300'000);
}

}  // namespace
}  // namespace perfhound::sim
