#include "trace/range_window.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <vector>

namespace perfhound::trace {
namespace {

// Cuts [start, start + dur) to [lo, hi]; false when nothing of it is inside. `clipped` counts a cut.
bool clip(std::int64_t& start, std::int64_t& dur, std::int64_t lo, std::int64_t hi, std::uint64_t& clipped) {
  const std::int64_t end = start + dur;
  if (end < lo || start > hi || (dur > 0 && (end == lo || start == hi))) return false;
  const std::int64_t s = std::max(start, lo), e = std::min(end, hi);
  if (s != start || e != end) ++clipped;
  start = s;
  dur = e - s;
  return true;
}

}  // namespace

core::Result<RangeWindow> restrict_to_range(Timeline& timeline, std::string_view name, int occurrence) {
  std::vector<const HostEvent*> ranges;
  std::set<std::string_view> names;
  for (const HostEvent& e : timeline.host) {
    if (e.kind != HostKind::kUserAnnotation) continue;
    const std::string_view n = timeline.name(e.name);
    if (n == name) ranges.push_back(&e);
    if (names.size() < 5) names.insert(n);
  }
  if (ranges.empty()) {
    std::string known;
    for (std::string_view n : names) known += (known.empty() ? "'" : ", '") + std::string(n) + "'";
    return core::Error{fmt::format("--range '{}': the trace has no range of that name ({})", name,
                                   known.empty() ? "it has no user annotations or NVTX ranges at all"
                                                 : "its ranges include " + known)};
  }
  if (occurrence < 1 || occurrence > static_cast<int>(ranges.size())) {
    return core::Error{fmt::format("--range '{}' #{}: the trace has {} range{} of that name", name, occurrence,
                                   ranges.size(), ranges.size() == 1 ? "" : "s")};
  }
  const HostEvent& r = *ranges[static_cast<std::size_t>(occurrence - 1)];  // host is sorted by start
  RangeWindow w;
  w.name = std::string(name);
  w.occurrence = occurrence;
  w.occurrences = static_cast<int>(ranges.size());
  w.start_ns = r.start_ns;
  w.end_ns = r.end_ns();

  // Compaction by hand: remove_if's predicate may not modify the elements, and clipping does.
  const auto cut = [&](auto& events, std::uint64_t& dropped, std::uint64_t& clipped) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
      auto e = events[i];
      if (clip(e.start_ns, e.dur_ns, w.start_ns, w.end_ns, clipped)) {
        events[kept++] = e;
      } else {
        ++dropped;
      }
    }
    events.resize(kept);
  };
  cut(timeline.gpu, w.gpu_dropped, w.gpu_clipped);
  cut(timeline.host, w.host_dropped, w.host_clipped);
  std::uint64_t ignored = 0;
  cut(timeline.gpu_annotations, ignored, ignored);
  timeline.window_start_ns = w.start_ns;
  timeline.window_end_ns = w.end_ns;
  finalize_timeline(timeline);  // clipping can reorder starts
  return w;
}

SuggestedRange suggest_range(const Timeline& timeline, std::string_view skip) {
  struct Instances {
    std::int64_t total_ns = 0;
    std::vector<std::pair<std::int64_t, int>> lengths;  // (duration, 1-based occurrence)
  };
  std::map<std::string_view, Instances> by_name;
  for (const HostEvent& e : timeline.host) {  // sorted by start: occurrences count in start order
    if (e.kind != HostKind::kUserAnnotation) continue;
    const std::string_view n = timeline.name(e.name);
    if (n.empty() || n == skip) continue;
    Instances& r = by_name[n];
    r.total_ns += e.dur_ns;
    r.lengths.emplace_back(e.dur_ns, static_cast<int>(r.lengths.size()) + 1);
  }
  SuggestedRange out;
  if (by_name.empty()) return out;
  std::vector<std::pair<std::string_view, Instances*>> ranked;
  for (auto& [n, r] : by_name) ranked.emplace_back(n, &r);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second->total_ns > b.second->total_ns; });
  for (const auto& [n, r] : ranked) out.names.emplace_back(n);
  auto lengths = ranked.front().second->lengths;
  std::stable_sort(lengths.begin(), lengths.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  out.name = std::string(ranked.front().first);
  out.occurrences = static_cast<int>(lengths.size());
  out.occurrence = lengths[(lengths.size() - 1) / 2].second;
  return out;
}

}  // namespace perfhound::trace
