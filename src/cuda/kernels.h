// The probe's kernels, as host-side launchers (kernels.cu). Internal to src/cuda: it carries CUDA runtime
// types, so only the probe's own sources include it. Every launcher returns cudaGetLastError() after the
// launch; sizes are in bytes and must be multiples of 16 (one int4 per thread and step).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

namespace perfhound::cuda {

inline constexpr int kBandwidthThreads = 256;
inline constexpr int kFmaThreads = 256;
inline constexpr int kFmaChains = 8;  // independent dependent-FMA chains per thread (instruction-level parallelism)

// Blocks for the bandwidth kernels: the occupancy limit of the copy kernel per SM x SMs (a grid-stride loop
// then covers any size with every SM busy).
cudaError_t bandwidth_grid(int sm_count, int* grid);
// Blocks for the FMA kernel: the occupancy limit per SM x SMs.
cudaError_t fma_grid(int sm_count, int* grid);

// dst[i] = src[i] over `bytes`, 16-byte vectors, grid-stride.
cudaError_t launch_copy(const void* src, void* dst, std::size_t bytes, int grid, cudaStream_t stream);
// Reads `bytes` and stores each thread's 32-bit wrap-around sum of the words it read in
// out[thread] (grid * kBandwidthThreads entries), so the loads cannot be removed.
cudaError_t launch_read(const void* src, std::size_t bytes, std::uint32_t* out, int grid, cudaStream_t stream);
// Writes `value` to every 32-bit word of `bytes`.
cudaError_t launch_write(void* dst, std::size_t bytes, std::uint32_t value, int grid, cudaStream_t stream);
// Each of grid * kFmaThreads threads runs kFmaChains chains of `iterations` dependent x = fma(x, b, c) and
// stores the chains' sum in out[thread]: iterations * kFmaChains FMA per thread.
cudaError_t launch_fma(float* out, int iterations, float b, float c, int grid, cudaStream_t stream);
// An empty kernel, one block of one thread: what a launch costs with no work.
cudaError_t launch_empty(cudaStream_t stream);

enum class FillType { kFloat32, kBfloat16, kFloat16, kFp8E4m3 };
// n elements of `type`, a counter hash of (seed, index): uniform magnitude in [1/64, 1) with a random sign,
// so never zero (zeros make tensor cores look faster) and exact-enough in every type (fp8 e4m3 included).
cudaError_t launch_fill_uniform(void* dst, std::size_t n, FillType type, std::uint64_t seed, cudaStream_t stream);
// dst[i] = (float)src[i] for n elements of `type` (test read-back of bf16 / fp16 / fp8 buffers).
cudaError_t launch_to_float(const void* src, std::size_t n, FillType type, float* dst, cudaStream_t stream);
// The value launch_fill_uniform stores for `index` before rounding to the type (host copy, for tests).
float fill_uniform_value(std::uint64_t seed, std::size_t index);

}  // namespace perfhound::cuda
