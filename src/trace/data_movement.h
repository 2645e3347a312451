// Data movement: what the GPU copies were, and how fast. The "big memcpy bars" read of a timeline
// (Knowledge 06 section 4): host<->device traffic over PCIe, and whether it went through pageable memory,
// which the driver stages through a pinned buffer, blocking the CPU and reaching a fraction of the link
// (the H200 pageable_memcpy trace: about 6-7 GB/s, on a PCIe Gen5 x16 link of 64 GB/s per direction).
//
// Copies are grouped by (direction, host memory kind). Bandwidth per group is total bytes / total duration
// (a bytes-weighted mean over its copies, each timed by the GPU), in bytes per second. Copies running at
// once each count their full duration, so this is per-copy achieved bandwidth, not link throughput.
// Memsets are reported apart (they move no data across a link).
//
// The window share is the union of all HtoD and DtoH copy intervals (every device and stream, overlap
// counted once) over the profiled window: the fraction of wall time with a host<->device copy in flight.
//
// Edge cases: no copies -> no rows, totals 0, share 0. A group whose total duration is 0 has bytes_per_s NaN
// (JSON null): its bandwidth is not measurable. An empty window gives share 0.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/timeline.h"

namespace perfhound::trace {

// The host side of a copy.
enum class HostMemory : std::uint8_t {
  kNone,      // device-only copy (DtoD, PtoP): no host memory involved
  kPageable,  // staged by the driver; the copy call blocks the CPU
  kPinned,    // page-locked: DMA straight from host memory, can overlap compute
  kManaged,   // unified memory
  kUnknown,   // the trace does not say
};

// HtoD: the source; DtoH: the destination; HtoH or unknown direction: both non-device sides, where
// pageable wins over managed over pinned (the slowest path decides the cost); DtoD / PtoP: kNone.
HostMemory host_memory_of(const GpuActivity& copy);

std::string_view copy_direction_name(CopyDirection direction);  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "unknown"
std::string_view host_memory_name(HostMemory memory);           // "none", "pageable", "pinned", "managed", "unknown"

struct CopyStats {
  CopyDirection direction = CopyDirection::kUnknown;
  HostMemory host_memory = HostMemory::kUnknown;
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::int64_t time_ns = 0;  // sum of durations
  double bytes_per_s = 0;    // bytes / time; NaN when time_ns == 0
};

struct MemsetStats {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::int64_t time_ns = 0;
  double bytes_per_s = 0;  // NaN when time_ns == 0
};

struct DataMovement {
  std::vector<CopyStats> copies;  // groups present: HtoD, DtoH, DtoD, PtoP, HtoH, unknown; then HostMemory order
  std::uint64_t copy_count = 0;
  std::uint64_t copy_bytes = 0;
  std::int64_t copy_time_ns = 0;
  MemsetStats memset;
  std::int64_t window_ns = 0;
  std::int64_t host_device_copy_ns = 0;        // union of HtoD and DtoH copy intervals
  double host_device_copy_window_ratio = 0;    // host_device_copy_ns / window_ns, 0..1
};

DataMovement data_movement(const Timeline& timeline);

// Durations in seconds (`_s`), sizes in bytes (`_bytes`), bandwidth in bytes/s (`_bytes_per_s`, null when
// not measurable), ratios 0..1.
nlohmann::ordered_json to_json(const DataMovement& result);

}  // namespace perfhound::trace
