// The kernel that holds a stream while a sample's launches queue behind it (nvbench's "blocking kernel"):
// it spins on a flag in mapped pinned host memory until the host sets it, so the start event, the launch
// and the stop event reach the GPU together and the host's submission time stays out of the sample.
// A timeout releases it on its own (a launch that synchronizes would otherwise deadlock) and says so.
// Internal to src/bench/cuda.
#pragma once

#include <cstdint>
#include <cuda_runtime_api.h>

namespace perfhound::bench::cuda {

// Spins until *release != 0 or `timeout_ns` of the GPU's global timer has passed; on the timeout it sets
// *timed_out = 1. Both pointers are device views of mapped pinned host memory.
cudaError_t launch_stream_gate(const volatile int* release, int* timed_out, std::uint64_t timeout_ns,
                               cudaStream_t stream);

}  // namespace perfhound::bench::cuda
