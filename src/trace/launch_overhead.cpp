#include "trace/launch_overhead.h"

#include "core/units.h"

#include <algorithm>
#include <unordered_map>

namespace perfhound::trace {

namespace {



struct LaunchApiName {
  std::string_view name;  // as CUPTI names it, without nsys' "_vNNNN" suffix
  LaunchApi api;
};

// The calls that enqueue kernels. cudaLaunchKernelEx (C++) is a template over cudaLaunchKernelExC, which is
// what CUPTI records; the H200 traces show cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel,
// cuLaunchKernelEx (triton / cuBLASLt launch through the driver) and cudaGraphLaunch.
constexpr LaunchApiName kLaunchApis[] = {
    {"cudaLaunchKernel", LaunchApi::kKernel},
    {"cudaLaunchKernelExC", LaunchApi::kKernel},
    {"cudaLaunchCooperativeKernel", LaunchApi::kKernel},
    {"cudaLaunchCooperativeKernelMultiDevice", LaunchApi::kKernel},
    {"cuLaunchKernel", LaunchApi::kKernel},
    {"cuLaunchKernelEx", LaunchApi::kKernel},
    {"cuLaunchCooperativeKernel", LaunchApi::kKernel},
    {"cudaGraphLaunch", LaunchApi::kGraph},
    {"cuGraphLaunch", LaunchApi::kGraph},
};

constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";

nlohmann::ordered_json summary_json(const core::Summary& s) {
  nlohmann::ordered_json j;
  j["count"] = s.count;
  j["mean_s"] = core::ns_to_seconds(s.mean);
  j["min_s"] = core::ns_to_seconds(s.min);
  j["p50_s"] = core::ns_to_seconds(s.p50);
  j["p90_s"] = core::ns_to_seconds(s.p90);
  j["p99_s"] = core::ns_to_seconds(s.p99);
  j["max_s"] = core::ns_to_seconds(s.max);
  return j;
}

// The step ranges: ProfilerStep#N annotations, else the outermost user annotations.
std::vector<const HostEvent*> find_steps(const Timeline& timeline, StepSource& source) {
  std::vector<const HostEvent*> profiler_steps, annotations;
  for (const auto& e : timeline.host) {
    if (e.kind != HostKind::kUserAnnotation) continue;
    annotations.push_back(&e);
    if (timeline.name(e.name).starts_with(kProfilerStepPrefix)) profiler_steps.push_back(&e);
  }
  if (!profiler_steps.empty()) {
    source = StepSource::kProfilerStep;
    return profiler_steps;
  }
  // host is sorted by start, so an annotation ending no later than the furthest end seen so far lies inside
  // the annotation that reached that end (it started earlier): not outermost.
  std::vector<const HostEvent*> outermost;
  std::int64_t furthest_end = 0;
  for (const HostEvent* e : annotations) {
    if (!outermost.empty() && e->end_ns() <= furthest_end) continue;
    outermost.push_back(e);
    furthest_end = std::max(furthest_end, e->end_ns());
  }
  source = outermost.empty() ? StepSource::kNone : StepSource::kUserAnnotation;
  return outermost;
}

}  // namespace

LaunchApi launch_api_of(HostKind kind, std::string_view name) {
  if (kind != HostKind::kRuntime && kind != HostKind::kDriver) return LaunchApi::kNone;
  for (const auto& entry : kLaunchApis) {
    if (entry.name == name) return entry.api;
  }
  return LaunchApi::kNone;
}

std::string_view step_source_name(StepSource source) {
  switch (source) {
    case StepSource::kNone: return "none";
    case StepSource::kProfilerStep: return "profiler_step";
    case StepSource::kUserAnnotation: return "user_annotation";
  }
  return "unknown";
}

LaunchOverhead launch_overhead(const Timeline& timeline) {
  LaunchOverhead result;

  struct Launch {
    std::int64_t start_ns;
    LaunchApi api;
  };
  std::unordered_map<std::int64_t, Launch> launches;  // by correlation id
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;  // (correlation, start) of each launch call
  std::unordered_map<StringId, LaunchApi> api_of_name;  // a few dozen distinct names, millions of events
  std::vector<double> call_durations;
  for (const auto& e : timeline.host) {
    if (e.kind != HostKind::kRuntime && e.kind != HostKind::kDriver) continue;
    auto [it, inserted] = api_of_name.try_emplace(e.name, LaunchApi::kNone);
    if (inserted) it->second = launch_api_of(e.kind, timeline.name(e.name));
    const LaunchApi api = it->second;
    if (api == LaunchApi::kNone) continue;
    ++result.launch_call_count;
    if (api == LaunchApi::kGraph) ++result.graph_launch_count;
    result.launch_call_time_ns += e.dur_ns;
    call_durations.push_back(static_cast<double>(e.dur_ns));
    calls.emplace_back(e.correlation, e.start_ns);
    if (e.correlation >= 0) launches.try_emplace(e.correlation, Launch{e.start_ns, api});
  }
  result.mean_launch_call_ns =
      core::ratio_or_zero(static_cast<double>(result.launch_call_time_ns), static_cast<double>(result.launch_call_count));
  result.launch_call_ns = core::summarize(call_durations);

  // First GPU activity start per correlation id (timeline.gpu is sorted by start: the first seen is it).
  std::unordered_map<std::int64_t, std::int64_t> first_start;
  for (const auto& a : timeline.gpu) {
    if (a.correlation >= 0) first_start.try_emplace(a.correlation, a.start_ns);
  }
  std::vector<double> latencies;
  latencies.reserve(calls.size());
  for (const auto& [correlation, start_ns] : calls) {
    const auto it = correlation >= 0 ? first_start.find(correlation) : first_start.end();
    if (it == first_start.end()) {
      ++result.unmatched_launch_count;
      continue;
    }
    const std::int64_t latency = it->second - start_ns;
    if (latency < 0) ++result.negative_latency_count;
    latencies.push_back(static_cast<double>(latency));
  }
  result.latency_ns = core::summarize(latencies);

  StepSource source = StepSource::kNone;
  const auto step_events = find_steps(timeline, source);
  result.step_source = source;
  for (const HostEvent* e : step_events) {
    result.steps.push_back({std::string(timeline.name(e->name)), e->start_ns, e->end_ns(), 0, 0});
  }
  auto step_of = [&](std::int64_t t) -> StepKernels* {
    // Latest-starting step with start <= t, if it contains t.
    auto it = std::upper_bound(result.steps.begin(), result.steps.end(), t,
                               [](std::int64_t v, const StepKernels& s) { return v < s.start_ns; });
    if (it == result.steps.begin()) return nullptr;
    --it;
    return t < it->end_ns ? &*it : nullptr;
  };

  std::int64_t kernel_time_ns = 0;
  for (const auto& a : timeline.gpu) {
    if (a.kind != GpuKind::kKernel) continue;
    ++result.kernel_count;
    kernel_time_ns += a.dur_ns;
    if (a.dur_ns < kShortKernelNs) {
      ++result.short_kernel_count;
      result.short_kernel_time_ns += a.dur_ns;
    }
    std::int64_t issued_at = a.start_ns;
    if (const auto it = a.correlation >= 0 ? launches.find(a.correlation) : launches.end(); it != launches.end()) {
      ++result.launched_kernel_count;
      if (it->second.api == LaunchApi::kGraph) ++result.graph_kernel_count;
      issued_at = it->second.start_ns;
    }
    if (StepKernels* step = step_of(issued_at)) {
      ++step->kernel_count;
      step->kernel_time_ns += a.dur_ns;
    } else {
      ++result.kernels_outside_steps;
    }
  }
  result.mean_kernels_per_launch = core::ratio_or_zero(static_cast<double>(result.launched_kernel_count),
                                         static_cast<double>(result.launch_call_count));
  result.short_kernel_ratio =
      core::ratio_or_zero(static_cast<double>(result.short_kernel_count), static_cast<double>(result.kernel_count));
  result.short_kernel_time_ratio =
      core::ratio_or_zero(static_cast<double>(result.short_kernel_time_ns), static_cast<double>(kernel_time_ns));
  return result;
}

nlohmann::ordered_json to_json(const LaunchOverhead& result) {
  nlohmann::ordered_json j;
  j["launch_call_count"] = result.launch_call_count;
  j["graph_launch_count"] = result.graph_launch_count;
  j["launch_call_time_s"] = core::ns_to_seconds(result.launch_call_time_ns);
  j["mean_launch_call_s"] = core::ns_to_seconds(result.mean_launch_call_ns);
  j["launch_call_duration"] = summary_json(result.launch_call_ns);
  j["kernel_count"] = result.kernel_count;
  j["launched_kernel_count"] = result.launched_kernel_count;
  j["graph_kernel_count"] = result.graph_kernel_count;
  j["mean_kernels_per_launch"] = result.mean_kernels_per_launch;
  j["unmatched_launch_count"] = result.unmatched_launch_count;
  j["launch_latency"] = summary_json(result.latency_ns);
  j["negative_latency_count"] = result.negative_latency_count;
  j["short_kernels"] = {{"threshold_s", core::ns_to_seconds(kShortKernelNs)},
                        {"count", result.short_kernel_count},
                        {"ratio", result.short_kernel_ratio},
                        {"time_s", core::ns_to_seconds(result.short_kernel_time_ns)},
                        {"time_ratio", result.short_kernel_time_ratio}};
  nlohmann::ordered_json steps;
  steps["source"] = step_source_name(result.step_source);
  steps["kernels_outside_steps"] = result.kernels_outside_steps;
  auto list = nlohmann::ordered_json::array();
  for (const auto& s : result.steps) {
    list.push_back({{"name", s.name},
                    {"start_s", core::ns_to_seconds(s.start_ns)},
                    {"dur_s", core::ns_to_seconds(s.end_ns - s.start_ns)},
                    {"kernel_count", s.kernel_count},
                    {"kernel_time_s", core::ns_to_seconds(s.kernel_time_ns)}});
  }
  steps["steps"] = std::move(list);
  j["steps"] = std::move(steps);
  return j;
}

}  // namespace perfhound::trace
