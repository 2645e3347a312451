#include "trace/data_movement.h"

#include "core/units.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

#include "trace/utilization.h"

namespace perfhound::trace {

namespace {



double bytes_per_s(std::uint64_t bytes, std::int64_t time_ns) {
  if (time_ns <= 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(bytes) * 1e9 / static_cast<double>(time_ns);
}

bool is_host_side(MemoryKind m) { return m != MemoryKind::kDevice; }

}  // namespace

HostMemory host_memory_of(const GpuActivity& copy) {
  MemoryKind sides[2] = {MemoryKind::kDevice, MemoryKind::kDevice};
  switch (copy.direction) {
    case CopyDirection::kDeviceToDevice:
    case CopyDirection::kPeerToPeer: return HostMemory::kNone;
    case CopyDirection::kHostToDevice: sides[0] = copy.src_memory; break;
    case CopyDirection::kDeviceToHost: sides[0] = copy.dst_memory; break;
    case CopyDirection::kHostToHost:
    case CopyDirection::kUnknown:
      sides[0] = copy.src_memory;
      sides[1] = copy.dst_memory;
      break;
  }
  bool pageable = false, managed = false, pinned = false;
  for (const MemoryKind m : sides) {
    if (!is_host_side(m)) continue;
    pageable |= m == MemoryKind::kPageable;
    managed |= m == MemoryKind::kManaged;
    pinned |= m == MemoryKind::kPinned;
  }
  if (pageable) return HostMemory::kPageable;
  if (managed) return HostMemory::kManaged;
  if (pinned) return HostMemory::kPinned;
  // An unknown-direction copy between two device buffers is device-only.
  if (copy.direction == CopyDirection::kUnknown && copy.src_memory == MemoryKind::kDevice &&
      copy.dst_memory == MemoryKind::kDevice) {
    return HostMemory::kNone;
  }
  return HostMemory::kUnknown;
}

std::string_view copy_direction_name(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kHostToDevice: return "HtoD";
    case CopyDirection::kDeviceToHost: return "DtoH";
    case CopyDirection::kDeviceToDevice: return "DtoD";
    case CopyDirection::kHostToHost: return "HtoH";
    case CopyDirection::kPeerToPeer: return "PtoP";
    case CopyDirection::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string_view host_memory_name(HostMemory memory) {
  switch (memory) {
    case HostMemory::kNone: return "none";
    case HostMemory::kPageable: return "pageable";
    case HostMemory::kPinned: return "pinned";
    case HostMemory::kManaged: return "managed";
    case HostMemory::kUnknown: return "unknown";
  }
  return "unknown";
}

DataMovement data_movement(const Timeline& timeline) {
  DataMovement result;
  result.window_ns = std::max<std::int64_t>(0, timeline.window_end_ns - timeline.window_start_ns);

  // Directions print in the order a reader looks for them (HtoD, DtoH, then device-side), not enum order.
  auto direction_rank = [](CopyDirection d) {
    switch (d) {
      case CopyDirection::kHostToDevice: return 0;
      case CopyDirection::kDeviceToHost: return 1;
      case CopyDirection::kDeviceToDevice: return 2;
      case CopyDirection::kPeerToPeer: return 3;
      case CopyDirection::kHostToHost: return 4;
      case CopyDirection::kUnknown: return 5;
    }
    return 5;
  };
  std::map<std::pair<int, HostMemory>, CopyStats> groups;
  std::vector<Interval> host_device;
  for (const auto& a : timeline.gpu) {
    if (a.kind == GpuKind::kMemset) {
      ++result.memset.count;
      result.memset.bytes += a.bytes;
      result.memset.time_ns += a.dur_ns;
      continue;
    }
    if (a.kind != GpuKind::kMemcpy) continue;
    const HostMemory memory = host_memory_of(a);
    auto& g = groups[{direction_rank(a.direction), memory}];
    g.direction = a.direction;
    g.host_memory = memory;
    ++g.count;
    g.bytes += a.bytes;
    g.time_ns += a.dur_ns;
    ++result.copy_count;
    result.copy_bytes += a.bytes;
    result.copy_time_ns += a.dur_ns;
    if (a.direction == CopyDirection::kHostToDevice || a.direction == CopyDirection::kDeviceToHost) {
      host_device.push_back({a.start_ns, a.end_ns()});
    }
  }
  for (auto& [key, g] : groups) {
    g.bytes_per_s = bytes_per_s(g.bytes, g.time_ns);
    result.copies.push_back(g);
  }
  result.memset.bytes_per_s = bytes_per_s(result.memset.bytes, result.memset.time_ns);
  result.host_device_copy_ns = total_length(normalize_intervals(std::move(host_device)));
  result.host_device_copy_window_ratio = core::ratio_or_zero(result.host_device_copy_ns, result.window_ns);
  return result;
}

nlohmann::ordered_json to_json(const DataMovement& result) {
  nlohmann::ordered_json j;
  auto copies = nlohmann::ordered_json::array();
  for (const auto& c : result.copies) {
    copies.push_back({{"direction", copy_direction_name(c.direction)},
                      {"host_memory", host_memory_name(c.host_memory)},
                      {"count", c.count},
                      {"size_bytes", c.bytes},
                      {"time_s", core::ns_to_seconds(c.time_ns)},
                      {"achieved_bytes_per_s", c.bytes_per_s}});
  }
  j["copies"] = std::move(copies);
  j["copy_count"] = result.copy_count;
  j["copy_size_bytes"] = result.copy_bytes;
  j["copy_time_s"] = core::ns_to_seconds(result.copy_time_ns);
  j["memset"] = {{"count", result.memset.count},
                 {"size_bytes", result.memset.bytes},
                 {"time_s", core::ns_to_seconds(result.memset.time_ns)},
                 {"achieved_bytes_per_s", result.memset.bytes_per_s}};
  j["window_s"] = core::ns_to_seconds(result.window_ns);
  j["host_device_copy_s"] = core::ns_to_seconds(result.host_device_copy_ns);
  j["host_device_copy_window_ratio"] = result.host_device_copy_window_ratio;
  return j;
}

}  // namespace perfhound::trace
