#include "trace/verdict.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/units.h"

namespace perfhound::trace {
namespace {

using core::format_duration_ns;
using core::format_percent;


const DeviceUtilization* busiest_device(const Utilization& u) {
  const DeviceUtilization* best = nullptr;
  for (const auto& d : u.devices) {
    if (best == nullptr || d.busy_ns > best->busy_ns) best = &d;
  }
  return best;
}

const DeviceGapAttribution* gaps_of(const GapAttribution& g, std::int32_t device) {
  for (const auto& d : g.devices) {
    if (d.device == device) return &d;
  }
  return nullptr;
}

// The host category holding the most idle time of the device's interior gaps; nothing recorded when no
// category holds any (a device with no gaps must not read as "sync", the first category).
HostCategory dominant_idle(const DeviceGapAttribution& d) {
  std::size_t best = static_cast<std::size_t>(HostCategory::kNothingRecorded);
  std::int64_t most = 0;
  // The profiler's own stalls are not the program's bottleneck: reported as evidence, never the verdict.
  for (std::size_t c = static_cast<std::size_t>(HostCategory::kProfiler) + 1; c < kHostCategoryCount; ++c) {
    if (d.categories[c].idle_ns > most) {
      most = d.categories[c].idle_ns;
      best = c;
    }
  }
  return static_cast<HostCategory>(best);
}

const CommunicationStats* communication_of(const Communication& c, std::int32_t device) {
  for (const auto& d : c.devices) {
    if (d.device == device) return &d.stats;
  }
  return nullptr;
}

// Profiler overhead worth a line of its own: at 1% of the idle time it moves the other shares visibly.
constexpr double kProfilerNoteShare = 0.01;
// Below this share of the idle time a host state is noise in the one-line split.
constexpr double kSplitLineMinShare = 0.001;
// The share of idle time in gaps ended by work with no launch call in the trace above which the evidence says
// so: below it the unattributed part cannot change the verdict's idle cause.
constexpr double kLaunchUnknownNoteShare = 0.10;
// Idle before the first and after the last GPU activity worth a note: a tenth of the window changes the
// whole-window busy ratio enough that a reader comparing it with nvidia-smi needs to know why.
constexpr double kOutsideSpanNoteShare = 0.10;
// One gap holding more than half the idle time (more than all the others together) is a one-off (start-up:
// cuBLAS handle creation, lazy module loading; a checkpoint; a data stall), not the steady state's rhythm, yet it
// weighs in the verdict as much as all the other gaps together: the evidence says so, with the busy share the
// span has without it.
constexpr double kOneGapNoteShare = 0.50;

double family_share(const KernelBreakdown& k, KernelFamily family) {
  for (const auto& f : k.families) {
    if (f.family == family) return f.share_of_gpu_time;
  }
  return 0;
}

std::string idle_line(const DeviceUtilization& u) {
  return fmt::format("GPU {} busy {} of its active span ({} of {}); {} idle in gaps between work", u.device,
                     format_percent(u.active_busy_ratio), format_duration_ns(static_cast<double>(u.busy_ns)),
                     format_duration_ns(static_cast<double>(u.active_span_ns)),
                     format_duration_ns(static_cast<double>(u.active_idle_ns)));
}

std::string idle_split_line(const DeviceGapAttribution& g) {
  std::string line = "idle time by what the host was doing:";
  bool first = true;
  for (std::size_t c = 0; c < kHostCategoryCount; ++c) {
    if (g.categories[c].idle_ratio < kSplitLineMinShare) continue;
    line += fmt::format("{} {} {}", first ? "" : ",", host_category_name(static_cast<HostCategory>(c)),
                        format_percent(g.categories[c].idle_ratio));
    first = false;
  }
  return line;
}

void add_window_note(Verdict& v, const Utilization& u, const DeviceUtilization& d) {
  const std::int64_t outside = d.active_start_ns - u.window_start_ns + (u.window_end_ns - d.active_end_ns);
  if (core::ratio_or_zero(outside, u.window_ns) >= kOutsideSpanNoteShare) {
    v.evidence.push_back(fmt::format(
        "{} of the {} profiled window lies before the first or after the last GPU activity (profiler start-up, "
        "warm-up, tear-down); over the whole window the GPU is busy {}",
        format_duration_ns(static_cast<double>(outside)), format_duration_ns(static_cast<double>(u.window_ns)),
        format_percent(d.window_busy_ratio)));
  }
}

// The longest interior gap, when it holds more than kOneGapNoteShare of the idle time.
void add_one_gap_note(Verdict& v, const DeviceUtilization& d, const DeviceGapAttribution& g) {
  const auto longest = std::max_element(g.gaps.begin(), g.gaps.end(), [](const AttributedGap& a, const AttributedGap& b) {
    return a.dur_ns() < b.dur_ns();
  });
  if (longest == g.gaps.end() || core::ratio_or_zero(longest->dur_ns(), g.idle_ns) <= kOneGapNoteShare) return;
  const std::int64_t span_without = d.active_span_ns - longest->dur_ns();
  v.evidence.push_back(fmt::format(
      "one gap of {}, {} into the active span (host: {}), holds {} of the idle time: if it is a one-off "
      "(start-up, a stall), the rest of the span is {} busy; read the steady state alone with --range NAME",
      format_duration_ns(static_cast<double>(longest->dur_ns())),
      format_duration_ns(static_cast<double>(longest->start_ns - d.active_start_ns)),
      host_category_name(longest->category), format_percent(core::ratio_or_zero(longest->dur_ns(), g.idle_ns)),
      format_percent(core::ratio_or_zero(d.busy_ns, span_without))));
}

void add_launch_evidence(Verdict& v, const LaunchOverhead& l) {
  if (l.kernel_count > 0) {
    std::string calls = fmt::format("{} launch calls", l.launch_call_count);
    if (l.launch_call_ns.count > 0) {
      calls += fmt::format(", each p50 {} / p99 {}", format_duration_ns(l.launch_call_ns.p50),
                           format_duration_ns(l.launch_call_ns.p99));
    }
    v.evidence.push_back(fmt::format("{} kernels, {} shorter than 10 us ({} of kernel time); {}", l.kernel_count,
                                     format_percent(l.short_kernel_ratio), format_percent(l.short_kernel_time_ratio),
                                     calls));
  }
  if (l.graph_launch_count > 0) {
    v.evidence.push_back(fmt::format("{} CUDA Graph launches ran {} kernels ({:.0f} per graph launch on average)",
                                     l.graph_launch_count, l.graph_kernel_count,
                                     static_cast<double>(l.graph_kernel_count) / static_cast<double>(l.graph_launch_count)));
  }
}

// The part of a kernel name ncu's -k regex: can match literally: up to the first regex metacharacter.
std::string ncu_kernel_filter(std::string_view name) {
  const auto special = name.find_first_of(".*+?()[]{}|^$\\");
  return std::string(name.substr(0, special));
}

void kernel_bound(Verdict& v, const DeviceUtilization& d, const KernelBreakdown& k) {
  v.kind = BottleneckKind::kKernelBound;
  v.bottleneck_class = "compute or bandwidth";
  const std::string name = k.top.empty() ? std::string("(none)") : k.top.front().short_name;
  v.summary = fmt::format("kernel-bound: the GPU is busy {} of its active span; profile the dominant kernel with ncu: "
                          "{}, {} of kernel time",
                          format_percent(d.active_busy_ratio), name, format_percent(v.dominant_kernel_share));
  v.next_steps.push_back(fmt::format(
      "ncu the dominant kernel (ncu --set roofline --kernel-name-base demangled -k regex:'{}') and place it on the "
      "roofline: memory slope -> "
      "fuse, quantize, raise arithmetic intensity (batch); compute roof -> lower precision (FP8/BF16), better "
      "tiling; below both -> launch configuration, occupancy, tiling",
      ncu_kernel_filter(name)));
  const double memory_bound = family_share(k, KernelFamily::kElementwise) + family_share(k, KernelFamily::kReduction);
  if (memory_bound >= kMemoryBoundFamiliesMatter) {
    v.evidence.push_back(fmt::format("elementwise and reduction kernels take {} of GPU time: memory-bound by nature",
                                     format_percent(memory_bound)));
    v.next_steps.push_back("fuse the elementwise and reduction kernels (torch.compile, a fused kernel) so the data "
                           "crosses HBM once");
  }
  if (!k.top.empty()) {
    const std::string& full = k.top.front().full_name;
    if (full.find("simt") != std::string::npos || full.find("sgemm") != std::string::npos) {
      v.evidence.push_back("the dominant GEMM is an fp32 SIMT kernel (" + k.top.front().short_name +
                           "): it does not use tensor cores");
      v.next_steps.push_back("run the matmuls in TF32 or BF16 (torch.backends.cuda.matmul.allow_tf32 = True, or "
                             "autocast) so they use tensor cores");
    }
  }
}

}  // namespace

std::string_view bottleneck_kind_name(BottleneckKind kind) {
  switch (kind) {
    case BottleneckKind::kLaunchBound: return "launch-bound";
    case BottleneckKind::kSyncBound: return "sync-bound";
    case BottleneckKind::kUntracedHost: return "untraced-host";
    case BottleneckKind::kDeviceSideGaps: return "device-side-gaps";
    case BottleneckKind::kDataMovement: return "data-movement";
    case BottleneckKind::kCommunication: return "communication";
    case BottleneckKind::kKernelBound: return "kernel-bound";
  }
  return "unknown";
}

Verdict decide_verdict(const Utilization& u, const GapAttribution& gaps, const KernelBreakdown& k,
                       const DataMovement& data, const Communication& comm, const LaunchOverhead& launches) {
  Verdict v;
  const DeviceUtilization* d = busiest_device(u);
  if (d == nullptr || !d->has_activity) {
    v.kind = BottleneckKind::kUntracedHost;
    v.bottleneck_class = "overhead";
    v.summary = "no GPU activity in the profiled window";
    v.next_steps.push_back("record with torch.profiler activities=[CPU, CUDA] around the slow region");
    return v;
  }
  v.device = d->device;
  if (!k.top.empty()) {
    v.dominant_kernel = k.top.front().full_name;
    v.dominant_kernel_share = k.top.front().share_of_kernel_time;
  }
  const DeviceGapAttribution* g = gaps_of(gaps, d->device);
  const double idle = 1.0 - d->active_busy_ratio;
  const bool idle_matters = d->active_busy_ratio < kBusyEnough;
  std::int64_t gpu_busy = 0;
  for (const auto& dev : u.devices) gpu_busy += dev.busy_ns;
  // Copies are not split per device by data_movement, so their share is of all devices' busy time.
  const double copy_share = core::ratio_or_zero(data.host_device_copy_ns, gpu_busy);
  const CommunicationStats* device_comm = communication_of(comm, d->device);
  const double exposed_comm = device_comm != nullptr ? core::ratio_or_zero(device_comm->exposed_ns, d->active_span_ns) : 0.0;
  const HostCategory idle_cause = g != nullptr ? dominant_idle(*g) : HostCategory::kNothingRecorded;
  // When both exposed communication and a host-side idle cause matter, the one that costs more time is the
  // verdict and the other is named in the evidence: fixing the smaller first leaves the larger in place.
  const std::int64_t exposed_comm_ns = device_comm != nullptr ? device_comm->exposed_ns : 0;
  const std::int64_t idle_cause_ns =
      g != nullptr ? g->categories[static_cast<std::size_t>(idle_cause)].idle_ns : 0;
  const bool idle_outweighs_comm = idle_matters && idle_cause != HostCategory::kCommunication &&
                                   idle_cause != HostCategory::kNothingRecorded && idle_cause_ns > exposed_comm_ns;
  std::string also_comm;
  if (idle_outweighs_comm && exposed_comm >= kExposedCommMatters) {
    also_comm = (fmt::format("also: {} of exposed communication ({} of the active span), less than the {} "
                                     "idle with the host in {}",
                                     format_duration_ns(static_cast<double>(exposed_comm_ns)),
                                     format_percent(exposed_comm), format_duration_ns(static_cast<double>(idle_cause_ns)),
                                     host_category_name(idle_cause)));
  }

  v.evidence.push_back(idle_line(*d));
  if (g != nullptr && g->gap_count > 0) v.evidence.push_back(idle_split_line(*g));
  if (g != nullptr && idle_matters) add_one_gap_note(v, *d, *g);
  if (g != nullptr && g->launch_path_inferred_ns > 0) {
    v.evidence.push_back(fmt::format(
        "the trace has CUDA API calls but no framework operators: {} of idle time in {} gaps under {} that ended "
        "with a launch made during them is host time between launch calls the trace cannot see, counted as launch",
        format_duration_ns(static_cast<double>(g->launch_path_inferred_ns)), g->launch_path_inferred_gaps,
        format_duration_ns(static_cast<double>(kLaunchPathGapNs))));
  }
  if (g != nullptr && core::ratio_or_zero(g->launch_unknown_ns, g->idle_ns) >= kLaunchUnknownNoteShare) {
    v.evidence.push_back(fmt::format(
        "{} of idle time ({}) is in {} gaps ended by work whose launch call is not in the trace (libraries launch "
        "through the driver: cuBLASLt, cuDNN, Triton), so what the host was doing cannot be tied to it; record the "
        "driver's launch calls too (perfhound record does unless --api none; nsys --trace=cuda)",
        format_duration_ns(static_cast<double>(g->launch_unknown_ns)),
        format_percent(core::ratio_or_zero(g->launch_unknown_ns, g->idle_ns)), g->launch_unknown_gaps));
  }
  if (!also_comm.empty()) v.evidence.push_back(also_comm);
  if (g != nullptr) {
    const auto& profiler = g->categories[static_cast<std::size_t>(HostCategory::kProfiler)];
    if (profiler.idle_ratio >= kProfilerNoteShare) {
      v.evidence.push_back(fmt::format("{} of the idle time is the profiler's own overhead (buffer requests and "
                                       "flushes), not the program's",
                                       format_percent(profiler.idle_ratio)));
    }
  }

  if (copy_share >= kCopiesDominate || (idle_matters && idle_cause == HostCategory::kMemcpy)) {
    v.kind = BottleneckKind::kDataMovement;
    v.bottleneck_class = "bandwidth";
    v.summary = copy_share >= kCopiesDominate
                    ? fmt::format("data-movement-bound: host<->device copies take {} of GPU busy time",
                                  format_percent(copy_share))
                    : fmt::format("data-movement-bound: the GPU is idle {} of its active span while the host is "
                                  "blocked in copy calls",
                                  format_percent(idle));
    bool slow_pageable = false;
    for (const auto& c : data.copies) {
      if (c.direction != CopyDirection::kHostToDevice && c.direction != CopyDirection::kDeviceToHost) continue;
      v.evidence.push_back(fmt::format("{} {} copies: {} x, {} in {}, {}", copy_direction_name(c.direction),
                                       host_memory_name(c.host_memory), c.count,
                                       core::format_bytes(static_cast<double>(c.bytes)),
                                       format_duration_ns(static_cast<double>(c.time_ns)),
                                       core::format_si(c.bytes_per_s, "B/s")));
      if (c.host_memory == HostMemory::kPageable && c.bytes_per_s < kSlowCopyBytesPerS) slow_pageable = true;
    }
    if (slow_pageable) {
      v.next_steps.push_back("pin the host buffers (tensor.pin_memory(), cudaHostAlloc): pageable copies are staged "
                             "by the driver and run at a fraction of PCIe bandwidth");
    }
    v.next_steps.push_back("keep tensors on the device between steps; copy only what the host needs");
    v.next_steps.push_back("overlap the remaining copies with compute: pinned memory, non_blocking=True, a "
                           "separate stream");
  } else if ((exposed_comm >= kExposedCommMatters && !idle_outweighs_comm) ||
             (idle_matters && idle_cause == HostCategory::kCommunication)) {
    v.kind = BottleneckKind::kCommunication;
    v.bottleneck_class = "bandwidth";
    v.summary = exposed_comm >= kExposedCommMatters
                    ? fmt::format("communication-bound: {} of the active span is communication not hidden behind "
                                  "compute",
                                  format_percent(exposed_comm))
                    : fmt::format("communication-bound: the GPU is idle {} of its active span while the host is "
                                  "inside collectives",
                                  format_percent(idle));
    if (device_comm != nullptr) {
      v.evidence.push_back(fmt::format("communication kernels: {} of GPU busy time, {} of it overlapped with compute; "
                                       "their time includes waiting for the other ranks (compare the ranks' traces)",
                                       format_percent(device_comm->share_of_gpu_busy),
                                       format_percent(device_comm->hidden_ratio)));
    }
    v.next_steps.push_back("overlap collectives with compute (gradient bucketing, async collectives, "
                           "communication on its own stream)");
    v.next_steps.push_back("send fewer, larger collectives; reduce what crosses the link (lower-precision "
                           "communication)");
    v.next_steps.push_back("revisit the parallelism: less tensor parallelism over slow links, keep TP within NVLink");
  } else if (idle_matters && g != nullptr) {
    switch (idle_cause) {
      case HostCategory::kLaunch:
        v.kind = BottleneckKind::kLaunchBound;
        v.bottleneck_class = "overhead";
        v.summary = fmt::format("overhead-bound (launch): the GPU is idle {} of its active span while the CPU is "
                                "busy launching work",
                                format_percent(idle));
        add_launch_evidence(v, launches);
        v.next_steps.push_back("capture the steady-state loop in a CUDA Graph (torch.compile mode=\"reduce-overhead\", "
                               "torch.cuda.CUDAGraph): one launch replaces hundreds");
        v.next_steps.push_back("fuse small kernels (torch.compile) so there are fewer to launch");
        v.next_steps.push_back("raise the batch size so each launch carries more work");
        v.next_steps.push_back("move Python and framework work off the launch path (async, fewer host-side ops)");
        break;
      case HostCategory::kSync:
        v.kind = BottleneckKind::kSyncBound;
        v.bottleneck_class = "overhead";
        v.summary = fmt::format("overhead-bound (synchronization): the GPU is idle {} of its active span while the "
                                "host waits in synchronize calls, serializing CPU and GPU",
                                format_percent(idle));
        v.next_steps.push_back("remove host synchronizations from the loop (tensor.item(), .cpu(), printing "
                               "tensors, cudaDeviceSynchronize)");
        v.next_steps.push_back("make copies asynchronous (pinned memory, non_blocking=True) and wait on events "
                               "instead of the whole device");
        v.next_steps.push_back("overlap independent work on separate streams");
        break;
      case HostCategory::kQueued:
        v.kind = BottleneckKind::kDeviceSideGaps;
        v.bottleneck_class = "overhead";
        v.summary = fmt::format("device-side gaps: the GPU is idle {} of its active span although the next work "
                                "was already submitted",
                                format_percent(idle));
        add_launch_evidence(v, launches);
        v.next_steps.push_back("fuse kernels so fewer dispatch gaps remain");
        v.next_steps.push_back("check cross-stream waits and events that hold queued work back");
        break;
      default:
        v.kind = BottleneckKind::kUntracedHost;
        v.bottleneck_class = "overhead";
        if (gaps.host_event_count == 0) {
          v.summary = fmt::format("the GPU is idle {} of its active span and the trace has no host events to say why",
                                  format_percent(idle));
          v.next_steps.push_back("record the host side: torch.profiler activities=[ProfilerActivity.CPU, "
                                 "ProfilerActivity.CUDA] (nsys: --trace=cuda,nvtx,osrt)");
          break;
        }
        v.summary = fmt::format("overhead-bound (host): the GPU is idle {} of its active span while the host does "
                                "something the trace did not record",
                                format_percent(idle));
        v.next_steps.push_back("record the host side too (torch.profiler with_stack=True, python_function events) "
                               "to see where it spends the time");
        v.next_steps.push_back("look for data loading, I/O, Python work or sleeps between steps");
        v.next_steps.push_back("once the host work is gone, CUDA Graphs and fusion remove the launch overhead");
        break;
    }
  } else {
    kernel_bound(v, *d, k);
  }
  add_window_note(v, u, *d);
  return v;
}

nlohmann::ordered_json to_json(const Verdict& v) {
  nlohmann::ordered_json j;
  j["bottleneck"] = bottleneck_kind_name(v.kind);
  j["class"] = v.bottleneck_class;
  j["summary"] = v.summary;
  j["device"] = v.device;
  j["evidence"] = v.evidence;
  j["next_steps"] = v.next_steps;
  j["dominant_kernel"] = v.dominant_kernel;
  j["dominant_kernel_share"] = v.dominant_kernel_share;
  return j;
}

}  // namespace perfhound::trace
