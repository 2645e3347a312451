// Launch overhead: the cost of feeding the GPU one kernel at a time. The overhead-bound signature
// (Knowledge 06 sections 2 and 4): many kernels shorter than it takes the host to launch them, so the GPU
// idles between them; the fix is CUDA Graphs (one launch for hundreds of kernels), fusion, or bigger
// batches.
//
// Launch calls are the CUDA runtime/driver calls that enqueue kernels (launch_overhead.cpp kLaunchApis:
// cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel, cuLaunchKernelEx, the cooperative variants,
// cudaGraphLaunch, cuGraphLaunch). Copy and memset calls are not launch calls here: they enqueue no kernel.
// A kernel is linked to its launch call by the CUPTI correlation id both carry (trace_formats.md A.7); a
// graph launch shares one correlation id with every kernel of the replay (256 in small_ops_cudagraph).
//
// Launch latency is, per launch call that has GPU activity with its correlation id, the start of the
// earliest such activity minus the start of the call: for a graph launch, to the graph's first kernel. It
// includes queueing behind earlier work on the stream, so it is launch-to-start time, not pure driver cost.
// Negative latencies (GPU start before the call, i.e. clock skew between the host and GPU timelines) are
// kept in the distribution and counted in negative_latency_count.
//
// Kernels per step: steps are the kUserAnnotation ranges named "ProfilerStep#N"; if there are none, the
// outermost user annotations (ranges not inside another user annotation); if there are none either, no
// steps. A kernel belongs to the step that contains the start of its launch call (the host decides what a
// step issues; its kernels may run after the step's host range ends), or, with no linked launch call, the
// start of the kernel. Steps that overlap without nesting: a time goes to the latest-starting step that
// starts at or before it, if that step contains it.
//
// Edge cases: no launch calls -> counts 0, latency summary of 0 samples (NaN statistics, JSON null),
// mean_kernels_per_launch 0. Ratios with a zero denominator are 0. No steps -> step_source kNone, `steps`
// empty and kernels_outside_steps = kernel_count.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/percentile.h"
#include "trace/timeline.h"

namespace perfhound::trace {

// Kernels shorter than this finish before the host can launch the next one: an eager launch costs the host
// ~5-10 us end to end (cudaLaunchKernel ~2-5 us plus framework dispatch; the small_ops_eager trace runs
// 5120 kernels in 136 ms of span with 14.7 ms busy), so a stream of such kernels leaves the GPU idle most of
// the time unless they are captured in a CUDA Graph.
inline constexpr std::int64_t kShortKernelNs = 10'000;

enum class LaunchApi : std::uint8_t { kNone, kKernel, kGraph };

// Whether a host event is a kernel launch call (kKernel), a graph launch (kGraph), or neither. Only
// kRuntime and kDriver events are launch calls.
LaunchApi launch_api_of(HostKind kind, std::string_view name);

enum class StepSource : std::uint8_t { kNone, kProfilerStep, kUserAnnotation };
std::string_view step_source_name(StepSource source);  // "none", "profiler_step", "user_annotation"

struct StepKernels {
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::uint64_t kernel_count = 0;
  std::int64_t kernel_time_ns = 0;  // sum of its kernels' durations
};

struct LaunchOverhead {
  std::uint64_t launch_call_count = 0;   // kernel and graph launch calls
  std::uint64_t graph_launch_count = 0;
  std::int64_t launch_call_time_ns = 0;  // host time inside launch calls (sum of durations)
  double mean_launch_call_ns = 0;
  core::Summary launch_call_ns;          // each launch call's duration: the host's cost of one launch

  std::uint64_t kernel_count = 0;           // every kernel in the trace
  std::uint64_t launched_kernel_count = 0;  // kernels linked to a launch call by correlation id
  std::uint64_t graph_kernel_count = 0;     // of those, launched by a graph launch
  double mean_kernels_per_launch = 0;       // launched_kernel_count / launch_call_count
  std::uint64_t unmatched_launch_count = 0; // launch calls with no GPU activity of their correlation id

  core::Summary latency_ns;                 // launch call start -> first GPU activity start
  std::uint64_t negative_latency_count = 0;

  std::uint64_t short_kernel_count = 0;     // kernels shorter than kShortKernelNs
  double short_kernel_ratio = 0;            // of kernel_count, 0..1
  std::int64_t short_kernel_time_ns = 0;
  double short_kernel_time_ratio = 0;       // of total kernel time, 0..1

  StepSource step_source = StepSource::kNone;
  std::vector<StepKernels> steps;           // in start order
  std::uint64_t kernels_outside_steps = 0;
};

LaunchOverhead launch_overhead(const Timeline& timeline);

// Durations in seconds (`_s`), ratios 0..1; NaN statistics (no samples) as null.
nlohmann::ordered_json to_json(const LaunchOverhead& result);

}  // namespace perfhound::trace
