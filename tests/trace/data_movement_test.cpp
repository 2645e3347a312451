#include "trace/data_movement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace perfhound::trace {
namespace {

GpuActivity copy(std::int64_t start_ns, std::int64_t dur_ns, std::uint64_t bytes, CopyDirection direction,
                 MemoryKind src, MemoryKind dst) {
  GpuActivity a;
  a.kind = GpuKind::kMemcpy;
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  a.bytes = bytes;
  a.direction = direction;
  a.src_memory = src;
  a.dst_memory = dst;
  return a;
}

GpuActivity memset_activity(std::int64_t start_ns, std::int64_t dur_ns, std::uint64_t bytes) {
  GpuActivity a;
  a.kind = GpuKind::kMemset;
  a.start_ns = start_ns;
  a.dur_ns = dur_ns;
  a.bytes = bytes;
  return a;
}

using CD = CopyDirection;
using MK = MemoryKind;

TEST(HostMemoryTest, HostSideByDirection) {
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kHostToDevice, MK::kPageable, MK::kDevice)), HostMemory::kPageable);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kHostToDevice, MK::kPinned, MK::kDevice)), HostMemory::kPinned);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kDeviceToHost, MK::kDevice, MK::kPageable)), HostMemory::kPageable);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kDeviceToHost, MK::kDevice, MK::kManaged)), HostMemory::kManaged);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kDeviceToDevice, MK::kDevice, MK::kDevice)), HostMemory::kNone);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kPeerToPeer, MK::kDevice, MK::kDevice)), HostMemory::kNone);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kHostToHost, MK::kPinned, MK::kPageable)), HostMemory::kPageable);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kHostToHost, MK::kPinned, MK::kPinned)), HostMemory::kPinned);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kHostToDevice, MK::kUnknown, MK::kDevice)), HostMemory::kUnknown);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kUnknown, MK::kDevice, MK::kDevice)), HostMemory::kNone);
  EXPECT_EQ(host_memory_of(copy(0, 1, 1, CD::kUnknown, MK::kUnknown, MK::kUnknown)), HostMemory::kUnknown);
}

TEST(DataMovementTest, GroupsBandwidthAndWindowShare) {
  Timeline t;
  // HtoD pageable: 1000 B in 100 ns and 3000 B in 300 ns -> 4000 B / 400 ns = 1e10 B/s.
  t.gpu.push_back(copy(0, 100, 1000, CD::kHostToDevice, MK::kPageable, MK::kDevice));
  t.gpu.push_back(copy(1000, 300, 3000, CD::kHostToDevice, MK::kPageable, MK::kDevice));
  // HtoD pinned [2000, 2100) 5000 B -> 5e10 B/s; DtoH pinned [2050, 2250) 2000 B -> 1e10 B/s, overlapping
  // the pinned HtoD by 50 ns on another copy engine.
  t.gpu.push_back(copy(2000, 100, 5000, CD::kHostToDevice, MK::kPinned, MK::kDevice));
  GpuActivity dtoh = copy(2050, 200, 2000, CD::kDeviceToHost, MK::kDevice, MK::kPinned);
  dtoh.stream = 8;
  t.gpu.push_back(dtoh);
  // DtoD [3000, 3100) 8000 B; PtoP of zero duration: bandwidth not measurable.
  t.gpu.push_back(copy(3000, 100, 8000, CD::kDeviceToDevice, MK::kDevice, MK::kDevice));
  t.gpu.push_back(copy(4000, 0, 100, CD::kPeerToPeer, MK::kDevice, MK::kDevice));
  t.gpu.push_back(memset_activity(5000, 20, 100));
  t.gpu.push_back(memset_activity(6000, 20, 300));
  GpuActivity k;  // kernels are not data movement
  k.start_ns = 7000;
  k.dur_ns = 3000;
  t.gpu.push_back(k);
  finalize_timeline(t);  // window [0, 10000)

  const auto r = data_movement(t);
  ASSERT_EQ(r.copies.size(), 5u);
  EXPECT_EQ(r.copies[0].direction, CD::kHostToDevice);
  EXPECT_EQ(r.copies[0].host_memory, HostMemory::kPageable);
  EXPECT_EQ(r.copies[0].count, 2u);
  EXPECT_EQ(r.copies[0].bytes, 4000u);
  EXPECT_EQ(r.copies[0].time_ns, 400);
  EXPECT_DOUBLE_EQ(r.copies[0].bytes_per_s, 1e10);
  EXPECT_EQ(r.copies[1].host_memory, HostMemory::kPinned);
  EXPECT_DOUBLE_EQ(r.copies[1].bytes_per_s, 5e10);
  EXPECT_EQ(r.copies[2].direction, CD::kDeviceToHost);
  EXPECT_DOUBLE_EQ(r.copies[2].bytes_per_s, 1e10);
  EXPECT_EQ(r.copies[3].direction, CD::kDeviceToDevice);
  EXPECT_EQ(r.copies[3].host_memory, HostMemory::kNone);
  EXPECT_DOUBLE_EQ(r.copies[3].bytes_per_s, 8e10);
  EXPECT_EQ(r.copies[4].direction, CD::kPeerToPeer);
  EXPECT_TRUE(std::isnan(r.copies[4].bytes_per_s));

  EXPECT_EQ(r.copy_count, 6u);
  EXPECT_EQ(r.copy_bytes, 4000u + 5000 + 2000 + 8000 + 100);
  EXPECT_EQ(r.copy_time_ns, 400 + 100 + 200 + 100);
  EXPECT_EQ(r.memset.count, 2u);
  EXPECT_EQ(r.memset.bytes, 400u);
  EXPECT_EQ(r.memset.time_ns, 40);
  EXPECT_DOUBLE_EQ(r.memset.bytes_per_s, 1e10);

  // Union of HtoD/DtoH: 100 + 300 + [2000, 2250) = 650 of 10000.
  EXPECT_EQ(r.window_ns, 10000);
  EXPECT_EQ(r.host_device_copy_ns, 650);
  EXPECT_DOUBLE_EQ(r.host_device_copy_window_ratio, 0.065);

  const auto j = to_json(r);
  EXPECT_EQ(j["copies"][0]["direction"], "HtoD");
  EXPECT_EQ(j["copies"][0]["host_memory"], "pageable");
  EXPECT_EQ(j["copies"][0]["size_bytes"].get<std::uint64_t>(), 4000u);
  EXPECT_DOUBLE_EQ(j["copies"][0]["achieved_bytes_per_s"].get<double>(), 1e10);
  EXPECT_DOUBLE_EQ(j["copies"][0]["time_s"].get<double>(), 4e-7);
  // NaN is written as null.
  EXPECT_NE(j.dump().find("\"achieved_bytes_per_s\":null"), std::string::npos);
}

TEST(DataMovementTest, NoCopies) {
  Timeline t;
  finalize_timeline(t);
  const auto r = data_movement(t);
  EXPECT_TRUE(r.copies.empty());
  EXPECT_EQ(r.copy_count, 0u);
  EXPECT_EQ(r.host_device_copy_ns, 0);
  EXPECT_EQ(r.host_device_copy_window_ratio, 0.0);
  EXPECT_TRUE(std::isnan(r.memset.bytes_per_s));
}

}  // namespace
}  // namespace perfhound::trace
