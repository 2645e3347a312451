// A naive and a shared-memory tiled fp32 GEMM (C = A B, n x n, row-major) under perfhound::bench, cold:
// what tiling buys in FLOP/s. Compare two runs' JSON with perfhound compare. docs/bench.md.
#include "bench/cuda/gpu_runner.h"
namespace bench = perfhound::bench;
constexpr int kTile = 32, kN = 4096;  // kN: the matrices' side, a multiple of kTile
__global__ void naive(const float* a, const float* b, float* c, int n) {
  const int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
__global__ void tiled(const float* a, const float* b, float* c, int n) {
  __shared__ float as[kTile][kTile], bs[kTile][kTile];
  const int ty = threadIdx.y, tx = threadIdx.x, row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  float acc = 0;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    as[ty][tx] = a[row * n + k0 + tx], bs[ty][tx] = b[(k0 + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

int main(int argc, char** argv) {
  bench::cuda::GpuRunner runner("naive vs tiled GEMM", argc, argv);
  if (runner.should_exit()) return runner.exit_code();
  constexpr size_t bytes = size_t{kN} * kN * sizeof(float);
  float *a, *b, *c;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess || cudaMalloc(&c, bytes) != cudaSuccess) return runner.fail("cudaMalloc failed");
  cudaMemset(a, 0x3f, bytes), cudaMemset(b, 0x3f, bytes);  // 0x3f3f3f3f = 0.747f: never zero
  runner.set_condition("gemm", {{"n", kN}, {"dtype", "fp32"}, {"layout", "row-major"}});
  const auto work = bench::Work::flop_done(2.0 * kN * kN * kN);
  const dim3 grid(kN / kTile, kN / kTile), block(kTile, kTile);
  runner.kernel("naive", work, [&](const bench::cuda::Launch& l) { naive<<<grid, block, 0, l.stream>>>(a, b, c, kN); });
  runner.kernel("tiled 32x32", work, [&](const bench::cuda::Launch& l) { tiled<<<grid, block, 0, l.stream>>>(a, b, c, kN); });
  cudaFree(a), cudaFree(b), cudaFree(c);
  return runner.finish();
}
