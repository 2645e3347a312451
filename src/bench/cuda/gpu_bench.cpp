#include "bench/cuda/gpu_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <optional>

#include "bench/cuda/stream_gate.h"
#include "cuda/cuda_status.h"
#include "cuda/device_memory.h"
#include "cuda/nvml_sampler.h"
#include "cuda/probe_figures.h"

namespace perfhound::bench::cuda {
namespace {

namespace pc = perfhound::cuda;

// Long enough for any sane batch to be queued, short enough that a deadlocked sample ends in seconds.
constexpr std::uint64_t kGateTimeoutNs = 2'000'000'000;
constexpr double kHotSampleTargetS = 1e-3;

struct HostFree {
  void operator()(int* p) const { static_cast<void>(cudaFreeHost(p)); }
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct GpuBench::State {
  int device = 0;
  cudaDeviceProp prop{};
  int driver_version = 0, runtime_version = 0;
  std::string pci_bus_id;
  pc::Stream stream;
  pc::Event start, stop;
  pc::DeviceMemory flush;
  std::int64_t l2_bytes = 0;
  std::unique_ptr<int, HostFree> gate_host;  // [0] release flag, [1] timed-out flag, mapped
  int* gate_device = nullptr;
  std::optional<pc::NvmlSampler> nvml;
  std::string nvml_error, nvidia_driver;
  int rotation = 0;

  std::optional<GpuClocks> read_clocks() const {
    if (!nvml) return std::nullopt;
    const auto s = nvml->sample();
    if (!s) return std::nullopt;
    return GpuClocks{s->sm_clock_hz, s->memory_clock_hz, s->temperature_c, s->clock_event_reasons};
  }

  core::Status gate() {
    std::atomic_ref<int>(gate_host.get()[0]).store(0, std::memory_order_release);
    gate_host.get()[1] = 0;
    PH_CUDA_TRY(launch_stream_gate(gate_device, gate_device + 1, kGateTimeoutNs, stream.get()));
    return {};
  }
  void release() { std::atomic_ref<int>(gate_host.get()[0]).store(1, std::memory_order_release); }
  bool gate_timed_out() const { return std::atomic_ref<int>(gate_host.get()[1]).load(std::memory_order_acquire) != 0; }

  core::Status launch_once(const LaunchFn& launch, int rotations) {
    launch(Launch{stream.get(), rotation});
    rotation = (rotation + 1) % std::max(rotations, 1);
    PH_CUDA_TRY(cudaGetLastError());
    return {};
  }

  // One sample: seconds per launch over `launches` launches.
  core::Result<double> sample(const KernelOptions& o, const LaunchFn& launch, std::int64_t launches,
                              std::int64_t* gate_timeouts) {
    if (o.mode == Mode::kCold && o.flush_l2) {
      PH_CUDA_TRY(cudaMemsetAsync(flush.get(), rotation & 0xff, static_cast<std::size_t>(l2_bytes), stream.get()));
    }
    if (o.gate_stream) PH_TRY(gate());
    PH_CUDA_TRY(cudaEventRecord(start.get(), stream.get()));
    core::Status launched;
    for (std::int64_t i = 0; i < launches && launched.ok(); ++i) launched = launch_once(launch, o.rotations);
    const cudaError_t recorded = cudaEventRecord(stop.get(), stream.get());
    if (o.gate_stream) release();  // before any early return: a held gate would hang the next synchronize
    PH_TRY(launched);
    if (recorded != cudaSuccess) return pc::cuda_error("cudaEventRecord", recorded);
    PH_CUDA_TRY(cudaEventSynchronize(stop.get()));
    if (o.gate_stream && gate_timed_out()) ++*gate_timeouts;
    float ms = 0;
    PH_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return static_cast<double>(ms) / 1e3 / static_cast<double>(launches);
  }
};

GpuBench::GpuBench(std::unique_ptr<State> state) : s_(std::move(state)) {}
GpuBench::~GpuBench() {
  if (s_ && s_->stream) static_cast<void>(cudaStreamSynchronize(s_->stream.get()));
}

core::Result<std::unique_ptr<GpuBench>> GpuBench::open(int device) {
  auto s = std::make_unique<State>();
  PH_TRY(pc::check_device_ordinal(device));
  s->device = device;
  PH_CUDA_TRY(cudaSetDevice(device));
  PH_CUDA_TRY(cudaGetDeviceProperties(&s->prop, device));
  PH_CUDA_TRY(cudaDriverGetVersion(&s->driver_version));
  PH_CUDA_TRY(cudaRuntimeGetVersion(&s->runtime_version));
  char bus[32] = {};
  PH_CUDA_TRY(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
  s->pci_bus_id = bus;
  int l2 = 0;
  PH_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  s->l2_bytes = l2;
  PH_ASSIGN_OR_RETURN(s->stream, pc::make_stream());
  PH_ASSIGN_OR_RETURN(s->start, pc::make_event());
  PH_ASSIGN_OR_RETURN(s->stop, pc::make_event());
  PH_ASSIGN_OR_RETURN(s->flush, pc::device_alloc(static_cast<std::size_t>(std::max<std::int64_t>(s->l2_bytes, 16))));
  int* host = nullptr;
  PH_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&host), 2 * sizeof(int), cudaHostAllocMapped));
  s->gate_host.reset(host);
  host[0] = 1;
  host[1] = 0;
  PH_CUDA_TRY(cudaHostGetDevicePointer(reinterpret_cast<void**>(&s->gate_device), host, 0));
  auto nvml = pc::NvmlSampler::open(s->pci_bus_id);
  if (nvml) {
    s->nvidia_driver = nvml->driver_version();
    s->nvml.emplace(std::move(*nvml));
  } else {
    s->nvml_error = nvml.error().message;
  }
  return std::unique_ptr<GpuBench>(new GpuBench(std::move(s)));
}

std::int64_t GpuBench::l2_bytes() const { return s_->l2_bytes; }

int GpuBench::rotations_for(std::int64_t working_set_bytes) const {
  if (working_set_bytes <= 0) return 1;
  const double n = std::ceil(2.0 * static_cast<double>(s_->l2_bytes) / static_cast<double>(working_set_bytes));
  return static_cast<int>(std::max(1.0, n));
}

nlohmann::ordered_json GpuBench::conditions() const {
  const State& s = *s_;
  nlohmann::ordered_json j;
  j["name"] = s.prop.name;
  j["index"] = s.device;
  j["pci_bus_id"] = s.pci_bus_id;
  j["compute_capability"] = fmt::format("{}.{}", s.prop.major, s.prop.minor);
  j["sm_count"] = s.prop.multiProcessorCount;
  j["l2_cache_bytes"] = s.l2_bytes;
  j["memory_bytes"] = static_cast<std::int64_t>(s.prop.totalGlobalMem);
  // The clocks the GPU may run at (its boost ceiling, kHz from the device query): fixed for a GPU, unlike the
  // clocks it ran at, which each benchmark carries (below).
  int khz = 0;
  j["max_sm_clock_mhz"] = cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, s.device) == cudaSuccess ? khz / 1000 : 0;
  j["max_memory_clock_mhz"] = cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, s.device) == cudaSuccess ? khz / 1000 : 0;
  j["cuda_driver_version"] = s.driver_version;
  j["cuda_runtime_version"] = s.runtime_version;
  j["nvidia_driver"] = s.nvidia_driver.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.nvidia_driver);
  // The clocks are measurements that move from run to run, so they stay out of the conditions (compare would
  // refuse two runs over them): each benchmark carries its own, before and after.
  j["nvml"] = s.nvml ? nlohmann::ordered_json("available") : nlohmann::ordered_json(s.nvml_error);
  return j;
}

SampledRun GpuBench::run(const std::string& name, const KernelOptions& o, const LaunchFn& launch) {
  State& s = *s_;
  Measurement m;
  m.name = name;
  m.mode = o.mode == Mode::kCold ? "cold" : "hot";
  m.work = o.work;
  m.details["l2_flush_bytes"] = o.mode == Mode::kCold && o.flush_l2 ? s.l2_bytes : 0;
  m.details["stream_gate"] = o.gate_stream;
  m.details["rotations"] = std::max(o.rotations, 1);
  m.details["timer"] = "CUDA events";
  std::int64_t gate_timeouts = 0;
  if (const cudaError_t e = cudaSetDevice(s.device); e != cudaSuccess) {
    return {std::move(m), pc::cuda_error("cudaSetDevice", e)};
  }
  s.rotation = 0;  // every benchmark starts at its first input copy, whatever the last one rotated through
  // One launch outside the gate first: with lazy module loading (CUDA's default since 11.7) a kernel's first
  // launch loads its module, which waits for running kernels, so behind the spinning gate it would deadlock
  // until the gate's timeout.
  {
    const core::Status primed = s.launch_once(launch, o.rotations);
    const cudaError_t synced = primed.ok() ? cudaStreamSynchronize(s.stream.get()) : cudaSuccess;
    if (!primed.ok()) return {std::move(m), core::Error{fmt::format("{}: first launch: {}", name, primed.error().message)}};
    if (synced != cudaSuccess) {
      return {std::move(m), core::Error{fmt::format("{}: first launch: {}", name, pc::cuda_error("cudaStreamSynchronize", synced).message)}};
    }
    s.rotation = 0;
    m.warmup_discarded += 1;
  }
  // Hot batches are sized from one launch timed the cold way (it also warms the launch path).
  std::int64_t launches = 1;
  if (o.mode == Mode::kHot) {
    launches = o.launches_per_sample;
    if (launches <= 0) {
      KernelOptions one = o;
      one.mode = Mode::kCold;
      auto t = s.sample(one, launch, 1, &gate_timeouts);
      if (!t) return {std::move(m), core::Error{fmt::format("{}: sizing the hot batch: {}", name, t.error().message)}};
      launches = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(kHotSampleTargetS / std::max(*t, 1e-9))),
                                          1, kMaxHotBatch);
      m.warmup_discarded += 1;
    }
  }
  m.operations_per_sample = launches;
  std::optional<GpuClocks> before;
  std::int64_t calls = 0;
  auto run = sample_until_stable(std::move(m), o.stop, o.warmup, [&]() -> core::Result<double> {
    // The first timed sample: read the clocks while the GPU is still warm from the warm-up.
    if (calls++ == o.warmup) before = s.read_clocks();
    return s.sample(o, launch, launches, &gate_timeouts);
  }, now_s);
  Measurement& out = run.measurement;
  out.clocks_after = s.read_clocks();
  out.clocks_before = before;
  // The clock fell (clock-dropped), or held while a limit held it down from the start (NVML's reasons:
  // clock-throttled for thermal and hardware limits, clock-power-capped at info for the board's power limit).
  const auto held_by = [](const GpuClocks& c) {
    const std::string why = pc::throttle_reasons(c.clock_event_reasons);
    return why.empty() ? std::string("nothing") : why;
  };
  if (!s.nvml) {
    out.diagnostics.push_back({&core::kNvmlUnavailable, s.nvml_error});
  } else if (out.clocks_before && out.clocks_after) {
    const GpuClocks& b = *out.clocks_before;
    const GpuClocks& a = *out.clocks_after;
    if (const core::DiagnosticKind* kind =
            pc::clock_diagnostic(b.sm_clock_hz, a.sm_clock_hz, b.clock_event_reasons, a.clock_event_reasons)) {
      out.diagnostics.push_back({kind, fmt::format("SM clock {:.0f} MHz after the warm-up (held down by {}), {:.0f} MHz "
                                                   "after the last sample (held down by {})",
                                                   b.sm_clock_hz / 1e6, held_by(b), a.sm_clock_hz / 1e6, held_by(a))});
    }
  }
  if (gate_timeouts > 0) {
    out.diagnostics.push_back({&core::kBlockingKernelTimedOut,
                               fmt::format("{} sample{} released by the gate's {:.0f} s timeout", gate_timeouts,
                                           gate_timeouts == 1 ? "" : "s", kGateTimeoutNs / 1e9)});
  }
  out.details["gate_timeouts"] = gate_timeouts;
  return run;
}

}  // namespace perfhound::bench::cuda
