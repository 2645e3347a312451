// libperfhound_record_inject.so: loaded into a CUDA program by the driver (CUDA_INJECTION64_PATH names it; the
// driver calls InitializeInjection at cuInit). It turns on CUPTI's activity records for kernels, copies, fills,
// runtime and driver API calls, synchronizations, NVTX ranges and devices, hands CUPTI fixed-size buffers from a
// pool (never an allocation per record), converts each completed buffer into compact records and returns the
// buffer to the pool; at exit, and on SIGINT, SIGTERM, SIGHUP or SIGQUIT before the program's own handler or the default action
// (signal_trace.h, on a thread of its own), it flushes CUPTI and writes the Chrome trace to
// $PERFHOUND_RECORD_OUTPUT. perfhound record
// (src/cli/record_command.cpp) sets the variables and runs the program.
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "record/child_trace_name.h"
#include "record/chrome_trace_writer.h"
#include "record/cupti_names.h"
#include "record/record_kinds.h"
#include "record/recorded_trace.h"
#include "record/signal_trace.h"

namespace perfhound::record {
namespace {

constexpr std::size_t kDefaultBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlign = 8;  // CUPTI's requirement (ACTIVITY_RECORD_ALIGNMENT)

struct Recorder {
  // Two locks: the program's thread takes only pool_mutex (in buffer_requested, when CUPTI needs a buffer), so
  // it never waits while CUPTI's thread converts a completed buffer under mutex.
  std::mutex mutex;       // the trace and the interned names
  std::mutex pool_mutex;  // free_buffers
  RecordedTrace trace;
  std::vector<std::uint8_t*> free_buffers;
  std::size_t buffer_bytes = kDefaultBufferBytes;
  std::string output = "perfhound-record.json";
  std::mutex write_mutex;  // one write at a time (write_records), the exit's and a signal's writer thread's
  bool written = false;    // the last write is done: nothing is written after it
  // Interned names: a kernel's mangled name -> demangled, an API callback -> its name, copy kinds -> "Memcpy ...".
  std::unordered_map<const char*, std::string_view> kernel_names;
  std::map<std::pair<int, std::uint32_t>, std::string_view> api_names;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::string_view> copy_names;
  std::map<std::uint32_t, std::string_view> fill_names;
  std::unordered_set<std::string_view> range_names;  // views of trace.storage: looked up without a copy
  // NVTX start markers with their id, until their end: a vector reused (no node per range), searched from the
  // newest, which push/pop nesting ends first.
  std::vector<std::pair<std::uint32_t, RangeRecord>> open_ranges;
  // What is recorded (from the environment at start): turned on once, or at each capture window's start.
  RecordKinds kinds;
  std::string api = "classified";  // classified, all or none (perfhound record --api)
  bool driver_api = false;  // --driver-api: every driver call, not only the classified ones
  // The calls record_activity turns on one by one (cupti_names.h runtime_call_classified, driver_call_classified),
  // looked up once at start: a capture window's start re-enables the ids without walking CUPTI's name tables.
  std::vector<CUpti_CallbackId> classified_runtime_calls, classified_driver_calls;
  // False once CUPTI refused a call one by one: that domain's whole kind is recorded from then on (kept, so a
  // capture window's end turns off what its start turned on).
  bool runtime_by_call = true, driver_by_call = true;
  // --capture-range cudaProfilerApi: recording only between cudaProfilerStart and cudaProfilerStop. capture_mutex
  // orders the program's start and stop calls; the open window's range and the flag change under mutex.
  std::mutex capture_mutex;
  std::atomic<bool> capturing{false};
  // The open window: its start time and the thread that opened it. Each window becomes a range, so
  // `perfhound trace --range` reads one alone.
  RangeRecord window;
};


Recorder& recorder() {
  static Recorder* r = new Recorder;  // never destroyed: exit handlers and CUPTI's thread may still use it
  return *r;
}

std::string_view keep(Recorder& r, std::string text) { return r.trace.storage.emplace_back(std::move(text)); }

std::string_view kernel_name(Recorder& r, const char* mangled) {
  if (mangled == nullptr) return "(unnamed kernel)";
  auto it = r.kernel_names.find(mangled);
  if (it != r.kernel_names.end()) return it->second;
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  const std::string_view name = status == 0 && demangled != nullptr ? keep(r, demangled) : std::string_view(mangled);
  std::free(demangled);
  return r.kernel_names.emplace(mangled, name).first->second;
}

std::string_view api_name(Recorder& r, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const auto key = std::pair{static_cast<int>(domain), static_cast<std::uint32_t>(cbid)};
  auto it = r.api_names.find(key);
  if (it != r.api_names.end()) return it->second;
  const char* name = nullptr;
  std::string_view view = "(unknown API)";
  if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr) view = without_version_suffix(name);
  return r.api_names.emplace(key, view).first->second;
}

void convert(Recorder& r, const CUpti_Activity* a) {
  RecordedTrace& t = r.trace;
  switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
      GpuRecord g;
      g.kind = GpuKind::kKernel;
      g.name = kernel_name(r, k->name);
      g.start_ns = k->start;
      g.end_ns = k->end;
      g.device = k->deviceId;
      g.context = k->contextId;
      g.stream = k->streamId;
      g.correlation = k->correlationId;
      g.grid[0] = k->gridX, g.grid[1] = k->gridY, g.grid[2] = k->gridZ;
      g.block[0] = k->blockX, g.block[1] = k->blockY, g.block[2] = k->blockZ;
      g.registers_per_thread = k->registersPerThread;
      g.shared_memory = k->staticSharedMemory + k->dynamicSharedMemory;
      t.gpu.push_back(g);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
      const auto key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>{m->copyKind, m->srcKind, m->dstKind};
      auto it = r.copy_names.find(key);
      if (it == r.copy_names.end()) it = r.copy_names.emplace(key, keep(r, memcpy_name(m->copyKind, m->srcKind, m->dstKind))).first;
      GpuRecord g;
      g.kind = GpuKind::kMemcpy;
      g.name = it->second;
      g.start_ns = m->start;
      g.end_ns = m->end;
      g.device = m->deviceId;
      g.context = m->contextId;
      g.stream = m->streamId;
      g.correlation = m->correlationId;
      g.bytes = m->bytes;
      t.gpu.push_back(g);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
      auto it = r.fill_names.find(m->memoryKind);
      if (it == r.fill_names.end()) it = r.fill_names.emplace(m->memoryKind, keep(r, memset_name(m->memoryKind))).first;
      GpuRecord g;
      g.kind = GpuKind::kMemset;
      g.name = it->second;
      g.start_ns = m->start;
      g.end_ns = m->end;
      g.device = m->deviceId;
      g.context = m->contextId;
      g.stream = m->streamId;
      g.correlation = m->correlationId;
      g.bytes = m->bytes;
      t.gpu.push_back(g);
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* api = reinterpret_cast<const CUpti_ActivityAPI*>(a);
      const bool runtime = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      ApiRecord rec;
      rec.domain = runtime ? ApiDomain::kRuntime : ApiDomain::kDriver;
      rec.name = api_name(r, runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, api->cbid);
      // Where CUPTI refused the driver calls one by one and records them all, only the classified are kept.
      if (!runtime && !r.driver_api && !driver_call_classified(rec.name)) break;
      rec.start_ns = api->start;
      rec.end_ns = api->end;
      rec.process = api->processId;
      rec.thread = api->threadId;
      rec.correlation = api->correlationId;
      rec.callback_id = api->cbid;
      t.api.push_back(rec);
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(a);
      t.syncs.push_back({synchronization_name(s->type), s->start, s->end, s->contextId, s->streamId, s->correlationId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(a);
      if ((m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0) {
        RangeRecord range;
        const std::string_view name = m->name != nullptr ? m->name : "(unnamed range)";
        auto it = r.range_names.find(name);
        if (it == r.range_names.end()) it = r.range_names.insert(keep(r, std::string(name))).first;
        range.name = *it;
        range.start_ns = m->timestamp;
        range.process = m->objectId.pt.processId;
        range.thread = m->objectId.pt.threadId;
        r.open_ranges.emplace_back(m->id, range);
      } else if ((m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0) {
        for (auto it = r.open_ranges.rbegin(); it != r.open_ranges.rend(); ++it) {
          if (it->first != m->id) continue;
          it->second.end_ns = m->timestamp;
          t.ranges.push_back(it->second);
          *it = r.open_ranges.back();
          r.open_ranges.pop_back();
          break;
        }
      }
      break;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(a);
      t.devices.push_back({d->id, keep(r, d->name != nullptr ? d->name : "GPU"), d->numMultiprocessors,
                           d->computeCapabilityMajor, d->computeCapabilityMinor, d->globalMemorySize});
      break;
    }
    default:
      break;
  }
}

// Pages written once, so the first records CUPTI puts in a pooled buffer do not fault them in on the program's time.
std::uint8_t* new_buffer(std::size_t bytes) {
  auto* b = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlign, bytes));
  if (b != nullptr) std::memset(b, 0, bytes);
  return b;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  Recorder& r = recorder();
  std::lock_guard lock(r.pool_mutex);
  if (!r.free_buffers.empty()) {
    *buffer = r.free_buffers.back();
    r.free_buffers.pop_back();
  } else {
    *buffer = new_buffer(r.buffer_bytes);
  }
  *size = *buffer != nullptr ? r.buffer_bytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t /*size*/, size_t valid) {
  Recorder& r = recorder();
  {
    std::lock_guard lock(r.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) convert(r, record);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) r.trace.dropped_records += dropped;
  }
  // Zeroed here, on CUPTI's thread, so CUPTI need not zero it on the program's thread when it takes it again
  // (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, set at start).
  std::memset(buffer, 0, valid);
  std::lock_guard lock(r.pool_mutex);
  r.free_buffers.push_back(buffer);
}

// The records still in CUPTI's buffers, through buffer_completed.
void flush_records() { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

// The trace so far, written whole (temp file, then rename). `final` is the last write, which happens once: the
// exit's, or a signal's whose default action ends the program; a signal's write before the program's own
// handler is a snapshot the exit's replaces when the program goes on to exit normally. One write at a time: a
// program that exits while the signal's writer thread writes waits for it at exit instead of ending under it.
void write_records(bool final) {
  Recorder& r = recorder();
  std::lock_guard writing(r.write_mutex);
  if (r.written) return;
  r.written = final;
  std::lock_guard lock(r.mutex);
  // A window the program left open (no cudaProfilerStop before exit or the signal) ends here, in this write only.
  const bool open_window = r.capturing.load();
  if (open_window) {
    r.trace.ranges.push_back(r.window);
    cuptiGetTimestamp(&r.trace.ranges.back().end_ns);
  }
  const core::Status status = write_chrome_trace_file(r.trace, r.output);
  if (open_window) r.trace.ranges.pop_back();
  if (!status.ok()) std::fprintf(stderr, "perfhound record: %s\n", status.error().message.c_str());
}

void write_final_trace() {
  flush_records();
  write_records(true);
  end_by_held_signals();
}

// The libcupti this library was linked with (loaded with it), or null.
const char* cupti_library_path() {
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(&cuptiActivityEnable), &info) != 0 ? info.dli_fname : nullptr;
}

// NVTX ranges reach CUPTI only when NVTX is told to load it. perfhound record points NVTX_INJECTION64_PATH at this
// library before the program starts (its InitializeInjectionNvtx2 below hands NVTX to CUPTI's); a program run
// with CUDA_INJECTION64_PATH by hand gets it pointed at libcupti here, at cuInit, which is in time only if the
// program made no NVTX call before (NVTX reads the variable once, at its first call).
void route_nvtx_to_cupti() {
  const char* cupti = cupti_library_path();
  if (std::getenv("NVTX_INJECTION64_PATH") == nullptr && cupti != nullptr) setenv("NVTX_INJECTION64_PATH", cupti, 0);
}

// CUPTI's own NVTX entry point `name` (InitializeInjectionNvtx2 for NVTX 3, InitializeInjectionNvtx for the older
// libnvToolsExt), looked up in the libcupti already loaded with this library.
using NvtxInitialize = int (*)(void* get_export_table);
NvtxInitialize cupti_nvtx_entry(const char* name) {
  const char* cupti = cupti_library_path();
  void* handle = cupti != nullptr ? dlopen(cupti, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  void* entry = handle != nullptr ? dlsym(handle, name) : nullptr;
  if (entry == nullptr) std::fprintf(stderr, "perfhound record: no %s in libcupti: NVTX ranges not recorded\n", name);
  return reinterpret_cast<NvtxInitialize>(entry);
}

// The CUDA driver's version (13000 for 13.0), from the libcuda that loaded this library; 0 where it cannot say. Looked
// up, not linked: the library needs no link to the driver for one call.
int driver_version() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  using GetVersion = int (*)(int*);
  const auto get = cuda != nullptr ? reinterpret_cast<GetVersion>(dlsym(cuda, "cuDriverGetVersion")) : nullptr;
  int version = 0;
  if (get == nullptr || get(&version) != 0) version = 0;  // 0: CUDA_SUCCESS
  if (cuda != nullptr) dlclose(cuda);                    // NOLOAD took a reference; the driver stays loaded
  return version;
}

// An activity kind turned on (or off), a refusal said on one stderr line.
bool enable(CUpti_ActivityKind kind, bool on = true) {
  const CUptiResult result = on ? cuptiActivityEnable(kind) : cuptiActivityDisable(kind);
  if (result == CUPTI_SUCCESS) return true;
  const char* message = nullptr;
  cuptiGetResultString(result, &message);
  std::fprintf(stderr, "perfhound record: CUPTI activity kind %d not %s: %s\n", static_cast<int>(kind),
               on ? "enabled" : "disabled", message != nullptr ? message : "unknown error");
  return false;
}

// One CUPTI attribute, its refusal said on one stderr line (the recording goes on with CUPTI's default).
template <typename T>
bool set_attribute(CUpti_ActivityAttribute attribute, const char* what, T value) {
  std::size_t size = sizeof(value);
  const CUptiResult result = cuptiActivitySetAttribute(attribute, &size, &value);
  if (result == CUPTI_SUCCESS) return true;
  const char* message = nullptr;
  cuptiGetResultString(result, &message);
  std::fprintf(stderr, "perfhound record: CUPTI attribute %s not set: %s\n", what, message != nullptr ? message : "unknown error");
  return false;
}

// A positive whole number from the environment, or 0 when unset, empty or not one (said on stderr).
long env_count(const char* name, long max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v <= 0 || v > max) {
    std::fprintf(stderr, "perfhound record: %s=%s ignored (1-%ld)\n", name, text, max);
    return 0;
  }
  return v;
}

// CUPTI's side of the kernel records, from the environment: knobs for measuring whether where and how CUPTI
// keeps the GPU timestamps changes the per-kernel cost on the program's launch path (bench/record/record_knobs.sh,
// bench/RESULTS.md). On an H200's launch-bound loop none of the three lowered it (measured 2026-12-04); they
// stay as knobs for that measurement, no perfhound record flag. All must be set before the driver creates a
// context, which InitializeInjection runs ahead of (the driver calls it from cuInit); unset, CUPTI's defaults stand.
void apply_device_buffer_settings() {
  // PERFHOUND_RECORD_DEVICE_BUFFER_MB: the device buffer CUPTI writes kernel/copy/fill timestamps into (default
  // ~3 MB, 100,000 records). A larger one means fewer buffer switches on the launch path, more device memory.
  if (const long mb = env_count("PERFHOUND_RECORD_DEVICE_BUFFER_MB", 4096)) {
    set_attribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, "DEVICE_BUFFER_SIZE", static_cast<std::size_t>(mb) << 20);
  }
  // PERFHOUND_RECORD_DEVICE_BUFFERS_PREALLOC: device buffers allocated when the context is created (default 3),
  // so none is allocated on the program's thread mid-run. CUPTI requires it below the pool limit (default 250):
  // the limit is raised when it is not.
  if (const long n = env_count("PERFHOUND_RECORD_DEVICE_BUFFERS_PREALLOC", 1000)) {
    std::size_t limit = 0, limit_size = sizeof(limit);
    if (cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &limit_size, &limit) != CUPTI_SUCCESS ||
        limit <= static_cast<std::size_t>(n)) {
      set_attribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, "DEVICE_BUFFER_POOL_LIMIT", static_cast<std::size_t>(n) + 1);
    }
    set_attribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, "DEVICE_BUFFER_PRE_ALLOCATE_VALUE",
                  static_cast<std::size_t>(n));
  }
  // PERFHOUND_RECORD_HOST_PINNED=1: those buffers in page-locked host memory instead of device memory (CUPTI's
  // default from CUDA 12.0 Update 1; before it, pinned host memory was).
  if (const char* pinned = std::getenv("PERFHOUND_RECORD_HOST_PINNED"); pinned != nullptr && std::strcmp(pinned, "1") == 0) {
    set_attribute(CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, "MEM_ALLOCATION_TYPE_HOST_PINNED", std::uint8_t{1});
  }
}

// The callback ids of one API domain (ids 1 .. size-1) whose names, without the version suffix, `classified`
// accepts.
std::vector<CUpti_CallbackId> classified_calls(CUpti_CallbackDomain domain, CUpti_CallbackId size,
                                               bool (*classified)(std::string_view)) {
  std::vector<CUpti_CallbackId> ids;
  for (CUpti_CallbackId cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    if (classified(without_version_suffix(name))) ids.push_back(cbid);
  }
  return ids;
}

// Records of the calls `ids` of one API kind (RUNTIME or DRIVER) on or off one by one. Where CUPTI refuses one
// (or there are none), the whole kind instead, from then on (*by_call false), so a trace never silently loses
// its launches: the runtime's are then all recorded, the driver's filtered by convert().
void enable_calls(CUpti_ActivityKind kind, const std::vector<CUpti_CallbackId>& ids, bool* by_call, bool on) {
  const auto set = kind == CUPTI_ACTIVITY_KIND_RUNTIME ? cuptiActivityEnableRuntimeApi : cuptiActivityEnableDriverApi;
  if (*by_call && ids.empty()) *by_call = false;
  if (*by_call) {
    for (const CUpti_CallbackId cbid : ids) {
      if (set(cbid, on ? 1 : 0) == CUPTI_SUCCESS || !on) continue;
      std::fprintf(stderr, "perfhound record: CUPTI refused to record %s call %u alone; recording every %s call\n",
                   kind == CUPTI_ACTIVITY_KIND_RUNTIME ? "runtime" : "driver", static_cast<unsigned>(cbid),
                   kind == CUPTI_ACTIVITY_KIND_RUNTIME ? "runtime" : "driver");
      for (const CUpti_CallbackId off : ids) set(off, 0);
      *by_call = false;
      break;
    }
    if (*by_call) return;
  }
  enable(kind, on);
}

// Everything the settings record, on (the whole run: at start; --capture-range: at each cudaProfilerStart) or
// off (at each cudaProfilerStop). Devices are on from the start either way: CUPTI reports them once.
void record_activity(Recorder& r, bool on) {
  enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, on);
  if (r.kinds.memcpy) enable(CUPTI_ACTIVITY_KIND_MEMCPY, on);
  if (r.kinds.memset) enable(CUPTI_ACTIVITY_KIND_MEMSET, on);
  if (r.kinds.synchronization) enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, on);
  if (r.kinds.marker) enable(CUPTI_ACTIVITY_KIND_MARKER, on);
  // --api none: the GPU's side only (how cheap CUPTI's kernel records alone are, measured in bench/RESULTS.md).
  if (r.api == "classified") {
    enable_calls(CUPTI_ACTIVITY_KIND_RUNTIME, r.classified_runtime_calls, &r.runtime_by_call, on);
  } else if (r.api == "all") {
    enable(CUPTI_ACTIVITY_KIND_RUNTIME, on);
  }
  if (r.driver_api) {
    enable(CUPTI_ACTIVITY_KIND_DRIVER, on);
  } else if (r.api != "none") {
    enable_calls(CUPTI_ACTIVITY_KIND_DRIVER, r.classified_driver_calls, &r.driver_by_call, on);
  }
}

// The calling thread's id as CUPTI writes it into its records (pthread_self by default, gettid where the type
// is SYSTEM), so a window's range lands on the same row as the thread's API calls and NVTX ranges.
std::uint32_t cupti_thread_id() {
  CUpti_ActivityThreadIdType type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  cuptiGetThreadIdType(&type);
  if (type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) return static_cast<std::uint32_t>(::syscall(SYS_gettid));
  return static_cast<std::uint32_t>(::pthread_self());
}

// --capture-range cudaProfilerApi: a window opens as cudaProfilerStart (cuProfilerStart underneath) returns and
// closes as cudaProfilerStop is entered, so neither call's own cost, nor what CUPTI does to turn the kinds on,
// lands in the window. Both the runtime's and the driver's call are watched (a program may call either; the
// runtime's reaches the driver's, which the flag makes harmless); a start inside a window, or a stop outside
// one, changes nothing, as the calls themselves are documented to behave. Kernels still running at a stop keep
// their records: CUPTI took them at launch.
void CUPTIAPI on_profiler_call(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  const bool start = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
                                                           : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
  if (start != (call->callbackSite == CUPTI_API_EXIT)) return;  // a start acts on its exit, a stop on its entry
  Recorder& r = recorder();
  std::lock_guard lock(r.capture_mutex);
  if (r.capturing.load() == start) return;
  if (start) record_activity(r, true);
  std::uint64_t now = 0;
  cuptiGetTimestamp(&now);
  {
    // The window's range and the flag change together under the trace's lock, so a snapshot (write_records) sees
    // a window either open or closed, never lost between the two nor written twice.
    std::lock_guard trace_lock(r.mutex);
    if (start) {
      r.window = {kCaptureWindowRangeName, now, 0, static_cast<std::uint32_t>(::getpid()), cupti_thread_id()};
      ++r.trace.capture_windows;
    } else {
      r.trace.ranges.push_back(r.window);
      r.trace.ranges.back().end_ns = now;
    }
    r.capturing.store(start);
  }
  if (!start) record_activity(r, false);
}

// Watches the four profiler calls; false (said on stderr) where CUPTI takes no callback subscriber, as when the
// program runs another CUPTI tool (torch.profiler's kineto subscribes too).
bool watch_profiler_calls() {
  CUpti_SubscriberHandle subscriber{};
  const CUptiResult result = cuptiSubscribe(&subscriber, on_profiler_call, nullptr);
  if (result != CUPTI_SUCCESS) {
    const char* message = nullptr;
    cuptiGetResultString(result, &message);
    std::fprintf(stderr, "perfhound record: --capture-range cudaProfilerApi needs CUPTI's callbacks, which refused (%s): "
                 "recording the whole run instead\n", message != nullptr ? message : "unknown error");
    return false;
  }
  const std::pair<CUpti_CallbackDomain, CUpti_CallbackId> calls[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop}};
  for (const auto& [domain, cbid] : calls) {
    if (cuptiEnableCallback(1, subscriber, domain, cbid) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "perfhound record: CUPTI refused the callback for profiler call %u: recording the whole run instead\n",
                   static_cast<unsigned>(cbid));
      cuptiUnsubscribe(subscriber);
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace perfhound::record

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace perfhound::record;
  static std::once_flag once;
  static int result = 0;
  std::call_once(once, [] {
    Recorder& r = recorder();
    if (const char* out = std::getenv("PERFHOUND_RECORD_OUTPUT")) r.output = out;
    // A CUDA process the recorded program started inherits the variables: it writes its own trace beside the
    // first, named after its pid, instead of overwriting it.
    const char* recorded_pid = std::getenv("PERFHOUND_RECORD_PID");
    if (recorded_pid != nullptr && std::strtol(recorded_pid, nullptr, 10) != static_cast<long>(::getpid())) {
      r.output = child_trace_path(r.output, static_cast<long>(::getpid()));
    }
    if (const char* mb = std::getenv("PERFHOUND_RECORD_BUFFER_MB")) {
      const long v = std::strtol(mb, nullptr, 10);
      if (v > 0 && v <= 1024) r.buffer_bytes = static_cast<std::size_t>(v) << 20;
    }
    if (const char* cmd = std::getenv("PERFHOUND_RECORD_COMMAND")) r.trace.command = cmd;
    if (const char* recorder = std::getenv("PERFHOUND_RECORD_RECORDER")) r.trace.recorder = recorder;
    r.trace.cuda_driver_version = driver_version();
    // Two buffers ready before the program runs: one for CUPTI to fill while the other is converted.
    for (int i = 0; i < 2; ++i) {
      if (std::uint8_t* b = new_buffer(r.buffer_bytes)) r.free_buffers.push_back(b);
    }
    // PERFHOUND_RECORD_KINDS (perfhound record --kinds): unset, the default (kernels, copies, fills, NVTX ranges:
    // what perfhound trace reads); "all" adds SYNCHRONIZATION, which on an H200 cost CUPTI about 6 us on every
    // kernel launch of a launch-bound loop; "kernels", the kernels (and the devices) alone; "kernels,memcpy,..."
    // adds kinds one by one (record/record_kinds.h, bench/record/record_knobs.sh, bench/RESULTS.md).
    if (const char* text = std::getenv("PERFHOUND_RECORD_KINDS"); text != nullptr && *text != '\0') {
      auto parsed = parse_record_kinds(text);
      if (parsed.ok()) {
        r.kinds = *parsed;
      } else {
        std::fprintf(stderr, "perfhound record: PERFHOUND_RECORD_KINDS ignored, the default kinds recorded: %s\n",
                     parsed.error().message.c_str());
      }
    }
    if (r.kinds.nvtx_routing) route_nvtx_to_cupti();
    // Every buffer this library hands CUPTI is already zero (new_buffer, buffer_completed): tell CUPTI, which
    // otherwise zeroes each one on the program's thread as it takes it, a stall on the launch path.
    set_attribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, "ZEROED_OUT_ACTIVITY_BUFFER", std::uint8_t{1});
    apply_device_buffer_settings();
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
      std::fprintf(stderr, "perfhound record: cuptiActivityRegisterCallbacks failed: no trace will be written\n");
      return;
    }
    enable(CUPTI_ACTIVITY_KIND_DEVICE);
    if (const char* api = std::getenv("PERFHOUND_RECORD_API");
        api != nullptr && (std::strcmp(api, "none") == 0 || std::strcmp(api, "all") == 0)) {
      r.api = api;
    }
    // Every driver call is opt-in (perfhound record --driver-api); by default only the classified ones, which is
    // how cuBLASLt's, cuDNN's and Triton's kernels keep their launch calls (cupti_names.h driver_call_classified).
    const char* driver = std::getenv("PERFHOUND_RECORD_DRIVER_API");
    r.driver_api = driver != nullptr && std::strcmp(driver, "1") == 0;
    r.classified_runtime_calls =
        classified_calls(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, runtime_call_classified);
    r.classified_driver_calls =
        classified_calls(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, driver_call_classified);
    const char* capture = std::getenv("PERFHOUND_RECORD_CAPTURE_RANGE");
    if (capture != nullptr && std::strcmp(capture, "cudaProfilerApi") == 0 && watch_profiler_calls()) {
      r.trace.capture_windows = 0;  // nothing recorded until the program's first cudaProfilerStart
    } else {
      record_activity(r, true);
    }
    uint32_t version = 0;
    if (cuptiGetVersion(&version) == CUPTI_SUCCESS) r.trace.cupti_version = static_cast<int>(version);
    std::atexit(write_final_trace);
    write_trace_on_signals({flush_records, write_records});
    result = 1;
  });
  return result;
}

// NVTX_INJECTION64_PATH names this library (perfhound record sets it, so NVTX is routed from the program's first
// NVTX call, even one before CUDA starts): NVTX calls its entry point, which hands NVTX to CUPTI's, as pointing
// the variable at libcupti would. A range opened before cuInit is not recorded (CUPTI's MARKER kind is turned on
// at cuInit); the ranges after it are.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(void* get_export_table) {
  static const auto entry = perfhound::record::cupti_nvtx_entry("InitializeInjectionNvtx2");
  return entry != nullptr ? entry(get_export_table) : 0;
}
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx(void* get_export_table) {
  static const auto entry = perfhound::record::cupti_nvtx_entry("InitializeInjectionNvtx");
  return entry != nullptr ? entry(get_export_table) : 0;
}
