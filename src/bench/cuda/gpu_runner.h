// bench::Runner with a GPU: opens GpuBench on --device, puts the GPU into the conditions, and runs kernels
// under the flags' stopping rule. The main() of a CUDA benchmark program:
//
//   int main(int argc, char** argv) {
//     bench::cuda::GpuRunner runner("copy", argc, argv);
//     if (runner.should_exit()) return runner.exit_code();
//     runner.kernel("copy 1 GiB", bench::Work::bytes_moved(2.0 * bytes),
//                   [&](const bench::cuda::Launch& l) { copy<<<grid, 256, 0, l.stream>>>(src, dst, n); });
//     return runner.finish();
//   }
//
// Without a usable GPU (none, a bad --device) should_exit() is true and exit_code() 2, with one line saying why.
#pragma once

#include <memory>
#include <string>

#include "bench/cuda/gpu_bench.h"
#include "bench/runner.h"

namespace perfhound::bench::cuda {

class GpuRunner : public Runner {
 public:
  GpuRunner(std::string suite, int argc, char** argv);

  GpuBench& gpu() { return *gpu_; }
  // Runs `launch` when the filter selects `name`; options.stop is replaced by the flags' rule.
  void kernel(const std::string& name, KernelOptions options, const LaunchFn& launch);
  // Cold, with the default warm-up: KernelOptions::cold(work).
  void kernel(const std::string& name, const Work& work, const LaunchFn& launch);

 private:
  std::unique_ptr<GpuBench> gpu_;
};

}  // namespace perfhound::bench::cuda
