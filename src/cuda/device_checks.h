// Small synchronous runs of the probe's kernels and GEMM on host data, so tests can compare what the GPU
// computed with a host reference (tests/cuda/probe_kernels_gpu_test.cpp). Plain C++ API. Each call sets
// `device`, allocates, runs, copies back and frees; errors name the CUDA or cuBLASLt call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/result.h"
#include "cuda/gemm_dtype.h"

namespace perfhound::cuda {

// (cuda_device_count() is in cuda/probe_runner.h.)
// The device's compute capability, e.g. {9, 0}.
core::Result<std::pair<int, int>> compute_capability(int device);

// The copy kernel over `input` (size a multiple of 16 bytes): the bytes it wrote.
core::Result<std::vector<std::uint8_t>> run_copy_kernel(int device, std::span<const std::uint8_t> input);
// The read kernel over `input` (size a multiple of 4 words): the wrap-around sum of its per-thread sums,
// which equals the wrap-around sum of the words.
core::Result<std::uint32_t> run_read_kernel(int device, std::span<const std::uint32_t> input);
// The write kernel: `words` (a multiple of 4) 32-bit words it wrote with `value`.
core::Result<std::vector<std::uint32_t>> run_write_kernel(int device, std::size_t words, std::uint32_t value);
// The FMA kernel with one block: each thread's stored sum.
core::Result<std::vector<float>> run_fma_kernel(int device, int iterations, float b, float c);
// launch_fill_uniform into fp32 and back: the values the GEMM inputs are drawn from.
core::Result<std::vector<float>> run_fill_uniform(int device, std::size_t n, std::uint64_t seed);

struct SmallGemm {
  int m = 0, n = 0, k = 0;
  std::vector<float> a;  // k x m column-major, as the GPU holds it (already rounded to the input type)
  std::vector<float> b;  // k x n column-major
  std::vector<float> d;  // m x n column-major, the GPU's result: d[i + j m] = sum_l a[l + i k] b[l + j k]
};
// The probe's cuBLASLt GEMM (LtGemm, the same setup the probe times) on hash-filled inputs.
core::Result<SmallGemm> run_small_gemm(int device, GemmDtype dtype, int m, int n, int k);

}  // namespace perfhound::cuda
