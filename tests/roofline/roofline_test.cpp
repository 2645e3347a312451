#include "roofline/roofline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace perfhound::roofline {
namespace {

// H100 SXM-like roof: 989e12 FLOP/s dense bf16 (H100 datasheet, 989.4 TFLOPS without sparsity) and
// 3.35e12 B/s HBM3. Ridge = 989 / 3.35 = 295.2238806 FLOP/byte.
const Roof kH100{989e12, 3.35e12, "H100 bf16 + HBM3"};

void expect_error_containing(const core::Result<RooflinePoint>& result, const std::string& text) {
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find(text), std::string::npos) << result.error().message;
}

TEST(PlaceOnRoofline, BigBf16GemmIsOnTheComputeRoof) {
  // 8192^3 GEMM: flops = 2 * 8192^3 = 1,099,511,627,776; bytes = A, B, C once in 2-byte bf16 =
  // 3 * 8192^2 * 2 = 402,653,184; measured 1.5 ms.
  const auto p = place_on_roofline(kH100, {1099511627776.0, 402653184.0, 1.5e-3});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(p->ridge_point, 295.2238806, 1e-6);
  EXPECT_NEAR(p->arithmetic_intensity, 2730.666667, 1e-5);          // 8192 / 3
  EXPECT_DOUBLE_EQ(p->attainable_flops_per_s, 989e12);              // AI above the ridge: the flat roof
  EXPECT_NEAR(p->achieved_flops_per_s, 7.330077518506667e14, 1e3);  // 1.0995e12 / 1.5e-3
  EXPECT_NEAR(p->achieved_bytes_per_s, 2.68435456e11, 1);           // 402,653,184 / 1.5e-3
  // bound = max(1.0995e12 / 989e12 = 1.111741e-3 s, 402,653,184 / 3.35e12 = 1.201950e-4 s) = 1.111741e-3 s.
  EXPECT_NEAR(p->bound_time_s, 1.1117407763e-3, 1e-12);
  EXPECT_NEAR(p->fraction_of_attainable, 0.7411605175, 1e-9);  // 1.111741e-3 / 1.5e-3
  EXPECT_EQ(p->roofline_case, RooflineCase::kComputeRoof);
}

TEST(PlaceOnRoofline, ElementwiseAddIsOnTheMemorySlope) {
  // c = a + b over 64M fp32: flops = 64 * 2^20 = 67,108,864 adds; bytes = 3 tensors * 4 B * 64M =
  // 805,306,368; measured 0.3 ms.
  const auto p = place_on_roofline(kH100, {67108864.0, 805306368.0, 3e-4});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NEAR(p->arithmetic_intensity, 1.0 / 12.0, 1e-15);
  EXPECT_NEAR(p->attainable_flops_per_s, 2.791666667e11, 1e2);  // AI * B = 3.35e12 / 12
  EXPECT_NEAR(p->achieved_flops_per_s, 2.236962133e11, 1e2);    // 67,108,864 / 3e-4
  EXPECT_NEAR(p->achieved_bytes_per_s, 2.68435456e12, 1);       // 805,306,368 / 3e-4
  EXPECT_NEAR(p->bound_time_s, 2.403899606e-4, 1e-13);          // 805,306,368 / 3.35e12
  EXPECT_NEAR(p->fraction_of_attainable, 0.8012998687, 1e-9);   // = achieved / attainable
  EXPECT_NEAR(p->fraction_of_attainable, p->achieved_flops_per_s / p->attainable_flops_per_s, 1e-12);
  EXPECT_EQ(p->roofline_case, RooflineCase::kMemorySlope);
}

TEST(PlaceOnRoofline, TinyKernelIsFarBelowBoth) {
  // 1e6 FLOPs over 1e6 bytes (AI = 1) taking 5 us: bound = max(1e6 / 989e12 = 1.011e-9 s,
  // 1e6 / 3.35e12 = 2.985075e-7 s) = 2.985075e-7 s, fraction = 2.985075e-7 / 5e-6 = 0.0597.
  const auto p = place_on_roofline(kH100, {1e6, 1e6, 5e-6});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_DOUBLE_EQ(p->arithmetic_intensity, 1.0);
  EXPECT_DOUBLE_EQ(p->attainable_flops_per_s, 3.35e12);
  EXPECT_NEAR(p->achieved_flops_per_s, 2e11, 1e-3);
  EXPECT_NEAR(p->bound_time_s, 2.985074627e-7, 1e-16);
  EXPECT_NEAR(p->fraction_of_attainable, 0.05970149254, 1e-11);
  EXPECT_EQ(p->roofline_case, RooflineCase::kBelowBoth);
}

TEST(PlaceOnRoofline, AtTheRidgeIsTheComputeRoofAndTheThresholdIsInclusive) {
  // Roof 100 FLOP/s, 10 B/s: ridge 10. 1000 FLOPs over 100 bytes: AI 10, both bounds 10 s.
  const Roof roof{100, 10, "toy"};
  const auto at_half = place_on_roofline(roof, {1000, 100, 20});  // fraction 10 / 20 = 0.5 exactly
  ASSERT_TRUE(at_half.ok());
  EXPECT_DOUBLE_EQ(at_half->ridge_point, 10);
  EXPECT_DOUBLE_EQ(at_half->arithmetic_intensity, 10);
  EXPECT_DOUBLE_EQ(at_half->fraction_of_attainable, 0.5);
  EXPECT_EQ(at_half->roofline_case, RooflineCase::kComputeRoof);
  const auto just_below = place_on_roofline(roof, {1000, 100, 20.001});  // 10 / 20.001 = 0.499975
  ASSERT_TRUE(just_below.ok());
  EXPECT_EQ(just_below->roofline_case, RooflineCase::kBelowBoth);
}

TEST(PlaceOnRoofline, PureComputeAndPureCopy) {
  const Roof roof{100, 10, "toy"};
  // No bytes: AI = +inf, attainable = the compute peak, bound 1000 / 100 = 10 s of 20 s.
  const auto compute = place_on_roofline(roof, {1000, 0, 20});
  ASSERT_TRUE(compute.ok());
  EXPECT_TRUE(std::isinf(compute->arithmetic_intensity));
  EXPECT_DOUBLE_EQ(compute->attainable_flops_per_s, 100);
  EXPECT_DOUBLE_EQ(compute->fraction_of_attainable, 0.5);
  EXPECT_EQ(compute->roofline_case, RooflineCase::kComputeRoof);
  // No FLOPs (a copy): AI 0, attainable 0, fraction = bandwidth use = (100 / 10) / 12.5 = 0.8.
  const auto copy = place_on_roofline(roof, {0, 100, 12.5});
  ASSERT_TRUE(copy.ok());
  EXPECT_DOUBLE_EQ(copy->arithmetic_intensity, 0);
  EXPECT_DOUBLE_EQ(copy->attainable_flops_per_s, 0);
  EXPECT_DOUBLE_EQ(copy->achieved_bytes_per_s, 8);
  EXPECT_DOUBLE_EQ(copy->fraction_of_attainable, 0.8);
  EXPECT_EQ(copy->roofline_case, RooflineCase::kMemorySlope);
}

TEST(PlaceOnRoofline, FasterThanTheRoofIsReportedNotClamped) {
  // 2000 FLOPs in 10 s against a 100 FLOP/s roof: bound 20 s, fraction 2 (the roof is wrong, not the kernel).
  const auto p = place_on_roofline({100, 10, "toy"}, {2000, 10, 10});
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->fraction_of_attainable, 2.0);
  EXPECT_EQ(p->roofline_case, RooflineCase::kComputeRoof);
}

TEST(PlaceOnRoofline, BadInputNamesTheField) {
  expect_error_containing(place_on_roofline(kH100, {1, 1, 0}), "--time must be positive, got 0");
  expect_error_containing(place_on_roofline(kH100, {1, 1, -0.5}), "--time must be positive, got -0.5");
  expect_error_containing(place_on_roofline(kH100, {1, 1, std::nan("")}), "--time must be a finite number");
  expect_error_containing(place_on_roofline(kH100, {-1, 1, 1}), "--flops must not be negative, got -1");
  expect_error_containing(place_on_roofline(kH100, {1, -8, 1}), "--bytes must not be negative, got -8");
  expect_error_containing(place_on_roofline(kH100, {0, 0, 1}), "--flops and --bytes are both 0");
  expect_error_containing(place_on_roofline({0, 1, "x"}, {1, 1, 1}),
                          "roof 'x' peak_flops_per_s must be positive, got 0");
  expect_error_containing(place_on_roofline({1, -2, "x"}, {1, 1, 1}),
                          "roof 'x' peak_bytes_per_s must be positive, got -2");
}

TEST(CaseNames, StableIdentifiersAndTheSeedsAdvice) {
  EXPECT_EQ(case_name(RooflineCase::kMemorySlope), "memory_slope");
  EXPECT_EQ(case_name(RooflineCase::kComputeRoof), "compute_roof");
  EXPECT_EQ(case_name(RooflineCase::kBelowBoth), "below_both");
  EXPECT_NE(advice(RooflineCase::kMemorySlope).find("fusion"), std::string_view::npos);
  EXPECT_NE(advice(RooflineCase::kMemorySlope).find("quantize"), std::string_view::npos);
  EXPECT_NE(advice(RooflineCase::kComputeRoof).find("lower precision"), std::string_view::npos);
  EXPECT_NE(advice(RooflineCase::kComputeRoof).find("tiling"), std::string_view::npos);
  EXPECT_NE(advice(RooflineCase::kBelowBoth).find("launch config"), std::string_view::npos);
  EXPECT_NE(advice(RooflineCase::kBelowBoth).find("occupancy"), std::string_view::npos);
}

TEST(PlaceHierarchical, L2BindsWhereDramAloneSaysComputeRoof) {
  // 1e12 FLOPs in 2 ms on a 989e12 FLOP/s roof; compute bound alone 1e12 / 989e12 = 1.011122e-3 s.
  //   L1   40e9 B at 33e12 B/s: AI 25,     attainable 25 * 33e12 = 825e12,  bound 1.212121e-3 s
  //   L2   15e9 B at 10e12 B/s: AI 66.67,  attainable 666.67e12,             bound 1.5e-3 s
  //   DRAM  3e9 B at 3.35e12:   AI 333.3 > ridge 295.2, attainable 989e12,   bound 1.011122e-3 s
  // Lowest attainable (largest bound) is L2: 1.5e-3 / 2e-3 = 0.75 of it, on the L2 memory slope.
  const auto h =
      place_hierarchical(989e12, 1e12, 2e-3, {{"L1", 40e9, 33e12}, {"L2", 15e9, 10e12}, {"DRAM", 3e9, 3.35e12}});
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->levels.size(), 3u);
  EXPECT_EQ(h->binding_level, 1u);
  EXPECT_EQ(h->levels[1].name, "L2");
  EXPECT_DOUBLE_EQ(h->levels[0].point.arithmetic_intensity, 25);
  EXPECT_NEAR(h->levels[0].point.attainable_flops_per_s, 825e12, 1);
  EXPECT_NEAR(h->levels[0].point.bound_time_s, 1.212121212e-3, 1e-12);
  EXPECT_NEAR(h->levels[1].point.arithmetic_intensity, 66.66666667, 1e-7);
  EXPECT_NEAR(h->levels[1].point.attainable_flops_per_s, 2e15 / 3, 1);  // 66.67 * 10e12 = 666.67e12
  EXPECT_NEAR(h->levels[1].point.fraction_of_attainable, 0.75, 1e-12);
  EXPECT_EQ(h->levels[1].point.roofline_case, RooflineCase::kMemorySlope);
  EXPECT_DOUBLE_EQ(h->levels[2].point.attainable_flops_per_s, 989e12);
  EXPECT_NEAR(h->levels[2].point.fraction_of_attainable, 0.5055611729, 1e-9);
  EXPECT_EQ(h->levels[2].point.roofline_case, RooflineCase::kComputeRoof);
}

TEST(PlaceHierarchical, CopyKernelBindsOnTheLevelWithTheLongestTransfer) {
  // No FLOPs: every attainable FLOP/s is 0, so the bound time decides: L2 100 B / 50 B/s = 2 s,
  // DRAM 100 B / 10 B/s = 10 s. L1 moved nothing: AI NaN, bound 0, never binding.
  const auto h = place_hierarchical(1000, 0, 12.5, {{"L1", 0, 100}, {"L2", 100, 50}, {"DRAM", 100, 10}});
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->binding_level, 2u);
  EXPECT_TRUE(std::isnan(h->levels[0].point.arithmetic_intensity));
  EXPECT_DOUBLE_EQ(h->levels[0].point.bound_time_s, 0);
  EXPECT_EQ(h->levels[0].point.roofline_case, RooflineCase::kBelowBoth);
  EXPECT_DOUBLE_EQ(h->levels[2].point.fraction_of_attainable, 0.8);  // 10 / 12.5
  EXPECT_EQ(h->levels[2].point.roofline_case, RooflineCase::kMemorySlope);
}

TEST(PlaceHierarchical, TiesGoToTheFirstLevel) {
  // Both levels far from binding: the compute bound 100 / 100 = 1 s is every level's bound time.
  const auto h = place_hierarchical(100, 100, 2, {{"L2", 1, 1000}, {"DRAM", 1, 100}});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->binding_level, 0u);
}

TEST(PlaceHierarchical, BadInputNamesTheLevel) {
  const auto none = place_hierarchical(100, 1, 1, {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("at least one memory level"), std::string::npos);
  const auto negative = place_hierarchical(100, 1, 1, {{"L2", -1, 10}});
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("memory level 'L2' bytes must not be negative, got -1"), std::string::npos)
      << negative.error().message;
  const auto no_bandwidth = place_hierarchical(100, 1, 1, {{"DRAM", 1, 0}});
  ASSERT_FALSE(no_bandwidth.ok());
  EXPECT_NE(no_bandwidth.error().message.find("memory level 'DRAM' peak_bytes_per_s must be positive"),
            std::string::npos);
  const auto nothing = place_hierarchical(100, 0, 1, {{"L2", 0, 10}});
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.error().message.find("every memory level moved 0 bytes"), std::string::npos);
  const auto no_time = place_hierarchical(100, 1, 0, {{"L2", 1, 10}});
  ASSERT_FALSE(no_time.ok());
  EXPECT_NE(no_time.error().message.find("--time must be positive, got 0"), std::string::npos);
}

}  // namespace
}  // namespace perfhound::roofline
