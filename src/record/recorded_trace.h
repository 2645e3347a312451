// What `perfhound record` keeps of a CUDA program's run: GPU activities, host API calls, synchronizations and
// NVTX ranges, as plain records. The CUPTI injection library (cupti_injection.cpp) fills one from its activity
// buffers at exit; chrome_trace_writer.h turns it into a Chrome Trace JSON that `perfhound trace` reads. Names
// are views: they point at CUPTI's own strings (kernel names, callback names), which live until the process
// exits, or at the trace's own storage.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace perfhound::record {

// The range each --capture-range window becomes (on the thread that opened it), and the name `perfhound trace`
// looks for to warn that the time between windows was not recorded.
inline constexpr std::string_view kCaptureWindowRangeName = "perfhound capture window";

enum class GpuKind { kKernel, kMemcpy, kMemset };

struct GpuRecord {
  GpuKind kind = GpuKind::kKernel;
  std::string_view name;  // kernel: the (demangled) name; copies and fills: "Memcpy HtoD (Pageable -> Device)"
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
  std::uint64_t bytes = 0;  // copies and fills
  // kernels only
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::uint32_t registers_per_thread = 0;
  std::int32_t shared_memory = 0;  // static + dynamic, bytes per block
};

enum class ApiDomain { kRuntime, kDriver };

struct ApiRecord {
  ApiDomain domain = ApiDomain::kRuntime;
  std::string_view name;  // "cudaLaunchKernel", without CUPTI's "_v7000" version suffix
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t process = 0, thread = 0, correlation = 0;
  std::uint32_t callback_id = 0;
};

// A host wait CUPTI saw: event, stream, context synchronization.
struct SyncRecord {
  std::string_view name;  // "Stream Synchronize", "Event Synchronize", ...
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t context = 0, stream = 0, correlation = 0;
};

// An NVTX push/pop or start/end range.
struct RangeRecord {
  std::string_view name;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t process = 0, thread = 0;
};

struct DeviceRecord {
  std::uint32_t id = 0;
  std::string_view name;
  std::uint32_t sm_count = 0, compute_major = 0, compute_minor = 0;
  std::uint64_t global_memory_bytes = 0;
};

struct RecordedTrace {
  std::vector<GpuRecord> gpu;
  std::vector<ApiRecord> api;
  std::vector<SyncRecord> syncs;
  std::vector<RangeRecord> ranges;
  std::vector<DeviceRecord> devices;
  std::deque<std::string> storage;  // names built here (copy names); a deque keeps views into it valid
  std::uint64_t dropped_records = 0;  // CUPTI's count of records it had no buffer for
  std::string command;                // what was recorded, for the trace's metadata
  std::string recorder;               // "perfhound 0.1.0 (3154b27)": the build that recorded it (perfhound record)
  // perfhound record --capture-range cudaProfilerApi: how many cudaProfilerStart..Stop windows were recorded
  // (the trace holds only what ran inside them); -1: the whole run was recorded.
  int capture_windows = -1;
  int cuda_runtime_version = 0, cuda_driver_version = 0, cupti_version = 0;
};

}  // namespace perfhound::record
