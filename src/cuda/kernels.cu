#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "cuda/kernels.h"

namespace perfhound::cuda {
namespace {

// Grid-stride loop over 16-byte vectors, four independent loads in flight per thread per step so each SM
// keeps enough bytes outstanding to cover DRAM latency.
__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const int4 a = src[i];
    const int4 b = src[i + stride];
    const int4 c = src[i + 2 * stride];
    const int4 d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__device__ __forceinline__ unsigned sum4(const int4 v) {
  return static_cast<unsigned>(v.x) + static_cast<unsigned>(v.y) + static_cast<unsigned>(v.z) + static_cast<unsigned>(v.w);
}

__global__ void read_kernel(const int4* __restrict__ src, std::size_t n, unsigned* __restrict__ out) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t i = tid;
  unsigned acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    acc0 += sum4(src[i]);
    acc1 += sum4(src[i + stride]);
    acc2 += sum4(src[i + 2 * stride]);
    acc3 += sum4(src[i + 3 * stride]);
  }
  for (; i < n; i += stride) acc0 += sum4(src[i]);
  out[tid] = acc0 + acc1 + acc2 + acc3;
}

__global__ void write_kernel(int4* __restrict__ dst, std::size_t n, unsigned value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const int v = static_cast<int>(value);
  const int4 w = make_int4(v, v, v, v);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = w;
}

__global__ void fma_kernel(float* __restrict__ out, int iterations, float b, float c) {
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float x[kFmaChains];
#pragma unroll
  for (int j = 0; j < kFmaChains; ++j) x[j] = static_cast<float>(tid % 97) * 1e-3f + static_cast<float>(j);
  for (int it = 0; it < iterations; it += 4) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int j = 0; j < kFmaChains; ++j) x[j] = fmaf(x[j], b, c);
    }
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < kFmaChains; ++j) s += x[j];
  out[tid] = s;
}

__global__ void empty_kernel() {}

// splitmix64 (Steele, Lea, Flood 2014; the finalizer of java.util.SplittableRandom): a counter-based hash,
// so every element is independent of the launch shape.
__host__ __device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__host__ __device__ __forceinline__ float uniform_value(std::uint64_t seed, std::size_t index) {
  const std::uint64_t h = splitmix64(seed * 0x100000001B3ull + index);
  const float u = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // 24 bits: [0, 1)
  const float magnitude = 1.0f / 64 + u * (63.0f / 64);
  return (h & 1) ? -magnitude : magnitude;
}

template <class T>
__device__ __forceinline__ T convert(float v);
template <>
__device__ __forceinline__ float convert<float>(float v) { return v; }
template <>
__device__ __forceinline__ __nv_bfloat16 convert<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <>
__device__ __forceinline__ __half convert<__half>(float v) { return __float2half(v); }
template <>
__device__ __forceinline__ __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }

template <class T>
__global__ void fill_kernel(T* __restrict__ dst, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    dst[i] = convert<T>(uniform_value(seed, i));
  }
}

template <class T>
__global__ void to_float_kernel(const T* __restrict__ src, std::size_t n, float* __restrict__ dst) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    dst[i] = static_cast<float>(src[i]);
  }
}

unsigned blocks_for(std::size_t n, int threads) {
  const std::size_t blocks = (n + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
  return static_cast<unsigned>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
}

}  // namespace

cudaError_t bandwidth_grid(int sm_count, int* grid) {
  int per_sm = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_kernel, kBandwidthThreads, 0);
  if (e != cudaSuccess) return e;
  *grid = sm_count * (per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

cudaError_t fma_grid(int sm_count, int* grid) {
  int per_sm = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_kernel, kFmaThreads, 0);
  if (e != cudaSuccess) return e;
  *grid = sm_count * (per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

cudaError_t launch_copy(const void* src, void* dst, std::size_t bytes, int grid, cudaStream_t stream) {
  copy_kernel<<<grid, kBandwidthThreads, 0, stream>>>(static_cast<const int4*>(src), static_cast<int4*>(dst), bytes / 16);
  return cudaGetLastError();
}

cudaError_t launch_read(const void* src, std::size_t bytes, std::uint32_t* out, int grid, cudaStream_t stream) {
  read_kernel<<<grid, kBandwidthThreads, 0, stream>>>(static_cast<const int4*>(src), bytes / 16, out);
  return cudaGetLastError();
}

cudaError_t launch_write(void* dst, std::size_t bytes, std::uint32_t value, int grid, cudaStream_t stream) {
  write_kernel<<<grid, kBandwidthThreads, 0, stream>>>(static_cast<int4*>(dst), bytes / 16, value);
  return cudaGetLastError();
}

cudaError_t launch_fma(float* out, int iterations, float b, float c, int grid, cudaStream_t stream) {
  fma_kernel<<<grid, kFmaThreads, 0, stream>>>(out, iterations, b, c);
  return cudaGetLastError();
}

cudaError_t launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_fill_uniform(void* dst, std::size_t n, FillType type, std::uint64_t seed, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const unsigned blocks = blocks_for(n, kThreads);
  switch (type) {
    case FillType::kFloat32: fill_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(dst), n, seed); break;
    case FillType::kBfloat16:
      fill_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), n, seed);
      break;
    case FillType::kFloat16: fill_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(dst), n, seed); break;
    case FillType::kFp8E4m3:
      fill_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(dst), n, seed);
      break;
  }
  return cudaGetLastError();
}

cudaError_t launch_to_float(const void* src, std::size_t n, FillType type, float* dst, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const unsigned blocks = blocks_for(n, kThreads);
  switch (type) {
    case FillType::kFloat32: to_float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(src), n, dst); break;
    case FillType::kBfloat16:
      to_float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(src), n, dst);
      break;
    case FillType::kFloat16: to_float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(src), n, dst); break;
    case FillType::kFp8E4m3:
      to_float_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_fp8_e4m3*>(src), n, dst);
      break;
  }
  return cudaGetLastError();
}

float fill_uniform_value(std::uint64_t seed, std::size_t index) { return uniform_value(seed, index); }

}  // namespace perfhound::cuda
