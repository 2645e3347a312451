// The CUDA runner on a real GPU; every test skips without one. The checks are behaviour the method
// predicts (a gated launch hides submission time, an L2 flush makes a small copy slower) and a rate held
// against the test's own event-timed cudaMemcpyAsync.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bench/cuda/gpu_bench.h"
#include "cuda/probe_figures.h"

namespace perfhound::bench::cuda {
namespace {

__global__ void empty_kernel() {}

__global__ void copy_kernel(const int4* __restrict__ src, int4* __restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) dst[i] = src[i];
}

std::unique_ptr<GpuBench> open_or_skip() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return nullptr;
  auto gpu = GpuBench::open(0);
  return gpu ? std::move(*gpu) : nullptr;
}

#define GPU_OR_SKIP(gpu)                                              \
  auto gpu = open_or_skip();                                          \
  if (!gpu) GTEST_SKIP() << "no CUDA device: cudaGetDeviceCount found none"

KernelOptions quick(Mode mode) {
  KernelOptions o;
  o.mode = mode;
  o.stop.min_time_s = 0.05;
  o.stop.max_noise = 0.02;
  o.stop.timeout_s = 2;
  return o;
}

struct Buffers {
  int4* src = nullptr;
  int4* dst = nullptr;
  explicit Buffers(size_t bytes) {
    EXPECT_EQ(cudaMalloc(&src, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&dst, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(src, 1, bytes), cudaSuccess);
  }
  ~Buffers() {
    cudaFree(src);
    cudaFree(dst);
  }
};

int grid_for_copy() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  return sms * 8;
}

TEST(GpuBench, AGatedLaunchKeepsHostSubmissionOutOfTheSample) {
  GPU_OR_SKIP(gpu);
  KernelOptions gated = quick(Mode::kCold);
  gated.flush_l2 = false;
  KernelOptions ungated = gated;
  ungated.gate_stream = false;
  const auto launch = [](const Launch& l) { empty_kernel<<<1, 1, 0, l.stream>>>(); };
  const SampledRun a = gpu->run("empty gated", gated, launch);
  const SampledRun b = gpu->run("empty ungated", ungated, launch);
  ASSERT_FALSE(a.error) << a.error->message;
  ASSERT_FALSE(b.error) << b.error->message;
  // Ungated, the start event runs as soon as it is submitted and the kernel arrives a launch latency later.
  EXPECT_LT(a.measurement.summary.p50, b.measurement.summary.p50)
      << "gated " << a.measurement.summary.p50 << " s, ungated " << b.measurement.summary.p50 << " s";
  EXPECT_LT(a.measurement.summary.p50, 20e-6);
  EXPECT_EQ(a.measurement.details["gate_timeouts"], 0);
}

TEST(GpuBench, FlushingL2MakesACopyThatFitsInItSlower) {
  GPU_OR_SKIP(gpu);
  const size_t bytes = std::min<size_t>(8u << 20, static_cast<size_t>(gpu->l2_bytes()) / 4);
  Buffers buf(bytes);
  const int grid = grid_for_copy();
  const auto launch = [&](const Launch& l) { copy_kernel<<<grid, 256, 0, l.stream>>>(buf.src, buf.dst, bytes / 16); };
  const SampledRun cold = gpu->run("cold", quick(Mode::kCold), launch);
  const SampledRun hot = gpu->run("hot", quick(Mode::kHot), launch);
  ASSERT_FALSE(cold.error) << cold.error->message;
  ASSERT_FALSE(hot.error) << hot.error->message;
  EXPECT_EQ(cold.measurement.details["l2_flush_bytes"], gpu->l2_bytes());
  EXPECT_GE(hot.measurement.operations_per_sample, 1);
  EXPECT_LE(hot.measurement.operations_per_sample, kMaxHotBatch);
  EXPECT_LT(hot.measurement.summary.p50, 0.9 * cold.measurement.summary.p50)
      << "hot " << hot.measurement.summary.p50 << " s, cold " << cold.measurement.summary.p50 << " s";
}

TEST(GpuBench, ACopyKernelsRateAgreesWithCudaMemcpyTimedHere) {
  GPU_OR_SKIP(gpu);
  const size_t bytes = size_t{1} << 30;
  Buffers buf(bytes);
  const int grid = grid_for_copy();
  KernelOptions o = quick(Mode::kCold);
  o.work.bytes = 2.0 * static_cast<double>(bytes);
  const SampledRun r = gpu->run("copy 1 GiB", o, [&](const Launch& l) {
    copy_kernel<<<grid, 256, 0, l.stream>>>(buf.src, buf.dst, bytes / 16);
  });
  ASSERT_FALSE(r.error) << r.error->message;
  // The test's own measurement: cudaMemcpyAsync device to device between two events, median of 11.
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < 13; ++i) {
    cudaEventRecord(start);
    cudaMemcpyAsync(buf.dst, buf.src, bytes, cudaMemcpyDeviceToDevice);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    if (i >= 2) ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  const double memcpy_rate = 2.0 * static_cast<double>(bytes) / (ms[ms.size() / 2] / 1e3);
  const double harness_rate = r.measurement.work.bytes / r.measurement.summary.p50;
  EXPECT_NEAR(harness_rate / memcpy_rate, 1.0, 0.15) << "harness " << harness_rate << " B/s, memcpy " << memcpy_rate;
}

TEST(GpuBench, ABadLaunchIsAnErrorAndTheNextRunStillWorks) {
  GPU_OR_SKIP(gpu);
  const SampledRun bad = gpu->run("too many threads", quick(Mode::kCold),
                                  [](const Launch& l) { empty_kernel<<<1, 4096, 0, l.stream>>>(); });
  ASSERT_TRUE(bad.error);
  // CUDA 13 says "invalid argument" where 12 said "invalid configuration argument": the call is what we name.
  EXPECT_EQ(bad.error->message.rfind("too many threads: first launch: cudaGetLastError: ", 0), 0u) << bad.error->message;
  const SampledRun good = gpu->run("empty", quick(Mode::kCold), [](const Launch& l) { empty_kernel<<<1, 1, 0, l.stream>>>(); });
  EXPECT_FALSE(good.error) << good.error->message;
  EXPECT_GE(good.measurement.samples_s.size(), 10u);
}

TEST(GpuBench, ClocksAreReadOrTheirAbsenceSaid) {
  GPU_OR_SKIP(gpu);
  const SampledRun r = gpu->run("empty", quick(Mode::kHot), [](const Launch& l) { empty_kernel<<<1, 1, 0, l.stream>>>(); });
  ASSERT_FALSE(r.error) << r.error->message;
  const bool nvml = gpu->conditions()["nvml"] == "available";
  // The boost ceiling is a condition (the same on every run of this GPU); the clocks a run saw stay under it.
  const int max_sm_mhz = gpu->conditions()["max_sm_clock_mhz"].get<int>();
  EXPECT_GT(max_sm_mhz, 500);
  if (nvml) {
    ASSERT_TRUE(r.measurement.clocks_before && r.measurement.clocks_after);
    EXPECT_GT(r.measurement.clocks_after->sm_clock_hz, 100e6);
    EXPECT_LE(r.measurement.clocks_after->sm_clock_hz, max_sm_mhz * 1e6 * 1.01);
    // A limit NVML names (power cap, thermal) is said, whether or not the clock fell; none is said without one.
    const std::uint64_t seen = r.measurement.clocks_before->clock_event_reasons | r.measurement.clocks_after->clock_event_reasons;
    const bool limited = (seen & (perfhound::cuda::kThrottleReasonBits | perfhound::cuda::kPowerCapReasonBit)) != 0;
    const bool said = std::any_of(r.measurement.diagnostics.begin(), r.measurement.diagnostics.end(), [](const auto& d) {
      return d.kind->id == "clock-throttled" || d.kind->id == "clock-power-capped" || d.kind->id == "clock-dropped";
    });
    EXPECT_TRUE(said || !limited) << "NVML reasons 0x" << std::hex << seen;
  } else {
    ASSERT_FALSE(r.measurement.diagnostics.empty());
    EXPECT_EQ(r.measurement.diagnostics[0].kind->id, "nvml-unavailable");
  }
}

// The copy example once crashed here: a benchmark with one input copy inherited the rotation the previous one,
// with four, had reached, and read past its buffers.
TEST(GpuBench, EachBenchmarkRotatesFromItsFirstCopy) {
  GPU_OR_SKIP(gpu);
  std::vector<int> seen;
  KernelOptions four = quick(Mode::kHot);
  four.rotations = 4;
  four.launches_per_sample = 3;  // not a multiple of 4: the rotation does not return to 0 at a sample's end
  const SampledRun a = gpu->run("four copies", four, [&](const Launch& l) {
    seen.push_back(l.rotation);
    empty_kernel<<<1, 1, 0, l.stream>>>();
  });
  ASSERT_FALSE(a.error) << a.error->message;
  EXPECT_EQ(*std::max_element(seen.begin(), seen.end()), 3);
  for (std::size_t i = 1; i < seen.size(); ++i) {
    if (seen[i] != (seen[i - 1] + 1) % 4 && seen[i] != 0) ADD_FAILURE() << "rotation " << seen[i - 1] << " -> " << seen[i];
  }
  int largest = -1;
  const SampledRun b = gpu->run("one copy", quick(Mode::kHot), [&](const Launch& l) {
    largest = std::max(largest, l.rotation);
    empty_kernel<<<1, 1, 0, l.stream>>>();
  });
  ASSERT_FALSE(b.error) << b.error->message;
  EXPECT_EQ(largest, 0);
}

TEST(GpuBench, RotationsCoverTwiceTheL2) {
  GPU_OR_SKIP(gpu);
  const std::int64_t l2 = gpu->l2_bytes();
  EXPECT_EQ(gpu->rotations_for(2 * l2), 1);
  EXPECT_EQ(gpu->rotations_for(l2), 2);
  EXPECT_EQ(gpu->rotations_for(l2 / 3), 6 + (l2 % 3 != 0 ? 1 : 0));
}

}  // namespace
}  // namespace perfhound::bench::cuda
