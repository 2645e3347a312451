// The probe with CUDA: allocates everything once, then measures each figure as warm-up runs (discarded)
// followed by timed repeats, each repeat timed alone (CUDA events around the work, synchronized on the stop
// event; wall clock for launch latencies and pageable copies). docs/probe.md describes every figure.
#include "cuda/probe_runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <functional>
#include <ostream>
#include <thread>

#include "cuda/device_memory.h"
#include "cuda/gemm_probe.h"
#include "cuda/kernels.h"
#include "cuda/nvml_sampler.h"

namespace perfhound::cuda {
namespace {

using Clock = std::chrono::steady_clock;
using Work = std::function<core::Status()>;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

core::Status cuda_status(const char* call, cudaError_t e) {
  if (e == cudaSuccess) return core::Status::success();
  return cuda_error(call, e);
}

struct Timer {
  cudaStream_t stream;
  Event start, stop;
  int warmup, repeats;

  // Event-timed: start event, the work, stop event, wait for the stop event.
  core::Result<std::vector<double>> events(const Work& work) const {
    for (int i = 0; i < warmup; ++i) PH_TRY(work());
    PH_CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(repeats));
    for (int i = 0; i < repeats; ++i) {
      PH_CUDA_TRY(cudaEventRecord(start.get(), stream));
      PH_TRY(work());
      PH_CUDA_TRY(cudaEventRecord(stop.get(), stream));
      PH_CUDA_TRY(cudaEventSynchronize(stop.get()));
      float ms = 0;
      PH_CUDA_TRY(cudaEventElapsedTime(&ms, start.get(), stop.get()));
      seconds.push_back(static_cast<double>(ms) / 1e3);
    }
    return seconds;
  }
  // Wall-clock: the host's steady clock from before the work is issued until the stream has finished it.
  core::Result<std::vector<double>> wall(const Work& work) const {
    for (int i = 0; i < warmup; ++i) {
      PH_TRY(work());
      PH_CUDA_TRY(cudaStreamSynchronize(stream));
    }
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(repeats));
    for (int i = 0; i < repeats; ++i) {
      const auto t0 = Clock::now();
      PH_TRY(work());
      PH_CUDA_TRY(cudaStreamSynchronize(stream));
      seconds.push_back(seconds_since(t0));
    }
    return seconds;
  }
};

class Probe {
 public:
  Probe(const ProbeOptions& options, std::ostream* progress) : options_(options), progress_(progress) {}

  core::Result<ProbeResult> run() {
    PH_TRY(query_device());
    open_nvml();
    PH_TRY(allocate());
    if (nvml_) {
      PH_ASSIGN_OR_RETURN(result_.before, sample_under_load());
    }
    PH_TRY(bandwidth_figures());
    PH_TRY(fma_figure());
    PH_TRY(gemm_figures());
    PH_TRY(host_figures());
    PH_TRY(launch_figures());
    if (nvml_) {
      PH_ASSIGN_OR_RETURN(result_.after, sample_under_load());
    }
    PH_CUDA_TRY(cudaStreamSynchronize(stream()));
    return std::move(result_);
  }

 private:
  cudaStream_t stream() const { return stream_.get(); }

  core::Status query_device() {
    PH_TRY(check_device_ordinal(options_.device));
    DeviceInfo& d = result_.device;
    d.index = options_.device;
    PH_CUDA_TRY(cudaSetDevice(d.index));
    cudaDeviceProp prop{};
    PH_CUDA_TRY(cudaGetDeviceProperties(&prop, d.index));
    d.name = prop.name;
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.sm_count = prop.multiProcessorCount;
    d.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
    int v = 0;
    PH_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, d.index));
    d.l2_cache_bytes = v;
    PH_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, d.index));
    d.memory_bus_width_bits = v;
    // Clock attributes are in kHz; some drivers report 0 for them, which then reads as unknown.
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, d.index) == cudaSuccess) d.memory_clock_hz = v * 1e3;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, d.index) == cudaSuccess) d.max_sm_clock_hz = v * 1e3;
    static_cast<void>(cudaGetLastError());  // clear a refused attribute query
    char bus[32] = {};
    PH_CUDA_TRY(cudaDeviceGetPCIBusId(bus, sizeof(bus), d.index));
    d.pci_bus_id = bus;
    PH_CUDA_TRY(cudaDriverGetVersion(&d.driver_version));
    PH_CUDA_TRY(cudaRuntimeGetVersion(&d.runtime_version));
    if (cublaslt_available().ok()) d.cublas_version = static_cast<std::int64_t>(cublasLtGetVersion());
    return core::Status::success();
  }

  void open_nvml() {
    auto s = NvmlSampler::open(result_.device.pci_bus_id);
    if (!s.ok()) {
      result_.nvml_error = s.error().message;
      return;
    }
    nvml_ = std::move(s).value();
    result_.nvml_available = true;
    result_.device.nvidia_driver_version = nvml_->driver_version();
  }

  core::Status allocate() {
    ProbeSettings& st = result_.settings;
    st.quick = options_.quick;
    st.warmup = options_.warmup > 0 ? options_.warmup : (options_.quick ? 2 : 5);
    st.repeats = options_.repeats > 0 ? options_.repeats : (options_.quick ? 10 : 20);
    st.gemm_size = options_.quick ? 4096 : 8192;
    st.launches_per_repeat = options_.quick ? 2000 : 10000;
    st.graph_nodes = options_.quick ? 200 : 1000;
    st.host_buffer_bytes = options_.quick ? (std::uint64_t{256} << 20) : (std::uint64_t{1} << 30);
    PH_ASSIGN_OR_RETURN(stream_, make_stream());
    PH_ASSIGN_OR_RETURN(Event start, make_event());
    PH_ASSIGN_OR_RETURN(Event stop, make_event());
    timer_ = std::make_unique<Timer>(Timer{stream(), std::move(start), std::move(stop), st.warmup, st.repeats});

    std::size_t free_bytes = 0, total_bytes = 0;
    PH_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::uint64_t wanted = options_.quick ? (std::uint64_t{1} << 30) : (std::uint64_t{4} << 30);
    st.bandwidth_buffer_bytes = bandwidth_buffer_bytes(wanted, free_bytes);
    if (st.bandwidth_buffer_bytes == 0) {
      return core::Error{fmt::format("cudaMemGetInfo: only {} MiB free on the device, too little to probe",
                                     free_bytes >> 20)};
    }
    const std::size_t bw = st.bandwidth_buffer_bytes;
    st.host_buffer_bytes = std::min<std::uint64_t>(st.host_buffer_bytes, bw);  // host copies land in the bandwidth buffers
    PH_ASSIGN_OR_RETURN(src_, device_alloc(bw));
    PH_ASSIGN_OR_RETURN(dst_, device_alloc(bw));
    PH_CUDA_TRY(launch_fill_uniform(src_.get(), bw / 4, FillType::kFloat32, 7, stream()));
    PH_CUDA_TRY(cudaMemsetAsync(dst_.get(), 0, bw, stream()));
    PH_CUDA_TRY(bandwidth_grid(result_.device.sm_count, &bandwidth_grid_));
    PH_ASSIGN_OR_RETURN(partial_, device_alloc(static_cast<std::size_t>(bandwidth_grid_) * kBandwidthThreads * 4));
    PH_CUDA_TRY(fma_grid(result_.device.sm_count, &fma_grid_));
    PH_ASSIGN_OR_RETURN(fma_out_, device_alloc(static_cast<std::size_t>(fma_grid_) * kFmaThreads * sizeof(float)));

    const std::size_t n = static_cast<std::size_t>(st.gemm_size);
    PH_ASSIGN_OR_RETURN(gemm_a_, device_alloc(n * n * 4));  // the largest input type, tf32's fp32
    PH_ASSIGN_OR_RETURN(gemm_b_, device_alloc(n * n * 4));
    PH_ASSIGN_OR_RETURN(gemm_d_, device_alloc(n * n * 4));
    PH_ASSIGN_OR_RETURN(workspace_, device_alloc(kGemmWorkspaceBytes));
    PH_ASSIGN_OR_RETURN(unit_scale_, device_alloc(sizeof(float)));
    const float one = 1.0f;
    PH_CUDA_TRY(cudaMemcpy(unit_scale_.get(), &one, sizeof(one), cudaMemcpyHostToDevice));

    PH_ASSIGN_OR_RETURN(pinned_, pinned_alloc(st.host_buffer_bytes));
    pageable_.reset(new (std::nothrow) std::byte[st.host_buffer_bytes]);
    if (!pageable_) return core::Error{fmt::format("malloc: cannot allocate {} MiB of host memory", st.host_buffer_bytes >> 20)};
    // Touch every page first, so the timed copies do not pay for first-touch page faults.
    std::memset(pinned_.get(), 1, st.host_buffer_bytes);
    std::memset(pageable_.get(), 1, st.host_buffer_bytes);
    PH_CUDA_TRY(cudaDeviceSynchronize());  // the fills, and the scale's legacy-stream copy, are done
    return core::Status::success();
  }

  // NVML reads the clock the GPU runs at now: idle, it reports the idle clock. So sample while FMA kernels
  // keep every SM busy (~0.1 s of work queued; read after 50 ms).
  core::Result<ClockSample> sample_under_load() {
    for (int i = 0; i < 25; ++i) {
      PH_CUDA_TRY(launch_fma(static_cast<float*>(fma_out_.get()), kFmaIterations, 0.9999f, 1e-4f, fma_grid_, stream()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto sample = nvml_->sample();
    PH_CUDA_TRY(cudaStreamSynchronize(stream()));
    return sample;
  }

  void note_clock(ProbeFigure& f) {
    if (!nvml_) return;
    if (auto s = nvml_->sample(); s.ok()) f.sm_clock_after_hz = s->sm_clock_hz;
  }

  void report(const ProbeFigure& f) {
    if (progress_ == nullptr) return;
    if (!f.measured()) {
      *progress_ << fmt::format("probe: {}: unsupported: {}\n", f.label, f.unsupported);
    } else if (f.unit == "s") {
      *progress_ << fmt::format("probe: {}: {:.2f} us\n", f.label, f.summary.median * 1e6);
    } else if (f.unit == "FLOP/s") {
      *progress_ << fmt::format("probe: {}: {:.1f} TFLOP/s\n", f.label, f.summary.median / 1e12);
    } else {
      *progress_ << fmt::format("probe: {}: {:.1f} GB/s\n", f.label, f.summary.median / 1e9);
    }
    progress_->flush();
  }

  // A rate figure: per-repeat work / time.
  core::Status add_rate(std::string key, std::string label, std::string unit, std::string method, double work,
                        const std::vector<double>& seconds) {
    ProbeFigure f = make_figure(std::move(key), std::move(label), std::move(unit), std::move(method), work, timer_->warmup);
    f.summary = summarize_repeats(rates_from_times(work, seconds));
    note_clock(f);
    report(f);
    result_.figures.push_back(std::move(f));
    return core::Status::success();
  }
  void add_latency(std::string key, std::string label, std::string method, const std::vector<double>& per_op) {
    ProbeFigure f = make_figure(std::move(key), std::move(label), "s", std::move(method), 0, timer_->warmup);
    f.summary = summarize_repeats(per_op);
    note_clock(f);
    report(f);
    result_.figures.push_back(std::move(f));
  }
  void add_unsupported(std::string key, std::string label, std::string unit, std::string method, std::string why) {
    ProbeFigure f = make_figure(std::move(key), std::move(label), std::move(unit), std::move(method), 0, timer_->warmup);
    f.unsupported = std::move(why);
    report(f);
    result_.figures.push_back(std::move(f));
  }

  core::Status bandwidth_figures() {
    const std::size_t bw = result_.settings.bandwidth_buffer_bytes;
    const std::string size = fmt::format("{} MiB buffers", bw >> 20);
    PH_ASSIGN_OR_RETURN(auto t, timer_->events([&] {
      return cuda_status("cudaMemcpyAsync", cudaMemcpyAsync(dst_.get(), src_.get(), bw, cudaMemcpyDeviceToDevice, stream()));
    }));
    PH_TRY(add_rate("copy_memcpy", "D2D copy (cudaMemcpyAsync)", "B/s",
                    "cudaMemcpyAsync device to device, " + size + ", bytes read + written", copy_traffic_bytes(bw), t));
    PH_ASSIGN_OR_RETURN(t, timer_->events([&] {
      return cuda_status("copy kernel launch", launch_copy(src_.get(), dst_.get(), bw, bandwidth_grid_, stream()));
    }));
    PH_TRY(add_rate("copy_kernel", "D2D copy (kernel)", "B/s",
                    fmt::format("grid-stride 16-byte-vector copy kernel, {} blocks x {}, {}, bytes read + written",
                                bandwidth_grid_, kBandwidthThreads, size),
                    copy_traffic_bytes(bw), t));
    PH_ASSIGN_OR_RETURN(t, timer_->events([&] {
      return cuda_status("read kernel launch", launch_read(src_.get(), bw, static_cast<std::uint32_t*>(partial_.get()),
                                                           bandwidth_grid_, stream()));
    }));
    PH_TRY(add_rate("read", "read (reduction kernel)", "B/s",
                    "grid-stride 16-byte loads summed per thread, sums stored, " + size + ", bytes read", bw, t));
    PH_ASSIGN_OR_RETURN(t, timer_->events([&] {
      return cuda_status("write kernel launch", launch_write(dst_.get(), bw, 0x3f800000u, bandwidth_grid_, stream()));
    }));
    return add_rate("write", "write (fill kernel)", "B/s", "grid-stride 16-byte stores, " + size + ", bytes written",
                    bw, t);
  }

  core::Status fma_figure() {
    const int iterations = options_.quick ? kFmaIterations / 4 : kFmaIterations;
    const std::int64_t threads = static_cast<std::int64_t>(fma_grid_) * kFmaThreads;
    PH_ASSIGN_OR_RETURN(auto t, timer_->events([&] {
      return cuda_status("fma kernel launch", launch_fma(static_cast<float*>(fma_out_.get()), iterations, 0.9999f, 1e-4f,
                                                         fma_grid_, stream()));
    }));
    return add_rate("fp32_fma", "fp32 FMA (CUDA cores)", "FLOP/s",
                    fmt::format("{} blocks x {} threads, {} dependent-FMA chains x {} per thread, 2 FLOP per FMA",
                                fma_grid_, kFmaThreads, kFmaChains, iterations),
                    fma_flop(threads, static_cast<std::int64_t>(iterations) * kFmaChains), t);
  }

  core::Status gemm_figures() {
    // Without cuBLASLt (opened now, not linked: cublaslt_library.h) each GEMM figure is unsupported, with the
    // loader's reason; the other figures stand.
    const core::Status library = cublaslt_available();
    cublasLtHandle_t handle = nullptr;
    if (library.ok()) PH_CUBLAS_TRY(cublasLtCreate(&handle));
    const std::unique_ptr<cublasLtContext, void (*)(cublasLtHandle_t)> owner(handle, [](cublasLtHandle_t h) {
      if (h != nullptr) static_cast<void>(cublasLtDestroy(h));
    });
    const int n = result_.settings.gemm_size;
    const std::size_t elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    const DeviceInfo& d = result_.device;
    for (const GemmDtype dtype : kAllGemmDtypes) {
      const std::string name(gemm_dtype_name(dtype));
      const std::string key = name + "_gemm", label = name + " GEMM (cuBLASLt)";
      const std::string method =
          fmt::format("cublasLtMatmul TN, M=N=K={}, {}, inputs hash-uniform |x| in [1/64, 1), 2*M*N*K FLOP", n,
                      dtype == GemmDtype::kFp8E4m3  ? "e4m3 inputs, unit scales, fast accumulation, bf16 output"
                      : dtype == GemmDtype::kTf32   ? "fp32 storage, TF32 tensor-core math"
                                                    : name + " in and out, fp32 accumulation");
      if (!library.ok()) {
        add_unsupported(key, label, "FLOP/s", method, library.error().message);
        continue;
      }
      if (dtype == GemmDtype::kFp8E4m3 && (d.cc_major * 10 + d.cc_minor) < 89) {
        add_unsupported(key, label, "FLOP/s", method,
                        fmt::format("fp8 needs compute capability 8.9 or newer (this GPU is {}.{})", d.cc_major, d.cc_minor));
        continue;
      }
      const FillType fill = dtype == GemmDtype::kBf16   ? FillType::kBfloat16
                            : dtype == GemmDtype::kFp16 ? FillType::kFloat16
                            : dtype == GemmDtype::kTf32 ? FillType::kFloat32
                                                        : FillType::kFp8E4m3;
      PH_CUDA_TRY(launch_fill_uniform(gemm_a_.get(), elements, fill, 11, stream()));
      PH_CUDA_TRY(launch_fill_uniform(gemm_b_.get(), elements, fill, 12, stream()));
      PH_CUDA_TRY(cudaStreamSynchronize(stream()));
      auto gemm = LtGemm::create(handle, dtype, n, n, n, gemm_a_.get(), gemm_b_.get(), gemm_d_.get(), workspace_.get(),
                                 static_cast<const float*>(unit_scale_.get()));
      if (!gemm.ok()) {
        add_unsupported(key, label, "FLOP/s", method, gemm.error().message);
        continue;
      }
      // A library refusal at run time (cublasLtMatmul's status) is "unsupported" too; a CUDA error is not.
      if (auto first = (*gemm)->run(stream()); !first.ok()) {
        add_unsupported(key, label, "FLOP/s", method, first.error().message);
        continue;
      }
      PH_CUDA_TRY(cudaStreamSynchronize(stream()));
      PH_ASSIGN_OR_RETURN(auto t, timer_->events([&] { return (*gemm)->run(stream()); }));
      PH_TRY(add_rate(key, label, "FLOP/s", method, gemm_flop(n, n, n), t));
    }
    return core::Status::success();
  }

  core::Status host_figures() {
    const std::size_t bytes = result_.settings.host_buffer_bytes;
    const std::string size = fmt::format("{} MiB", bytes >> 20);
    void* pinned = pinned_.get();
    void* pageable = pageable_.get();
    PH_ASSIGN_OR_RETURN(auto t, timer_->events([&] {
      return cuda_status("cudaMemcpyAsync", cudaMemcpyAsync(dst_.get(), pinned, bytes, cudaMemcpyHostToDevice, stream()));
    }));
    PH_TRY(add_rate("h2d_pinned", "H2D pinned", "B/s", "cudaMemcpyAsync from cudaMallocHost memory, " + size +
                    ", CUDA events, bytes copied", static_cast<double>(bytes), t));
    PH_ASSIGN_OR_RETURN(t, timer_->events([&] {
      return cuda_status("cudaMemcpyAsync", cudaMemcpyAsync(pinned, src_.get(), bytes, cudaMemcpyDeviceToHost, stream()));
    }));
    PH_TRY(add_rate("d2h_pinned", "D2H pinned", "B/s", "cudaMemcpyAsync to cudaMallocHost memory, " + size +
                    ", CUDA events, bytes copied", static_cast<double>(bytes), t));
    // Pageable copies are staged through the driver's pinned buffers on the host: wall clock sees that cost.
    PH_ASSIGN_OR_RETURN(t, timer_->wall([&] {
      return cuda_status("cudaMemcpyAsync", cudaMemcpyAsync(dst_.get(), pageable, bytes, cudaMemcpyHostToDevice, stream()));
    }));
    PH_TRY(add_rate("h2d_pageable", "H2D pageable", "B/s", "cudaMemcpyAsync from malloc memory, " + size +
                    ", wall clock to stream completion, bytes copied", static_cast<double>(bytes), t));
    PH_ASSIGN_OR_RETURN(t, timer_->wall([&] {
      return cuda_status("cudaMemcpyAsync", cudaMemcpyAsync(pageable, src_.get(), bytes, cudaMemcpyDeviceToHost, stream()));
    }));
    return add_rate("d2h_pageable", "D2H pageable", "B/s", "cudaMemcpyAsync to malloc memory, " + size +
                    ", wall clock to stream completion, bytes copied", static_cast<double>(bytes), t);
  }

  core::Status launch_figures() {
    const int launches = result_.settings.launches_per_repeat;
    PH_ASSIGN_OR_RETURN(auto t, timer_->wall([&]() -> core::Status {
      for (int i = 0; i < launches; ++i) PH_CUDA_TRY(launch_empty(stream()));
      return core::Status::success();
    }));
    add_latency("kernel_launch", "kernel launch (empty kernel)",
                fmt::format("{} back-to-back <<<1,1>>> empty-kernel launches, wall clock to stream completion, per launch",
                            launches),
                per_operation_times(t, launches));
    // The latency a caller that waits for its kernel sees: launch, then synchronize, one at a time. Back to back
    // (above), launches overlap the GPU's work and each other's completion, so the figure above is the launch
    // path's throughput, this one its round trip.
    const int round_trips = launches / 10;
    PH_ASSIGN_OR_RETURN(t, timer_->wall([&]() -> core::Status {
      for (int i = 0; i < round_trips; ++i) {
        PH_CUDA_TRY(launch_empty(stream()));
        PH_CUDA_TRY(cudaStreamSynchronize(stream()));
      }
      return core::Status::success();
    }));
    add_latency("kernel_launch_round_trip", "kernel launch, waited for",
                fmt::format("{} times one <<<1,1>>> empty-kernel launch then cudaStreamSynchronize, wall clock, per launch",
                            round_trips),
                per_operation_times(t, round_trips));

    const int nodes = result_.settings.graph_nodes;
    PH_CUDA_TRY(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < nodes; ++i) {
      if (const cudaError_t e = launch_empty(stream()); e != cudaSuccess) {
        cudaGraph_t abandoned = nullptr;
        static_cast<void>(cudaStreamEndCapture(stream(), &abandoned));
        if (abandoned != nullptr) static_cast<void>(cudaGraphDestroy(abandoned));
        return cuda_error("empty kernel launch during graph capture", e);
      }
    }
    cudaGraph_t raw_graph = nullptr;
    PH_CUDA_TRY(cudaStreamEndCapture(stream(), &raw_graph));
    const Graph graph(raw_graph);
    cudaGraphExec_t raw_exec = nullptr;
    PH_CUDA_TRY(cudaGraphInstantiate(&raw_exec, graph.get(), 0));
    const GraphExec exec(raw_exec);
    PH_CUDA_TRY(cudaGraphUpload(exec.get(), stream()));
    PH_ASSIGN_OR_RETURN(t, timer_->wall([&] {
      return cuda_status("cudaGraphLaunch", cudaGraphLaunch(exec.get(), stream()));
    }));
    add_latency("graph_launch_per_node", "graph launch, per kernel node",
                fmt::format("cudaGraphLaunch of a captured graph of {} empty kernels, wall clock to stream completion, "
                            "divided by the nodes",
                            nodes),
                per_operation_times(t, nodes));
    add_latency("graph_launch", "graph launch, whole graph",
                fmt::format("cudaGraphLaunch of a captured graph of {} empty kernels, wall clock to stream completion",
                            nodes),
                t);
    return core::Status::success();
  }

  static constexpr int kFmaIterations = 65536;  // ~4 ms per launch on an H200 (~67 TFLOP/s fp32)

  ProbeOptions options_;
  std::ostream* progress_;
  ProbeResult result_;
  std::optional<NvmlSampler> nvml_;
  Stream stream_;
  std::unique_ptr<Timer> timer_;
  DeviceMemory src_, dst_, partial_, fma_out_, gemm_a_, gemm_b_, gemm_d_, workspace_, unit_scale_;
  PinnedMemory pinned_;
  std::unique_ptr<std::byte[]> pageable_;
  int bandwidth_grid_ = 0, fma_grid_ = 0;
};

}  // namespace

bool built_with_cuda() { return true; }

core::Result<int> cuda_device_count() {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) return device_count_error(e);
  return count;
}

core::Result<ProbeResult> run_probe(const ProbeOptions& options, std::ostream* progress) {
  Probe probe(options, progress);
  return probe.run();
}

}  // namespace perfhound::cuda
