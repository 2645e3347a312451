// Gap attribution: for every idle gap of a GPU, what the host was doing while the GPU had nothing to run.
// This is the playbook's fork (Knowledge 06 section 9): IDLE + CPU busy -> overhead-bound; IDLE + waiting
// on a copy -> data movement; IDLE + waiting on NCCL -> communication; IDLE + blocked in a sync -> a
// serialized CPU->GPU dependency.
//
// Inputs: the interior idle gaps of each device (utilization.h idle_gaps(), GapPosition::kInterior: inside
// the active span; the leading and trailing idle of the window are profiler ramp-up and tear-down, reported
// as totals but not attributed) and the host events of every process and thread.
//
// Each host event is classified by one rule table (gap_attribution.cpp kHostRules) into a HostCategory, or
// into nothing (Python frames, non-communication user annotations such as ProfilerStep#N, CUDA calls that
// neither launch, copy nor wait). Per category the intervals of all threads are merged (their union), so two
// threads in cpu_ops at once count once. Where several categories cover the same instant the one with the
// highest priority takes it, in HostCategory order: sync > memcpy > communication > launch; an instant no
// category covers is kNothingRecorded. Each gap's time is split among the categories that way (the parts sum
// to the gap), and the gap as a whole is attributed to the category holding the largest part of it
// (kNothingRecorded competes too; ties go to the higher priority). Totals per category are the sums of the
// split parts, so they add up to the device's interior idle time exactly.
//
// The host clock and the GPU clock are the trace's one clock (the importers align them); the analysis does
// not correct skew.
//
// Cost: O((gaps + host events) log(host events)): one sort of the host intervals per category and one merge
// sweep per device; no per-gap search over host events.
//
// Edge cases: no GPU activity -> every device has no interior gaps (gap_count 0, all totals 0); devices are
// those of utilization.h gpu_devices(). No host events -> every gap is kNothingRecorded. A gap of length 0
// does not exist (touching activities merge). Ratios with a zero denominator are 0.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/timeline.h"

namespace perfhound::trace {

// In priority order: a lower value wins an instant two categories both cover. Why this order:
//  - launch is last because it is the default state of a framework thread: a cpu_op encloses the copies and
//    waits it issues (aten::item is cudaMemcpyAsync then cudaStreamSynchronize), so without a lower rank
//    every sync inside an operator would read as launch overhead.
//  - communication ranks above launch because collectives are ranges that enclose their own launch calls
//    (record_param_comms -> cudaLaunchKernel(ncclKernel...)); that launch is part of the collective.
//  - sync and memcpy rank above communication because they are leaf calls that say exactly what the thread
//    is blocked on, where a collective range only says what it is inside. The cost: a barrier implemented as
//    a tiny all-reduce plus cudaDeviceSynchronize reads as sync; the collective totals still show it.
//  - sync ranks above memcpy because a sync is pure waiting, while part of a blocking copy call is the CPU
//    staging pageable memory through a pinned buffer; where both cover an instant (two threads) the certain
//    wait is the better explanation of the idle GPU.
enum class HostCategory : std::uint8_t {
  // The profiler itself stalled the host (CUPTI buffer requests, flushes): time the unprofiled program does
  // not spend, so it outranks every real cause.
  kProfiler,
  kSync,             // the host thread is blocked waiting for the GPU (stream/device/event synchronize)
  kMemcpy,           // the host is inside a copy call that blocks it (synchronous or pageable)
  kCommunication,    // the host is inside a collective (NCCL, c10d, record_param_comms)
  kLaunch,           // the host is busy feeding the GPU: launch calls and framework operators (cpu_op)
  kNothingRecorded,  // no classified host event covers the instant
  // Not a host state: the work that ends the gap had been submitted before the gap began (its launch call,
  // matched by correlation id, returned earlier), so the host was not what the GPU waited for. What remains
  // is device-side: graph-node dispatch, a cross-stream event wait, scheduling latency. A whole gap is
  // either queued or split among the host categories above.
  kQueued,
};
inline constexpr std::size_t kHostCategoryCount = 7;
// The categories host events map to (kProfiler..kLaunch), the ones split_gaps resolves by priority.
inline constexpr std::size_t kHostEventCategoryCount = 5;

// "profiler", "sync", "memcpy", "communication", "launch", "nothing_recorded", "queued".
std::string_view host_category_name(HostCategory category);

// What one host event says about its interval, by the rule table; nullopt when it says nothing.
// `issued_pageable_copy`: the GPU copy with this event's correlation id has pageable memory on one side
// (only consulted for asynchronous copy calls: a pageable cudaMemcpyAsync is staged by the driver and
// blocks the host like cudaMemcpy; a pinned one only enqueues the copy, like a launch).
std::optional<HostCategory> classify_host_event(HostKind kind, std::string_view name, bool issued_pageable_copy);

// Gap-length histogram: fixed decade buckets [0, 1 us), [1 us, 10 us), [10 us, 100 us), [100 us, 1 ms),
// [1 ms, 10 ms), [10 ms, inf). Decades because gap causes differ by orders of magnitude: a few us is launch
// latency, hundreds of us is Python or a sync round trip, ms is I/O, a blocking copy or a collective.
inline constexpr std::size_t kGapBucketCount = 6;
inline constexpr std::array<std::int64_t, kGapBucketCount - 1> kGapBucketUpperNs = {1'000, 10'000, 100'000,
                                                                                    1'000'000, 10'000'000};
// Bucket index of a gap of `dur_ns`: the first bucket whose upper bound exceeds it (bounds are exclusive).
std::size_t gap_bucket_of(std::int64_t dur_ns);
// "lt_1us", "1us_10us", "10us_100us", "100us_1ms", "1ms_10ms", "ge_10ms".
std::string_view gap_bucket_name(std::size_t bucket);

// Gaps shorter than this are launch-overhead sized: one eager kernel launch costs the host ~5-10 us
// (cudaLaunchKernel ~2-5 us plus framework dispatch), so a gap under 10 us between back-to-back kernels is
// the signature of a GPU waiting on the next launch; CUDA Graphs or fusion remove them.
inline constexpr std::int64_t kShortGapNs = 10'000;

// A trace of CUDA API calls without framework operators (perfhound record, nsys without Python tracing) leaves
// the host's time between launch calls unrecorded: in a PyTorch program that is the framework dispatching the
// next operator, which a profiler trace shows as cpu_op. In such a trace, the unrecorded part of a gap is
// counted as launch when the gap is shorter than this and ended with work whose launch call was made during
// it: the GPU waited on the host's submission, at the pace of eager dispatch (5-30 us an operator). Longer
// gaps (data loading, I/O, sleeps: ms) stay nothing_recorded. Traces with any cpu_op are left as they are.
inline constexpr std::int64_t kLaunchPathGapNs = 100'000;

struct AttributedGap {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  HostCategory category = HostCategory::kNothingRecorded;  // the category holding the largest part
  std::array<std::int64_t, kHostCategoryCount> ns_by_category{};  // sums to dur_ns()

  std::int64_t dur_ns() const { return end_ns - start_ns; }
};

struct CategoryTotal {
  std::int64_t idle_ns = 0;     // split parts of every gap
  std::uint64_t gap_count = 0;  // gaps attributed to this category as a whole
  double idle_ratio = 0;        // idle_ns / interior idle of the device, 0..1
};

struct GapBucket {
  std::uint64_t gap_count = 0;
  std::int64_t idle_ns = 0;
};

struct DeviceGapAttribution {
  std::int32_t device = 0;
  std::uint64_t gap_count = 0;      // interior gaps
  std::int64_t idle_ns = 0;         // their total: the active-span idle time
  std::int64_t leading_idle_ns = 0;   // not attributed (see above); kWholeWindow idle counts here
  std::int64_t trailing_idle_ns = 0;
  std::array<CategoryTotal, kHostCategoryCount> categories{};  // indexed by HostCategory
  std::array<GapBucket, kGapBucketCount> histogram{};
  std::uint64_t short_gap_count = 0;  // gaps shorter than kShortGapNs
  std::int64_t short_gap_idle_ns = 0;
  // API-only traces: unrecorded host time counted as launch by the kLaunchPathGapNs rule (in categories[kLaunch]).
  std::int64_t launch_path_inferred_ns = 0;
  std::uint64_t launch_path_inferred_gaps = 0;
  // Traces with API calls: gaps ended by GPU work whose launch call is not in the trace (no API event with its
  // correlation id), so neither the queued test nor the launch-path rule can read them. Libraries launch through
  // the driver (cuBLASLt's and cuDNN's cuLaunchKernelEx, Triton's cuLaunchKernel): a trace of runtime calls only
  // loses those launches. 0 in a trace without API calls, where no launch is known at all.
  std::int64_t launch_unknown_ns = 0;
  std::uint64_t launch_unknown_gaps = 0;
  std::vector<AttributedGap> gaps;    // interior gaps in time order
};

struct GapAttribution {
  std::uint64_t host_event_count = 0;
  std::array<std::uint64_t, kHostCategoryCount> host_events_by_category{};  // kNothingRecorded: unclassified
  std::vector<DeviceGapAttribution> devices;  // ascending device id
};

GapAttribution gap_attribution(const Timeline& timeline);

// How many gaps to_json lists (the longest); all gaps are in the struct, the JSON carries totals for all.
inline constexpr std::size_t kJsonLongestGaps = 20;

// Durations in seconds (`_s`), ratios 0..1; lists the `longest_gaps` longest gaps per device.
nlohmann::ordered_json to_json(const GapAttribution& result, std::size_t longest_gaps = kJsonLongestGaps);

}  // namespace perfhound::trace
