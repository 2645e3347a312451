// The verdict: which of the four bottleneck classes (compute, bandwidth, capacity, overhead; Knowledge 06
// section 2) a timeline shows, in the playbook's sub-cases (section 9), with the numbers that say so and the
// fixes in the order to try them.
//
//   GPU copies dominate its busy time           -> data movement (PCIe bandwidth): pin, keep on device, overlap
//   exposed communication >= 20% of the span    -> communication: overlap, fewer/larger collectives, topology
//   GPU busy < 80% of its active span, by what the host did in the idle gaps:
//     launching (cudaLaunchKernel, framework ops) -> overhead, launch-bound: CUDA Graphs, fusion, bigger batch
//     blocked in a synchronize                   -> overhead, serialized: remove host syncs, async, streams
//     in a blocking copy                         -> data movement
//     in a collective                            -> communication
//     nothing the trace recorded                 -> overhead outside the trace: Python, data loading, I/O
//     nothing: the next work was already queued  -> device-side gaps: fuse, check stream dependencies
//   otherwise the GPU is busy                    -> kernel-bound: profile the dominant kernel with ncu
//
// Capacity (out of memory, KV-cache pressure) does not show on a timeline; `perfhound trace` never claims it.
// Every threshold is a named constant below, with why. The verdict is for the device with the most busy time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "trace/communication.h"
#include "trace/data_movement.h"
#include "trace/gap_attribution.h"
#include "trace/kernel_breakdown.h"
#include "trace/launch_overhead.h"
#include "trace/utilization.h"

namespace perfhound::trace {

// The GPU is "idle enough to matter" when busy less than 80% of its active span: the seed's "packed
// solid" read. At 80% or more, removing every gap gains at most 1.25x, less than a kernel fix usually gives.
// (Compared as busy < 0.80, not idle >= 0.20, so exactly 80% busy is not at the mercy of 1.0 - 0.8 rounding.)
inline constexpr double kBusyEnough = 0.80;
// Copies are the bottleneck when they are at least half of the GPU's busy time: then no kernel work can
// gain more than 2x, while a pinned or removed copy can.
inline constexpr double kCopiesDominate = 0.50;
// Exposed (not overlapped) communication this large a share of the active span is worth fixing before
// kernels: the same 1.25x bound as kBusyEnough.
inline constexpr double kExposedCommMatters = 0.20;
// Elementwise, copy and reduction kernels are memory-bound by construction (few FLOPs per byte); when they
// are this share of GPU time, fusing them is the first kernel-side lever (one pass over memory, not many).
inline constexpr double kMemoryBoundFamiliesMatter = 0.30;
// A copy slower than this from pageable memory is the driver's staging path (the H200 traces reach
// 6-7 GB/s pageable; pinned PCIe Gen5 x16 reaches ~50 GB/s), so pinning is the fix to name.
inline constexpr double kSlowCopyBytesPerS = 20e9;

enum class BottleneckKind : std::uint8_t {
  kLaunchBound,     // overhead: the CPU cannot launch work fast enough
  kSyncBound,       // overhead: host synchronizations serialize CPU and GPU
  kUntracedHost,    // overhead: the host is busy in something the trace did not record
  kDeviceSideGaps,  // overhead on the GPU side: queued work waits on dependencies or dispatch
  kDataMovement,    // bandwidth: host<->device copies
  kCommunication,   // bandwidth of the interconnect: collectives not hidden behind compute
  kKernelBound,     // the GPU is busy: compute or memory bandwidth, which ncu decides
};

struct Verdict {
  BottleneckKind kind = BottleneckKind::kKernelBound;
  std::string bottleneck_class;  // the seed's class: "overhead", "bandwidth", "compute or bandwidth"
  std::string summary;           // one line, the verdict in the playbook's words
  std::vector<std::string> evidence;    // the numbers behind it
  std::vector<std::string> next_steps;  // the playbook's fixes, in order
  std::int32_t device = 0;              // the device judged
  std::string dominant_kernel;          // full name of the kernel with the most time
  double dominant_kernel_share = 0;     // of kernel time, 0..1
};

std::string_view bottleneck_kind_name(BottleneckKind kind);  // "launch-bound", "data-movement", ...

Verdict decide_verdict(const Utilization& utilization, const GapAttribution& gaps, const KernelBreakdown& kernels,
                       const DataMovement& data, const Communication& communication, const LaunchOverhead& launches);

nlohmann::ordered_json to_json(const Verdict& verdict);

}  // namespace perfhound::trace
