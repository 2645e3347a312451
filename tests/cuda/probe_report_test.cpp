// Rendering a probe result without a GPU: the table, the JSON, the diagnostics, and the chip file that
// roofline / mfu --hw read (its measured ceilings become their roofs).
#include "cuda/probe_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"
#include "hw/chip_spec.h"

namespace perfhound::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ProbeFigure figure(std::string key, std::string label, std::string unit, double work, std::vector<double> seconds) {
  ProbeFigure f = make_figure(std::move(key), std::move(label), std::move(unit), "method", work, 5);
  f.summary = summarize_repeats(f.unit == "s" ? seconds : rates_from_times(work, seconds));
  return f;
}

// An H200-like result, figures from times chosen by hand:
//   copy kernel 4 GiB: 8 GiB / 2.2 ms = 3904.5 GB/s; memcpy 8 GiB / 2.3 ms = 3734.8 GB/s;
//   bf16 2 * 8192^3 / 1.45 ms = 758.3 TFLOP/s; launch 2.5 us.
ProbeResult h200_result() {
  ProbeResult r;
  r.device.name = "NVIDIA H200";
  r.device.pci_bus_id = "00000000:19:00.0";
  r.device.cc_major = 9;
  r.device.sm_count = 132;
  r.device.l2_cache_bytes = 62914560;
  r.device.memory_bytes = 150109880320;
  r.device.memory_bus_width_bits = 6016;
  r.device.memory_clock_hz = 3201e6;
  r.device.max_sm_clock_hz = 1980e6;
  r.settings = {false, 4ull << 30, 1ull << 30, 8192, 5, 20, 10000, 1000};
  const double copy = copy_traffic_bytes(4.0 * (1ull << 30));
  r.figures.push_back(figure("copy_memcpy", "D2D copy (cudaMemcpyAsync)", "B/s", copy, {2.3e-3, 2.3e-3, 2.3e-3}));
  r.figures.push_back(figure("copy_kernel", "D2D copy (kernel)", "B/s", copy, {2.2e-3, 2.2e-3, 2.2e-3}));
  r.figures.push_back(figure("bf16_gemm", "bf16 GEMM (cuBLASLt)", "FLOP/s", gemm_flop(8192, 8192, 8192),
                             {1.45e-3, 1.45e-3, 1.45e-3}));
  ProbeFigure fp8 = make_figure("fp8_gemm", "fp8 GEMM (cuBLASLt)", "FLOP/s", "method", 0, 5);
  fp8.unsupported = "cublasLtMatmulAlgoGetHeuristic: no algorithm";
  r.figures.push_back(fp8);
  r.figures.push_back(figure("kernel_launch", "kernel launch (empty kernel)", "s", 0, {2.5e-6, 2.5e-6, 2.5e-6}));
  r.nvml_available = true;
  r.before = ClockSample{1980e6, 3201e6, 40, 300, 0};
  r.after = ClockSample{1755e6, 3201e6, 82, 690, 0x20};
  return r;
}

core::Conditions conditions() {
  return core::Conditions(core::ToolInfo{"perfhound", "0.1.0", "abc", "Release", "g++"}, core::HostInfo{},
                          "2025-06-01T12:00:00Z", {"perfhound", "probe"});
}

TEST(ProbeReport, TableScalesForPeople) {
  const std::string t = probe_table(h200_result());
  EXPECT_THAT(t, HasSubstr("3904.5"));
  EXPECT_THAT(t, HasSubstr("3734.8"));
  EXPECT_THAT(t, HasSubstr("758.3"));
  EXPECT_THAT(t, HasSubstr("TFLOP/s"));
  EXPECT_THAT(t, HasSubstr("2.50"));
  EXPECT_THAT(t, HasSubstr("unsupported: cublasLtMatmulAlgoGetHeuristic: no algorithm"));
  EXPECT_THAT(t, HasSubstr("5 warm-up runs discarded per figure, then 20 timed repeats"));
  EXPECT_THAT(t, HasSubstr("1980 MHz before, 1755 MHz after"));
}

TEST(ProbeReport, JsonCarriesEveryStatistic) {
  const auto j = probe_result_json(h200_result());
  EXPECT_EQ(j["device"]["compute_capability"], "9.0");
  // 6016 bits / 8 x 3201 MHz x 2 = 4.814 TB/s.
  EXPECT_NEAR(j["device"]["memory_peak_bytes_per_s"].get<double>(), 4814304e6, 1e6);
  const auto& copy = j["figures"][1];
  EXPECT_EQ(copy["key"], "copy_kernel");
  EXPECT_EQ(copy["repeats"], 3);
  EXPECT_EQ(copy["warmup_discarded"], 5);
  EXPECT_NEAR(copy["median"].get<double>(), 8589934592.0 / 2.2e-3, 1);
  EXPECT_EQ(j["figures"][3]["unsupported"], "cublasLtMatmulAlgoGetHeuristic: no algorithm");
  EXPECT_EQ(j["nvml"]["after"]["clock_event_reasons"], 0x20);
}

TEST(ProbeReport, DiagnosticsNameTheDropAndTheUnsupported) {
  const auto d = probe_diagnostics(h200_result());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].kind->id, "clock-dropped");
  EXPECT_THAT(d[0].message, HasSubstr("1980 MHz before, 1755 MHz after (-11.4%)"));
  EXPECT_THAT(d[0].message, HasSubstr("clock event reasons 0x0 -> 0x20 (thermal (software))"));
  // No fall, but a thermal limit held the clock down from the start: said all the same, as a warning.
  ProbeResult hot = h200_result();
  hot.before = ClockSample{1500e6, 3201e6, 88, 500, 0x40};
  hot.after = ClockSample{1500e6, 3201e6, 89, 500, 0x40 | 0x4};
  const auto dh = probe_diagnostics(hot);
  ASSERT_EQ(dh.size(), 2u);
  EXPECT_EQ(dh[0].kind->id, "clock-throttled");
  EXPECT_THAT(dh[0].message, HasSubstr("clock event reasons 0x40 (thermal (hardware)) -> 0x44 (power cap, thermal (hardware))"));
  // The board's power cap alone, as a datacenter GPU under heavy kernels runs: said, at info.
  ProbeResult capped = h200_result();
  capped.before = ClockSample{1755e6, 3201e6, 70, 700, 0x4};
  capped.after = ClockSample{1755e6, 3201e6, 71, 700, 0x4};
  const auto dc = probe_diagnostics(capped);
  ASSERT_EQ(dc.size(), 2u);
  EXPECT_EQ(dc[0].kind->id, "clock-power-capped");
  EXPECT_EQ(dc[0].kind->severity, core::Severity::kInfo);
  EXPECT_THAT(dc[0].message, HasSubstr("clock event reasons 0x4 (power cap) -> 0x4 (power cap)"));
  ProbeResult steady = h200_result();
  steady.after = steady.before;
  EXPECT_EQ(probe_diagnostics(steady).size(), 1u);  // the unsupported figure alone
  EXPECT_EQ(d[1].kind->id, "figure-unsupported");
  ProbeResult no_nvml = h200_result();
  no_nvml.nvml_available = false;
  no_nvml.nvml_error = "dlopen libnvidia-ml.so.1: not found";
  no_nvml.before.reset();
  no_nvml.after.reset();
  const auto d2 = probe_diagnostics(no_nvml);
  EXPECT_EQ(d2[0].kind->id, "nvml-unavailable");
  EXPECT_THAT(probe_table(no_nvml), HasSubstr("NVML unavailable (dlopen libnvidia-ml.so.1: not found)"));
}

TEST(ProbeReport, MeasuredKeys) {
  const ProbeResult r = h200_result();
  EXPECT_EQ(measured_key(*r.find("copy_kernel")), "copy_kernel_bytes_per_s");
  EXPECT_EQ(measured_key(*r.find("bf16_gemm")), "bf16_flops_per_s");
  EXPECT_EQ(measured_key(*r.find("kernel_launch")), "kernel_launch_s");
  ProbeFigure fma = make_figure("fp32_fma", "fp32", "FLOP/s", "", 0, 0);
  EXPECT_EQ(measured_key(fma), "fp32_flops_per_s");
  EXPECT_EQ(architecture_name(9, 0), "Hopper");
  EXPECT_EQ(architecture_name(8, 9), "Ada Lovelace");
  EXPECT_EQ(architecture_name(8, 0), "Ampere");
}

TEST(ProbeReport, ChipFileWithoutBaseReadsBackAsMeasuredRoofs) {
  const auto chip = probe_chip_json(h200_result(), conditions(), std::nullopt);
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ((*chip)["name"], "nvidia-h200-measured");
  EXPECT_EQ((*chip)["architecture"], "Hopper");
  EXPECT_TRUE((*chip)["peak_flops"]["bf16"].is_null());
  EXPECT_EQ((*chip)["measured_conditions"]["date_utc"], "2025-06-01T12:00:00Z");
  // Unsupported figures are left out; the better copy is the memory roof.
  EXPECT_FALSE((*chip)["measured"].contains("fp8_flops_per_s"));
  const auto spec = hw::chip_spec_from_json(nlohmann::json::parse((*chip).dump()), "probe.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  const hw::Roof memory = hw::memory_roof(*spec);
  EXPECT_TRUE(memory.measured);
  EXPECT_NEAR(memory.value, 8589934592.0 / 2.2e-3, 1);
  EXPECT_THAT(memory.source, HasSubstr("D2D copy (kernel)"));
  const auto bf16 = hw::compute_roof(*spec, "bf16");
  ASSERT_TRUE(bf16.ok());
  EXPECT_TRUE(bf16->measured);
  EXPECT_NEAR(bf16->value, 1099511627776.0 / 1.45e-3, 1e3);
  // No measured fp8 and no spec-sheet peak without --base: an error naming the chip.
  EXPECT_FALSE(hw::compute_roof(*spec, "fp8").ok());
  // Memory bandwidth from the device query: 6016 / 8 x 3201 MHz x 2.
  EXPECT_NEAR(spec->memory_bandwidth.value, 4814304e6, 1e6);
}

TEST(ProbeReport, ChipFileWithBaseKeepsTheSpecSheet) {
  const auto base = hw::find_chip("h200-sxm");
  ASSERT_TRUE(base.ok());
  std::ifstream in(std::filesystem::path(PERFHOUND_TEST_DATA) / ".." / ".." / "data" / "hw" / "h200-sxm.json");
  const nlohmann::json base_json = nlohmann::json::parse(in);
  const auto chip = probe_chip_json(h200_result(), conditions(), base_json);
  ASSERT_TRUE(chip.ok()) << chip.error().message;
  EXPECT_EQ((*chip)["name"], "h200-sxm-measured");
  EXPECT_EQ((*chip)["tdp_watts"], 700);
  const auto spec = hw::chip_spec_from_json(nlohmann::json::parse((*chip).dump()), "probe.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_DOUBLE_EQ(spec->memory_bandwidth.value, 4.8e12);
  // fp8 falls back to the spec sheet's 1,979 TFLOP/s; bf16 is measured.
  const auto fp8 = hw::compute_roof(*spec, "fp8");
  ASSERT_TRUE(fp8.ok());
  EXPECT_FALSE(fp8->measured);
  EXPECT_DOUBLE_EQ(fp8->value, 1979e12);
  EXPECT_TRUE(hw::compute_roof(*spec, "bf16")->measured);
}

TEST(ProbeReport, RooflineJudgesAgainstTheMeasuredFile) {
  const auto chip = probe_chip_json(h200_result(), conditions(), std::nullopt);
  ASSERT_TRUE(chip.ok());
  const auto path = std::filesystem::temp_directory_path() /
                    ("perfhound_probe_report_test_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << chip->dump(2);
  const cli::CliRun r = cli::run({"roofline", "--hw", path.string(), "--flops", "1.1T", "--bytes", "805M", "--time",
                                  "1.45ms", "--json"});
  std::filesystem::remove(path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_THAT(j["conditions"]["parameters"]["compute_roof"].get<std::string>(), HasSubstr("measured"));
  EXPECT_THAT(j["conditions"]["parameters"]["memory_roof"].get<std::string>(), HasSubstr("measured"));
}

// The chip file feeds mfu and serve as it feeds roofline. mfu says in its conditions that it judged against the
// measured ceilings; serve's simulated engine takes its step times from them, and its start line says so, with
// the fixture's bf16 rate: 2 x 8192^3 FLOP in 1.45 ms = 758 TFLOP/s.
TEST(ProbeReport, MfuAndServeUseTheMeasuredFile) {
  const auto chip = probe_chip_json(h200_result(), conditions(), std::nullopt);
  ASSERT_TRUE(chip.ok());
  const auto path = std::filesystem::temp_directory_path() /
                    ("perfhound_probe_report_mfu_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << chip->dump(2);
  const cli::CliRun mfu = cli::run({"mfu", "--model", "llama-3-8b", "--hw", path.string(), "--phase", "decode",
                                    "--batch", "8", "--step-time", "12ms", "--json"});
  const cli::CliRun serve = cli::run({"serve", "--hw", path.string(), "--port", "0", "--duration", "50ms"});
  std::filesystem::remove(path);
  ASSERT_EQ(mfu.code, 0) << mfu.err;
  const auto j = nlohmann::json::parse(mfu.out);
  EXPECT_THAT(j["conditions"]["parameters"]["compute_roof"].get<std::string>(), HasSubstr("measured"));
  EXPECT_THAT(j["conditions"]["parameters"]["memory_roof"].get<std::string>(), HasSubstr("measured"));
  ASSERT_EQ(serve.code, 0) << serve.err;
  EXPECT_THAT(serve.err, HasSubstr("roofs 758 TFLOP/s (measured) and "));
  EXPECT_THAT(serve.err, HasSubstr("TB/s (measured)"));
}

}  // namespace
}  // namespace perfhound::cuda
