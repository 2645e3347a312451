#include "trace/utilization.h"

#include "core/units.h"

#include <algorithm>
#include <map>
#include <set>

namespace perfhound::trace {

namespace {



// Appends [start, end) to a list being built in start order, merging it with the last block when they
// overlap or touch. Callers feed intervals sorted by start, so the result is normalized.
void append_merged(std::vector<Interval>& out, std::int64_t start, std::int64_t end) {
  if (end <= start) return;
  if (!out.empty() && start <= out.back().end_ns) {
    out.back().end_ns = std::max(out.back().end_ns, end);
    return;
  }
  out.push_back({start, end});
}

}  // namespace

std::vector<Interval> normalize_intervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  std::vector<Interval> out;
  out.reserve(intervals.size());
  for (const auto& i : intervals) append_merged(out, i.start_ns, i.end_ns);
  return out;
}

std::int64_t total_length(std::span<const Interval> intervals) {
  std::int64_t total = 0;
  for (const auto& i : intervals) total += i.dur_ns();
  return total;
}

std::vector<Interval> union_intervals(std::span<const Interval> a, std::span<const Interval> b) {
  std::vector<Interval> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const bool take_a = j == b.size() || (i < a.size() && a[i].start_ns <= b[j].start_ns);
    const Interval& next = take_a ? a[i++] : b[j++];
    append_merged(out, next.start_ns, next.end_ns);
  }
  return out;
}

std::vector<Interval> intersect_intervals(std::span<const Interval> a, std::span<const Interval> b) {
  std::vector<Interval> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t lo = std::max(a[i].start_ns, b[j].start_ns);
    const std::int64_t hi = std::min(a[i].end_ns, b[j].end_ns);
    if (lo < hi) out.push_back({lo, hi});
    // The interval that ends first cannot meet anything later in the other list.
    if (a[i].end_ns < b[j].end_ns) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

std::vector<Interval> subtract_intervals(std::span<const Interval> a, std::span<const Interval> b) {
  std::vector<Interval> out;
  std::size_t j = 0;
  for (const auto& x : a) {
    std::int64_t cursor = x.start_ns;
    while (j < b.size() && b[j].end_ns <= cursor) ++j;
    // b[k] for k >= j may cover several parts of x; j itself stays, it may reach into the next x.
    for (std::size_t k = j; k < b.size() && b[k].start_ns < x.end_ns; ++k) {
      if (b[k].start_ns > cursor) out.push_back({cursor, b[k].start_ns});
      cursor = std::max(cursor, b[k].end_ns);
      if (cursor >= x.end_ns) break;
    }
    if (cursor < x.end_ns) out.push_back({cursor, x.end_ns});
  }
  return out;
}

std::vector<std::int32_t> gpu_devices(const Timeline& timeline) {
  std::set<std::int32_t> ids;
  for (const auto& a : timeline.gpu) ids.insert(a.device);
  for (const auto& d : timeline.info.devices) ids.insert(d.id);
  return {ids.begin(), ids.end()};
}

std::vector<Interval> busy_intervals(const Timeline& timeline, std::int32_t device) {
  // timeline.gpu is sorted by start (Timeline invariant), so filtering keeps start order and one merge
  // pass suffices: no sort.
  std::vector<Interval> out;
  for (const auto& a : timeline.gpu) {
    if (a.device == device) append_merged(out, a.start_ns, a.end_ns());
  }
  return out;
}

std::optional<Interval> active_span(const Timeline& timeline, std::int32_t device) {
  std::optional<Interval> span;
  for (const auto& a : timeline.gpu) {
    if (a.device != device) continue;
    if (!span) {
      span = Interval{a.start_ns, a.end_ns()};
    } else {
      span->start_ns = std::min(span->start_ns, a.start_ns);
      span->end_ns = std::max(span->end_ns, a.end_ns());
    }
  }
  return span;
}

std::vector<IdleGap> idle_gaps(std::span<const Interval> busy, std::optional<Interval> active, Interval window) {
  std::vector<IdleGap> out;
  if (!active) {
    if (window.end_ns > window.start_ns) out.push_back({window.start_ns, window.end_ns, GapPosition::kWholeWindow});
    return out;
  }
  if (active->start_ns > window.start_ns) out.push_back({window.start_ns, active->start_ns, GapPosition::kLeading});
  std::int64_t cursor = active->start_ns;
  for (const auto& b : busy) {
    if (b.start_ns > cursor) out.push_back({cursor, b.start_ns, GapPosition::kInterior});
    cursor = std::max(cursor, b.end_ns);
  }
  if (active->end_ns > cursor) out.push_back({cursor, active->end_ns, GapPosition::kInterior});
  if (window.end_ns > active->end_ns) out.push_back({active->end_ns, window.end_ns, GapPosition::kTrailing});
  return out;
}

std::vector<IdleGap> idle_gaps(const Timeline& timeline, std::int32_t device) {
  const auto busy = busy_intervals(timeline, device);
  return idle_gaps(busy, active_span(timeline, device), {timeline.window_start_ns, timeline.window_end_ns});
}

Utilization utilization(const Timeline& timeline) {
  Utilization result;
  result.window_start_ns = timeline.window_start_ns;
  result.window_end_ns = timeline.window_end_ns;
  result.window_ns = std::max<std::int64_t>(0, timeline.window_end_ns - timeline.window_start_ns);

  for (const std::int32_t device : gpu_devices(timeline)) {
    DeviceUtilization d;
    d.device = device;
    // Per-stream merged lists, built in start order like busy_intervals().
    std::map<std::int64_t, std::pair<std::uint64_t, std::vector<Interval>>> per_stream;
    std::vector<Interval> busy;
    for (const auto& a : timeline.gpu) {
      if (a.device != device) continue;
      ++d.activity_count;
      append_merged(busy, a.start_ns, a.end_ns());
      auto& [count, intervals] = per_stream[a.stream];
      ++count;
      append_merged(intervals, a.start_ns, a.end_ns());
      if (!d.has_activity) {
        d.has_activity = true;
        d.active_start_ns = a.start_ns;
        d.active_end_ns = a.end_ns();
      } else {
        d.active_start_ns = std::min(d.active_start_ns, a.start_ns);
        d.active_end_ns = std::max(d.active_end_ns, a.end_ns());
      }
    }
    d.busy_ns = total_length(busy);
    d.busy_block_count = busy.size();
    d.window_idle_ns = std::max<std::int64_t>(0, result.window_ns - d.busy_ns);
    d.window_busy_ratio = core::ratio_or_zero(d.busy_ns, result.window_ns);
    d.active_span_ns = d.active_end_ns - d.active_start_ns;
    d.active_idle_ns = d.active_span_ns - d.busy_ns;
    d.active_busy_ratio = core::ratio_or_zero(d.busy_ns, d.active_span_ns);
    for (const auto& [stream, entry] : per_stream) {
      d.streams.push_back({stream, entry.first, total_length(entry.second)});
    }
    result.devices.push_back(std::move(d));
  }
  return result;
}

std::string_view gap_position_name(GapPosition position) {
  switch (position) {
    case GapPosition::kLeading: return "leading";
    case GapPosition::kInterior: return "interior";
    case GapPosition::kTrailing: return "trailing";
    case GapPosition::kWholeWindow: return "whole_window";
  }
  return "unknown";
}

nlohmann::ordered_json to_json(const Utilization& result) {
  nlohmann::ordered_json j;
  j["window_start_s"] = core::ns_to_seconds(result.window_start_ns);
  j["window_end_s"] = core::ns_to_seconds(result.window_end_ns);
  j["window_s"] = core::ns_to_seconds(result.window_ns);
  auto devices = nlohmann::ordered_json::array();
  for (const auto& d : result.devices) {
    nlohmann::ordered_json jd;
    jd["device"] = d.device;
    jd["activity_count"] = d.activity_count;
    jd["busy_s"] = core::ns_to_seconds(d.busy_ns);
    jd["busy_block_count"] = d.busy_block_count;
    jd["window_idle_s"] = core::ns_to_seconds(d.window_idle_ns);
    jd["window_busy_ratio"] = d.window_busy_ratio;
    jd["has_activity"] = d.has_activity;
    jd["active_start_s"] = core::ns_to_seconds(d.active_start_ns);
    jd["active_end_s"] = core::ns_to_seconds(d.active_end_ns);
    jd["active_span_s"] = core::ns_to_seconds(d.active_span_ns);
    jd["active_idle_s"] = core::ns_to_seconds(d.active_idle_ns);
    jd["active_busy_ratio"] = d.active_busy_ratio;
    auto streams = nlohmann::ordered_json::array();
    for (const auto& s : d.streams) {
      streams.push_back({{"stream", s.stream}, {"activity_count", s.activity_count}, {"busy_s", core::ns_to_seconds(s.busy_ns)}});
    }
    jd["streams"] = std::move(streams);
    devices.push_back(std::move(jd));
  }
  j["devices"] = std::move(devices);
  return j;
}

}  // namespace perfhound::trace
