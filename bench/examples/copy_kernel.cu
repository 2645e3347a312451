// A copy kernel under perfhound::bench: cold (L2 flushed), hot (L2 warm) and hot with input copies rotated
// (DRAM again, without the flush), at a size that fits in L2 and at one that does not. docs/bench.md.
#include <string>
#include <vector>

#include "bench/cuda/gpu_runner.h"

namespace bench = perfhound::bench;

__global__ void copy(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) dst[i] = src[i];
}

int main(int argc, char** argv) {
  bench::cuda::GpuRunner runner("copy kernel", argc, argv);
  if (runner.should_exit()) return runner.exit_code();
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, runner.device());
  for (const size_t bytes : {size_t{16} << 20, size_t{1} << 30}) {
    const int copies = runner.gpu().rotations_for(2 * static_cast<std::int64_t>(bytes));
    std::vector<int4*> src(copies), dst(copies);
    for (int c = 0; c < copies; ++c) {
      if (cudaMalloc(&src[c], bytes) != cudaSuccess || cudaMalloc(&dst[c], bytes) != cudaSuccess) return runner.fail("cudaMalloc failed");
      cudaMemset(src[c], 1, bytes);
    }
    const auto launch = [&](const bench::cuda::Launch& l) { copy<<<sms * 8, 256, 0, l.stream>>>(src[l.rotation], dst[l.rotation], bytes / 16); };
    const auto work = bench::Work::bytes_moved(2.0 * static_cast<double>(bytes));  // read once, written once
    const std::string size = std::to_string(bytes >> 20) + " MiB";
    runner.kernel("copy " + size + " cold", work, launch);
    runner.kernel("copy " + size + " hot", bench::cuda::KernelOptions::hot(work), launch);
    if (copies > 1) {
      runner.kernel("copy " + size + " hot, " + std::to_string(copies) + " copies", bench::cuda::KernelOptions::hot(work, copies), launch);
    }
    for (int c = 0; c < copies; ++c) cudaFree(src[c]), cudaFree(dst[c]);
  }
  return runner.finish();
}
