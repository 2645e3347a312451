// perfhound record on a GPU (label gpu): record_windows_program's 56 kernels in six phases, recorded whole and
// with --capture-range cudaProfilerApi, read back by perfhound trace's importer. The expected counts are the
// program's own (5 + 7 + 11 + 13 + 17 launches through the runtime, 3 through the driver's cuLaunchKernel;
// phases 1 and 3 inside the windows), not the recorder's output.
// Skipped where the program finds no CUDA device (it exits 77). The binaries are found beside this test (the
// device bundle, bench/device_bundle.sh) or in the build tree; $PERFHOUND_BIN overrides perfhound's.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "trace/importer.h"
#include "trace/range_window.h"

namespace perfhound::record {
namespace {

namespace fs = std::filesystem;

fs::path here() { return fs::read_symlink("/proc/self/exe").parent_path(); }

fs::path perfhound_binary() {
  if (const char* bin = std::getenv("PERFHOUND_BIN")) return bin;
  return fs::exists(here() / "perfhound") ? here() / "perfhound" : here().parent_path() / "perfhound";
}

int exit_code(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Kernels a trace holds, by phase: "void (anonymous namespace)::phase<3>(long long, int*)" counts for phase 3.
// Its capture windows' ranges ("perfhound capture window") go to *windows.
std::map<int, int> kernels_by_phase(const std::string& path, std::string* metadata, int* windows = nullptr) {
  auto timeline = trace::import_trace(path);
  EXPECT_TRUE(timeline.ok()) << (timeline.ok() ? "" : timeline.error().message);
  std::map<int, int> by_phase;
  if (!timeline.ok()) return by_phase;
  for (const auto& g : timeline->gpu) {
    if (g.kind != trace::GpuKind::kKernel) continue;
    const std::string_view name = timeline->name(g.name);
    const std::size_t at = name.find("phase<");
    if (at != std::string_view::npos) ++by_phase[name[at + 6] - '0'];
  }
  if (windows != nullptr) {
    *windows = 0;
    for (const auto& h : timeline->host) {
      *windows += h.kind == trace::HostKind::kUserAnnotation && timeline->name(h.name) == "perfhound capture window";
    }
  }
  std::ifstream in(path);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  *metadata = head.substr(0, static_cast<std::size_t>(in.gcount()));
  return by_phase;
}

class RecordGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    program_ = (here() / "record_windows_program").string();
    const int plain = exit_code(program_ + " > /dev/null 2>&1");
    if (plain == 77) GTEST_SKIP() << "no CUDA device: record_windows_program found none";
    ASSERT_EQ(plain, 0) << program_;
  }
  std::string record(const std::string& flags, const std::string& name) {
    const std::string out = (fs::temp_directory_path() / name).string();
    const std::string command = perfhound_binary().string() + " record " + flags + " -o " + out + " -- " + program_ + " > /dev/null";
    EXPECT_EQ(exit_code(command), 0) << command;
    return out;
  }
  std::string program_;
};

TEST_F(RecordGpu, TheWholeRunKeepsEveryKernel) {
  std::string metadata;
  int windows = -1;
  const auto phases = kernels_by_phase(record("", "perfhound_record_gpu_whole.json"), &metadata, &windows);
  EXPECT_EQ(phases, (std::map<int, int>{{0, 5}, {1, 7}, {2, 11}, {3, 13}, {4, 17}, {5, 3}}));
  EXPECT_EQ(metadata.find("capture_windows"), std::string::npos);
  EXPECT_EQ(windows, 0);
}

// Every kernel keeps its launch call (the API record with its correlation id), phase 5's the driver's
// cuLaunchKernel, as cuBLASLt's and cuDNN's kernels keep cuLaunchKernelEx: with the default (--api classified)
// and with --api all. --api none records no API call at all.
TEST_F(RecordGpu, DriverLaunchesKeepTheirLaunchCall) {
  for (const std::string flags : {"", "--api all"}) {
    auto timeline = trace::import_trace(record(flags, "perfhound_record_gpu_driver.json"));
    ASSERT_TRUE(timeline.ok()) << timeline.error().message;
    std::map<std::int64_t, std::string> launch_by_correlation;
    for (const auto& h : timeline->host) {
      if (h.kind == trace::HostKind::kRuntime || h.kind == trace::HostKind::kDriver) {
        launch_by_correlation[h.correlation] = (h.kind == trace::HostKind::kDriver ? "driver " : "runtime ") +
                                               std::string(timeline->name(h.name));
      }
    }
    int kernels = 0;
    std::map<std::string, int> launches;
    for (const auto& g : timeline->gpu) {
      if (g.kind != trace::GpuKind::kKernel) continue;
      ++kernels;
      const auto it = launch_by_correlation.find(g.correlation);
      const bool phase5 = timeline->name(g.name).find("phase<5>") != std::string_view::npos;
      ++launches[(phase5 ? "phase 5: " : "") + (it == launch_by_correlation.end() ? "none" : it->second)];
    }
    EXPECT_EQ(kernels, 56) << flags;
    EXPECT_EQ(launches, (std::map<std::string, int>{{"runtime cudaLaunchKernel", 53}, {"phase 5: driver cuLaunchKernel", 3}}))
        << flags;
  }
  auto gpu_only = trace::import_trace(record("--api none", "perfhound_record_gpu_driver_none.json"));
  ASSERT_TRUE(gpu_only.ok()) << gpu_only.error().message;
  for (const auto& h : gpu_only->host) {
    EXPECT_TRUE(h.kind != trace::HostKind::kRuntime && h.kind != trace::HostKind::kDriver) << gpu_only->name(h.name);
  }
}

TEST_F(RecordGpu, ACaptureRangeKeepsOnlyTheWindowsKernels) {
  std::string metadata;
  int windows = -1;
  const auto phases =
      kernels_by_phase(record("--capture-range cudaProfilerApi", "perfhound_record_gpu_windows.json"), &metadata, &windows);
  // Phase 1's seven were still running as their window closed: kept all the same.
  EXPECT_EQ(phases, (std::map<int, int>{{1, 7}, {3, 13}}));
  EXPECT_NE(metadata.find("\"capture_windows\":2"), std::string::npos) << metadata.substr(0, 600);
  EXPECT_EQ(windows, 2);  // one range a window, for perfhound trace --range
}

// perfhound trace --range "perfhound capture window" --range-index 2 reads the second window alone: phase 3's
// thirteen kernels, synchronized before the stop, and nothing of phase 1's.
TEST_F(RecordGpu, EachCaptureWindowIsARangeTraceCanReadAlone) {
  auto timeline = trace::import_trace(record("--capture-range cudaProfilerApi", "perfhound_record_gpu_range.json"));
  ASSERT_TRUE(timeline.ok()) << timeline.error().message;
  const auto window = trace::restrict_to_range(*timeline, "perfhound capture window", 2);
  ASSERT_TRUE(window.ok()) << window.error().message;
  EXPECT_EQ(window->occurrences, 2);
  int phase3 = 0, others = 0;
  for (const auto& g : timeline->gpu) {
    if (g.kind != trace::GpuKind::kKernel) continue;
    (timeline->name(g.name).find("phase<3>") != std::string_view::npos ? phase3 : others) += 1;
  }
  EXPECT_EQ(phase3, 13);
  EXPECT_EQ(others, 0);
}

// Each --api setting and --kinds all turn on and off their own way (runtime calls one by one or the whole
// RUNTIME kind, SYNCHRONIZATION): the windows hold the same kernels.
TEST_F(RecordGpu, ACaptureRangeWorksWithEveryApiSetting) {
  for (const std::string flags : {"--api classified --kinds all", "--api all", "--api none --kinds kernels", "--driver-api"}) {
    std::string metadata;
    const auto phases = kernels_by_phase(record("--capture-range cudaProfilerApi " + flags, "perfhound_record_gpu_api.json"), &metadata);
    EXPECT_EQ(phases, (std::map<int, int>{{1, 7}, {3, 13}})) << flags;
  }
}

}  // namespace
}  // namespace perfhound::record
