// What `perfhound probe` measured on one GPU: the device, its clocks before and after, and each figure with
// its median / p10 / p90 over timed repeats. Plain C++ (no CUDA types) so the CLI and the tests read it
// without the toolkit. Units: SI base units throughout (bytes/s, FLOP/s, s, Hz, bytes, degrees Celsius).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuda/probe_figures.h"

namespace perfhound::cuda {

struct DeviceInfo {
  int index = 0;  // CUDA device ordinal (after CUDA_VISIBLE_DEVICES)
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_cache_bytes = 0;
  std::int64_t memory_bytes = 0;         // cudaDeviceProp::totalGlobalMem
  int memory_bus_width_bits = 0;
  double memory_clock_hz = 0;            // peak, cudaDevAttrMemoryClockRate; 0 if unknown
  double max_sm_clock_hz = 0;            // peak, cudaDevAttrClockRate; 0 if unknown
  int driver_version = 0;                // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;               // cudaRuntimeGetVersion
  std::int64_t cublas_version = 0;       // cublasLtGetVersion, e.g. 130000
  std::string nvidia_driver_version;     // NVML, e.g. "580.65.06"; empty without NVML
  // DRAM peak from the device query: bus width / 8 x memory clock x 2 (double data rate); 0 if unknown.
  double memory_peak_bytes_per_s() const;
};

// One NVML reading, taken while a kernel keeps the GPU busy (an idle GPU reports its idle clock).
struct ClockSample {
  double sm_clock_hz = 0;
  double memory_clock_hz = 0;
  double temperature_c = 0;
  double power_w = 0;                     // 0 where NVML does not report it
  std::uint64_t clock_event_reasons = 0;  // nvmlDeviceGetCurrentClocksEventReasons bitmask
};

struct ProbeFigure {
  std::string key;     // stable id and chip-file key stem: "copy_kernel", "bf16_gemm", ...
  std::string label;   // for the table: "D2D copy (kernel)"
  std::string unit;    // "B/s", "FLOP/s" or "s"
  std::string method;  // one line: what was timed, what work was counted
  double work_per_repeat = 0;  // bytes or FLOP one timed repeat did (0 for latencies)
  int warmup = 0;              // runs discarded before the timed repeats
  FigureSummary summary;
  std::string unsupported;  // non-empty: not measured, and why ("unsupported: ..." in the table)
  std::optional<double> sm_clock_after_hz;  // NVML SM clock right after this figure, where NVML is available
  bool measured() const { return unsupported.empty(); }
};

// A figure with its description and no statistics yet.
inline ProbeFigure make_figure(std::string key, std::string label, std::string unit, std::string method,
                               double work_per_repeat, int warmup) {
  ProbeFigure f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.unit = std::move(unit);
  f.method = std::move(method);
  f.work_per_repeat = work_per_repeat;
  f.warmup = warmup;
  return f;
}

struct ProbeSettings {
  bool quick = false;
  std::uint64_t bandwidth_buffer_bytes = 0;
  std::uint64_t host_buffer_bytes = 0;
  int gemm_size = 0;  // M = N = K
  int warmup = 0;
  int repeats = 0;
  int launches_per_repeat = 0;
  int graph_nodes = 0;
};

struct ProbeResult {
  DeviceInfo device;
  ProbeSettings settings;
  std::vector<ProbeFigure> figures;
  bool nvml_available = false;
  std::string nvml_error;  // why NVML is unavailable
  std::optional<ClockSample> before, after;
  // The figure with this key, or nullptr.
  const ProbeFigure* find(const std::string& key) const;
};

}  // namespace perfhound::cuda
