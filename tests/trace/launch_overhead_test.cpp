#include "trace/launch_overhead.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string_view>

namespace perfhound::trace {
namespace {

void add_host(Timeline& t, HostKind kind, std::string_view name, std::int64_t start_ns, std::int64_t dur_ns,
              std::int64_t correlation = -1) {
  HostEvent e;
  e.kind = kind;
  e.name = t.strings.intern(name);
  e.start_ns = start_ns;
  e.dur_ns = dur_ns;
  e.correlation = correlation;
  t.host.push_back(e);
}

void add_kernel(Timeline& t, std::int64_t start_ns, std::int64_t dur_ns, std::int64_t correlation,
                GpuKind kind = GpuKind::kKernel) {
  GpuActivity a;
  a.kind = kind;
  a.name = t.strings.intern("k");
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  a.correlation = correlation;
  t.gpu.push_back(a);
}

TEST(LaunchApiTest, Names) {
  EXPECT_EQ(launch_api_of(HostKind::kRuntime, "cudaLaunchKernel"), LaunchApi::kKernel);
  EXPECT_EQ(launch_api_of(HostKind::kRuntime, "cudaLaunchKernelExC"), LaunchApi::kKernel);
  EXPECT_EQ(launch_api_of(HostKind::kDriver, "cuLaunchKernel"), LaunchApi::kKernel);
  EXPECT_EQ(launch_api_of(HostKind::kDriver, "cuLaunchKernelEx"), LaunchApi::kKernel);
  EXPECT_EQ(launch_api_of(HostKind::kRuntime, "cudaGraphLaunch"), LaunchApi::kGraph);
  EXPECT_EQ(launch_api_of(HostKind::kRuntime, "cudaMemsetAsync"), LaunchApi::kNone);
  EXPECT_EQ(launch_api_of(HostKind::kRuntime, "cudaMemcpyAsync"), LaunchApi::kNone);
  EXPECT_EQ(launch_api_of(HostKind::kCpuOp, "cudaLaunchKernel"), LaunchApi::kNone);
}

// Three eager launches, one graph launch of three kernels, one launch whose kernel is missing, two steps.
Timeline mixed() {
  Timeline t;
  add_host(t, HostKind::kUserAnnotation, "ProfilerStep#1", 0, 500);
  add_host(t, HostKind::kUserAnnotation, "forward", 0, 100);  // nested; ignored while ProfilerSteps exist
  add_host(t, HostKind::kUserAnnotation, "ProfilerStep#2", 500, 1500);
  // Eager: calls at 0, 100, 200 (10 ns each); kernels at 20 (5 ns), 150 (20 us), 300 (8 ns).
  // Latencies 20, 50, 100. The second kernel runs past step 1 but was launched in it.
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 0, 10, 1);
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 100, 10, 2);
  add_host(t, HostKind::kDriver, "cuLaunchKernelEx", 200, 10, 3);
  add_kernel(t, 20, 5, 1);
  add_kernel(t, 150, 20'000, 2);
  add_kernel(t, 300, 8, 3);
  // Graph launch at 1000 (20 ns), correlation 10 shared by three kernels starting 1100, 1200, 1300.
  add_host(t, HostKind::kRuntime, "cudaGraphLaunch", 1000, 20, 10);
  add_kernel(t, 1100, 50, 10);
  add_kernel(t, 1200, 50, 10);
  add_kernel(t, 1300, 50, 10);
  // A launch call whose kernel the trace lost, and a kernel with no launch call after the last step.
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 1500, 10, 99);
  add_kernel(t, 2500, 100, -1);
  // Not launch calls, not kernels.
  add_host(t, HostKind::kRuntime, "cudaMemsetAsync", 1600, 10, 20);
  add_kernel(t, 1700, 10, 20, GpuKind::kMemset);
  finalize_timeline(t);
  return t;
}

TEST(LaunchOverheadTest, CountsLatencyAndGraphs) {
  const auto r = launch_overhead(mixed());
  EXPECT_EQ(r.launch_call_count, 5u);
  EXPECT_EQ(r.graph_launch_count, 1u);
  EXPECT_EQ(r.launch_call_time_ns, 10 + 10 + 10 + 20 + 10);
  EXPECT_DOUBLE_EQ(r.mean_launch_call_ns, 12.0);
  // Durations 10, 10, 10, 20 (the graph launch), 10: sorted 10, 10, 10, 10, 20; p99 at h = 3.96 -> 10 + 0.96 * 10.
  ASSERT_EQ(r.launch_call_ns.count, 5u);
  EXPECT_DOUBLE_EQ(r.launch_call_ns.p50, 10.0);
  EXPECT_DOUBLE_EQ(r.launch_call_ns.p99, 19.6);
  EXPECT_EQ(r.kernel_count, 7u);
  EXPECT_EQ(r.launched_kernel_count, 6u);
  EXPECT_EQ(r.graph_kernel_count, 3u);
  EXPECT_DOUBLE_EQ(r.mean_kernels_per_launch, 6.0 / 5.0);
  EXPECT_EQ(r.unmatched_launch_count, 1u);

  // Latencies 20, 50, 100 and 100 (graph: 1000 -> first kernel 1100). Sorted 20, 50, 100, 100.
  ASSERT_EQ(r.latency_ns.count, 4u);
  EXPECT_DOUBLE_EQ(r.latency_ns.mean, 67.5);
  EXPECT_DOUBLE_EQ(r.latency_ns.p50, 75.0);  // h = 1.5 -> 50 + 0.5 * 50
  EXPECT_DOUBLE_EQ(r.latency_ns.p90, 100.0);  // h = 2.7 -> 100 + 0.7 * 0
  EXPECT_DOUBLE_EQ(r.latency_ns.min, 20.0);
  EXPECT_EQ(r.negative_latency_count, 0u);

  // Short (< 10 us): all but the 20 us kernel: 6 of 7; time 5 + 8 + 150 + 100 = 263 of 20263.
  EXPECT_EQ(r.short_kernel_count, 6u);
  EXPECT_DOUBLE_EQ(r.short_kernel_ratio, 6.0 / 7.0);
  EXPECT_EQ(r.short_kernel_time_ns, 263);
  EXPECT_DOUBLE_EQ(r.short_kernel_time_ratio, 263.0 / 20'263.0);
}

TEST(LaunchOverheadTest, KernelsPerProfilerStepByLaunchTime) {
  const auto r = launch_overhead(mixed());
  EXPECT_EQ(r.step_source, StepSource::kProfilerStep);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].name, "ProfilerStep#1");
  EXPECT_EQ(r.steps[0].kernel_count, 3u);
  EXPECT_EQ(r.steps[0].kernel_time_ns, 5 + 20'000 + 8);
  EXPECT_EQ(r.steps[1].name, "ProfilerStep#2");
  EXPECT_EQ(r.steps[1].kernel_count, 3u);
  EXPECT_EQ(r.steps[1].kernel_time_ns, 150);
  EXPECT_EQ(r.kernels_outside_steps, 1u);  // the unlinked kernel at 2500, after step 2 ends at 2000
}

TEST(LaunchOverheadTest, FallsBackToOutermostAnnotations) {
  Timeline t;
  add_host(t, HostKind::kUserAnnotation, "small_ops_eager", 0, 1000);
  add_host(t, HostKind::kUserAnnotation, "inner", 100, 100);
  add_host(t, HostKind::kUserAnnotation, "small_ops_eager", 1000, 1000);
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 150, 10, 1);
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 1500, 10, 2);
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 1600, 10, 3);
  add_kernel(t, 200, 10, 1);
  add_kernel(t, 1550, 10, 2);
  add_kernel(t, 1650, 10, 3);
  finalize_timeline(t);
  const auto r = launch_overhead(t);
  EXPECT_EQ(r.step_source, StepSource::kUserAnnotation);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].kernel_count, 1u);
  EXPECT_EQ(r.steps[1].kernel_count, 2u);
  EXPECT_EQ(r.kernels_outside_steps, 0u);
}

TEST(LaunchOverheadTest, NegativeLatencyIsKeptAndCounted) {
  Timeline t;
  add_host(t, HostKind::kRuntime, "cudaLaunchKernel", 100, 10, 1);
  add_kernel(t, 90, 10, 1);  // starts 10 ns before its launch call: clock skew
  finalize_timeline(t);
  const auto r = launch_overhead(t);
  EXPECT_EQ(r.negative_latency_count, 1u);
  EXPECT_DOUBLE_EQ(r.latency_ns.p50, -10.0);
  EXPECT_EQ(r.step_source, StepSource::kNone);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_EQ(r.kernels_outside_steps, 1u);
}

TEST(LaunchOverheadTest, EmptyTimeline) {
  Timeline t;
  finalize_timeline(t);
  const auto r = launch_overhead(t);
  EXPECT_EQ(r.launch_call_count, 0u);
  EXPECT_EQ(r.latency_ns.count, 0u);
  EXPECT_TRUE(std::isnan(r.latency_ns.p50));
  EXPECT_EQ(r.mean_kernels_per_launch, 0.0);
  EXPECT_EQ(r.short_kernel_ratio, 0.0);
  const auto j = to_json(r);
  EXPECT_TRUE(j["launch_latency"]["p50_s"].is_number());  // NaN in memory ...
  EXPECT_NE(j.dump().find("\"p50_s\":null"), std::string::npos);  // ... null in the text
}

TEST(LaunchOverheadTest, Json) {
  const auto j = to_json(launch_overhead(mixed()));
  EXPECT_EQ(j["launch_call_count"].get<int>(), 5);
  EXPECT_EQ(j["graph_kernel_count"].get<int>(), 3);
  EXPECT_DOUBLE_EQ(j["launch_latency"]["p50_s"].get<double>(), 75e-9);
  EXPECT_DOUBLE_EQ(j["short_kernels"]["threshold_s"].get<double>(), 1e-5);
  EXPECT_EQ(j["steps"]["source"], "profiler_step");
  EXPECT_EQ(j["steps"]["steps"][1]["kernel_count"].get<int>(), 3);
  EXPECT_DOUBLE_EQ(j["steps"]["steps"][1]["dur_s"].get<double>(), 1.5e-6);
}

}  // namespace
}  // namespace perfhound::trace
