#include "trace/gap_attribution.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

namespace perfhound::trace {
namespace {

constexpr auto kSync = static_cast<std::size_t>(HostCategory::kSync);
constexpr auto kMemcpy = static_cast<std::size_t>(HostCategory::kMemcpy);
constexpr auto kComm = static_cast<std::size_t>(HostCategory::kCommunication);
constexpr auto kLaunch = static_cast<std::size_t>(HostCategory::kLaunch);
constexpr auto kNothing = static_cast<std::size_t>(HostCategory::kNothingRecorded);
constexpr auto kQueued = static_cast<std::size_t>(HostCategory::kQueued);

GpuActivity kernel(std::int64_t start_ns, std::int64_t dur_ns, std::int32_t device = 0) {
  GpuActivity a;
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  a.device = device;
  a.stream = 7;
  return a;
}

// 2 us kernels starting at `starts`; the first `correlated` carry correlation ids 1, 2, ... (the rest none).
std::vector<GpuActivity> correlated_kernels(std::initializer_list<std::int64_t> starts, std::size_t correlated) {
  std::vector<GpuActivity> kernels;
  for (const std::int64_t start : starts) {
    kernels.push_back(kernel(start, 2'000));
    if (kernels.size() <= correlated) kernels.back().correlation = static_cast<std::int64_t>(kernels.size());
  }
  return kernels;
}

void add_host(Timeline& t, HostKind kind, std::string_view name, std::int64_t start_ns, std::int64_t dur_ns,
              std::int64_t tid = 1, std::int64_t correlation = -1) {
  HostEvent e;
  e.kind = kind;
  e.name = t.strings.intern(name);
  e.start_ns = start_ns;
  e.dur_ns = dur_ns;
  e.tid = tid;
  e.correlation = correlation;
  t.host.push_back(e);
}

TEST(ClassifyHostEventTest, RuleTable) {
  auto c = [](HostKind kind, std::string_view name, bool pageable = false) {
    return classify_host_event(kind, name, pageable);
  };
  EXPECT_EQ(c(HostKind::kRuntime, "cudaStreamSynchronize"), HostCategory::kSync);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaDeviceSynchronize"), HostCategory::kSync);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaEventSynchronize"), HostCategory::kSync);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaStreamWaitEvent"), HostCategory::kSync);
  EXPECT_EQ(c(HostKind::kDriver, "cuCtxSynchronize"), HostCategory::kSync);
  EXPECT_EQ(c(HostKind::kSync, "Stream sync"), HostCategory::kSync);  // any name of the tracer's own sync kind
  EXPECT_EQ(c(HostKind::kRuntime, "cudaMemcpy"), HostCategory::kMemcpy);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaMemcpy2D"), HostCategory::kMemcpy);
  EXPECT_EQ(c(HostKind::kDriver, "cuMemcpyHtoD"), HostCategory::kMemcpy);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaMemcpyAsync", true), HostCategory::kMemcpy);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaMemcpyAsync", false), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kUserAnnotation, "nccl:all_reduce"), HostCategory::kCommunication);
  EXPECT_EQ(c(HostKind::kCpuOp, "record_param_comms"), HostCategory::kCommunication);
  EXPECT_EQ(c(HostKind::kCpuOp, "c10d::allreduce_"), HostCategory::kCommunication);
  EXPECT_EQ(c(HostKind::kUserAnnotation, "ncclAllReduce"), HostCategory::kCommunication);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaLaunchKernel"), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaLaunchKernelExC"), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kDriver, "cuLaunchKernel"), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kDriver, "cuLaunchKernelEx"), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaGraphLaunch"), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaMemsetAsync"), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kCpuOp, "aten::mm"), HostCategory::kLaunch);
  // Events that say nothing about the gap.
  EXPECT_EQ(c(HostKind::kUserAnnotation, "ProfilerStep#3"), std::nullopt);
  EXPECT_EQ(c(HostKind::kUserAnnotation, "small_ops_eager"), std::nullopt);
  EXPECT_EQ(c(HostKind::kPython, "<module>"), std::nullopt);
  EXPECT_EQ(c(HostKind::kRuntime, "cudaStreamIsCapturing"), std::nullopt);
  EXPECT_EQ(c(HostKind::kRuntime, "INVALID"), std::nullopt);
  // Kind matters: an API name on a cpu_op is just a cpu_op, an aten name on a runtime row is nothing.
  EXPECT_EQ(c(HostKind::kCpuOp, "cudaStreamSynchronize"), HostCategory::kLaunch);
  EXPECT_EQ(c(HostKind::kRuntime, "aten::mm"), std::nullopt);
}

TEST(GapBucketTest, BoundariesAreExclusiveUpperBounds) {
  EXPECT_EQ(gap_bucket_of(1), 0u);
  EXPECT_EQ(gap_bucket_of(999), 0u);
  EXPECT_EQ(gap_bucket_of(1'000), 1u);
  EXPECT_EQ(gap_bucket_of(9'999), 1u);
  EXPECT_EQ(gap_bucket_of(10'000), 2u);
  EXPECT_EQ(gap_bucket_of(99'999), 2u);
  EXPECT_EQ(gap_bucket_of(100'000), 3u);
  EXPECT_EQ(gap_bucket_of(999'999), 3u);
  EXPECT_EQ(gap_bucket_of(1'000'000), 4u);
  EXPECT_EQ(gap_bucket_of(9'999'999), 4u);
  EXPECT_EQ(gap_bucket_of(10'000'000), 5u);
  EXPECT_EQ(gap_bucket_of(3'600'000'000'000), 5u);
  EXPECT_EQ(gap_bucket_name(0), "lt_1us");
  EXPECT_EQ(gap_bucket_name(5), "ge_10ms");
}

TEST(GapAttributionTest, EachGapToItsCategory) {
  Timeline t;
  // GPU: [0,100) [200,300) memcpy [400,500) [600,700) [800,900) [1000,1100).
  // Interior gaps: [100,200) [300,400) [500,600) [700,800) [900,1000), 100 ns each.
  t.gpu = {kernel(0, 100), kernel(200, 100), kernel(600, 100), kernel(800, 100), kernel(1000, 100)};
  GpuActivity copy = kernel(400, 100);
  copy.kind = GpuKind::kMemcpy;
  copy.correlation = 5;
  copy.direction = CopyDirection::kHostToDevice;
  copy.src_memory = MemoryKind::kPageable;
  copy.dst_memory = MemoryKind::kDevice;
  t.gpu.push_back(copy);
  add_host(t, HostKind::kRuntime, "cudaStreamSynchronize", 90, 120);            // covers gap 1
  add_host(t, HostKind::kRuntime, "cudaMemcpyAsync", 300, 200, 1, 5);           // pageable: gap 2
  add_host(t, HostKind::kUserAnnotation, "nccl:all_reduce", 500, 100);          // gap 3
  add_host(t, HostKind::kCpuOp, "aten::mul", 650, 130);                         // gap 4: [700,780) = 80
  // Gap 5 has only events that say nothing: a Python frame and the step annotation over everything.
  add_host(t, HostKind::kPython, "<module>", 0, 1100, 2);
  add_host(t, HostKind::kUserAnnotation, "ProfilerStep#1", 0, 1100, 2);
  finalize_timeline(t);

  const auto r = gap_attribution(t);
  EXPECT_EQ(r.host_event_count, 6u);
  EXPECT_EQ(r.host_events_by_category[kSync], 1u);
  EXPECT_EQ(r.host_events_by_category[kMemcpy], 1u);
  EXPECT_EQ(r.host_events_by_category[kComm], 1u);
  EXPECT_EQ(r.host_events_by_category[kLaunch], 1u);
  EXPECT_EQ(r.host_events_by_category[kNothing], 2u);
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& d = r.devices[0];
  ASSERT_EQ(d.gap_count, 5u);
  EXPECT_EQ(d.idle_ns, 500);
  EXPECT_EQ(d.leading_idle_ns, 0);
  EXPECT_EQ(d.trailing_idle_ns, 0);
  EXPECT_EQ(d.gaps[0].category, HostCategory::kSync);
  EXPECT_EQ(d.gaps[0].ns_by_category[kSync], 100);
  EXPECT_EQ(d.gaps[1].category, HostCategory::kMemcpy);
  EXPECT_EQ(d.gaps[2].category, HostCategory::kCommunication);
  EXPECT_EQ(d.gaps[3].category, HostCategory::kLaunch);
  EXPECT_EQ(d.gaps[3].ns_by_category[kLaunch], 80);
  EXPECT_EQ(d.gaps[3].ns_by_category[kNothing], 20);
  EXPECT_EQ(d.gaps[4].category, HostCategory::kNothingRecorded);
  EXPECT_EQ(d.gaps[4].ns_by_category[kNothing], 100);

  EXPECT_EQ(d.categories[kSync].idle_ns, 100);
  EXPECT_EQ(d.categories[kMemcpy].idle_ns, 100);
  EXPECT_EQ(d.categories[kComm].idle_ns, 100);
  EXPECT_EQ(d.categories[kLaunch].idle_ns, 80);
  EXPECT_EQ(d.categories[kNothing].idle_ns, 120);
  EXPECT_DOUBLE_EQ(d.categories[kNothing].idle_ratio, 120.0 / 500.0);
  // One gap for each host category; none is the profiler's, none is queued (no activity has a correlation id).
  for (std::size_t c : {kSync, kMemcpy, kComm, kLaunch, kNothing}) EXPECT_EQ(d.categories[c].gap_count, 1u) << c;
  EXPECT_EQ(d.categories[static_cast<std::size_t>(HostCategory::kProfiler)].gap_count, 0u);
  EXPECT_EQ(d.categories[kQueued].gap_count, 0u);
}

TEST(GapAttributionTest, PinnedAsyncCopyIsLaunchNotMemcpy) {
  Timeline t;
  t.gpu = {kernel(0, 100), kernel(200, 100)};
  GpuActivity copy = kernel(300, 10);
  copy.kind = GpuKind::kMemcpy;
  copy.correlation = 9;
  copy.src_memory = MemoryKind::kDevice;
  copy.dst_memory = MemoryKind::kPinned;
  t.gpu.push_back(copy);
  add_host(t, HostKind::kRuntime, "cudaMemcpyAsync", 100, 100, 1, 9);
  finalize_timeline(t);
  const auto r = gap_attribution(t);
  EXPECT_EQ(r.devices.at(0).gaps.at(0).category, HostCategory::kLaunch);
}

TEST(GapAttributionTest, PriorityRuleSplitsOneGap) {
  Timeline t;
  // One gap [100, 200). cpu_op [50, 250) covers all of it (launch).
  //   sync   cudaStreamSynchronize [150, 180)                      -> sync   30
  //   memcpy cudaMemcpy [170, 190), minus sync [170, 180)           -> memcpy 10 ([180, 190))
  //   comm   nccl:all_reduce [120, 160), minus sync [150, 160)      -> comm   30 ([120, 150))
  //   launch the rest: 100 - 30 - 10 - 30                           -> launch 30
  // sync, comm and launch tie at 30: the gap goes to sync, the highest priority.
  t.gpu = {kernel(0, 100), kernel(200, 100)};
  add_host(t, HostKind::kCpuOp, "aten::item", 50, 200, 1);
  add_host(t, HostKind::kRuntime, "cudaStreamSynchronize", 150, 30, 1);
  add_host(t, HostKind::kRuntime, "cudaMemcpy", 170, 20, 2);
  add_host(t, HostKind::kUserAnnotation, "nccl:all_reduce", 120, 40, 3);
  finalize_timeline(t);

  const auto r = gap_attribution(t);
  const auto& d = r.devices.at(0);
  ASSERT_EQ(d.gaps.size(), 1u);
  const auto& g = d.gaps[0];
  EXPECT_EQ(g.ns_by_category[kSync], 30);
  EXPECT_EQ(g.ns_by_category[kMemcpy], 10);
  EXPECT_EQ(g.ns_by_category[kComm], 30);
  EXPECT_EQ(g.ns_by_category[kLaunch], 30);
  EXPECT_EQ(g.ns_by_category[kNothing], 0);
  EXPECT_EQ(g.category, HostCategory::kSync);
}

TEST(GapAttributionTest, LargestPartWinsOverPriority) {
  Timeline t;
  // Gap [100, 200): sync covers 10 ns, a cpu_op covers 60 ns, nothing the remaining 30.
  t.gpu = {kernel(0, 100), kernel(200, 100)};
  add_host(t, HostKind::kRuntime, "cudaDeviceSynchronize", 100, 10);
  add_host(t, HostKind::kCpuOp, "aten::add", 110, 60);
  finalize_timeline(t);
  const auto r = gap_attribution(t);
  const auto& g = r.devices.at(0).gaps.at(0);
  EXPECT_EQ(g.ns_by_category[kSync], 10);
  EXPECT_EQ(g.ns_by_category[kLaunch], 60);
  EXPECT_EQ(g.ns_by_category[kNothing], 30);
  EXPECT_EQ(g.category, HostCategory::kLaunch);
}

TEST(GapAttributionTest, ThreadsAreUnionedPerCategory) {
  Timeline t;
  // Gap [100, 200). cpu_ops on two threads: [100, 150) and [120, 170) -> union [100, 170) = 70, not 100.
  t.gpu = {kernel(0, 100), kernel(200, 100)};
  add_host(t, HostKind::kCpuOp, "aten::mul", 100, 50, 1);
  add_host(t, HostKind::kCpuOp, "aten::add", 120, 50, 2);
  finalize_timeline(t);
  const auto r = gap_attribution(t);
  const auto& g = r.devices.at(0).gaps.at(0);
  EXPECT_EQ(g.ns_by_category[kLaunch], 70);
  EXPECT_EQ(g.ns_by_category[kNothing], 30);
}

TEST(GapAttributionTest, HostEventSpanningSeveralGaps) {
  Timeline t;
  // One cpu_op [50, 450) covers gaps [100,200) and [300,400) fully; the third gap [500,600) is uncovered.
  t.gpu = {kernel(0, 100), kernel(200, 100), kernel(400, 100), kernel(600, 100)};
  add_host(t, HostKind::kCpuOp, "aten::mm", 50, 400);
  finalize_timeline(t);
  const auto r = gap_attribution(t);
  const auto& d = r.devices.at(0);
  ASSERT_EQ(d.gaps.size(), 3u);
  EXPECT_EQ(d.gaps[0].ns_by_category[kLaunch], 100);
  EXPECT_EQ(d.gaps[1].ns_by_category[kLaunch], 100);
  EXPECT_EQ(d.gaps[2].ns_by_category[kLaunch], 0);
  EXPECT_EQ(d.gaps[2].category, HostCategory::kNothingRecorded);
}

TEST(GapAttributionTest, HistogramAndShortGaps) {
  Timeline t;
  const std::int64_t gaps[] = {999, 1'000, 9'999, 10'000, 99'999, 100'000, 999'999, 1'000'000, 9'999'999, 10'000'000};
  std::int64_t at = 0;
  t.gpu.push_back(kernel(at, 1));
  at += 1;
  for (const std::int64_t g : gaps) {
    at += g;
    t.gpu.push_back(kernel(at, 1));
    at += 1;
  }
  finalize_timeline(t);
  const auto r = gap_attribution(t);
  const auto& d = r.devices.at(0);
  ASSERT_EQ(d.gap_count, 10u);
  // 999 | 1'000, 9'999 | 10'000, 99'999 | 100'000, 999'999 | 1'000'000, 9'999'999 | 10'000'000
  const std::uint64_t expected[kGapBucketCount] = {1, 2, 2, 2, 2, 1};
  for (std::size_t b = 0; b < kGapBucketCount; ++b) EXPECT_EQ(d.histogram[b].gap_count, expected[b]) << b;
  EXPECT_EQ(d.histogram[0].idle_ns, 999);
  EXPECT_EQ(d.histogram[1].idle_ns, 1'000 + 9'999);
  EXPECT_EQ(d.histogram[5].idle_ns, 10'000'000);
  EXPECT_EQ(d.short_gap_count, 3u);  // 999, 1000, 9999: 10'000 itself is not under 10 us
  EXPECT_EQ(d.short_gap_idle_ns, 999 + 1'000 + 9'999);
}

TEST(GapAttributionTest, LeadingAndTrailingIdleAreNotAttributed) {
  Timeline t;
  t.gpu = {kernel(100, 100), kernel(300, 100)};
  add_host(t, HostKind::kRuntime, "cudaDeviceSynchronize", 0, 1000);
  finalize_timeline(t);  // window [0, 1000)
  const auto r = gap_attribution(t);
  const auto& d = r.devices.at(0);
  EXPECT_EQ(d.leading_idle_ns, 100);
  EXPECT_EQ(d.trailing_idle_ns, 600);
  EXPECT_EQ(d.gap_count, 1u);
  EXPECT_EQ(d.idle_ns, 100);
  EXPECT_EQ(d.categories[kSync].idle_ns, 100);
}

TEST(GapAttributionTest, NoGpuEventsAndNoHostEvents) {
  Timeline none;
  DeviceInfo device;
  device.id = 0;
  none.info.devices.push_back(device);
  add_host(none, HostKind::kCpuOp, "aten::mm", 0, 100);
  finalize_timeline(none);
  const auto r = gap_attribution(none);
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_EQ(r.devices[0].gap_count, 0u);
  EXPECT_EQ(r.devices[0].idle_ns, 0);
  EXPECT_EQ(r.devices[0].leading_idle_ns, 100);  // the whole window, unattributed
  EXPECT_EQ(r.devices[0].categories[kLaunch].idle_ratio, 0.0);

  Timeline no_host;
  no_host.gpu = {kernel(0, 10), kernel(20, 10)};
  finalize_timeline(no_host);
  const auto r2 = gap_attribution(no_host);
  EXPECT_EQ(r2.devices.at(0).gaps.at(0).category, HostCategory::kNothingRecorded);
  EXPECT_EQ(r2.devices.at(0).categories[kNothing].idle_ns, 10);
  EXPECT_DOUBLE_EQ(r2.devices.at(0).categories[kNothing].idle_ratio, 1.0);
}

TEST(GapAttributionTest, LinearOnLargeTraces) {
  // 100k gaps and 200k host events. A per-gap scan of host events would be 2e10 steps; the sweep is 3e5.
  Timeline t;
  constexpr int kKernels = 100'000;
  t.gpu.reserve(kKernels);
  for (int i = 0; i < kKernels; ++i) {
    t.gpu.push_back(kernel(std::int64_t{i} * 1000, 600));
    add_host(t, HostKind::kRuntime, "cudaLaunchKernel", std::int64_t{i} * 1000 + 650, 100, 1);
    add_host(t, HostKind::kCpuOp, "aten::add", std::int64_t{i} * 1000 + 600, 300, 2);
  }
  finalize_timeline(t);
  const auto start = std::chrono::steady_clock::now();
  const auto r = gap_attribution(t);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  const auto& d = r.devices.at(0);
  EXPECT_EQ(d.gap_count, static_cast<std::uint64_t>(kKernels - 1));
  EXPECT_EQ(d.categories[kLaunch].idle_ns, std::int64_t{kKernels - 1} * 300);
  EXPECT_EQ(d.categories[kNothing].idle_ns, std::int64_t{kKernels - 1} * 100);
  EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 5);
}

TEST(GapAttributionTest, JsonShape) {
  Timeline t;
  t.gpu = {kernel(0, 100), kernel(1'100, 100), kernel(1'300, 100)};
  add_host(t, HostKind::kRuntime, "cudaStreamSynchronize", 100, 1'000);
  finalize_timeline(t);
  const auto j = to_json(gap_attribution(t), 1);
  const auto& d = j["devices"][0];
  EXPECT_EQ(d["gap_count"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(d["idle_s"].get<double>(), 1'100e-9);
  EXPECT_DOUBLE_EQ(d["categories"]["sync"]["idle_s"].get<double>(), 1'000e-9);
  EXPECT_EQ(d["categories"]["nothing_recorded"]["gap_count"].get<int>(), 1);
  ASSERT_EQ(d["longest_gaps"].size(), 1u);
  EXPECT_EQ(d["longest_gaps"][0]["category"], "sync");
  EXPECT_EQ(d["histogram"][2]["bucket"], "10us_100us");
  EXPECT_TRUE(d["histogram"][5]["upper_s"].is_null());
  EXPECT_DOUBLE_EQ(d["histogram"][1]["lower_s"].get<double>(), 1e-6);
}

// A graph replay: one launch call returns at 10 ns, its kernels run 20-30 and 35-45 (same correlation), so
// the 30-35 gap is device-side (queued) even though the host sits in cudaDeviceSynchronize meanwhile. An
// eager launch whose call is still running when the gap starts (ends at 52 > 45) makes the 45-55 gap the
// host's: launch.
// Kineto's "overhead" events (Activity Buffer Request) are the profiler stalling the host: they outrank a
// launch call covering the same instant. Gap [100, 200): profiler 120-150 (30 ns) inside a launch call 100-180.
TEST(GapAttributionTest, ProfilerOverheadOutranksTheHostStateItInterrupts) {
  Timeline t;
  t.gpu = {kernel(0, 100), kernel(200, 100)};
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 100, 80);
  add_host(t, HostKind::kProfiler, "Activity Buffer Request", 120, 30, -1);
  finalize_timeline(t);
  const auto r = gap_attribution(t);
  const auto& g = r.devices[0].gaps.at(0);
  EXPECT_EQ(g.ns_by_category[static_cast<std::size_t>(HostCategory::kProfiler)], 30);
  EXPECT_EQ(g.ns_by_category[kLaunch], 50);   // 100-120 and 150-180
  EXPECT_EQ(g.ns_by_category[kNothing], 20);  // 180-200
  EXPECT_EQ(g.category, HostCategory::kLaunch);
  EXPECT_EQ(host_category_name(HostCategory::kProfiler), "profiler");
}

TEST(GapAttributionTest, GapsWhoseWorkWasAlreadySubmittedAreQueued) {
  Timeline t;
  GpuActivity a = kernel(20, 10), b = kernel(35, 10), c = kernel(55, 10);
  a.correlation = b.correlation = 1;
  c.correlation = 2;
  t.gpu = {a, b, c};
  add_host(t, HostKind::kRuntime, "cudaGraphLaunch", 0, 10, 1, 1);
  add_host(t, HostKind::kRuntime, "cudaDeviceSynchronize", 11, 30);
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 44, 8, 1, 2);
  // A framework trace (it has an operator), so the API-only launch-path rule leaves the unrecorded 3 ns alone.
  add_host(t, HostKind::kCpuOp, "aten::add", 70, 5);
  finalize_timeline(t);
  const auto r = gap_attribution(t);
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& d = r.devices[0];
  ASSERT_EQ(d.gaps.size(), 2u);
  EXPECT_EQ(d.launch_path_inferred_ns, 0);
  EXPECT_EQ(d.gaps[0].category, HostCategory::kQueued);
  EXPECT_EQ(d.gaps[0].ns_by_category[kQueued], 5);
  EXPECT_EQ(d.gaps[0].ns_by_category[kSync], 0);
  EXPECT_EQ(d.gaps[1].category, HostCategory::kLaunch);
  EXPECT_EQ(d.gaps[1].ns_by_category[kLaunch], 7);   // 45-52 inside the launch call
  EXPECT_EQ(d.gaps[1].ns_by_category[kNothing], 3);  // 52-55
  EXPECT_EQ(d.categories[kQueued].idle_ns, 5);
  EXPECT_EQ(d.categories[kQueued].gap_count, 1u);
  EXPECT_EQ(host_category_name(HostCategory::kQueued), "queued");
}

// A trace of API calls alone (perfhound record): the unrecorded host time of a short gap that ended with a launch
// made during it is launch time; a long gap, a gap whose work was queued, and the same trace with one framework
// operator in it keep their unrecorded time.
TEST(GapAttributionTest, ApiOnlyTracesCountShortUnrecordedGapsAsLaunch) {
  const auto build = [](bool with_operator) {
    Timeline t;
    t.gpu = correlated_kernels({0, 14'000, 316'000, 330'000}, 4);
    add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 0, 1'000, 1, 1);
    add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 10'000, 3'000, 1, 2);   // during gap 2-14 us
    add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 312'000, 3'000, 1, 3);  // during the 300 us gap
    add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 317'000, 1'000, 1, 4);  // before the gap 318-330 us
    if (with_operator) add_host(t, HostKind::kCpuOp, "aten::mul", 400'000, 1'000);
    finalize_timeline(t);
    return gap_attribution(t);
  };
  const auto r = build(false);
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& dev = r.devices[0];
  ASSERT_EQ(dev.gaps.size(), 3u);
  // 2-14 us: 3 us inside the launch call (10-13), 9 us unrecorded, counted as launch.
  EXPECT_EQ(dev.gaps[0].category, HostCategory::kLaunch);
  EXPECT_EQ(dev.gaps[0].ns_by_category[kLaunch], 12'000);
  EXPECT_EQ(dev.gaps[0].ns_by_category[kNothing], 0);
  // 16-316 us: longer than 100 us, so 297 us stay unrecorded.
  EXPECT_EQ(dev.gaps[1].category, HostCategory::kNothingRecorded);
  EXPECT_EQ(dev.gaps[1].ns_by_category[kNothing], 297'000);
  // 318-330 us: the kernel was launched at 317-318 us, before the gap: queued.
  EXPECT_EQ(dev.gaps[2].category, HostCategory::kQueued);
  EXPECT_EQ(dev.launch_path_inferred_ns, 9'000);
  EXPECT_EQ(dev.launch_path_inferred_gaps, 1u);

  const auto framework = build(true);
  EXPECT_EQ(framework.devices[0].launch_path_inferred_ns, 0);
  EXPECT_EQ(framework.devices[0].gaps[0].ns_by_category[kNothing], 9'000);
}

// A trace of runtime calls whose library kernels were launched through the driver, unrecorded: the gaps those
// kernels end have no known launch, so the launch-path rule cannot read them and they are counted apart. Kernels
// at 0, 10, 30 and 60 us (2 us each): gap 2-10 us ends with kernel 2, launched during it (8-9 us); gap 12-30 us
// with kernel 3, whose correlation id 3 no API event carries; gap 32-60 us with kernel 4, no correlation id at
// all. Unknown: 18 + 28 = 46 us in 2 gaps; inferred as launch: the 7 unrecorded us of the first gap.
TEST(GapAttributionTest, GapsEndedByWorkWithNoLaunchCallAreCounted) {
  const auto build = [](bool with_api) {
    Timeline t;
    t.gpu = correlated_kernels({0, 10'000, 30'000, 60'000}, 3);  // the fourth with no correlation id
    if (with_api) {
      add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 0, 500, 1, 1);
      add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 8'000, 1'000, 1, 2);
    }
    finalize_timeline(t);
    return gap_attribution(t);
  };
  const auto r = build(true);
  ASSERT_EQ(r.devices.size(), 1u);
  const auto& dev = r.devices[0];
  ASSERT_EQ(dev.gaps.size(), 3u);
  EXPECT_EQ(dev.launch_unknown_gaps, 2u);
  EXPECT_EQ(dev.launch_unknown_ns, 46'000);
  EXPECT_EQ(dev.launch_path_inferred_ns, 7'000);
  EXPECT_EQ(dev.gaps[1].category, HostCategory::kNothingRecorded);
  EXPECT_EQ(dev.gaps[2].category, HostCategory::kNothingRecorded);
  const auto json = to_json(r);
  EXPECT_EQ(json["devices"][0]["launch_unknown"]["gap_count"], 2);
  EXPECT_DOUBLE_EQ(json["devices"][0]["launch_unknown"]["idle_s"].get<double>(), 46e-6);

  // Without any API call nothing is known to be missing: no launch is known at all.
  const auto bare = build(false);
  EXPECT_EQ(bare.devices[0].launch_unknown_gaps, 0u);
  EXPECT_EQ(bare.devices[0].launch_unknown_ns, 0);
}

}  // namespace
}  // namespace perfhound::trace
