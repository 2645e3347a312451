#include "trace/utilization.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace perfhound::trace {
namespace {

GpuActivity kernel(std::int64_t start_ns, std::int64_t dur_ns, std::int64_t stream = 7, std::int32_t device = 0) {
  GpuActivity a;
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  a.stream = stream;
  a.device = device;
  return a;
}

HostEvent host(std::int64_t start_ns, std::int64_t dur_ns) {
  HostEvent e;
  e.start_ns = start_ns;
  e.dur_ns = dur_ns;
  return e;
}

TEST(IntervalAlgebraTest, NormalizeMergesOverlapsAndTouchesAndDropsEmpty) {
  const auto out = normalize_intervals({{50, 60}, {0, 10}, {5, 20}, {20, 30}, {40, 40}, {55, 58}});
  EXPECT_EQ(out, (std::vector<Interval>{{0, 30}, {50, 60}}));
  EXPECT_EQ(total_length(out), 40);
}

TEST(IntervalAlgebraTest, UnionIntersectSubtract) {
  const std::vector<Interval> a{{0, 10}, {20, 30}, {40, 50}};
  const std::vector<Interval> b{{5, 25}, {30, 35}, {45, 60}};
  EXPECT_EQ(union_intervals(a, b), (std::vector<Interval>{{0, 35}, {40, 60}}));
  EXPECT_EQ(intersect_intervals(a, b), (std::vector<Interval>{{5, 10}, {20, 25}, {45, 50}}));
  EXPECT_EQ(subtract_intervals(a, b), (std::vector<Interval>{{0, 5}, {25, 30}, {40, 45}}));
  // One b interval covering several a intervals, and one a interval split by several b intervals.
  EXPECT_EQ(subtract_intervals(std::vector<Interval>{{0, 100}}, std::vector<Interval>{{10, 20}, {30, 40}, {90, 200}}),
            (std::vector<Interval>{{0, 10}, {20, 30}, {40, 90}}));
  EXPECT_TRUE(subtract_intervals(std::vector<Interval>{{10, 20}, {30, 40}}, std::vector<Interval>{{0, 50}}).empty());
  EXPECT_TRUE(intersect_intervals(a, std::vector<Interval>{}).empty());
}

TEST(UtilizationTest, OverlapOnTwoStreamsCountsOnce) {
  Timeline t;
  // Stream 7: [100, 200) and [300, 400). Stream 8: [150, 350) overlaps both.
  // Union = [100, 400) = 300 ns, one block. Window: host [0, 1000) -> 1000 ns.
  t.gpu = {kernel(100, 100, 7), kernel(300, 100, 7), kernel(150, 200, 8)};
  t.host = {host(0, 1000)};
  finalize_timeline(t);

  const auto r = utilization(t);
  EXPECT_EQ(r.window_ns, 1000);
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& d = r.devices[0];
  EXPECT_EQ(d.activity_count, 3u);
  EXPECT_EQ(d.busy_ns, 300);
  EXPECT_EQ(d.busy_block_count, 1u);
  EXPECT_EQ(d.window_idle_ns, 700);
  EXPECT_DOUBLE_EQ(d.window_busy_ratio, 0.3);
  EXPECT_EQ(d.active_start_ns, 100);
  EXPECT_EQ(d.active_end_ns, 400);
  EXPECT_EQ(d.active_span_ns, 300);
  EXPECT_EQ(d.active_idle_ns, 0);
  EXPECT_DOUBLE_EQ(d.active_busy_ratio, 1.0);
  ASSERT_EQ(d.streams.size(), 2u);
  EXPECT_EQ(d.streams[0].stream, 7);
  EXPECT_EQ(d.streams[0].busy_ns, 200);
  EXPECT_EQ(d.streams[0].activity_count, 2u);
  EXPECT_EQ(d.streams[1].stream, 8);
  EXPECT_EQ(d.streams[1].busy_ns, 200);
}

TEST(UtilizationTest, GapsBetweenBlocksAndLeadingTrailing) {
  Timeline t;
  // Blocks [100, 200), [200, 250) touch -> one block [100, 250); then [400, 500); [500, 600) touches.
  // Busy = 150 + 200 = 350 in 2 blocks. Span [100, 600) = 500, idle 150 (the gap [250, 400)).
  // Window [0, 1000): leading [0, 100), trailing [600, 1000).
  t.gpu = {kernel(100, 100), kernel(200, 50), kernel(400, 100), kernel(500, 100)};
  t.host = {host(0, 1000)};
  finalize_timeline(t);

  const auto busy = busy_intervals(t, 0);
  EXPECT_EQ(busy, (std::vector<Interval>{{100, 250}, {400, 600}}));

  const auto gaps = idle_gaps(t, 0);
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_EQ(gaps[0].position, GapPosition::kLeading);
  EXPECT_EQ(gaps[0].start_ns, 0);
  EXPECT_EQ(gaps[0].end_ns, 100);
  EXPECT_EQ(gaps[1].position, GapPosition::kInterior);
  EXPECT_EQ(gaps[1].start_ns, 250);
  EXPECT_EQ(gaps[1].end_ns, 400);
  EXPECT_EQ(gaps[2].position, GapPosition::kTrailing);
  EXPECT_EQ(gaps[2].start_ns, 600);
  EXPECT_EQ(gaps[2].end_ns, 1000);

  const auto r = utilization(t);
  const auto& d = r.devices.at(0);
  EXPECT_EQ(d.busy_ns, 350);
  EXPECT_EQ(d.busy_block_count, 2u);
  EXPECT_EQ(d.active_span_ns, 500);
  EXPECT_EQ(d.active_idle_ns, 150);
  EXPECT_DOUBLE_EQ(d.active_busy_ratio, 350.0 / 500.0);
  EXPECT_EQ(d.window_idle_ns, 650);  // 100 + 150 + 400
}

TEST(UtilizationTest, NoGpuEventsMeansZeroBusyForListedDevices) {
  Timeline t;
  t.host = {host(0, 1000)};
  t.info.devices.push_back(DeviceInfo{.id = 0, .name = "NVIDIA H200"});
  finalize_timeline(t);

  const auto r = utilization(t);
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& d = r.devices[0];
  EXPECT_FALSE(d.has_activity);
  EXPECT_EQ(d.busy_ns, 0);
  EXPECT_EQ(d.busy_block_count, 0u);
  EXPECT_EQ(d.window_idle_ns, 1000);
  EXPECT_EQ(d.window_busy_ratio, 0.0);
  EXPECT_EQ(d.active_span_ns, 0);
  EXPECT_EQ(d.active_busy_ratio, 0.0);

  const auto gaps = idle_gaps(t, 0);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].position, GapPosition::kWholeWindow);
  EXPECT_EQ(gaps[0].dur_ns(), 1000);
}

TEST(UtilizationTest, EmptyTimelineHasNoDevices) {
  Timeline t;
  finalize_timeline(t);
  const auto r = utilization(t);
  EXPECT_EQ(r.window_ns, 0);
  EXPECT_TRUE(r.devices.empty());
  EXPECT_TRUE(idle_gaps(t, 0).empty());
  EXPECT_FALSE(active_span(t, 0).has_value());
}

TEST(UtilizationTest, OneEventFillsItsSpan) {
  Timeline t;
  t.gpu = {kernel(10, 90)};
  finalize_timeline(t);  // window = [10, 100)
  const auto r = utilization(t);
  const auto& d = r.devices.at(0);
  EXPECT_EQ(d.busy_ns, 90);
  EXPECT_DOUBLE_EQ(d.window_busy_ratio, 1.0);
  EXPECT_DOUBLE_EQ(d.active_busy_ratio, 1.0);
  EXPECT_TRUE(idle_gaps(t, 0).empty());
}

TEST(UtilizationTest, ZeroDurationEventsAddNoBusyAndDoNotSplitGaps) {
  Timeline t;
  // [0, 100), a zero-duration kernel at 150, [200, 300). The gap [100, 200) stays one gap of 100 ns.
  t.gpu = {kernel(0, 100), kernel(150, 0), kernel(200, 100)};
  finalize_timeline(t);
  const auto r = utilization(t);
  const auto& d = r.devices.at(0);
  EXPECT_EQ(d.activity_count, 3u);
  EXPECT_EQ(d.busy_ns, 200);
  EXPECT_EQ(d.busy_block_count, 2u);
  const auto gaps = idle_gaps(t, 0);
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].start_ns, 100);
  EXPECT_EQ(gaps[0].end_ns, 200);

  // Only a zero-duration event: a span of 0, busy 0, ratios 0 (not NaN).
  Timeline z;
  z.gpu = {kernel(50, 0)};
  finalize_timeline(z);
  const auto rz = utilization(z);
  const auto& dz = rz.devices.at(0);
  EXPECT_TRUE(dz.has_activity);
  EXPECT_EQ(dz.busy_ns, 0);
  EXPECT_EQ(dz.busy_block_count, 0u);
  EXPECT_EQ(dz.active_span_ns, 0);
  EXPECT_EQ(dz.active_busy_ratio, 0.0);
  EXPECT_EQ(dz.window_busy_ratio, 0.0);
}

TEST(UtilizationTest, DevicesAreSeparate) {
  Timeline t;
  t.gpu = {kernel(0, 100, 7, 0), kernel(50, 100, 7, 1)};
  finalize_timeline(t);  // window [0, 150)
  const auto r = utilization(t);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].device, 0);
  EXPECT_EQ(r.devices[0].busy_ns, 100);
  EXPECT_EQ(r.devices[1].device, 1);
  EXPECT_EQ(r.devices[1].busy_ns, 100);
  EXPECT_EQ(r.devices[1].active_start_ns, 50);
}

TEST(UtilizationTest, JsonUsesSecondsAndRatios) {
  Timeline t;
  t.gpu = {kernel(0, 250'000'000)};
  t.host = {host(0, 1'000'000'000)};
  finalize_timeline(t);
  const auto j = to_json(utilization(t));
  EXPECT_DOUBLE_EQ(j["window_s"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["devices"][0]["busy_s"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["devices"][0]["window_busy_ratio"].get<double>(), 0.25);
  EXPECT_EQ(j["devices"][0]["streams"][0]["stream"].get<int>(), 7);
}

}  // namespace
}  // namespace perfhound::trace
