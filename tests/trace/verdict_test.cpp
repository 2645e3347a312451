// The verdict over hand-built timelines: one timeline per branch of decide_verdict, each threshold at its
// boundary, and the JSON form. Every expected number is worked out in the comment above it from the
// timeline's own intervals (ns), never read back from perfhound's output.
#include "trace/verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_analysis.h"
#include "trace/timeline.h"

namespace perfhound::trace {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kGemm = "void gemm_kernel<float, 128>(const float*, float*, int)";
constexpr std::string_view kNccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
constexpr std::string_view kNvjet = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT";
constexpr std::string_view kElementwise = "void at::native::vectorized_elementwise_kernel<4>(int, float*)";
constexpr std::string_view kReduce = "void at::native::reduce_kernel<512, 1>(float*)";
constexpr std::string_view kSimtSgemm =
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sgemm_64x64_8x5_nn_align1::"
    "Params)";

// A timeline under construction; analyze() finalizes it the way an importer does and runs every analysis.
struct Builder {
  Timeline t;

  GpuActivity& kernel(std::string_view name, std::int64_t start_ns, std::int64_t dur_ns, std::int64_t correlation = -1,
                      std::int64_t stream = 7, std::int32_t device = 0) {
    GpuActivity a;
    a.kind = GpuKind::kKernel;
    a.name = t.strings.intern(name);
    a.start_ns = start_ns;
    a.dur_ns = dur_ns;
    a.correlation = correlation;
    a.stream = stream;
    a.device = device;
    t.gpu.push_back(a);
    return t.gpu.back();
  }

  void copy(CopyDirection direction, MemoryKind host_memory, std::int64_t start_ns, std::int64_t dur_ns,
            std::uint64_t bytes, std::int64_t correlation = -1) {
    GpuActivity a;
    a.kind = GpuKind::kMemcpy;
    a.direction = direction;
    const bool to_device = direction == CopyDirection::kHostToDevice;
    a.src_memory = to_device ? host_memory : MemoryKind::kDevice;
    a.dst_memory = to_device ? MemoryKind::kDevice : host_memory;
    a.name = t.strings.intern(to_device ? "Memcpy HtoD" : "Memcpy DtoH");
    a.start_ns = start_ns;
    a.dur_ns = dur_ns;
    a.bytes = bytes;
    a.correlation = correlation;
    a.stream = 7;
    t.gpu.push_back(a);
  }

  void host(HostKind kind, std::string_view name, std::int64_t start_ns, std::int64_t dur_ns,
            std::int64_t correlation = -1) {
    HostEvent e;
    e.kind = kind;
    e.name = t.strings.intern(name);
    e.start_ns = start_ns;
    e.dur_ns = dur_ns;
    e.pid = 1;
    e.tid = 1;
    e.correlation = correlation;
    t.host.push_back(e);
  }

  TraceAnalysis analyze() {
    finalize_timeline(t);
    return analyze_trace(t);
  }
};

// The idle-gap shape shared by the overhead branches: kernels K1 [0,200) K2 [1000,1200) K3 [2000,2200) with
// correlation ids 1, 2, 3. Busy 600 ns of an active span of 2200 ns: 600/2200 = 27.27% busy, 72.73% idle,
// above kIdleMatters. Interior gaps [200,1000) and [1200,2000), 800 ns each, 1600 ns idle.
Builder three_kernels_two_gaps() {
  Builder b;
  b.kernel(kGemm, 0, 200, 1);
  b.kernel(kGemm, 1000, 200, 2);
  b.kernel(kGemm, 2000, 200, 3);
  return b;
}
constexpr const char* kThreeKernelsIdleLine =
    "GPU 0 busy 27.3% of its active span (600 ns of 2.20 us); 1.60 us idle in gaps between work";

TEST(BottleneckKindName, EveryKind) {
  EXPECT_EQ(bottleneck_kind_name(BottleneckKind::kLaunchBound), "launch-bound");
  EXPECT_EQ(bottleneck_kind_name(BottleneckKind::kSyncBound), "sync-bound");
  EXPECT_EQ(bottleneck_kind_name(BottleneckKind::kUntracedHost), "untraced-host");
  EXPECT_EQ(bottleneck_kind_name(BottleneckKind::kDeviceSideGaps), "device-side-gaps");
  EXPECT_EQ(bottleneck_kind_name(BottleneckKind::kDataMovement), "data-movement");
  EXPECT_EQ(bottleneck_kind_name(BottleneckKind::kCommunication), "communication");
  EXPECT_EQ(bottleneck_kind_name(BottleneckKind::kKernelBound), "kernel-bound");
  EXPECT_EQ(bottleneck_kind_name(static_cast<BottleneckKind>(200)), "unknown");
}

TEST(VerdictOverhead, LaunchCallsInTheGapsAreLaunchBound) {
  Builder b = three_kernels_two_gaps();
  // The launch calls of K2 and K3 cover the first 600 ns of each 800 ns gap and return after it began, so
  // the gaps are not queued: launch 1200 of 1600 idle ns. The trace has API calls and no framework operator,
  // so the other 200 ns of each gap (under 100 us, ended by a launch made during it) count as launch too
  // (gap_attribution.h kLaunchPathGapNs): launch 100%, and the evidence says how much was inferred.
  b.host(HostKind::kRuntime, "cudaLaunchKernel", 200, 600, 2);
  b.host(HostKind::kRuntime, "cudaLaunchKernel", 1200, 600, 3);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kLaunchBound);
  EXPECT_EQ(v.bottleneck_class, "overhead");
  EXPECT_EQ(v.device, 0);
  EXPECT_EQ(v.summary,
            "overhead-bound (launch): the GPU is idle 72.7% of its active span while the CPU is busy launching work");
  // 3 kernels, all 200 ns (< 10 us); 2 launch calls of 600 ns each. The window is [0, 2200], the active span:
  // no window note.
  EXPECT_THAT(v.evidence, ::testing::ElementsAre(
                              kThreeKernelsIdleLine, "idle time by what the host was doing: launch 100.0%",
                              "the trace has CUDA API calls but no framework operators: 400 ns of idle time in 2 gaps "
                              "under 100 us that ended with a launch made during them is host time between launch "
                              "calls the trace cannot see, counted as launch",
                              "3 kernels, 100.0% shorter than 10 us (100.0% of kernel time); 2 launch calls, each p50 600 ns / p99 600 ns"));
  ASSERT_EQ(v.next_steps.size(), 4u);
  EXPECT_THAT(v.next_steps[0], HasSubstr("CUDA Graph"));
  EXPECT_THAT(v.next_steps[1], HasSubstr("fuse small kernels"));
  EXPECT_THAT(v.next_steps[2], HasSubstr("raise the batch size"));
  // All three kernels share one name: it is the dominant kernel with all 600 ns of kernel time.
  EXPECT_EQ(v.dominant_kernel, kGemm);
  EXPECT_DOUBLE_EQ(v.dominant_kernel_share, 1.0);
}

TEST(VerdictOverhead, SynchronizeInTheGapsIsSyncBound) {
  Builder b = three_kernels_two_gaps();
  b.host(HostKind::kRuntime, "cudaStreamSynchronize", 200, 800);
  b.host(HostKind::kRuntime, "cudaStreamSynchronize", 1200, 800);
  // A framework op enclosing the first sync: sync ranks above launch, so the gap stays sync.
  b.host(HostKind::kCpuOp, "aten::item", 150, 900);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kSyncBound);
  EXPECT_EQ(v.bottleneck_class, "overhead");
  EXPECT_EQ(v.summary,
            "overhead-bound (synchronization): the GPU is idle 72.7% of its active span while the host waits in "
            "synchronize calls, serializing CPU and GPU");
  // The trace has API calls but no launch call of K2 or K3 (their correlations 2 and 3 have no API event), so
  // both gaps, all 1.60 us of idle time, are ones whose launch cannot be placed: the evidence says so.
  EXPECT_THAT(v.evidence,
              ::testing::ElementsAre(
                  kThreeKernelsIdleLine, "idle time by what the host was doing: sync 100.0%",
                  "1.60 us of idle time (100.0%) is in 2 gaps ended by work whose launch call is not in the trace "
                  "(libraries launch through the driver: cuBLASLt, cuDNN, Triton), so what the host was doing "
                  "cannot be tied to it; record the driver's launch calls too (perfhound record does unless --api "
                  "none; nsys --trace=cuda)"));
  ASSERT_EQ(v.next_steps.size(), 3u);
  EXPECT_THAT(v.next_steps[0], StartsWith("remove host synchronizations"));
}

TEST(VerdictOverhead, NoHostEventsInTheGapsIsUntracedHost) {
  Builder b = three_kernels_two_gaps();
  // A Python frame over everything says nothing about the gaps (it would explain all of them).
  b.host(HostKind::kPython, "<module>", 0, 2200);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kUntracedHost);
  EXPECT_EQ(v.bottleneck_class, "overhead");
  EXPECT_EQ(v.summary,
            "overhead-bound (host): the GPU is idle 72.7% of its active span while the host does something the "
            "trace did not record");
  EXPECT_THAT(v.evidence,
              ::testing::ElementsAre(kThreeKernelsIdleLine, "idle time by what the host was doing: nothing_recorded 100.0%"));
  ASSERT_EQ(v.next_steps.size(), 3u);
  EXPECT_THAT(v.next_steps[0], HasSubstr("record the host side too"));
}

TEST(VerdictOverhead, NoHostEventsAtAllSaysTheTraceHasNone) {
  Builder b = three_kernels_two_gaps();  // a GPU-only trace: nothing can say why the GPU idles
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kUntracedHost);
  EXPECT_EQ(v.bottleneck_class, "overhead");
  EXPECT_EQ(v.summary, "the GPU is idle 72.7% of its active span and the trace has no host events to say why");
  ASSERT_EQ(v.next_steps.size(), 1u);
  EXPECT_THAT(v.next_steps[0], StartsWith("record the host side"));
}

TEST(VerdictOverhead, WorkSubmittedBeforeTheGapIsDeviceSide) {
  Builder b = three_kernels_two_gaps();
  // K2's launch returned at 100 (<= 200, the gap's start), K3's at 1100 (<= 1200): both gaps were queued.
  b.host(HostKind::kRuntime, "cudaLaunchKernel", 50, 50, 2);
  b.host(HostKind::kRuntime, "cudaLaunchKernel", 1050, 50, 3);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kDeviceSideGaps);
  EXPECT_EQ(v.bottleneck_class, "overhead");
  EXPECT_EQ(v.summary,
            "device-side gaps: the GPU is idle 72.7% of its active span although the next work was already submitted");
  EXPECT_THAT(v.evidence, ::testing::ElementsAre(
                              kThreeKernelsIdleLine, "idle time by what the host was doing: queued 100.0%",
                              "3 kernels, 100.0% shorter than 10 us (100.0% of kernel time); 2 launch calls, each p50 50.0 ns / p99 50.0 ns"));
  ASSERT_EQ(v.next_steps.size(), 2u);
  EXPECT_EQ(v.next_steps[0], "fuse kernels so fewer dispatch gaps remain");
}

TEST(VerdictOverhead, GraphReplayGapsAreDeviceSideWithGraphEvidence) {
  Builder b;
  // One cudaGraphLaunch [50,100) with correlation 9 shared by all three kernels (a graph replay).
  b.kernel(kGemm, 0, 200, 9);
  b.kernel(kGemm, 1000, 200, 9);
  b.kernel(kGemm, 2000, 200, 9);
  b.host(HostKind::kRuntime, "cudaGraphLaunch", 50, 50, 9);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kDeviceSideGaps);
  // 1 launch call (the graph launch, 50 ns: three significant digits print "50.0 ns"); 3 kernels linked to it.
  EXPECT_THAT(v.evidence, ::testing::Contains(
                              "3 kernels, 100.0% shorter than 10 us (100.0% of kernel time); 1 launch calls, each p50 50.0 ns / p99 50.0 ns"));
  EXPECT_THAT(v.evidence, ::testing::Contains("1 CUDA Graph launches ran 3 kernels (3 per graph launch on average)"));
}

TEST(VerdictDataMovement, CopiesOfHalfTheBusyTimeDominateAndSlowPageableSaysPin) {
  Builder b;
  // Kernel [0,500), pageable HtoD copy [500,1000) of 5000 bytes: 5000 B / 500 ns = 10 GB/s (< 20 GB/s).
  // Busy 1000 of 1000 (no idle); the copy is 500 / 1000 = 50% of busy time: exactly kCopiesDominate.
  b.kernel(kGemm, 0, 500);
  b.copy(CopyDirection::kHostToDevice, MemoryKind::kPageable, 500, 500, 5000);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kDataMovement);
  EXPECT_EQ(v.bottleneck_class, "bandwidth");
  EXPECT_EQ(v.summary, "data-movement-bound: host<->device copies take 50.0% of GPU busy time");
  // 5000 B = 4.8828 KiB -> "4.88 KiB". No gaps, so no idle split line.
  EXPECT_THAT(v.evidence, ::testing::ElementsAre(
                              "GPU 0 busy 100.0% of its active span (1.00 us of 1.00 us); 0 ns idle in gaps between work",
                              "HtoD pageable copies: 1 x, 4.88 KiB in 500 ns, 10.0 GB/s"));
  ASSERT_EQ(v.next_steps.size(), 3u);
  EXPECT_THAT(v.next_steps[0], StartsWith("pin the host buffers"));
  EXPECT_THAT(v.next_steps[1], StartsWith("keep tensors on the device"));
  EXPECT_THAT(v.next_steps[2], StartsWith("overlap the remaining copies"));
}

TEST(VerdictDataMovement, JustBelowHalfTheBusyTimeIsNotDataMovement) {
  Builder b;
  // Kernel [0,501), copy [501,1000): 499 / 1000 = 49.9% of busy time, busy 100%: kernel-bound.
  b.kernel(kGemm, 0, 501);
  b.copy(CopyDirection::kHostToDevice, MemoryKind::kPageable, 501, 499, 5000);
  EXPECT_EQ(b.analyze().verdict.kind, BottleneckKind::kKernelBound);
}

bool says_pin(const Verdict& v) {
  return std::any_of(v.next_steps.begin(), v.next_steps.end(),
                     [](const std::string& s) { return s.starts_with("pin the host buffers"); });
}

TEST(VerdictDataMovement, PinAdviceOnlyForPageableCopiesSlowerThanTheThreshold) {
  struct Case {
    const char* what;
    CopyDirection direction;
    MemoryKind memory;
    std::uint64_t bytes;  // over 500 ns
    bool pin;
  };
  const Case cases[] = {
      // 5000 B / 500 ns = 10 GB/s, but pinned: pinning is not the fix.
      {"pinned, slow", CopyDirection::kHostToDevice, MemoryKind::kPinned, 5000, false},
      // 10000 B / 500 ns = 20 GB/s: exactly kSlowCopyBytesPerS, not slower than it.
      {"pageable at the threshold", CopyDirection::kHostToDevice, MemoryKind::kPageable, 10000, false},
      // 9999 B / 500 ns = 19.998 GB/s: just below.
      {"pageable just below", CopyDirection::kHostToDevice, MemoryKind::kPageable, 9999, true},
      // 20000 B / 500 ns = 40 GB/s.
      {"pageable, fast", CopyDirection::kHostToDevice, MemoryKind::kPageable, 20000, false},
      // The destination is the host side of a DtoH copy.
      {"pageable DtoH, slow", CopyDirection::kDeviceToHost, MemoryKind::kPageable, 5000, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Builder b;
    b.kernel(kGemm, 0, 500);
    b.copy(c.direction, c.memory, 500, 500, c.bytes);
    const Verdict v = b.analyze().verdict;
    ASSERT_EQ(v.kind, BottleneckKind::kDataMovement);
    EXPECT_EQ(says_pin(v), c.pin);
    EXPECT_EQ(v.next_steps.size(), c.pin ? 3u : 2u);
  }
}

TEST(VerdictDataMovement, GapsSpentInBlockingCopiesAreDataMovement) {
  Builder b;
  // K1 [0,200), pageable HtoD copy [900,1000) correlation 5, K2 [1000,1200). The host sits in cudaMemcpy
  // [200,1000) (returns after the gap began: not queued), covering the one gap [200,900).
  // Busy 200 + 100 + 200 = 500 of 1200: idle 700 / 1200 = 58.3%. Copies are only 100 / 500 = 20% of busy
  // time, below kCopiesDominate: it is the idle cause that decides, and the summary says so.
  b.kernel(kGemm, 0, 200);
  b.copy(CopyDirection::kHostToDevice, MemoryKind::kPageable, 900, 100, 1000, 5);
  b.kernel(kGemm, 1000, 200);
  b.host(HostKind::kRuntime, "cudaMemcpy", 200, 800, 5);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kDataMovement);
  EXPECT_EQ(v.summary,
            "data-movement-bound: the GPU is idle 58.3% of its active span while the host is blocked in copy calls");
  EXPECT_THAT(v.evidence, ::testing::Contains("idle time by what the host was doing: memcpy 100.0%"));
}

TEST(VerdictCommunication, ExposedCollectivesOverAFifthOfTheSpan) {
  Builder b;
  // Compute [0,600) on stream 7, all-reduce [500,1000) on stream 8. Busy union [0,1000): no idle.
  // Communication 500 ns, of which [500,600) = 100 ns overlaps compute: hidden 100 / 500 = 20%, exposed
  // 400 ns = 40% of the 1000 ns span; communication is 500 / 1000 = 50% of GPU busy time.
  b.kernel(kGemm, 0, 600);
  b.kernel(kNccl, 500, 500, -1, 8);
  const TraceAnalysis a = b.analyze();
  const Verdict& v = a.verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kCommunication);
  EXPECT_EQ(v.bottleneck_class, "bandwidth");
  EXPECT_EQ(v.summary, "communication-bound: 40.0% of the active span is communication not hidden behind compute");
  EXPECT_THAT(v.evidence, ::testing::ElementsAre(
                              "GPU 0 busy 100.0% of its active span (1.00 us of 1.00 us); 0 ns idle in gaps between work",
                              "communication kernels: 50.0% of GPU busy time, 20.0% of it overlapped with compute; "
                              "their time includes waiting for the other ranks (compare the ranks' traces)"));
  ASSERT_EQ(v.next_steps.size(), 3u);
  EXPECT_THAT(v.next_steps[0], StartsWith("overlap collectives with compute"));
  // The numbers behind the evidence line.
  EXPECT_EQ(a.communication.total.comm_busy_ns, 500);
  EXPECT_EQ(a.communication.total.hidden_ns, 100);
  EXPECT_EQ(a.communication.total.exposed_ns, 400);
}

TEST(VerdictCommunication, BoundaryOfExposedCommunication) {
  {
    // Compute [0,800), all-reduce [800,1000): exposed 200 / 1000 = 20%, exactly kExposedCommMatters.
    Builder b;
    b.kernel(kGemm, 0, 800);
    b.kernel(kNccl, 800, 200, -1, 8);
    const Verdict v = b.analyze().verdict;
    EXPECT_EQ(v.kind, BottleneckKind::kCommunication);
    EXPECT_EQ(v.summary, "communication-bound: 20.0% of the active span is communication not hidden behind compute");
  }
  {
    // Compute [0,801), all-reduce [801,1000): exposed 199 / 1000 = 19.9%: the GPU is busy, kernel-bound, and
    // the dominant kernel is the GEMM with 801 of 1000 kernel ns.
    Builder b;
    b.kernel(kGemm, 0, 801);
    b.kernel(kNccl, 801, 199, -1, 8);
    const Verdict v = b.analyze().verdict;
    EXPECT_EQ(v.kind, BottleneckKind::kKernelBound);
    EXPECT_EQ(v.dominant_kernel, kGemm);
    EXPECT_DOUBLE_EQ(v.dominant_kernel_share, 0.801);
  }
}

TEST(VerdictCommunication, GapsSpentInsideCollectivesAreCommunication) {
  Builder b = three_kernels_two_gaps();
  // The host is inside an NCCL range for both whole gaps; no communication kernel exists, so exposed
  // communication is 0: it is the idle cause that decides.
  b.host(HostKind::kUserAnnotation, "nccl:all_reduce", 200, 800);
  b.host(HostKind::kUserAnnotation, "nccl:all_reduce", 1200, 800);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kCommunication);
  EXPECT_THAT(v.summary, StartsWith("communication-bound: "));
  EXPECT_THAT(v.evidence, ::testing::Contains("idle time by what the host was doing: communication 100.0%"));
}

TEST(VerdictKernelBound, BusyGpuNamesTheDominantKernelAndFusionForMemoryBoundFamilies) {
  Builder b;
  // nvjet GEMM [0,700), elementwise [700,1000): busy 100%. Elementwise is 300 / 1000 = 30% of GPU time:
  // exactly kMemoryBoundFamiliesMatter. The GEMM has 700 / 1000 = 70% of kernel time.
  b.kernel(kNvjet, 0, 700);
  b.kernel(kElementwise, 700, 300);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.kind, BottleneckKind::kKernelBound);
  EXPECT_EQ(v.bottleneck_class, "compute or bandwidth");
  EXPECT_EQ(v.summary,
            "kernel-bound: the GPU is busy 100.0% of its active span; profile the dominant kernel with ncu: "
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT, 70.0% of kernel time");
  EXPECT_EQ(v.dominant_kernel, kNvjet);
  EXPECT_DOUBLE_EQ(v.dominant_kernel_share, 0.7);
  EXPECT_THAT(v.evidence, ::testing::ElementsAre(
                              "GPU 0 busy 100.0% of its active span (1.00 us of 1.00 us); 0 ns idle in gaps between work",
                              "elementwise and reduction kernels take 30.0% of GPU time: memory-bound by nature"));
  ASSERT_EQ(v.next_steps.size(), 2u);  // nvjet is a tensor-core GEMM: no TF32/BF16 step
  EXPECT_THAT(v.next_steps[0], StartsWith("ncu the dominant kernel (ncu --set roofline "));
  EXPECT_THAT(v.next_steps[0], HasSubstr(" -k regex:'nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT')"));
  EXPECT_THAT(v.next_steps[1], StartsWith("fuse the elementwise and reduction kernels"));
}

TEST(VerdictKernelBound, FusionStepThreshold) {
  {
    // Elementwise 290 / 1000 = 29%: below kMemoryBoundFamiliesMatter, only the ncu step.
    Builder b;
    b.kernel(kNvjet, 0, 710);
    b.kernel(kElementwise, 710, 290);
    const Verdict v = b.analyze().verdict;
    ASSERT_EQ(v.kind, BottleneckKind::kKernelBound);
    EXPECT_EQ(v.next_steps.size(), 1u);
    EXPECT_EQ(v.evidence.size(), 1u);
  }
  {
    // Reduction 100 + elementwise 200 = 30% together: the two families add.
    Builder b;
    b.kernel(kNvjet, 0, 700);
    b.kernel(kReduce, 700, 100);
    b.kernel(kElementwise, 800, 200);
    const Verdict v = b.analyze().verdict;
    ASSERT_EQ(v.kind, BottleneckKind::kKernelBound);
    ASSERT_EQ(v.next_steps.size(), 2u);
    EXPECT_THAT(v.next_steps[1], StartsWith("fuse the elementwise and reduction kernels"));
  }
}

TEST(VerdictKernelBound, Fp32SimtOrSgemmDominantKernelGetsTheTensorCoreStep) {
  struct Case {
    std::string_view name;
    bool tensor_core_step;
  };
  const Case cases[] = {
      {kSimtSgemm, true},                       // both words
      {"volta_sgemm_128x64_nn", true},          // "sgemm" only
      {"void my_simt_kernel<float>(float*)", true},  // "simt" only
      {kNvjet, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.name));
    Builder b;
    b.kernel(c.name, 0, 1000);  // the only kernel: busy 100%
    const Verdict v = b.analyze().verdict;
    ASSERT_EQ(v.kind, BottleneckKind::kKernelBound);
    const bool has_step = std::any_of(v.next_steps.begin(), v.next_steps.end(), [](const std::string& s) {
      return s.find("TF32 or BF16") != std::string::npos;
    });
    EXPECT_EQ(has_step, c.tensor_core_step);
  }
  Builder b;
  b.kernel(kSimtSgemm, 0, 1000);
  const Verdict v = b.analyze().verdict;
  EXPECT_THAT(v.evidence, ::testing::Contains("the dominant GEMM is an fp32 SIMT kernel "
                                              "(cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>): it "
                                              "does not use tensor cores"));
  // The ncu -k filter keeps the short name up to the first regex metacharacter; '<' and ':' are not ones.
  EXPECT_THAT(v.next_steps[0], HasSubstr(" -k regex:'cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>')"));
}

TEST(VerdictThresholds, IdleMattersFromTwentyOnePercentNotAtEightyPercentBusy) {
  {
    // K [0,400) and [600,1000): busy 800 / 1000 = exactly 80%; the GPU counts as busy (kernel-bound), even
    // with no host event to explain the 200 ns gap: kIdleMatters' "below 80% busy". (verdict.cpp computes
    // idle as 1.0 - 0.8 = 0.19999999999999996 < 0.20; the decision table in verdict.h and docs/trace.md say
    // "idle >= 20%", which at this boundary reads the other way.)
    Builder b;
    b.kernel(kGemm, 0, 400);
    b.kernel(kGemm, 600, 400);
    const Verdict v = b.analyze().verdict;
    EXPECT_EQ(v.kind, BottleneckKind::kKernelBound) << v.summary;
    EXPECT_THAT(v.summary, HasSubstr("busy 80.0% of its active span"));
  }
  {
    // K [0,400) and [610,1000): busy 790 / 1000 = 79%, idle 21%: the untraced-host branch.
    Builder b;
    b.kernel(kGemm, 0, 400);
    b.kernel(kGemm, 610, 390);
    const Verdict v = b.analyze().verdict;
    EXPECT_EQ(v.kind, BottleneckKind::kUntracedHost) << v.summary;
    EXPECT_THAT(v.summary, HasSubstr("idle 21.0% of its active span"));
  }
}

TEST(VerdictDevices, TheBusiestDeviceIsJudged) {
  Builder b;
  // GPU 0: one kernel [0,100), busy 100% of its span. GPU 1: [0,200) and [800,1000), busy 400 of 1000 = 40%.
  // GPU 1 has more busy time (400 > 100), so it is judged: idle 60%, nothing recorded -> untraced host.
  b.kernel(kGemm, 0, 100, -1, 7, 0);
  b.kernel(kGemm, 0, 200, -1, 7, 1);
  b.kernel(kGemm, 800, 200, -1, 7, 1);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.device, 1);
  EXPECT_EQ(v.kind, BottleneckKind::kUntracedHost);
  ASSERT_FALSE(v.evidence.empty());
  EXPECT_EQ(v.evidence[0], "GPU 1 busy 40.0% of its active span (400 ns of 1.00 us); 600 ns idle in gaps between work");
}

TEST(VerdictDevices, CommunicationIsJudgedOnTheJudgedDeviceAlone) {
  Builder b;
  // GPU 0: compute [0,1000), busy 1000, no communication. GPU 1: compute [0,500) and an all-reduce [500,900),
  // busy 900: 400 ns of exposed communication, but on GPU 1. GPU 0 is judged (1000 > 900): its exposed
  // communication is 0, so it is kernel-bound. (Summed over GPUs, 400 / 1000 = 40% would read as
  // communication-bound.)
  b.kernel(kGemm, 0, 1000, -1, 7, 0);
  b.kernel(kGemm, 0, 500, -1, 7, 1);
  b.kernel(kNccl, 500, 400, -1, 8, 1);
  const Verdict v = b.analyze().verdict;
  EXPECT_EQ(v.device, 0);
  EXPECT_EQ(v.kind, BottleneckKind::kKernelBound) << v.summary;
}

TEST(VerdictWindow, TimeOutsideTheActiveSpanIsNotedFromTenPercentOfTheWindow) {
  {
    // A warm-up range [0,200) before kernels [200,1200): window 1200 ns, 200 ns outside = 16.7% >= 10%.
    // Over the whole window the GPU is busy 1000 / 1200 = 83.3%.
    Builder b;
    b.host(HostKind::kUserAnnotation, "warmup", 0, 200);
    b.kernel(kGemm, 200, 1000);
    const Verdict v = b.analyze().verdict;
    ASSERT_EQ(v.kind, BottleneckKind::kKernelBound);
    EXPECT_EQ(v.evidence.back(),
              "200 ns of the 1.20 us profiled window lies before the first or after the last GPU activity (profiler "
              "start-up, warm-up, tear-down); over the whole window the GPU is busy 83.3%");
  }
  {
    // Exactly 10%: 100 ns before [100,1000) in a 1000 ns window.
    Builder b;
    b.host(HostKind::kUserAnnotation, "warmup", 0, 100);
    b.kernel(kGemm, 100, 900);
    EXPECT_THAT(b.analyze().verdict.evidence.back(), StartsWith("100 ns of the 1.00 us profiled window"));
  }
  {
    // 99 ns of 1000 = 9.9%: no note; the only evidence is the busy line.
    Builder b;
    b.host(HostKind::kUserAnnotation, "warmup", 0, 99);
    b.kernel(kGemm, 99, 901);
    EXPECT_EQ(b.analyze().verdict.evidence.size(), 1u);
  }
}

TEST(VerdictOneGap, AGapHoldingMoreThanHalfTheIdleTimeIsNamedWithTheBusyShareWithoutIt) {
  {
    // K [0,100) [200,300) [400,500) [1500,1600): gaps of 100, 100 and 1000 ns. Busy 400 of a 1600 ns span = 25%.
    // Idle 1200 ns; the 1000 ns gap, starting 500 ns into the span, holds 1000/1200 = 83.3% of it. Without it
    // the span is 600 ns, of which 400 busy: 66.7%. No host event: the gap's host time is nothing_recorded.
    Builder b;
    for (const std::int64_t start : {0, 200, 400, 1500}) b.kernel(kGemm, start, 100);
    const Verdict v = b.analyze().verdict;
    EXPECT_EQ(v.kind, BottleneckKind::kUntracedHost);
    EXPECT_THAT(v.evidence, ::testing::Contains(
                                "one gap of 1.00 us, 500 ns into the active span (host: nothing_recorded), holds 83.3% of "
                                "the idle time: if it is a one-off (start-up, a stall), the rest of the span is 66.7% "
                                "busy; read the steady state alone with --range NAME"));
  }
  const auto has_one_gap_line = [](const Verdict& v) {
    return std::any_of(v.evidence.begin(), v.evidence.end(),
                       [](const std::string& e) { return e.rfind("one gap of", 0) == 0; });
  };
  {
    // Gaps of 100, 100 and 200 ns: the longest holds exactly half the idle time (200/400), no more than the
    // others together: not a one-off. Busy 400 of 800 = 50%, so idle matters and only this rule is silent.
    Builder b;
    for (const std::int64_t start : {0, 200, 400, 700}) b.kernel(kGemm, start, 100);
    const Verdict v = b.analyze().verdict;
    ASSERT_EQ(v.kind, BottleneckKind::kUntracedHost);
    EXPECT_FALSE(has_one_gap_line(v));
    // One nanosecond more, [701,801): 201 of 401 = 50.1%, more than half.
    Builder c;
    for (const std::int64_t start : {0, 200, 400, 701}) c.kernel(kGemm, start, 100);
    EXPECT_TRUE(has_one_gap_line(c.analyze().verdict));
  }
  {
    // A busy GPU: K [0,900) [1000,1900), one 100 ns gap (all the idle time) but 1800 of 1900 = 94.7% busy: the
    // idle time does not matter, so neither does its one gap.
    Builder b;
    b.kernel(kGemm, 0, 900);
    b.kernel(kGemm, 1000, 900);
    const Verdict v = b.analyze().verdict;
    ASSERT_EQ(v.kind, BottleneckKind::kKernelBound);
    EXPECT_FALSE(has_one_gap_line(v));
  }
}

TEST(VerdictNoActivity, NoGpuWorkSaysSoAndAsksForACudaTrace) {
  // Nothing at all: no device.
  const Verdict empty = decide_verdict({}, {}, {}, {}, {}, {});
  EXPECT_EQ(empty.kind, BottleneckKind::kUntracedHost);
  EXPECT_EQ(empty.bottleneck_class, "overhead");
  EXPECT_EQ(empty.summary, "no GPU activity in the profiled window");
  ASSERT_EQ(empty.next_steps.size(), 1u);
  EXPECT_THAT(empty.next_steps[0], HasSubstr("activities=[CPU, CUDA]"));
  EXPECT_TRUE(empty.evidence.empty());

  // A device the trace lists but that ran nothing, and a host event.
  Builder b;
  DeviceInfo listed;
  listed.id = 0;
  listed.name = "NVIDIA H200";
  b.t.info.devices.push_back(listed);
  b.host(HostKind::kCpuOp, "aten::add", 0, 100);
  const TraceAnalysis a = b.analyze();
  ASSERT_EQ(a.utilization.devices.size(), 1u);
  EXPECT_FALSE(a.utilization.devices[0].has_activity);
  EXPECT_EQ(a.verdict.summary, "no GPU activity in the profiled window");
}

TEST(VerdictJson, FieldsInOrder) {
  Builder b;
  b.kernel(kNvjet, 0, 700);
  b.kernel(kElementwise, 700, 300);
  const auto j = to_json(b.analyze().verdict);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_THAT(keys, ::testing::ElementsAre("bottleneck", "class", "summary", "device", "evidence", "next_steps",
                                           "dominant_kernel", "dominant_kernel_share"));
  EXPECT_EQ(j["bottleneck"], "kernel-bound");
  EXPECT_EQ(j["class"], "compute or bandwidth");
  EXPECT_EQ(j["summary"],
            "kernel-bound: the GPU is busy 100.0% of its active span; profile the dominant kernel with ncu: "
            "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT, 70.0% of kernel time");
  EXPECT_EQ(j["device"], 0);
  ASSERT_EQ(j["evidence"].size(), 2u);
  EXPECT_EQ(j["evidence"][1], "elementwise and reduction kernels take 30.0% of GPU time: memory-bound by nature");
  ASSERT_EQ(j["next_steps"].size(), 2u);
  EXPECT_EQ(j["dominant_kernel"], kNvjet);
  EXPECT_DOUBLE_EQ(j["dominant_kernel_share"].get<double>(), 0.7);

  // Every kind's name is what the JSON says.
  Builder launch = three_kernels_two_gaps();
  launch.host(HostKind::kRuntime, "cudaLaunchKernel", 200, 800, 2);
  launch.host(HostKind::kRuntime, "cudaLaunchKernel", 1200, 800, 3);
  const auto lj = to_json(launch.analyze().verdict);
  EXPECT_EQ(lj["bottleneck"], "launch-bound");
  EXPECT_EQ(lj["class"], "overhead");
}

// Both causes matter, and the launch-covered idle time is the larger, so it is the verdict and the exposed
// communication is named in the evidence.
TEST(VerdictRanking, TheLargerOfExposedCommunicationAndLaunchIdleIsTheVerdict) {
  Builder b;
  // compute [0,300) [1300,1600) [2900,3000); NCCL [1600,2350) exposed 750 ns = 25% of the 3000 ns span;
  // idle [300,1300) 1000 ns and [2350,2900) 550 ns, all inside launch calls: 1550 ns > 750 ns.
  b.kernel(kGemm, 0, 300);
  b.kernel(kGemm, 1300, 300);
  b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1600, 750);
  b.kernel(kGemm, 2900, 100);
  b.host(HostKind::kRuntime, "cudaLaunchKernel", 300, 1000);
  b.host(HostKind::kRuntime, "cudaLaunchKernel", 2350, 550);
  const TraceAnalysis a = b.analyze();
  EXPECT_EQ(a.verdict.kind, BottleneckKind::kLaunchBound) << a.verdict.summary;
  bool named = false;
  for (const auto& e : a.verdict.evidence) named = named || e.rfind("also: 750 ns of exposed communication (25.0%", 0) == 0;
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace perfhound::trace
