#include "bench/cuda/stream_gate.h"

namespace perfhound::bench::cuda {
namespace {

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void stream_gate(const volatile int* release, int* timed_out, std::uint64_t timeout_ns) {
  const std::uint64_t start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(500);  // poll the host flag every half microsecond, not as fast as PCIe allows
  }
}

}  // namespace

cudaError_t launch_stream_gate(const volatile int* release, int* timed_out, std::uint64_t timeout_ns,
                               cudaStream_t stream) {
  stream_gate<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  return cudaGetLastError();
}

}  // namespace perfhound::bench::cuda
