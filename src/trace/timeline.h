// The Timeline: what every trace importer produces and every trace analysis reads. One model for
// PyTorch-profiler (Kineto) JSON, Nsight Systems SQLite exports and perfhound's own recorder.
//
// Units: every timestamp and duration is int64 nanoseconds on the trace's own clock (STYLE.md rule 5).
// Importers convert at the edge (Kineto writes microseconds with three decimals; nsys writes ns).
// Invariants the importers establish (analyses may rely on them): dur_ns >= 0; `gpu` sorted by start_ns
// then device, stream; `host` sorted by start_ns; window_start_ns <= every event start and
// window_end_ns >= every event end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/string_table.h"

namespace perfhound::trace {

enum class GpuKind : std::uint8_t { kKernel, kMemcpy, kMemset };

// Direction of a copy as CUDA names it (cudaMemcpyKind / CUPTI copyKind).
enum class CopyDirection : std::uint8_t { kUnknown, kHostToDevice, kDeviceToHost, kDeviceToDevice, kHostToHost, kPeerToPeer };

// Where a copy's host side lives: pageable copies are staged by the driver and block the CPU; pinned copies
// are DMA and can overlap.
enum class MemoryKind : std::uint8_t { kUnknown, kPageable, kPinned, kDevice, kManaged };

// One interval of work on a GPU: a kernel, a copy or a memset.
struct GpuActivity {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::int32_t device = 0;
  std::int64_t stream = 0;
  GpuKind kind = GpuKind::kKernel;
  StringId name = 0;               // full (demangled) kernel name, or e.g. "Memcpy HtoD (Pageable -> Device)"
  std::int64_t correlation = -1;   // CUPTI correlation id shared with the launching API call; -1 if none
  std::int64_t external_id = -1;   // Kineto "External id": the framework op that issued it; -1 if none
  std::uint64_t bytes = 0;         // copies and memsets
  CopyDirection direction = CopyDirection::kUnknown;  // copies only
  MemoryKind src_memory = MemoryKind::kUnknown;        // copies only
  MemoryKind dst_memory = MemoryKind::kUnknown;        // copies only

  std::int64_t end_ns() const { return start_ns + dur_ns; }
};

enum class HostKind : std::uint8_t {
  kRuntime,         // CUDA runtime API call (cudaLaunchKernel, cudaMemcpyAsync, cudaStreamSynchronize, ...)
  kDriver,          // CUDA driver API call (cuLaunchKernel, ...)
  kSync,            // a host-side wait recorded by the tracer itself (nsys CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)
  kCpuOp,           // framework operator (aten::mm, ...)
  kUserAnnotation,  // user ranges: record_function, ProfilerStep#N, NVTX ranges
  kPython,          // Python function frames
  kProfiler,        // the profiler's own work on the host (Kineto "overhead": Activity Buffer Request, flushes)
};

// One interval on a host thread.
struct HostEvent {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::int64_t pid = 0;
  std::int64_t tid = 0;
  HostKind kind = HostKind::kRuntime;
  StringId name = 0;               // API names without nsys' "_v7000" version suffix
  std::int64_t correlation = -1;
  std::int64_t external_id = -1;

  std::int64_t end_ns() const { return start_ns + dur_ns; }
};

// A user range drawn on a GPU row (Kineto gpu_user_annotation): a label, not GPU work.
struct GpuAnnotation {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  std::int32_t device = 0;
  std::int64_t stream = 0;
  StringId name = 0;
};

struct DeviceInfo {
  std::int32_t id = 0;
  std::string name;               // e.g. "NVIDIA H200"
  std::int32_t sm_count = 0;
  std::uint64_t memory_bytes = 0;
  std::int32_t compute_major = 0;
  std::int32_t compute_minor = 0;
};

struct TraceInfo {
  std::string format;             // "kineto-json" or "nsys-sqlite"
  std::string source;             // the path it was read from
  std::vector<DeviceInfo> devices;
  std::string cuda_runtime_version;  // e.g. "13.0", empty if the trace does not say
  std::string cuda_driver_version;
  std::optional<int> rank;           // distributed runs
  std::optional<int> world_size;
  std::string distributed_backend;   // e.g. "nccl"
  // perfhound record's count of the records CUPTI had no buffer for (its "perfhound_record" metadata); absent
  // in other tracers' files.
  std::optional<std::int64_t> recorder_dropped_records;
  std::string recorder;  // the perfhound build that recorded the trace ("perfhound 0.1.0 (3154b27)"), if it says
  // Uncompressed byte offset of the '[' that opens a Chrome trace's event array, so a writer can copy the
  // input and insert events after it (trace/annotated_trace_writer.h); -1 for other formats.
  std::int64_t events_array_offset = -1;
};

// What the importer saw and did not turn into timeline events (STYLE.md rule 9: counted, never dropped
// silently).
struct ImportStats {
  std::uint64_t bytes_read = 0;       // uncompressed JSON bytes, or the SQLite file size
  std::uint64_t events_read = 0;      // every event/row looked at
  std::uint64_t events_ignored = 0;   // flows, metadata, instants, profiler overhead: known and not needed
  std::map<std::string, std::uint64_t> unknown_categories;  // category -> count, not imported
};

struct Timeline {
  TraceInfo info;
  StringTable strings;
  std::vector<GpuActivity> gpu;
  std::vector<HostEvent> host;
  std::vector<GpuAnnotation> gpu_annotations;
  std::int64_t window_start_ns = 0;  // the profiled window: first to last event of any kind
  std::int64_t window_end_ns = 0;
  ImportStats stats;

  std::string_view name(StringId id) const { return strings.get(id); }
};

// Sorts the event vectors and sets the window from them, establishing the invariants above. Importers call
// it last; tests that build timelines by hand call it too. `window_*` already set wider are kept.
void finalize_timeline(Timeline& timeline);

}  // namespace perfhound::trace
