// End to end on the five real H200 traces: import, every analysis, the verdict. Utilization is checked
// against tests/data/traces/h200/reference_figures.txt (an independent Python computation, exact ns); the
// verdicts are the ones a performance engineer gives for these workloads (tests/data/traces/h200/README.md).
#include "trace/trace_analysis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace/importer.h"

namespace perfhound::trace {
namespace {

using ::testing::HasSubstr;

const std::string kH200 = std::string(PERFHOUND_TEST_DATA) + "/traces/h200/";

struct Expected {
  const char* file;
  std::int64_t busy_ns, active_start_ns, active_end_ns;
  std::uint64_t busy_blocks;
  BottleneckKind verdict;
};
constexpr Expected kExpected[] = {
    // 64 tiny fp32 matmuls per iteration, eager: 10.8% busy, the host launching: CUDA Graphs.
    {"small_ops_eager.json.gz", 14654110, 5359686596249990, 5359686732531408, 5120, BottleneckKind::kLaunchBound},
    // The same replayed as a CUDA Graph: 85.8% busy; what is left is the kernels (an fp32 SIMT GEMM).
    {"small_ops_cudagraph.json.gz", 15172478, 5359687510702472, 5359687528385945, 5120, BottleneckKind::kKernelBound},
    // 256 MiB pageable copies each way: the GPU is "busy" 98.8%, but 99.8% of it is PCIe copies at 6-7 GB/s.
    {"pageable_memcpy.json.gz", 414109288, 5359688581303802, 5359689000345916, 15, BottleneckKind::kDataMovement},
    // Batch-1 decode in eager HF transformers: 4.7% busy, ~11k tiny kernels: the textbook launch-bound decode.
    {"llama1b_decode_bs1.json.gz", 28581795, 5359713015498683, 5359713622665530, 11668, BottleneckKind::kLaunchBound},
    // One 8x1024-token prefill: 89.8% busy, bf16 GEMMs dominate: profile the top GEMM with ncu.
    {"llama1b_prefill_bs8x1024.json.gz", 33724030, 5359716766410182, 5359716803951747, 759,
     BottleneckKind::kKernelBound},
};

TEST(TraceAnalysisOnH200Traces, UtilizationMatchesTheReferenceAndVerdictsAreRight) {
  for (const auto& e : kExpected) {
    SCOPED_TRACE(e.file);
    auto t = import_trace(kH200 + e.file);
    ASSERT_TRUE(t.ok()) << t.error().message;
    const TraceAnalysis a = analyze_trace(*t);
    ASSERT_EQ(a.utilization.devices.size(), 1u);
    const auto& d = a.utilization.devices[0];
    EXPECT_EQ(d.busy_ns, e.busy_ns);
    EXPECT_EQ(d.active_start_ns, e.active_start_ns);
    EXPECT_EQ(d.active_end_ns, e.active_end_ns);
    EXPECT_EQ(d.busy_block_count, e.busy_blocks);
    EXPECT_EQ(d.active_idle_ns, (e.active_end_ns - e.active_start_ns) - e.busy_ns);
    EXPECT_DOUBLE_EQ(d.active_busy_ratio,
                     static_cast<double>(e.busy_ns) / static_cast<double>(e.active_end_ns - e.active_start_ns));
    EXPECT_EQ(a.verdict.kind, e.verdict) << a.verdict.summary;
    EXPECT_FALSE(a.verdict.evidence.empty());
    EXPECT_FALSE(a.verdict.next_steps.empty());
  }
}

TEST(TraceAnalysisOnH200Traces, VerdictsNameTheRightFixes) {
  auto eager = import_trace(kH200 + "small_ops_eager.json.gz");
  ASSERT_TRUE(eager.ok());
  const auto e = analyze_trace(*eager);
  EXPECT_THAT(e.verdict.summary, HasSubstr("idle 89.2% of its active span"));  // 1 - 0.107528
  EXPECT_THAT(e.verdict.next_steps.front(), HasSubstr("CUDA Graph"));

  auto graph = import_trace(kH200 + "small_ops_cudagraph.json.gz");
  ASSERT_TRUE(graph.ok());
  const auto g = analyze_trace(*graph);
  EXPECT_THAT(g.verdict.dominant_kernel, HasSubstr("cutlass_80_simt_sgemm_64x64_8x5_nn_align1"));
  // 9860831 ns of 15172478 ns kernel time (reference_figures.txt top kernel).
  EXPECT_NEAR(g.verdict.dominant_kernel_share, 9860831.0 / 15172478.0, 1e-12);
  EXPECT_THAT(g.verdict.next_steps.back(), HasSubstr("TF32 or BF16"));
  // Every gap inside a graph replay was queued work: nothing for the host to fix.
  EXPECT_EQ(g.gaps.devices[0].categories[static_cast<std::size_t>(HostCategory::kQueued)].idle_ns,
            g.gaps.devices[0].idle_ns);

  auto copies = import_trace(kH200 + "pageable_memcpy.json.gz");
  ASSERT_TRUE(copies.ok());
  const auto c = analyze_trace(*copies);
  EXPECT_THAT(c.verdict.next_steps.front(), HasSubstr("pin the host buffers"));

  auto prefill = import_trace(kH200 + "llama1b_prefill_bs8x1024.json.gz");
  ASSERT_TRUE(prefill.ok());
  const auto p = analyze_trace(*prefill);
  EXPECT_THAT(p.verdict.summary, HasSubstr("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT"));
  EXPECT_NEAR(p.verdict.dominant_kernel_share, 14972140.0 / 33625117.0, 1e-12);
}

TEST(TraceAnalysisJson, VerdictFirstAndSecondsAsUnits) {
  auto t = import_trace(kH200 + "pageable_memcpy.json.gz");
  ASSERT_TRUE(t.ok());
  const auto j = to_json(analyze_trace(*t));
  EXPECT_EQ(j.begin().key(), "verdict");
  EXPECT_EQ(j["verdict"]["bottleneck"], "data-movement");
  EXPECT_EQ(j["verdict"]["class"], "bandwidth");
  EXPECT_DOUBLE_EQ(j["utilization"]["devices"][0]["busy_s"].get<double>(), 414109288e-9);
}

}  // namespace
}  // namespace perfhound::trace
