// Comparing the ranks of a distributed run: compare_ranks over hand-made RankSummary lists (the straggler
// threshold at its boundary, the numpy-linear median, the edge cases of the header) and summarize_rank over
// hand-built timelines. Expected values are worked out in the comments.
#include "trace/rank_comparison.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfhound::trace {
namespace {

constexpr std::int64_t kMs = 1'000'000;

RankSummary rank_of(int rank, std::int64_t time_ns, std::int64_t comm_ns = 0) {
  RankSummary r;
  r.rank = rank;
  r.source = "rank" + std::to_string(rank) + ".json";
  r.time_ns = time_ns;
  r.comm_ns = comm_ns;
  return r;
}

TEST(CompareRanks, StragglerAtExactlyTheRatio) {
  // Times 100, 100, 110: median 100, slowest 110 / 100 = 1.10 = kStragglerRatio.
  const RankComparison c = compare_ranks({rank_of(0, 100), rank_of(1, 100), rank_of(2, 110)});
  EXPECT_EQ(c.median_time_ns, 100);
  EXPECT_EQ(c.slowest_rank, 2);
  EXPECT_EQ(c.slowest_time_ns, 110);
  EXPECT_DOUBLE_EQ(c.slowest_over_median, 1.1);
  EXPECT_TRUE(c.straggler);
}

TEST(CompareRanks, JustBelowTheRatioIsNoStraggler) {
  // 109 / 100 = 1.09 < 1.10.
  const RankComparison c = compare_ranks({rank_of(0, 100), rank_of(1, 109), rank_of(2, 100)});
  EXPECT_EQ(c.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(c.slowest_over_median, 1.09);
  EXPECT_FALSE(c.straggler);
}

TEST(CompareRanks, OneRankIsNoComparison) {
  const RankComparison c = compare_ranks({rank_of(3, 500, 20)});
  ASSERT_EQ(c.ranks.size(), 1u);
  EXPECT_EQ(c.median_time_ns, 500);
  EXPECT_EQ(c.slowest_rank, 3);
  EXPECT_DOUBLE_EQ(c.slowest_over_median, 1.0);
  EXPECT_FALSE(c.straggler);
  EXPECT_EQ(c.least_comm_rank, 3);  // it does communicate (20 ns)
  // The same rank without communication names no least-communication rank.
  EXPECT_EQ(compare_ranks({rank_of(3, 500, 0)}).least_comm_rank, -1);
}

TEST(CompareRanks, MedianOfAnEvenCountIsTheMidpoint) {
  // Ranks given out of order; times by rank 0..3: 300, 100, 1000, 200. numpy.median([100, 200, 300, 1000]) =
  // (200 + 300) / 2 = 250; slowest is rank 2, 1000 / 250 = 4.
  const RankComparison c = compare_ranks({rank_of(2, 1000), rank_of(0, 300), rank_of(3, 200), rank_of(1, 100)});
  ASSERT_EQ(c.ranks.size(), 4u);
  for (std::size_t i = 0; i < c.ranks.size(); ++i) EXPECT_EQ(c.ranks[i].rank, static_cast<int>(i));  // ascending
  EXPECT_EQ(c.ranks[0].time_ns, 300);
  EXPECT_EQ(c.median_time_ns, 250);
  EXPECT_EQ(c.slowest_rank, 2);
  EXPECT_DOUBLE_EQ(c.slowest_over_median, 4.0);
  EXPECT_TRUE(c.straggler);
}

TEST(CompareRanks, TwoRanksThirtyPercentApart) {
  // 10 ms and 13 ms: median 11.5 ms, 13 / 11.5 = 1.1304 >= 1.10.
  const RankComparison c = compare_ranks({rank_of(0, 10 * kMs), rank_of(1, 13 * kMs)});
  EXPECT_EQ(c.median_time_ns, 11'500'000);
  EXPECT_EQ(c.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(c.slowest_over_median, 13.0 / 11.5);
  EXPECT_TRUE(c.straggler);
}

TEST(CompareRanks, LeastCommunicationRank) {
  // Communication 50, 10, 30 ns on ranks 0, 1, 2: rank 1 waits least.
  const RankComparison c = compare_ranks({rank_of(0, 100, 50), rank_of(1, 100, 10), rank_of(2, 100, 30)});
  EXPECT_EQ(c.least_comm_rank, 1);
  // Equal times: the first (lowest) rank is the slowest, and there is no straggler.
  EXPECT_EQ(c.slowest_rank, 0);
  EXPECT_FALSE(c.straggler);
}

TEST(CompareRanks, RanksWithoutGpuActivityAreNeverTheStraggler) {
  // Rank 0 had no GPU activity (time 0): times 0, 100, 100, median 100, slowest 100 / 100 = 1.
  const RankComparison c = compare_ranks({rank_of(0, 0), rank_of(1, 100), rank_of(2, 100)});
  EXPECT_EQ(c.median_time_ns, 100);
  EXPECT_NE(c.slowest_rank, 0);
  EXPECT_FALSE(c.straggler);
  // All zero: the median is 0, and the ratio with a zero denominator is 0.
  const RankComparison zeros = compare_ranks({rank_of(0, 0), rank_of(1, 0)});
  EXPECT_EQ(zeros.median_time_ns, 0);
  EXPECT_EQ(zeros.slowest_over_median, 0.0);
  EXPECT_FALSE(zeros.straggler);
}

TEST(CompareRanks, NoRanks) {
  const RankComparison c = compare_ranks({});
  EXPECT_TRUE(c.ranks.empty());
  EXPECT_EQ(c.median_time_ns, 0);
  EXPECT_EQ(c.slowest_rank, -1);
  EXPECT_FALSE(c.straggler);
  EXPECT_EQ(c.least_comm_rank, -1);
}

TEST(CompareRanks, Json) {
  RankSummary r0 = rank_of(0, 10 * kMs, 2 * kMs);
  r0.from_steps = true;
  r0.busy_ns = 8 * kMs;
  r0.exposed_comm_ns = kMs;
  r0.verdict = BottleneckKind::kCommunication;
  RankSummary r1 = rank_of(1, 13 * kMs, 3 * kMs);
  const auto j = to_json(compare_ranks({r1, r0}));
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_THAT(keys, ::testing::ElementsAre("median_time_s", "slowest_rank", "slowest_over_median", "straggler",
                                           "straggler_ratio_threshold", "least_communication_rank", "ranks"));
  EXPECT_DOUBLE_EQ(j["median_time_s"].get<double>(), 0.0115);
  EXPECT_EQ(j["slowest_rank"], 1);
  EXPECT_EQ(j["straggler"], true);
  EXPECT_DOUBLE_EQ(j["straggler_ratio_threshold"].get<double>(), 1.1);
  EXPECT_EQ(j["least_communication_rank"], 0);
  ASSERT_EQ(j["ranks"].size(), 2u);
  const auto& first = j["ranks"][0];
  EXPECT_EQ(first["rank"], 0);
  EXPECT_EQ(first["source"], "rank0.json");
  EXPECT_DOUBLE_EQ(first["time_s"].get<double>(), 0.010);
  EXPECT_EQ(first["time_is"], "median_profiler_step");
  EXPECT_DOUBLE_EQ(first["busy_s"].get<double>(), 0.008);
  EXPECT_DOUBLE_EQ(first["communication_s"].get<double>(), 0.002);
  EXPECT_DOUBLE_EQ(first["exposed_communication_s"].get<double>(), 0.001);
  EXPECT_EQ(first["bottleneck"], "communication");
  EXPECT_EQ(j["ranks"][1]["time_is"], "active_span");
  EXPECT_EQ(j["ranks"][1]["bottleneck"], "kernel-bound");
}

// ---- summarize_rank over timelines.

void add_kernel(Timeline& t, std::string_view name, std::int64_t start_ns, std::int64_t dur_ns, std::int32_t device = 0,
                std::int64_t stream = 7) {
  GpuActivity a;
  a.name = t.strings.intern(name);
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  a.device = device;
  a.stream = stream;
  t.gpu.push_back(a);
}

void add_annotation(Timeline& t, std::string_view name, std::int64_t start_ns, std::int64_t dur_ns) {
  HostEvent e;
  e.kind = HostKind::kUserAnnotation;
  e.name = t.strings.intern(name);
  e.start_ns = start_ns;
  e.dur_ns = dur_ns;
  t.host.push_back(e);
}

constexpr std::string_view kGemm = "void gemm_kernel<float>(float*)";

// Kernels [1,6) [11,31) [41,51) ms: busy 5 + 20 + 10 = 35 ms, active span 1 -> 51 ms = 50 ms.
Timeline three_kernels() {
  Timeline t;
  t.info.source = "rank.json";
  add_kernel(t, kGemm, 1 * kMs, 5 * kMs);
  add_kernel(t, kGemm, 11 * kMs, 20 * kMs);
  add_kernel(t, kGemm, 41 * kMs, 10 * kMs);
  return t;
}

RankSummary summarize(Timeline& t, int fallback_rank) {
  finalize_timeline(t);
  return summarize_rank(t, analyze_trace(t), fallback_rank);
}

TEST(SummarizeRank, MedianProfilerStepWhenTheTraceHasSteps) {
  Timeline t = three_kernels();
  // Steps of 10, 30 and 20 ms: [0,10) [10,40) [40,60) ms. numpy.median([10, 30, 20]) = 20 ms.
  add_annotation(t, "ProfilerStep#1", 0, 10 * kMs);
  add_annotation(t, "ProfilerStep#2", 10 * kMs, 30 * kMs);
  add_annotation(t, "ProfilerStep#3", 40 * kMs, 20 * kMs);
  t.info.rank = 5;
  const RankSummary r = summarize(t, 9);
  EXPECT_EQ(r.rank, 5);  // from the trace, not the fallback
  EXPECT_EQ(r.source, "rank.json");
  EXPECT_TRUE(r.from_steps);
  EXPECT_EQ(r.time_ns, 20 * kMs);
  EXPECT_EQ(r.busy_ns, 35 * kMs);
}

TEST(SummarizeRank, ActiveSpanWithoutProfilerSteps) {
  Timeline t = three_kernels();
  // A user annotation that is not a ProfilerStep: launch_overhead uses it as a step, the comparison does not.
  add_annotation(t, "forward", 0, 60 * kMs);
  const RankSummary r = summarize(t, 9);
  EXPECT_EQ(r.rank, 9);  // no distributedInfo: the fallback
  EXPECT_FALSE(r.from_steps);
  EXPECT_EQ(r.time_ns, 50 * kMs);
  EXPECT_EQ(r.busy_ns, 35 * kMs);
}

TEST(SummarizeRank, CommunicationAndTheBusiestDevice) {
  Timeline t = three_kernels();
  // An all-reduce [51,53) ms on device 0 after the last compute kernel: 2 ms, none of it hidden. Device 0:
  // busy 37 ms, span 1 -> 53 ms = 52 ms.
  add_kernel(t, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 51 * kMs, 2 * kMs, 0, 8);
  // Device 1 is less busy (30 ms) over a shorter span (30 ms): the time is device 0's span.
  add_kernel(t, kGemm, 0, 30 * kMs, 1);
  const RankSummary r = summarize(t, 0);
  EXPECT_EQ(r.busy_ns, 37 * kMs);
  EXPECT_EQ(r.time_ns, 52 * kMs);
  EXPECT_EQ(r.comm_ns, 2 * kMs);
  EXPECT_EQ(r.exposed_comm_ns, 2 * kMs);
}

TEST(SummarizeRank, NoGpuActivityHasTimeZero) {
  Timeline t;
  add_annotation(t, "forward", 0, 10 * kMs);
  const RankSummary r = summarize(t, 2);
  EXPECT_EQ(r.rank, 2);
  EXPECT_EQ(r.time_ns, 0);
  EXPECT_EQ(r.busy_ns, 0);
  EXPECT_EQ(r.verdict, BottleneckKind::kUntracedHost);
}

TEST(SummarizeRank, NoGpuActivityButProfilerStepsStillHasTimeZero) {
  // rank_comparison.h: "ranks without GPU activity have time 0 and are never the straggler". A rank whose
  // trace has steps but no GPU work (an nsys export with empty CUPTI tables, say) must not get a step time.
  Timeline t;
  add_annotation(t, "ProfilerStep#1", 0, 10 * kMs);
  add_annotation(t, "ProfilerStep#2", 10 * kMs, 30 * kMs);
  add_annotation(t, "ProfilerStep#3", 40 * kMs, 20 * kMs);
  const RankSummary r = summarize(t, 1);
  EXPECT_EQ(r.busy_ns, 0);
  EXPECT_EQ(r.time_ns, 0);
  // Beside one busy rank of 10 ms, the idle rank (rank 1) must not be the slowest.
  const RankComparison c = compare_ranks({rank_of(0, 10 * kMs), r});
  EXPECT_NE(c.slowest_rank, 1);
}

}  // namespace
}  // namespace perfhound::trace
