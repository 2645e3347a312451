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
#include <iterator>
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
  // The build that recorded it and the driver it ran on, as perfhound trace's conditions state them.
  EXPECT_NE(metadata.find("\"recorder\":\"perfhound "), std::string::npos) << metadata.substr(0, 300);
  EXPECT_NE(metadata.find("\"cuda_driver_version\":"), std::string::npos) << metadata.substr(0, 600);
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

// record_kinds_program: what is kept beside kernels. Its counts are the program's own: 4 kernels, 2 host-to-device
// copies and 1 device-to-host copy of 1 MiB, 3 fills of 4 KiB, NVTX ranges "copies" and "kernels" (after an NVTX
// call made before CUDA started), an event, a stream and a device synchronize.
struct KindsSeen {
  int kernels = 0, to_device = 0, to_host = 0, other_copies = 0, fills = 0;
  std::map<std::string, int> ranges;  // NVTX ranges (user annotations) by name
  std::map<std::string, int> syncs;   // cuda_sync events by name, counted in the file's text (the importer skips them)
};

KindsSeen kinds_seen(const std::string& path) {
  KindsSeen seen;
  auto timeline = trace::import_trace(path);
  EXPECT_TRUE(timeline.ok()) << (timeline.ok() ? "" : timeline.error().message);
  if (!timeline.ok()) return seen;
  for (const auto& g : timeline->gpu) {
    const std::string_view name = timeline->name(g.name);
    if (g.kind == trace::GpuKind::kKernel) {
      seen.kernels += name.find("touch") != std::string_view::npos;
    } else if (g.kind == trace::GpuKind::kMemset) {
      seen.fills += g.bytes == 4096;
    } else if (g.bytes == (1u << 20) && name.find("HtoD") != std::string_view::npos) {
      ++seen.to_device;
    } else if (g.bytes == (1u << 20) && name.find("DtoH") != std::string_view::npos) {
      ++seen.to_host;
    } else {
      ++seen.other_copies;
    }
  }
  for (const auto& h : timeline->host) {
    if (h.kind == trace::HostKind::kUserAnnotation) ++seen.ranges[std::string(timeline->name(h.name))];
  }
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string name : {"Event Synchronize", "Stream Synchronize", "Context Synchronize"}) {
    const std::string needle = "\"cat\":\"cuda_sync\",\"name\":\"" + name + "\"";
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++seen.syncs[name];
  }
  return seen;
}

class RecordGpuKinds : public RecordGpu {
 protected:
  void SetUp() override {
    program_ = (here() / "record_kinds_program").string();
    const int plain = exit_code(program_ + " > /dev/null 2>&1");
    if (plain == 77) GTEST_SKIP() << "no CUDA device: record_kinds_program found none";
    ASSERT_EQ(plain, 0) << program_;
  }
};

// The default kinds: kernels, copies, fills and the NVTX ranges opened after CUDA started, although NVTX's first
// call came before (NVTX_INJECTION64_PATH set by perfhound record; before, that call turned NVTX off for the run
// and no range was recorded); no synchronization records.
TEST_F(RecordGpuKinds, TheDefaultKeepsCopiesFillsAndNvtxRanges) {
  KindsSeen seen = kinds_seen(record("", "perfhound_record_gpu_kinds.json"));
  EXPECT_EQ(seen.kernels, 4);
  EXPECT_EQ(seen.to_device, 2);
  EXPECT_EQ(seen.to_host, 1);
  EXPECT_EQ(seen.other_copies, 0);
  EXPECT_EQ(seen.fills, 3);
  EXPECT_EQ(seen.ranges["copies"], 1);
  EXPECT_EQ(seen.ranges["kernels"], 1);
  EXPECT_TRUE(seen.syncs.empty());
}

// --kinds all adds CUPTI's synchronization records: the event's and the stream's waits once each, and the device's.
TEST_F(RecordGpuKinds, KindsAllAddsTheHostsWaits) {
  KindsSeen seen = kinds_seen(record("--kinds all", "perfhound_record_gpu_kinds_all.json"));
  EXPECT_EQ(seen.kernels, 4);
  EXPECT_EQ(seen.to_device + seen.to_host, 3);
  EXPECT_EQ(seen.fills, 3);
  EXPECT_EQ(seen.ranges["kernels"], 1);
  EXPECT_EQ(seen.syncs["Event Synchronize"], 1);
  EXPECT_EQ(seen.syncs["Stream Synchronize"], 1);
  EXPECT_GE(seen.syncs["Context Synchronize"], 1);
}

// --kinds kernels: the kernels alone.
TEST_F(RecordGpuKinds, KernelsAloneKeepNothingElse) {
  KindsSeen seen = kinds_seen(record("--kinds kernels", "perfhound_record_gpu_kinds_kernels.json"));
  EXPECT_EQ(seen.kernels, 4);
  EXPECT_EQ(seen.to_device + seen.to_host + seen.other_copies + seen.fills, 0);
  EXPECT_TRUE(seen.ranges.empty());
}

// The program run by a shell, as launchers do: its trace is written beside the one asked for, named after its
// pid, and perfhound record finds it and says whose it is.
TEST_F(RecordGpuKinds, AProgramStartedByTheRecordedOneHasItsTraceFound) {
  const fs::path out = fs::temp_directory_path() / "perfhound_record_gpu_child.json";
  const fs::path said = fs::temp_directory_path() / "perfhound_record_gpu_child.txt";
  const std::string command = perfhound_binary().string() + " record -o " + out.string() + " -- /bin/sh -c '" + program_ +
                              " > /dev/null; exit $?' > " + said.string() + " 2>&1";
  EXPECT_EQ(exit_code(command), 0) << command;
  std::ifstream in(said);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("started by the program): 4 kernels"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(out)) << "the shell made no CUDA call";
  int traces = 0;
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path())) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("perfhound_record_gpu_child.pid") && name.ends_with(".json")) {
      ++traces;
      EXPECT_EQ(kinds_seen(entry.path().string()).kernels, 4) << name;
    }
  }
  EXPECT_EQ(traces, 1);
}

}  // namespace
}  // namespace perfhound::record
