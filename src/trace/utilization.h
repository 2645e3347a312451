// GPU utilization: how much of the profiled window each device spent running anything, and the busy/idle
// intervals the other trace analyses (gap_attribution, communication, data_movement) build on.
//
// Busy time of a device is the length of the union of all its GpuActivity intervals (kernels, copies and
// memsets, every stream): two kernels overlapping on two streams count once. It says the GPU had work
// resident, not that the work was efficient (nvidia-smi's "utilization" has the same meaning).
//
// Two denominators, because they answer different questions:
//  - the profiled window [window_start_ns, window_end_ns] of the Timeline (profiler start to stop), and
//  - the device's active span, from its first activity start to its last activity end, which leaves out
//    the profiler's ramp-up and tear-down where the host is still setting up or already flushing.
//
// Conventions and edge cases:
//  - Activities that touch (one ends exactly where the next starts) merge into one busy block; the idle
//    gap between them has length 0 and does not exist.
//  - Zero-duration activities are counted in activity_count and extend the active span, but add no busy
//    time and form no busy block, so they never split an idle gap.
//  - A device with no activity (listed in TraceInfo::devices only) has busy 0, idle = the whole window,
//    has_activity false, an empty active span (0 ns) and both busy ratios 0.
//  - A Timeline with no GPU activity and no listed devices has an empty `devices` list.
//  - Every ratio whose denominator is 0 (empty window, empty span) is 0, never NaN; the denominator is in
//    the result so a reader can tell "0 of 0" from "0 of something".
//  - Per-stream busy time is the union over that stream alone, so per-stream values may sum to more than the
//    device's busy time when streams overlap.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/timeline.h"

namespace perfhound::trace {

// A half-open interval [start_ns, end_ns) on the trace clock.
struct Interval {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;

  std::int64_t dur_ns() const { return end_ns - start_ns; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

// ---- Interval-list algebra. "Normalized" lists are sorted, disjoint, non-touching and free of empty
// intervals; every function below returns one and its inputs must be normalized (not checked).

// Sorts and merges `intervals` (any order, overlaps and touches allowed); empty intervals are dropped.
std::vector<Interval> normalize_intervals(std::vector<Interval> intervals);
// Total length of a normalized list.
std::int64_t total_length(std::span<const Interval> intervals);
std::vector<Interval> union_intervals(std::span<const Interval> a, std::span<const Interval> b);
std::vector<Interval> intersect_intervals(std::span<const Interval> a, std::span<const Interval> b);
// The parts of `a` not covered by `b`.
std::vector<Interval> subtract_intervals(std::span<const Interval> a, std::span<const Interval> b);

// ---- Busy and idle intervals of one device.

// Devices to report: every device with GPU activity plus every device in TraceInfo::devices, ascending.
std::vector<std::int32_t> gpu_devices(const Timeline& timeline);

// Merged busy blocks of `device` over all streams: normalized (see above). Empty when the device has no
// activity of non-zero duration. O(number of GPU activities).
std::vector<Interval> busy_intervals(const Timeline& timeline, std::int32_t device);

// First activity start to last activity end of `device` (zero-duration activities included); nullopt when
// the device has no activity at all.
std::optional<Interval> active_span(const Timeline& timeline, std::int32_t device);

enum class GapPosition : std::uint8_t {
  kLeading,      // window start to the first activity: profiler ramp-up, not attributed to the workload
  kInterior,     // between two busy blocks inside the active span
  kTrailing,     // last activity to window end: profiler tear-down
  kWholeWindow,  // the device did nothing in the window
};

struct IdleGap {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  GapPosition position = GapPosition::kInterior;

  std::int64_t dur_ns() const { return end_ns - start_ns; }
};

// The idle time of `device` as gaps in time order: a kLeading gap, the kInterior gaps (the active span
// minus the busy blocks), a kTrailing gap; gaps of length 0 are left out. A device with no activity gets
// one kWholeWindow gap (none if the window is empty). Interior gaps sum to active-span idle time; all gaps
// sum to window idle time.
std::vector<IdleGap> idle_gaps(const Timeline& timeline, std::int32_t device);
// Same, from busy blocks and active span the caller already has (avoids a second pass over the events).
std::vector<IdleGap> idle_gaps(std::span<const Interval> busy, std::optional<Interval> active, Interval window);

// ---- The utilization analysis.

struct StreamUtilization {
  std::int64_t stream = 0;
  std::uint64_t activity_count = 0;
  std::int64_t busy_ns = 0;  // union over this stream only
};

struct DeviceUtilization {
  std::int32_t device = 0;
  std::uint64_t activity_count = 0;  // kernels, copies and memsets, zero-duration ones included
  std::int64_t busy_ns = 0;          // length of the union over all streams
  std::uint64_t busy_block_count = 0;

  std::int64_t window_idle_ns = 0;   // window_ns - busy_ns
  double window_busy_ratio = 0;      // busy_ns / window_ns, 0..1

  bool has_activity = false;
  std::int64_t active_start_ns = 0;  // 0 when !has_activity
  std::int64_t active_end_ns = 0;
  std::int64_t active_span_ns = 0;
  std::int64_t active_idle_ns = 0;   // active_span_ns - busy_ns
  double active_busy_ratio = 0;      // busy_ns / active_span_ns, 0..1

  std::vector<StreamUtilization> streams;  // ascending stream id
};

struct Utilization {
  std::int64_t window_start_ns = 0;
  std::int64_t window_end_ns = 0;
  std::int64_t window_ns = 0;  // max(0, end - start)
  std::vector<DeviceUtilization> devices;  // ascending device id, as gpu_devices()
};

Utilization utilization(const Timeline& timeline);

// Durations in seconds (`_s`), ratios 0..1.
nlohmann::ordered_json to_json(const Utilization& result);

std::string_view gap_position_name(GapPosition position);  // "leading", "interior", "trailing", "whole_window"

}  // namespace perfhound::trace
