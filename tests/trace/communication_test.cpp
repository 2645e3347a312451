#include "trace/communication.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>

namespace perfhound::trace {
namespace {

void add(Timeline& t, std::string_view name, std::int64_t start_ns, std::int64_t dur_ns, std::int64_t stream,
         std::int32_t device = 0, GpuKind kind = GpuKind::kKernel) {
  GpuActivity a;
  a.kind = kind;
  a.name = t.strings.intern(name);
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  a.stream = stream;
  a.device = device;
  t.gpu.push_back(a);
}

constexpr std::string_view kAllReduce = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)";
constexpr std::string_view kAllGather = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
constexpr std::string_view kGemm = "volta_sgemm_128x64_nn";

TEST(CommunicationTest, HiddenAndExposedPerDevice) {
  Timeline t;
  // Device 0: compute [0, 150) and [250, 400) on stream 7, a copy [150, 250) (not compute),
  // all-reduce [100, 300) on stream 14, all-gather [200, 350) on stream 15.
  //   comm union [100, 350) = 250 (kernel sum 200 + 150 = 350)
  //   hidden = [100, 150) + [250, 350) = 150, exposed 100; GPU busy [0, 400) = 400.
  add(t, kGemm, 0, 150, 7);
  add(t, kGemm, 250, 150, 7);
  add(t, "Memcpy DtoD (Device -> Device)", 150, 100, 7, 0, GpuKind::kMemcpy);
  add(t, kAllReduce, 100, 200, 14);
  add(t, kAllGather, 200, 150, 15);
  // Device 1 computes during device 0's exposed communication: that hides nothing on device 0.
  add(t, kGemm, 100, 200, 7, 1);
  finalize_timeline(t);

  const auto r = communication(t);
  ASSERT_EQ(r.devices.size(), 2u);
  const auto& d0 = r.devices[0].stats;
  EXPECT_EQ(d0.kernel_count, 2u);
  EXPECT_EQ(d0.kernel_sum_ns, 350);
  EXPECT_EQ(d0.comm_busy_ns, 250);
  EXPECT_EQ(d0.gpu_busy_ns, 400);
  EXPECT_EQ(d0.hidden_ns, 150);
  EXPECT_EQ(d0.exposed_ns, 100);
  EXPECT_DOUBLE_EQ(d0.share_of_gpu_busy, 250.0 / 400.0);
  EXPECT_DOUBLE_EQ(d0.hidden_ratio, 0.6);

  const auto& d1 = r.devices[1].stats;
  EXPECT_EQ(d1.kernel_count, 0u);
  EXPECT_EQ(d1.gpu_busy_ns, 200);
  EXPECT_EQ(d1.hidden_ratio, 0.0);

  EXPECT_EQ(r.total.comm_busy_ns, 250);
  EXPECT_EQ(r.total.gpu_busy_ns, 600);
  EXPECT_EQ(r.total.hidden_ns, 150);
  EXPECT_EQ(r.total.exposed_ns, 100);
  EXPECT_DOUBLE_EQ(r.total.share_of_gpu_busy, 250.0 / 600.0);
  EXPECT_DOUBLE_EQ(r.total.hidden_ratio, 0.6);

  const auto j = to_json(r);
  EXPECT_EQ(j["devices"][0]["device"].get<int>(), 0);
  EXPECT_DOUBLE_EQ(j["devices"][0]["exposed_s"].get<double>(), 1e-7);
  EXPECT_DOUBLE_EQ(j["total"]["hidden_ratio"].get<double>(), 0.6);
}

TEST(CommunicationTest, FullyHiddenAndFullyExposed) {
  Timeline hidden;
  add(hidden, kGemm, 0, 1000, 7);
  add(hidden, kAllReduce, 100, 500, 14);
  finalize_timeline(hidden);
  const auto rh = communication(hidden);
  EXPECT_EQ(rh.total.exposed_ns, 0);
  EXPECT_DOUBLE_EQ(rh.total.hidden_ratio, 1.0);

  Timeline exposed;
  add(exposed, kAllReduce, 0, 500, 14);
  add(exposed, kGemm, 500, 500, 7);  // touches, does not overlap
  finalize_timeline(exposed);
  const auto re = communication(exposed);
  EXPECT_EQ(re.total.hidden_ns, 0);
  EXPECT_EQ(re.total.exposed_ns, 500);
  EXPECT_DOUBLE_EQ(re.total.share_of_gpu_busy, 0.5);
}

TEST(CommunicationTest, NoCommunicationOrNoGpu) {
  Timeline t;
  add(t, kGemm, 0, 100, 7);
  finalize_timeline(t);
  const auto r = communication(t);
  EXPECT_EQ(r.total.kernel_count, 0u);
  EXPECT_EQ(r.total.comm_busy_ns, 0);
  EXPECT_EQ(r.total.share_of_gpu_busy, 0.0);
  EXPECT_EQ(r.total.hidden_ratio, 0.0);

  Timeline empty;
  finalize_timeline(empty);
  const auto re = communication(empty);
  EXPECT_TRUE(re.devices.empty());
  EXPECT_EQ(re.total.gpu_busy_ns, 0);
}

}  // namespace
}  // namespace perfhound::trace
