// A hand-built recording, written as a Chrome trace and read back by perfhound's own Kineto importer: what
// `perfhound record` writes must mean to `perfhound trace` exactly what was recorded.
#include "record/chrome_trace_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "trace/importer.h"
#include "trace/range_window.h"

namespace perfhound::record {
namespace {

RecordedTrace two_kernels_and_a_pageable_copy() {
  RecordedTrace t;
  t.command = "python3 prog.py";
  t.devices.push_back({0, "NVIDIA H200", 132, 9, 0, 150'109'880'320});
  // A 256 MiB pageable copy of 42.5 ms, then two kernels on stream 7 (1.5 us and 126.784 us).
  GpuRecord copy;
  copy.kind = GpuKind::kMemcpy;
  copy.name = "Memcpy HtoD (Pageable -> Device)";
  copy.start_ns = 1'000'000'000;
  copy.end_ns = 1'042'500'000;
  copy.stream = 7;
  copy.correlation = 10;
  copy.bytes = 268'435'456;
  GpuRecord k1;
  k1.name = "void at::native::vectorized_elementwise_kernel<4, \"quoted\">(int)";
  k1.start_ns = 1'050'000'000;
  k1.end_ns = 1'050'001'500;
  k1.stream = 7;
  k1.correlation = 11;
  k1.grid[0] = 132;
  k1.block[0] = 128;
  GpuRecord k2 = k1;
  k2.start_ns = 1'050'010'000;
  k2.end_ns = 1'050'136'784;
  k2.correlation = 12;
  t.gpu = {copy, k1, k2};
  t.api.push_back({ApiDomain::kRuntime, "cudaMemcpyAsync", 999'990'000, 1'042'600'000, 452, 452, 10, 41});
  t.api.push_back({ApiDomain::kRuntime, "cudaLaunchKernel", 1'049'990'000, 1'049'995'000, 452, 452, 11, 211});
  t.api.push_back({ApiDomain::kDriver, "cuLaunchKernel", 1'050'000'000, 1'050'004'000, 452, 453, 12, 307});
  t.syncs.push_back({"Stream Synchronize", 1'050'140'000, 1'050'150'000, 1, 7, 13});
  t.ranges.push_back({"step 0", 999'000'000, 1'051'000'000, 452, 452});
  return t;
}

// CUPTI's timestamps are ns since the epoch (about 1.8e18): written as microseconds with the ns as three decimals,
// every digit kept, where a double (JSON's number as most readers hold it) keeps only about 16.
TEST(ChromeTraceWriter, EpochTimestampsKeepTheirNanoseconds) {
  RecordedTrace t;
  GpuRecord k;
  k.name = "k";
  k.start_ns = 1'796'000'000'000'123'456;
  k.end_ns = k.start_ns + 7;
  t.gpu.push_back(k);
  std::string text;
  write_chrome_trace(t, text);
  EXPECT_NE(text.find(R"("ts":1796000000000123.456,"dur":0.007)"), std::string::npos) << text;
}

// A trace larger than the file writer's 16 MiB pieces: the file, written piece by piece, is byte for byte the
// text written whole, and reads back with every kernel (80,000 of them, about 41 MB: two pieces and a part).
TEST(ChromeTraceWriter, AFileWrittenInPiecesIsTheWholeText) {
  RecordedTrace t;
  const std::string name(300, 'k');  // a C++ kernel name's length
  for (std::uint32_t i = 0; i < 80'000; ++i) {
    GpuRecord k;
    k.name = name;
    k.start_ns = 1'000'000'000 + i * 10'000ull;
    k.end_ns = k.start_ns + 2'000;
    k.stream = 7;
    k.correlation = i;
    t.gpu.push_back(k);
  }
  std::string whole;
  write_chrome_trace(t, whole);
  ASSERT_GT(whole.size(), 2u * (16u << 20));
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("perfhound_record_writer_pieces_" + std::to_string(::getpid()) + ".json")).string();
  ASSERT_TRUE(write_chrome_trace_file(t, path).ok());
  std::ifstream in(path, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(file == whole) << "sizes " << file.size() << " and " << whole.size();
  const auto timeline = trace::import_trace(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(timeline.ok()) << timeline.error().message;
  EXPECT_EQ(timeline->gpu.size(), 80'000u);
}

TEST(ChromeTraceWriter, WhatIsWrittenIsWhatPerfhoundTraceReads) {
  RecordedTrace t = two_kernels_and_a_pageable_copy();
  t.recorder = "perfhound 9.9.9 (abc1234)";
  t.cuda_driver_version = 13000;  // cuDriverGetVersion's 1000 x major + 10 x minor: 13.0
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("perfhound_record_writer_test_" + std::to_string(::getpid()) + ".json"))
                               .string();
  ASSERT_TRUE(write_chrome_trace_file(t, path).ok());
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  auto timeline = trace::import_trace(path);
  ASSERT_TRUE(timeline.ok()) << timeline.error().message;
  ASSERT_EQ(timeline->gpu.size(), 3u);
  const auto& copy = timeline->gpu[0];
  EXPECT_EQ(copy.kind, trace::GpuKind::kMemcpy);
  EXPECT_EQ(copy.dur_ns, 42'500'000);
  EXPECT_EQ(copy.stream, 7);
  EXPECT_EQ(timeline->name(copy.name), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(timeline->gpu[2].kind, trace::GpuKind::kKernel);
  EXPECT_EQ(timeline->gpu[2].dur_ns, 126'784);  // ns survive the microsecond text
  EXPECT_EQ(timeline->gpu[2].start_ns - timeline->gpu[1].start_ns, 10'000);
  EXPECT_EQ(timeline->name(timeline->gpu[1].name), "void at::native::vectorized_elementwise_kernel<4, \"quoted\">(int)");
  EXPECT_EQ(timeline->gpu[1].correlation, 11);
  // Host: three API calls and the NVTX range; the synchronization is a marker on the stream row, not GPU work.
  EXPECT_EQ(timeline->host.size(), 4u);
  ASSERT_EQ(timeline->info.devices.size(), 1u);
  EXPECT_EQ(timeline->info.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(timeline->info.devices[0].sm_count, 132);
  EXPECT_EQ(timeline->stats.unknown_categories.size(), 0u);
  // The NVTX range is a range perfhound trace --range can cut to: 999 ms to 1051 ms holds all three.
  const auto window = trace::restrict_to_range(*timeline, "step 0");
  ASSERT_TRUE(window.ok()) << window.error().message;
  EXPECT_EQ(window->end_ns - window->start_ns, 52'000'000);
  EXPECT_EQ(timeline->gpu.size(), 3u);
  EXPECT_EQ(window->gpu_dropped, 0u);

  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["traceName"], "python3 prog.py");
  EXPECT_EQ(doc["perfhound_record"]["dropped_records"], 0);
  // Which build recorded it, and on which driver: what perfhound trace puts in its conditions.
  EXPECT_EQ(doc["perfhound_record"]["recorder"], "perfhound 9.9.9 (abc1234)");
  EXPECT_EQ(timeline->info.recorder, "perfhound 9.9.9 (abc1234)");
  EXPECT_EQ(timeline->info.cuda_driver_version, "13.0");
  std::filesystem::remove(path);
}

// A synchronization carries its context, not its device: it goes on the row of the device that context's GPU
// records ran on (here GPU 1), and on GPU 0's where no GPU record names the context.
TEST(ChromeTraceWriter, ASynchronizationGoesOnItsContextsDevice) {
  RecordedTrace t;
  GpuRecord k;
  k.name = "k";
  k.device = 1;
  k.context = 5;
  k.stream = 20;
  k.start_ns = 2'000;
  k.end_ns = 3'000;
  t.gpu.push_back(k);
  t.syncs.push_back({"Stream Synchronize", 3'000, 4'000, 5, 20, 1});
  t.syncs.push_back({"Context Synchronize", 5'000, 6'000, 9, 0, 2});
  std::string text;
  write_chrome_trace(t, text);
  std::map<std::string, int> pid_of;
  const auto doc = nlohmann::json::parse(text);
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") == "cuda_sync") pid_of[e["name"].get<std::string>()] = e["pid"].get<int>();
  }
  EXPECT_EQ(pid_of["Stream Synchronize"], 1);
  EXPECT_EQ(pid_of["Context Synchronize"], 0);
}

TEST(ChromeTraceWriter, AnEmptyRecordingIsStillValidJson) {
  RecordedTrace t;
  std::string out;
  write_chrome_trace(t, out);
  const auto doc = nlohmann::json::parse(out);
  EXPECT_TRUE(doc["traceEvents"].is_array());
  EXPECT_TRUE(doc["traceEvents"].empty());
}

// A windowed recording says so (and how many windows), so nobody reads its idle stretches as the program's; a
// whole-run recording carries neither key.
TEST(ChromeTraceWriter, ACaptureRangeRecordingNamesItsWindows) {
  RecordedTrace t;
  std::string whole;
  write_chrome_trace(t, whole);
  EXPECT_FALSE(nlohmann::json::parse(whole)["perfhound_record"].contains("capture_windows"));
  t.capture_windows = 3;
  std::string windowed;
  write_chrome_trace(t, windowed);
  const auto doc = nlohmann::json::parse(windowed);
  EXPECT_EQ(doc["perfhound_record"]["capture_range"], "cudaProfilerApi");
  EXPECT_EQ(doc["perfhound_record"]["capture_windows"], 3);
  t.capture_windows = 0;  // the program never opened one: still said, as 0
  std::string none;
  write_chrome_trace(t, none);
  EXPECT_EQ(nlohmann::json::parse(none)["perfhound_record"]["capture_windows"], 0);
}

TEST(ChromeTraceWriter, AnUnwritableFolderIsAnErrorNamingThePath) {
  const core::Status s = write_chrome_trace_file(RecordedTrace{}, "/nonexistent-folder/t.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/nonexistent-folder/t.json.partial"), std::string::npos);
}

}  // namespace
}  // namespace perfhound::record
