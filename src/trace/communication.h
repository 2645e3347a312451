// Communication: how much GPU time collective kernels take, and how much of it compute hides. The
// "long NCCL bars" read of a timeline (Knowledge 06 section 4): communication overlapped with compute
// costs little; exposed communication is time the device spends only talking, the part a faster
// interconnect, less tensor parallelism or better overlap would buy back.
//
// Communication kernels are kernels of family KernelFamily::kCommunication (kernel_breakdown.h
// classify_kernel_name: NCCL and friends). Per device:
//  - comm_busy_ns: length of the union of its communication kernel intervals;
//  - compute: the union of its other kernels (copies and memsets are not compute and are left out);
//  - hidden_ns = length of (comm union intersect compute union): communication during which some compute
//    kernel also runs on the same device; exposed_ns = comm_busy_ns - hidden_ns;
//  - share_of_gpu_busy = comm_busy_ns / the device's busy time (utilization.h: union of all activities).
// Overlap in time says the two ran concurrently, not that neither slowed the other (they share SMs and
// memory bandwidth); hidden time is an upper bound on what overlap saved.
//
// Totals add the per-device values. Edge cases: no communication kernels -> every value 0 and both ratios 0
// (ratios with a zero denominator are 0; comm_busy_ns == 0 tells "no communication" from "fully exposed").
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/timeline.h"

namespace perfhound::trace {

struct CommunicationStats {
  std::uint64_t kernel_count = 0;   // communication kernels
  std::int64_t kernel_sum_ns = 0;   // sum of their durations (concurrent collectives each count)
  std::int64_t comm_busy_ns = 0;    // union of their intervals
  std::int64_t gpu_busy_ns = 0;     // union of all activities
  std::int64_t hidden_ns = 0;       // communication overlapped by a compute kernel
  std::int64_t exposed_ns = 0;      // comm_busy_ns - hidden_ns
  double share_of_gpu_busy = 0;     // comm_busy_ns / gpu_busy_ns, 0..1
  double hidden_ratio = 0;          // hidden_ns / comm_busy_ns, 0..1
};

struct DeviceCommunication {
  std::int32_t device = 0;
  CommunicationStats stats;
};

struct Communication {
  CommunicationStats total;                  // sums over devices; ratios recomputed from the sums
  std::vector<DeviceCommunication> devices;  // ascending device id (utilization.h gpu_devices())
};

Communication communication(const Timeline& timeline);

// Durations in seconds (`_s`), ratios 0..1.
nlohmann::ordered_json to_json(const Communication& result);

}  // namespace perfhound::trace
