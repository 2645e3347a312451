// perfhound::bench for CUDA kernels (seed §7, nvbench's method). A GpuBench owns what every sample needs,
// allocated once: a stream, two events, an L2-sized flush buffer and the stream gate's flag. Each sample is
//   cold: flush L2 (memset of an L2-sized buffer), gate the stream, start event, one launch, stop event,
//         release the gate: the launch runs from DRAM and its host submission time is not in the sample;
//   hot:  gate, start event, a batch of launches back to back, stop event, release: seconds per launch with
//         warm caches (Launch::rotation cycles through the caller's input copies to keep them out of L2).
// Times come from CUDA events after the stop event is synchronized. NVML clocks and temperature are read
// after the warm-up and after the last sample; a fall in the SM clock is a clock-dropped warning.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/measurement.h"
#include "bench/stopping_rule.h"
#include "core/result.h"

namespace perfhound::bench::cuda {

enum class Mode { kCold, kHot };

// What the launch callable gets: the stream to launch on and which input copy to use (0 .. rotations - 1).
struct Launch {
  cudaStream_t stream = nullptr;
  int rotation = 0;
};
using LaunchFn = std::function<void(const Launch&)>;

inline constexpr std::int64_t kMaxHotBatch = 256;  // launches a hot sample queues behind the gate

struct KernelOptions {
  Mode mode = Mode::kCold;
  Work work;                             // per launch, for the rate column
  std::int64_t warmup = 3;               // samples discarded
  std::int64_t launches_per_sample = 0;  // hot: 0 = enough for 1 ms a sample (from the warm-up), at most kMaxHotBatch
  int rotations = 1;                     // input copies the callable cycles through, one step per launch
  bool flush_l2 = true;                  // cold only
  bool gate_stream = true;               // queue each sample behind the stream gate
  StoppingRule stop;

  static KernelOptions cold(const Work& work) {
    KernelOptions o;
    o.work = work;
    return o;
  }
  // Hot batches; rotations > 1 cycles Launch::rotation through that many input copies.
  static KernelOptions hot(const Work& work, int rotations = 1) {
    KernelOptions o = cold(work);
    o.mode = Mode::kHot;
    o.rotations = rotations;
    return o;
  }
};

class GpuBench {
 public:
  // Selects `device`, creates the stream and events, allocates the flush buffer (the device's L2 size) and the
  // gate flag, and opens NVML (absent NVML is an nvml-unavailable note on every benchmark, not an error).
  static core::Result<std::unique_ptr<GpuBench>> open(int device);
  ~GpuBench();
  GpuBench(const GpuBench&) = delete;
  GpuBench& operator=(const GpuBench&) = delete;

  // Warm-up, then samples until options.stop holds. A CUDA error from a launch ends the run with the samples
  // taken so far kept (SampledRun::error names the call).
  SampledRun run(const std::string& name, const KernelOptions& options, const LaunchFn& launch);

  // The device for Conditions: name, compute capability, SMs, L2 and memory size, driver and runtime versions,
  // NVIDIA driver version, whether NVML answered.
  nlohmann::ordered_json conditions() const;
  std::int64_t l2_bytes() const;
  // Input copies a hot benchmark should rotate through so that, by the time a copy comes round again, twice
  // the L2 has been touched since: ceil(2 L2 / working_set_bytes), 1 when the working set is that large.
  int rotations_for(std::int64_t working_set_bytes) const;

  struct State;

 private:
  explicit GpuBench(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace perfhound::bench::cuda
