#include "bench/cuda/gpu_runner.h"

namespace perfhound::bench::cuda {

GpuRunner::GpuRunner(std::string suite, int argc, char** argv) : Runner(std::move(suite), argc, argv) {
  if (should_exit()) return;
  auto gpu = GpuBench::open(device());
  if (!gpu) {
    fail(gpu.error().message);
    return;
  }
  gpu_ = std::move(*gpu);
  set_condition("gpu", gpu_->conditions());
}

void GpuRunner::kernel(const std::string& name, KernelOptions options, const LaunchFn& launch) {
  if (!gpu_ || !should_run(name)) return;
  options.stop = stopping_rule();
  record(gpu_->run(name, options, launch));
}

void GpuRunner::kernel(const std::string& name, const Work& work, const LaunchFn& launch) {
  kernel(name, KernelOptions::cold(work), launch);
}

}  // namespace perfhound::bench::cuda
