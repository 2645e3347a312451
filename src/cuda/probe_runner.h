// `perfhound probe`'s measurement: every figure on one GPU, or an error naming the CUDA call that failed
// and cudaGetErrorString. Built from probe_runner.cpp where CMake found nvcc, else from
// probe_runner_stub.cpp, whose run_probe always returns the "built without CUDA" error. Plain C++ API.
#pragma once

#include <iosfwd>

#include "core/result.h"
#include "cuda/probe_result.h"

namespace perfhound::cuda {

struct ProbeOptions {
  int device = 0;
  bool quick = false;  // 1 GiB bandwidth buffers, 4096^3 GEMMs, fewer repeats
  int warmup = 0;      // 0: the default for the mode (5, quick 2)
  int repeats = 0;     // 0: the default for the mode (20, quick 10)
};

// True when this binary has the CUDA probes (nvcc was found at configure time).
bool built_with_cuda();

// cudaGetDeviceCount: the number of CUDA devices, or the runtime's error as "cudaGetDeviceCount: ..." (no
// driver, no device); without CUDA the "built without CUDA" error.
core::Result<int> cuda_device_count();

// Runs every figure; writes one progress line per figure to `progress` (may be null). A figure the GPU or
// library cannot do (fp8 before compute capability 8.9, a refused cuBLASLt setup) is recorded as
// unsupported, not an error.
core::Result<ProbeResult> run_probe(const ProbeOptions& options, std::ostream* progress);

}  // namespace perfhound::cuda
