// The probe's kernels, GEMM and whole run on a real GPU; every test skips without one. Expected values come
// from host references computed here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "cuda/device_checks.h"
#include "cuda/probe_report.h"
#include "cuda/probe_runner.h"
#include "hw/chip_spec.h"

namespace perfhound::cuda {
namespace {

#define SKIP_WITHOUT_GPU()                                                                    \
  do {                                                                                        \
    const auto count = cuda_device_count();                                                   \
    if (!count.ok()) GTEST_SKIP() << "no CUDA device: " << count.error().message;             \
    if (*count == 0) GTEST_SKIP() << "no CUDA device: cudaGetDeviceCount returned 0";         \
  } while (0)

TEST(ProbeGpu, CopyKernelCopiesEveryByte) {
  SKIP_WITHOUT_GPU();
  // 3 MiB + 48 bytes: more than one grid stride, and a tail that is not a multiple of four strides.
  std::vector<std::uint8_t> in((3u << 20) + 48);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>((i * 131 + 7) % 251);
  const auto out = run_copy_kernel(0, in);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(*out, in);
}

TEST(ProbeGpu, ReadKernelReadsEveryWord) {
  SKIP_WITHOUT_GPU();
  std::vector<std::uint32_t> in((1u << 20) + 12);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint32_t>(i * 2654435761u);
  const std::uint32_t expected = std::accumulate(in.begin(), in.end(), std::uint32_t{0});
  const auto sum = run_read_kernel(0, in);
  ASSERT_TRUE(sum.ok()) << sum.error().message;
  EXPECT_EQ(*sum, expected);
}

TEST(ProbeGpu, WriteKernelWritesEveryWord) {
  SKIP_WITHOUT_GPU();
  const auto out = run_write_kernel(0, (1u << 20) + 4, 0x3f800000u);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(std::count(out->begin(), out->end(), 0x3f800000u), static_cast<std::ptrdiff_t>(out->size()));
}

TEST(ProbeGpu, FmaKernelRunsEveryIteration) {
  SKIP_WITHOUT_GPU();
  // b = 1, c = 1: each of the 8 chains ends at its start + 4096, start = (tid % 97) * 1e-3 + j.
  const auto out = run_fma_kernel(0, 4096, 1.0f, 1.0f);
  ASSERT_TRUE(out.ok()) << out.error().message;
  for (std::size_t tid = 0; tid < out->size(); ++tid) {
    const double expected = 8 * ((tid % 97) * 1e-3 + 4096) + 28;  // 0 + 1 + ... + 7 = 28
    EXPECT_NEAR((*out)[tid], expected, 0.05) << tid;
  }
}

TEST(ProbeGpu, FillIsUniformAndNeverZero) {
  SKIP_WITHOUT_GPU();
  const auto v = run_fill_uniform(0, 1u << 20, 11);
  ASSERT_TRUE(v.ok()) << v.error().message;
  double sum = 0;
  for (const float x : *v) {
    ASSERT_GE(std::fabs(x), 1.0f / 64);
    ASSERT_LT(std::fabs(x), 1.0f);
    sum += x;
  }
  EXPECT_NEAR(sum / static_cast<double>(v->size()), 0.0, 0.01);
  const auto again = run_fill_uniform(0, 1u << 20, 11);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*v, *again);
}

TEST(ProbeGpu, GemmMatchesAHostReference) {
  SKIP_WITHOUT_GPU();
  const auto cc = compute_capability(0);
  ASSERT_TRUE(cc.ok()) << cc.error().message;
  for (const GemmDtype dtype : kAllGemmDtypes) {
    if (dtype == GemmDtype::kFp8E4m3 && cc->first * 10 + cc->second < 89) continue;
    SCOPED_TRACE(std::string(gemm_dtype_name(dtype)));
    // m, n, k all different, so a transposed or mis-strided operand cannot pass.
    const int m = 128, n = 192, k = 256;
    const auto g = run_small_gemm(0, dtype, m, n, k);
    ASSERT_TRUE(g.ok()) << g.error().message;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double ref = 0, scale = 0;
        for (int l = 0; l < k; ++l) {
          const double p = static_cast<double>(g->a[l + i * k]) * g->b[l + j * k];
          ref += p;
          scale += std::fabs(p);
        }
        // Output rounding (bf16: 2^-8 relative) and tf32 input rounding (2^-11) stay well inside 1% of sum |a b|.
        ASSERT_NEAR(g->d[i + j * m], ref, 0.01 * scale) << "D[" << i << "," << j << "]";
      }
    }
  }
}

TEST(ProbeGpu, QuickProbeGivesSaneFigures) {
  SKIP_WITHOUT_GPU();
  const auto r = run_probe({0, true, 1, 3}, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const double peak = r->device.memory_peak_bytes_per_s();
  for (const char* key : {"copy_memcpy", "copy_kernel", "read", "write"}) {
    const ProbeFigure* f = r->find(key);
    ASSERT_NE(f, nullptr) << key;
    EXPECT_GT(f->summary.median, 1e9) << key;
    // copy counts read + written, so it may approach twice the one-way DRAM peak, never more.
    EXPECT_LT(f->summary.median, peak > 0 ? 2.05 * peak : 20e12) << key;
    EXPECT_EQ(f->summary.repeats, 3u);
  }
  const ProbeFigure* bf16 = r->find("bf16_gemm");
  ASSERT_NE(bf16, nullptr);
  ASSERT_TRUE(bf16->measured()) << bf16->unsupported;
  EXPECT_GT(bf16->summary.median, 1e12);
  EXPECT_LT(bf16->summary.median, 5e15);
  for (const char* key : {"bf16_gemm", "fp16_gemm", "tf32_gemm", "fp32_fma"}) {
    const ProbeFigure* f = r->find(key);
    ASSERT_NE(f, nullptr) << key;
    ASSERT_TRUE(f->measured()) << key << ": " << f->unsupported;
    EXPECT_GT(f->summary.median, 1e12) << key;  // any datacenter GPU since Volta does over a TFLOP/s in each
    EXPECT_LT(f->summary.median, 5e15) << key;
  }
  // tf32 runs at half bf16's tensor rate on Ampere and Hopper (dense): well below it, whatever the clocks.
  EXPECT_LT(r->find("tf32_gemm")->summary.median, 0.75 * r->find("bf16_gemm")->summary.median);
  for (const char* key : {"h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable"}) {
    const ProbeFigure* f = r->find(key);
    ASSERT_NE(f, nullptr) << key;
    ASSERT_TRUE(f->measured()) << key;
    EXPECT_GT(f->summary.median, 1e9) << key;    // PCIe 3 x16 and up, or NVLink-C2C
    EXPECT_LT(f->summary.median, 1e12) << key;   // under NVLink-C2C's 900 GB/s
  }
  const ProbeFigure* launch = r->find("kernel_launch");
  ASSERT_NE(launch, nullptr);
  EXPECT_GT(launch->summary.median, 0);
  EXPECT_LT(launch->summary.median, 1e-3);
  // One launch waited for takes at least as long as one of many back to back, which overlap each other.
  const ProbeFigure* round_trip = r->find("kernel_launch_round_trip");
  ASSERT_NE(round_trip, nullptr);
  EXPECT_GE(round_trip->summary.median, launch->summary.median);
  EXPECT_LT(round_trip->summary.median, 1e-3);
  // A graph's kernel nodes launch for less each than kernels launched one by one: what graphs are for.
  const ProbeFigure* per_node = r->find("graph_launch_per_node");
  ASSERT_NE(per_node, nullptr);
  EXPECT_GT(per_node->summary.median, 0);
  EXPECT_LT(per_node->summary.median, launch->summary.median);
  const auto chip = probe_chip_json(*r, core::Conditions::capture(0, nullptr), std::nullopt);
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  const auto spec = hw::chip_spec_from_json(nlohmann::json::parse(chip->dump()), "probe");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_TRUE(hw::memory_roof(*spec).measured);
}

}  // namespace
}  // namespace perfhound::cuda
