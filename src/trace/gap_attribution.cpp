#include "trace/gap_attribution.h"

#include "core/units.h"

#include <algorithm>
#include <unordered_map>

#include "trace/utilization.h"

namespace perfhound::trace {

namespace {



constexpr std::uint8_t bit(HostKind kind) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(kind)); }
constexpr std::uint8_t kSyncKind = bit(HostKind::kSync);
constexpr std::uint8_t kProfilerKind = bit(HostKind::kProfiler);
constexpr std::uint8_t kApi = bit(HostKind::kRuntime) | bit(HostKind::kDriver);
constexpr std::uint8_t kCpuOp = bit(HostKind::kCpuOp);
constexpr std::uint8_t kFramework = bit(HostKind::kCpuOp) | bit(HostKind::kUserAnnotation);

enum class Match : std::uint8_t { kAny, kExact, kPrefix };

enum class Action : std::uint8_t {
  kProfiler,
  kSync,
  kMemcpy,
  kMemcpyIfPageable,  // memcpy when the copy it issued is pageable, else launch (see classify_host_event)
  kCommunication,
  kLaunch,
};

struct HostRule {
  std::uint8_t kinds;  // HostKind bits the rule applies to
  Match match;
  std::string_view pattern;
  Action action;
};

// THE host-event rule table: the first row that matches an event's kind and name decides its category.
// Rows are grouped in category priority order for reading; no name matches rows of two categories, so the
// row order only matters for the catch-all cpu_op row, which must stay last. API names are as CUPTI spells
// them, without nsys' "_vNNNN" suffix (the importers strip it). Python frames (HostKind::kPython) and user
// annotations other than collectives match nothing on purpose: the outermost ones (`<module>`,
// ProfilerStep#N, a record_function around the whole run) cover every gap and would explain all of them.
constexpr HostRule kHostRules[] = {
    // profiler: the tracer's own host work, whatever its name.
    {kProfilerKind, Match::kAny, "", Action::kProfiler},
    // sync: the thread is blocked until the GPU (or another stream) catches up.
    {kSyncKind, Match::kAny, "", Action::kSync},  // the tracer's own record of a host wait (nsys, cuda_sync)
    {kApi, Match::kExact, "cudaStreamSynchronize", Action::kSync},
    {kApi, Match::kExact, "cudaDeviceSynchronize", Action::kSync},
    {kApi, Match::kExact, "cudaEventSynchronize", Action::kSync},
    {kApi, Match::kExact, "cudaThreadSynchronize", Action::kSync},  // deprecated alias of cudaDeviceSynchronize
    // Does not block the host itself (it makes a stream wait), but a gap covered by it is a cross-stream
    // dependency the host just enqueued, which is still a serialization rather than launch overhead.
    {kApi, Match::kExact, "cudaStreamWaitEvent", Action::kSync},
    {kApi, Match::kExact, "cuStreamSynchronize", Action::kSync},
    {kApi, Match::kExact, "cuCtxSynchronize", Action::kSync},
    {kApi, Match::kExact, "cuEventSynchronize", Action::kSync},
    {kApi, Match::kExact, "cuStreamWaitEvent", Action::kSync},
    // cudaFree/cudaFreeHost synchronize the device implicitly (CUDA C++ Programming Guide, "Implicit
    // Synchronization"); in PyTorch they appear when the caching allocator releases memory.
    {kApi, Match::kExact, "cudaFree", Action::kSync},
    {kApi, Match::kExact, "cudaFreeHost", Action::kSync},
    {kApi, Match::kExact, "cuMemFree", Action::kSync},
    {kApi, Match::kExact, "cuMemFreeHost", Action::kSync},

    // memcpy: asynchronous copy calls first (exact names), then every other copy call (prefix), which is
    // synchronous and blocks until the copy is done.
    {kApi, Match::kExact, "cudaMemcpyAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cudaMemcpy2DAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cudaMemcpy3DAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cudaMemcpyPeerAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cudaMemcpyToSymbolAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cudaMemcpyFromSymbolAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cudaMemcpyBatchAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cuMemcpyAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cuMemcpyHtoDAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cuMemcpyDtoHAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kExact, "cuMemcpyDtoDAsync", Action::kMemcpyIfPageable},
    {kApi, Match::kPrefix, "cudaMemcpy", Action::kMemcpy},
    {kApi, Match::kPrefix, "cuMemcpy", Action::kMemcpy},

    // communication: framework ranges around collectives (Kineto: "nccl:all_reduce" user_annotation,
    // "record_param_comms" and "c10d::allreduce_" cpu_ops) and NCCL's own API ranges (ncclAllReduce, as NCCL's
    // NVTX ranges name them in nsys). gloo and hccl are the CPU and MTIA backends of the same collectives.
    {kFramework | kApi, Match::kPrefix, "nccl", Action::kCommunication},
    {kFramework, Match::kPrefix, "c10d::", Action::kCommunication},
    {kFramework, Match::kPrefix, "record_param_comms", Action::kCommunication},
    {kFramework, Match::kPrefix, "gloo:", Action::kCommunication},
    {kFramework, Match::kPrefix, "hccl:", Action::kCommunication},

    // launch: calls that enqueue GPU work, then any framework operator (the CPU side of issuing work).
    {kApi, Match::kExact, "cudaLaunchKernel", Action::kLaunch},
    {kApi, Match::kExact, "cudaLaunchKernelExC", Action::kLaunch},
    {kApi, Match::kExact, "cudaLaunchCooperativeKernel", Action::kLaunch},
    {kApi, Match::kExact, "cuLaunchKernel", Action::kLaunch},
    {kApi, Match::kExact, "cuLaunchKernelEx", Action::kLaunch},
    {kApi, Match::kExact, "cuLaunchCooperativeKernel", Action::kLaunch},
    {kApi, Match::kExact, "cudaGraphLaunch", Action::kLaunch},
    {kApi, Match::kExact, "cuGraphLaunch", Action::kLaunch},
    {kApi, Match::kExact, "cudaMemsetAsync", Action::kLaunch},
    {kApi, Match::kExact, "cuMemsetD8Async", Action::kLaunch},
    {kApi, Match::kExact, "cuMemsetD16Async", Action::kLaunch},
    {kApi, Match::kExact, "cuMemsetD32Async", Action::kLaunch},
    {kCpuOp, Match::kAny, "", Action::kLaunch},  // catch-all: keep last
};

bool matches(const HostRule& rule, HostKind kind, std::string_view name) {
  if ((rule.kinds & bit(kind)) == 0) return false;
  switch (rule.match) {
    case Match::kAny: return true;
    case Match::kExact: return name == rule.pattern;
    case Match::kPrefix: return name.starts_with(rule.pattern);
  }
  return false;
}

// The category holding the largest part of a gap; scanning in priority order with a strict '>' gives ties to
// the higher priority.
HostCategory largest_part(const std::array<std::int64_t, kHostCategoryCount>& parts) {
  std::size_t best = 0;
  for (std::size_t c = 1; c < kHostCategoryCount; ++c) {
    if (parts[c] > parts[best]) best = c;
  }
  return static_cast<HostCategory>(best);
}

// Splits each gap among the priority-resolved category intervals. `resolved[c]` are normalized and pairwise
// disjoint; `gaps` are in time order and disjoint. One forward cursor per category makes the whole pass
// linear: an interval ending before a gap can meet no later gap.
void split_gaps(const std::array<std::vector<Interval>, kHostEventCategoryCount>& resolved,
                std::vector<AttributedGap>& gaps) {
  std::array<std::size_t, kHostEventCategoryCount> cursor{};
  for (auto& gap : gaps) {
    std::int64_t covered = 0;
    for (std::size_t c = 0; c < resolved.size(); ++c) {
      const auto& list = resolved[c];
      std::size_t& i = cursor[c];
      while (i < list.size() && list[i].end_ns <= gap.start_ns) ++i;
      std::int64_t part = 0;
      // Not advancing i past the last interval met: it may reach into the next gap.
      for (std::size_t k = i; k < list.size() && list[k].start_ns < gap.end_ns; ++k) {
        part += std::min(list[k].end_ns, gap.end_ns) - std::max(list[k].start_ns, gap.start_ns);
      }
      gap.ns_by_category[c] = part;
      covered += part;
    }
    gap.ns_by_category[static_cast<std::size_t>(HostCategory::kNothingRecorded)] = gap.dur_ns() - covered;
    if (gap.category == HostCategory::kQueued) {  // decided before the split: the host was not the cause
      gap.ns_by_category = {};
      gap.ns_by_category[static_cast<std::size_t>(HostCategory::kQueued)] = gap.dur_ns();
      continue;
    }
    gap.category = largest_part(gap.ns_by_category);
  }
}

enum class Submission { kBefore, kDuring, kUnknown };

// When the GPU activity that ends `gap` on `device` (the first starting at its end) was submitted: by an API
// call that had returned before the gap began (kBefore), or one that returned during it (kDuring), or no launch
// call is known. timeline.gpu is sorted by start, so a binary search finds it; several activities may start at
// that instant, and any one already queued makes the gap queued.
Submission submission_of(const Timeline& timeline, std::int32_t device, const IdleGap& gap,
                         const std::unordered_map<std::int64_t, std::int64_t>& launch_end_by_correlation) {
  auto it = std::lower_bound(timeline.gpu.begin(), timeline.gpu.end(), gap.end_ns,
                             [](const GpuActivity& a, std::int64_t t) { return a.start_ns < t; });
  Submission found = Submission::kUnknown;
  for (; it != timeline.gpu.end() && it->start_ns == gap.end_ns; ++it) {
    if (it->device != device || it->correlation < 0) continue;
    const auto launch = launch_end_by_correlation.find(it->correlation);
    if (launch == launch_end_by_correlation.end()) continue;
    if (launch->second <= gap.start_ns) return Submission::kBefore;
    found = Submission::kDuring;
  }
  return found;
}

// The kLaunchPathGapNs rule (gap_attribution.h) for one gap split by split_gaps: its unrecorded time becomes
// launch time and the gap's category is decided again.
void count_unrecorded_as_launch(AttributedGap& gap) {
  auto& parts = gap.ns_by_category;
  parts[static_cast<std::size_t>(HostCategory::kLaunch)] += parts[static_cast<std::size_t>(HostCategory::kNothingRecorded)];
  parts[static_cast<std::size_t>(HostCategory::kNothingRecorded)] = 0;
  gap.category = largest_part(parts);
}

}  // namespace

std::string_view host_category_name(HostCategory category) {
  switch (category) {
    case HostCategory::kProfiler: return "profiler";
    case HostCategory::kSync: return "sync";
    case HostCategory::kMemcpy: return "memcpy";
    case HostCategory::kCommunication: return "communication";
    case HostCategory::kLaunch: return "launch";
    case HostCategory::kNothingRecorded: return "nothing_recorded";
    case HostCategory::kQueued: return "queued";
  }
  return "unknown";
}

std::optional<HostCategory> classify_host_event(HostKind kind, std::string_view name, bool issued_pageable_copy) {
  for (const auto& rule : kHostRules) {
    if (!matches(rule, kind, name)) continue;
    switch (rule.action) {
      case Action::kProfiler: return HostCategory::kProfiler;
      case Action::kSync: return HostCategory::kSync;
      case Action::kMemcpy: return HostCategory::kMemcpy;
      case Action::kMemcpyIfPageable: return issued_pageable_copy ? HostCategory::kMemcpy : HostCategory::kLaunch;
      case Action::kCommunication: return HostCategory::kCommunication;
      case Action::kLaunch: return HostCategory::kLaunch;
    }
  }
  return std::nullopt;
}

std::size_t gap_bucket_of(std::int64_t dur_ns) {
  std::size_t b = 0;
  while (b < kGapBucketUpperNs.size() && dur_ns >= kGapBucketUpperNs[b]) ++b;
  return b;
}

std::string_view gap_bucket_name(std::size_t bucket) {
  static constexpr std::string_view kNames[kGapBucketCount] = {"lt_1us",     "1us_10us", "10us_100us",
                                                               "100us_1ms", "1ms_10ms", "ge_10ms"};
  return bucket < kGapBucketCount ? kNames[bucket] : "unknown";
}

GapAttribution gap_attribution(const Timeline& timeline) {
  GapAttribution result;

  // Correlation ids of copies with pageable memory on either side, for the kMemcpyIfPageable rule.
  std::vector<std::int64_t> pageable;
  for (const auto& a : timeline.gpu) {
    if (a.kind == GpuKind::kMemcpy && a.correlation >= 0 &&
        (a.src_memory == MemoryKind::kPageable || a.dst_memory == MemoryKind::kPageable)) {
      pageable.push_back(a.correlation);
    }
  }
  std::sort(pageable.begin(), pageable.end());

  std::array<std::vector<Interval>, kHostEventCategoryCount> covered;
  // When each API call that submitted GPU work returned, by correlation id: a gap whose closing activity
  // was submitted before the gap began is kQueued.
  std::unordered_map<std::int64_t, std::int64_t> launch_end_by_correlation;
  bool has_framework_ops = false, has_api_calls = false;
  for (const auto& e : timeline.host) {
    has_framework_ops = has_framework_ops || e.kind == HostKind::kCpuOp;
    has_api_calls = has_api_calls || e.kind == HostKind::kRuntime || e.kind == HostKind::kDriver;
    ++result.host_event_count;
    const bool is_pageable = e.correlation >= 0 && std::binary_search(pageable.begin(), pageable.end(), e.correlation);
    const auto category = classify_host_event(e.kind, timeline.name(e.name), is_pageable);
    const auto c = static_cast<std::size_t>(category.value_or(HostCategory::kNothingRecorded));
    ++result.host_events_by_category[c];
    if (category) covered[c].push_back({e.start_ns, e.end_ns()});
    if (e.correlation >= 0 && (e.kind == HostKind::kRuntime || e.kind == HostKind::kDriver)) {
      auto [it, inserted] = launch_end_by_correlation.try_emplace(e.correlation, e.end_ns());
      if (!inserted) it->second = std::max(it->second, e.end_ns());
    }
  }
  // Union per category over all threads, then give each instant to the highest-priority category covering
  // it: resolved[c] = covered[c] minus everything of higher priority.
  std::array<std::vector<Interval>, kHostEventCategoryCount> resolved;
  std::vector<Interval> higher;
  for (std::size_t c = 0; c < covered.size(); ++c) {
    const auto merged = normalize_intervals(std::move(covered[c]));
    resolved[c] = subtract_intervals(merged, higher);
    higher = union_intervals(higher, merged);
  }

  const Interval window{timeline.window_start_ns, timeline.window_end_ns};
  for (const std::int32_t device : gpu_devices(timeline)) {
    DeviceGapAttribution d;
    d.device = device;
    const auto busy = busy_intervals(timeline, device);
    std::vector<Submission> submitted;  // per interior gap, for the API-only launch-path rule
    for (const auto& g : idle_gaps(busy, active_span(timeline, device), window)) {
      switch (g.position) {
        case GapPosition::kInterior: {
          const Submission s = submission_of(timeline, device, g, launch_end_by_correlation);
          d.gaps.push_back({g.start_ns, g.end_ns,
                            s == Submission::kBefore ? HostCategory::kQueued : HostCategory::kNothingRecorded, {}});
          submitted.push_back(s);
          break;
        }
        case GapPosition::kLeading:
        case GapPosition::kWholeWindow: d.leading_idle_ns += g.dur_ns(); break;
        case GapPosition::kTrailing: d.trailing_idle_ns += g.dur_ns(); break;
      }
    }
    split_gaps(resolved, d.gaps);
    for (std::size_t i = 0; has_api_calls && i < d.gaps.size(); ++i) {
      AttributedGap& g = d.gaps[i];
      if (submitted[i] == Submission::kUnknown) {
        d.launch_unknown_ns += g.dur_ns();
        ++d.launch_unknown_gaps;
      }
      const std::int64_t unrecorded = g.ns_by_category[static_cast<std::size_t>(HostCategory::kNothingRecorded)];
      if (has_framework_ops || submitted[i] != Submission::kDuring || g.dur_ns() >= kLaunchPathGapNs ||
          unrecorded == 0) {
        continue;
      }
      count_unrecorded_as_launch(g);
      d.launch_path_inferred_ns += unrecorded;
      ++d.launch_path_inferred_gaps;
    }

    for (const auto& g : d.gaps) {
      ++d.gap_count;
      d.idle_ns += g.dur_ns();
      for (std::size_t c = 0; c < kHostCategoryCount; ++c) d.categories[c].idle_ns += g.ns_by_category[c];
      ++d.categories[static_cast<std::size_t>(g.category)].gap_count;
      auto& bucket = d.histogram[gap_bucket_of(g.dur_ns())];
      ++bucket.gap_count;
      bucket.idle_ns += g.dur_ns();
      if (g.dur_ns() < kShortGapNs) {
        ++d.short_gap_count;
        d.short_gap_idle_ns += g.dur_ns();
      }
    }
    for (auto& c : d.categories) c.idle_ratio = core::ratio_or_zero(c.idle_ns, d.idle_ns);
    result.devices.push_back(std::move(d));
  }
  return result;
}

nlohmann::ordered_json to_json(const GapAttribution& result, std::size_t longest_gaps) {
  auto by_category = [](const auto& values, auto&& convert) {
    nlohmann::ordered_json j;
    for (std::size_t c = 0; c < kHostCategoryCount; ++c) {
      j[std::string(host_category_name(static_cast<HostCategory>(c)))] = convert(values[c]);
    }
    return j;
  };

  nlohmann::ordered_json j;
  j["host_event_count"] = result.host_event_count;
  j["host_events_by_category"] = by_category(result.host_events_by_category, [](std::uint64_t n) { return n; });
  auto devices = nlohmann::ordered_json::array();
  for (const auto& d : result.devices) {
    nlohmann::ordered_json jd;
    jd["device"] = d.device;
    jd["gap_count"] = d.gap_count;
    jd["idle_s"] = core::ns_to_seconds(d.idle_ns);
    jd["leading_idle_s"] = core::ns_to_seconds(d.leading_idle_ns);
    jd["trailing_idle_s"] = core::ns_to_seconds(d.trailing_idle_ns);
    jd["categories"] = by_category(d.categories, [](const CategoryTotal& c) {
      return nlohmann::ordered_json{
          {"idle_s", core::ns_to_seconds(c.idle_ns)}, {"idle_ratio", c.idle_ratio}, {"gap_count", c.gap_count}};
    });
    auto histogram = nlohmann::ordered_json::array();
    for (std::size_t b = 0; b < kGapBucketCount; ++b) {
      nlohmann::ordered_json jb;
      jb["bucket"] = gap_bucket_name(b);
      jb["lower_s"] = b == 0 ? 0.0 : core::ns_to_seconds(kGapBucketUpperNs[b - 1]);
      jb["upper_s"] = b < kGapBucketUpperNs.size() ? nlohmann::ordered_json(core::ns_to_seconds(kGapBucketUpperNs[b])) : nullptr;
      jb["gap_count"] = d.histogram[b].gap_count;
      jb["idle_s"] = core::ns_to_seconds(d.histogram[b].idle_ns);
      histogram.push_back(std::move(jb));
    }
    jd["histogram"] = std::move(histogram);
    jd["short_gap_threshold_s"] = core::ns_to_seconds(kShortGapNs);
    jd["short_gap_count"] = d.short_gap_count;
    jd["short_gap_idle_s"] = core::ns_to_seconds(d.short_gap_idle_ns);
    jd["launch_path_inferred"] = {{"threshold_s", core::ns_to_seconds(kLaunchPathGapNs)},
                                  {"gap_count", d.launch_path_inferred_gaps},
                                  {"idle_s", core::ns_to_seconds(d.launch_path_inferred_ns)}};
    jd["launch_unknown"] = {{"gap_count", d.launch_unknown_gaps}, {"idle_s", core::ns_to_seconds(d.launch_unknown_ns)}};

    std::vector<const AttributedGap*> order;
    order.reserve(d.gaps.size());
    for (const auto& g : d.gaps) order.push_back(&g);
    const std::size_t n = std::min(longest_gaps, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [](const AttributedGap* a, const AttributedGap* b) {
                        if (a->dur_ns() != b->dur_ns()) return a->dur_ns() > b->dur_ns();
                        return a->start_ns < b->start_ns;
                      });
    auto longest = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < n; ++i) {
      const auto& g = *order[i];
      nlohmann::ordered_json jg;
      jg["start_s"] = core::ns_to_seconds(g.start_ns);
      jg["dur_s"] = core::ns_to_seconds(g.dur_ns());
      jg["category"] = host_category_name(g.category);
      jg["by_category_s"] = by_category(g.ns_by_category, [](std::int64_t ns) { return core::ns_to_seconds(ns); });
      longest.push_back(std::move(jg));
    }
    jd["longest_gaps"] = std::move(longest);
    devices.push_back(std::move(jd));
  }
  j["devices"] = std::move(devices);
  return j;
}

}  // namespace perfhound::trace
