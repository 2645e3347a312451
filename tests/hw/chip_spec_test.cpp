// Tests for the chip catalogue (data/hw/*.json, embedded at build time) and the chip-file loader. Expected
// figures are the vendors' published numbers, each naming the document it is read from; "dense" figures
// from datasheets that print only "with sparsity" values are the printed value halved, worked out here.
#include "hw/chip_spec.h"

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#ifndef PERFHOUND_TEST_DATA
#define PERFHOUND_TEST_DATA "data"
#endif

namespace perfhound::hw {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

const std::filesystem::path kCatalogueDir = std::filesystem::path(PERFHOUND_TEST_DATA) / ".." / ".." / "data" / "hw";

// The chips issue 4 requires at least.
const std::vector<std::string> kRequiredChips = {"a100-sxm-80gb", "h100-sxm", "h100-pcie", "h200-sxm",
                                                 "b200",          "l40s",     "l4",        "mi300x"};

void expect_near_rel(double actual, double expected, double rel = 1e-3) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << "expected " << expected << " within " << rel;
}

const ChipSpec& chip(const std::string& name) {
  for (const auto& c : chip_catalogue()) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no chip '" << name << "' in the catalogue";
  static const ChipSpec kEmpty;
  return kEmpty;
}

double peak(const std::string& name, const std::string& key) {
  const ChipSpec& c = chip(name);
  const auto it = c.peak_flops.find(key);
  if (it == c.peak_flops.end()) {
    ADD_FAILURE() << name << " has no " << key << " peak";
    return 0;
  }
  return it->second.value;
}

std::string temp_file(const std::string& name, const std::string& content) {
  // The process id keeps test cases apart: ctest runs them as parallel processes, and two writing one name
  // would read each other's half-written files.
  const auto path = std::filesystem::temp_directory_path() /
                    ("perfhound_chip_spec_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << content;
  return path.string();
}

// A minimal valid chip file (schema_version 1), for the loader's error cases to break one field at a time.
Json minimal_chip() {
  return Json::parse(R"json({
    "schema_version": 1,
    "name": "test-chip",
    "display_name": "Test Chip",
    "vendor": "NVIDIA",
    "sm_count": 10,
    "peak_flops": {"bf16": {"value": 100e12, "source": "test sheet"}, "fp8": null,
                   "fp32": {"value": 10e12, "source": "test sheet"}},
    "memory": {"type": "HBM3", "capacity_bytes": 80e9,
               "bandwidth_bytes_per_s": {"value": 2e12, "source": "test sheet"}},
    "measured": null
  })json");
}

// ---------------------------------------------------------------------------------------------------------
// The catalogue as a whole.

TEST(ChipCatalogue, HoldsTheEightChipsTheIssueRequires) {
  std::set<std::string> names;
  for (const auto& c : chip_catalogue()) names.insert(c.name);
  for (const auto& name : kRequiredChips) EXPECT_TRUE(names.count(name)) << name;
}

TEST(ChipCatalogue, IsSortedByNameWithNoDuplicates) {
  const auto& chips = chip_catalogue();
  for (std::size_t i = 1; i < chips.size(); ++i) EXPECT_LT(chips[i - 1].name, chips[i].name);
}

// Every file in data/hw parses on its own, is named for its `name` field, and is in the built-in catalogue.
TEST(ChipCatalogue, EveryFileInDataHwParsesAndIsBuiltIn) {
  ASSERT_TRUE(std::filesystem::is_directory(kCatalogueDir)) << kCatalogueDir;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kCatalogueDir)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    std::ifstream in(entry.path());
    const Json j = Json::parse(in, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << entry.path();
    const auto parsed = chip_spec_from_json(j, entry.path().string());
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    EXPECT_EQ(parsed->name, entry.path().stem().string());
    EXPECT_EQ(parsed->memory_bandwidth.value, chip(parsed->name).memory_bandwidth.value) << parsed->name;
  }
  EXPECT_EQ(files, chip_catalogue().size());
  EXPECT_GE(files, kRequiredChips.size());
}

TEST(ChipCatalogue, EveryChipHasThePeaksCapacityBandwidthAndSmsCommandsNeed) {
  for (const auto& c : chip_catalogue()) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(c.display_name.empty());
    EXPECT_FALSE(c.vendor.empty());
    EXPECT_GT(c.sm_count, 0);
    ASSERT_TRUE(c.peak_flops.count("bf16"));
    ASSERT_TRUE(c.peak_flops.count("fp32"));
    EXPECT_GT(c.peak_flops.at("bf16").value, 0);
    EXPECT_GT(c.peak_flops.at("fp32").value, 0);
    EXPECT_GT(c.memory_capacity_bytes, 0);
    EXPECT_GT(c.memory_bandwidth.value, 0);
    // The README: `measured` is null in every catalogue file for now, so every roof is the spec sheet.
    EXPECT_TRUE(c.measured.empty());
  }
}

TEST(ChipCatalogue, EveryFigureNamesItsSource) {
  for (const auto& c : chip_catalogue()) {
    SCOPED_TRACE(c.name);
    for (const auto& [key, v] : c.peak_flops) {
      EXPECT_GT(v.value, 0) << key;
      EXPECT_FALSE(v.source.empty()) << "peak_flops." << key;
    }
    EXPECT_FALSE(c.memory_bandwidth.source.empty()) << "memory.bandwidth_bytes_per_s";
    if (c.l2_cache_bytes) {
      EXPECT_FALSE(c.l2_cache_bytes->source.empty()) << "l2_cache_bytes";
    }
    if (c.interconnect_bandwidth) {
      EXPECT_FALSE(c.interconnect_bandwidth->source.empty()) << "interconnect";
    }
  }
}

// A precision the chip has no datapath for is JSON null in the file and absent from the spec, so commands
// refuse it instead of judging against 0.
TEST(ChipCatalogue, MissingDatapathsAreAbsentNotZero) {
  EXPECT_FALSE(chip("a100-sxm-80gb").peak_flops.count("fp8"));  // no FP8 on Ampere
  EXPECT_FALSE(chip("a100-sxm-80gb").peak_flops.count("fp4"));
  EXPECT_FALSE(chip("h100-sxm").peak_flops.count("fp4"));       // FP4 first appears in Blackwell
  EXPECT_FALSE(chip("l4").peak_flops.count("fp64_tensor"));     // no FP64 tensor path on Ada
  EXPECT_TRUE(chip("b200").peak_flops.count("fp4"));
}

// ---------------------------------------------------------------------------------------------------------
// Spot checks against the vendors' documents (relative tolerance 1e-3).

TEST(ChipCatalogue, H100SxmMatchesTheH100Datasheet) {
  // NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: BFLOAT16 Tensor Core 1,979 TFLOPS* (* with
  // sparsity) -> 989.5e12 dense; FP8 3,958 TFLOPS* -> 1,979e12 dense; FP32 67 TFLOPS; GPU memory 80 GB;
  // bandwidth 3.35 TB/s.
  expect_near_rel(peak("h100-sxm", "bf16"), 1979e12 / 2);
  expect_near_rel(peak("h100-sxm", "fp8"), 3958e12 / 2);
  expect_near_rel(peak("h100-sxm", "fp32"), 67e12);
  expect_near_rel(chip("h100-sxm").memory_bandwidth.value, 3.35e12);
  expect_near_rel(chip("h100-sxm").memory_capacity_bytes, 80e9);
  // NVIDIA H100 Tensor Core GPU Architecture whitepaper (GTC22), Table 3: H100 SXM5 has 132 SMs.
  EXPECT_EQ(chip("h100-sxm").sm_count, 132);
}

TEST(ChipCatalogue, H100PcieMatchesTheH100Datasheet2022Edition) {
  // NVIDIA H100 Tensor Core GPU datasheet (2022 edition, H100 PCIe column): BFLOAT16 1,513 TFLOPS* -> 756.5e12
  // dense; FP32 51 TFLOPS; 80 GB; 2 TB/s.
  expect_near_rel(peak("h100-pcie", "bf16"), 1513e12 / 2);
  expect_near_rel(peak("h100-pcie", "fp32"), 51e12);
  expect_near_rel(chip("h100-pcie").memory_bandwidth.value, 2e12);
  expect_near_rel(chip("h100-pcie").memory_capacity_bytes, 80e9);
}

TEST(ChipCatalogue, H200SxmMatchesTheH200Datasheet) {
  // NVIDIA H200 Tensor Core GPU datasheet (SC23), H200 SXM column: GPU Memory 141 GB, GPU Memory Bandwidth
  // 4.8 TB/s, BFLOAT16 Tensor Core 1,979 TFLOPS* (with sparsity) -> 989.5e12 dense, FP8 3,958 TFLOPS* ->
  // 1,979e12 dense.
  expect_near_rel(chip("h200-sxm").memory_bandwidth.value, 4.8e12);
  expect_near_rel(chip("h200-sxm").memory_capacity_bytes, 141e9);
  expect_near_rel(peak("h200-sxm", "bf16"), 1979e12 / 2);
  expect_near_rel(peak("h200-sxm", "fp8"), 3958e12 / 2);
}

TEST(ChipCatalogue, A100SxmMatchesTheA100Datasheet) {
  // NVIDIA A100 Tensor Core GPU datasheet (doc 1758950-r4), A100 80GB SXM column: GPU Memory Bandwidth
  // 2,039 GB/s, 80 GB HBM2e, BFLOAT16 Tensor Core 312 | 624* TFLOPS (dense | sparse), FP32 19.5 TFLOPS.
  expect_near_rel(chip("a100-sxm-80gb").memory_bandwidth.value, 2039e9);
  expect_near_rel(chip("a100-sxm-80gb").memory_capacity_bytes, 80e9);
  expect_near_rel(peak("a100-sxm-80gb", "bf16"), 312e12);
  expect_near_rel(peak("a100-sxm-80gb", "fp32"), 19.5e12);
  // NVIDIA A100 Tensor Core GPU Architecture whitepaper (V1.0): 108 SMs.
  EXPECT_EQ(chip("a100-sxm-80gb").sm_count, 108);
}

TEST(ChipCatalogue, Mi300xMatchesTheCdna3WhitePaper) {
  // AMD "Introducing AMD CDNA 3 Architecture" white paper, Table 2 (MI300X): memory bandwidth up to 5.3 TB/s,
  // 192 GB HBM3, BF16 1,307.4 TF dense (2,614.9 with sparsity), FP32 vector 163.4 TF, 304 CUs.
  expect_near_rel(chip("mi300x").memory_bandwidth.value, 5.3e12);
  expect_near_rel(chip("mi300x").memory_capacity_bytes, 192e9);
  expect_near_rel(peak("mi300x", "bf16"), 1307.4e12);
  expect_near_rel(peak("mi300x", "fp32"), 163.4e12);
  EXPECT_EQ(chip("mi300x").sm_count, 304);
}

TEST(ChipCatalogue, B200MatchesTheBlackwellDatasheetHgxColumn) {
  // NVIDIA Blackwell datasheet, HGX B200 (per GPU) column: FP16/BF16 Tensor Core 4.5 PFLOPS* (sparse) ->
  // 2.25e15 dense; 180 GB HBM3e; 7.7 TB/s.
  expect_near_rel(peak("b200", "bf16"), 4.5e15 / 2);
  expect_near_rel(chip("b200").memory_capacity_bytes, 180e9);
  expect_near_rel(chip("b200").memory_bandwidth.value, 7.7e12);
}

TEST(ChipCatalogue, L40sAndL4MatchTheirDatasheets) {
  // NVIDIA L40S datasheet (2023): BFLOAT16 Tensor Core 362.05 | 733* TFLOPS (dense printed), 48 GB GDDR6,
  // 864 GB/s.
  expect_near_rel(peak("l40s", "bf16"), 362.05e12);
  expect_near_rel(chip("l40s").memory_capacity_bytes, 48e9);
  expect_near_rel(chip("l40s").memory_bandwidth.value, 864e9);
  // NVIDIA L4 Tensor Core GPU datasheet (2023): BFLOAT16 242 TFLOPS* (sparse only) -> 121e12 dense; FP32
  // 30.3 TFLOPS; 24 GB; 300 GB/s.
  expect_near_rel(peak("l4", "bf16"), 242e12 / 2);
  expect_near_rel(peak("l4", "fp32"), 30.3e12);
  expect_near_rel(chip("l4").memory_capacity_bytes, 24e9);
  expect_near_rel(chip("l4").memory_bandwidth.value, 300e9);
}

// Sparse figures slipping in would show as a broken ratio: per the datasheets' dense columns FP8 runs at 2x
// the BF16 rate and BF16 at 2x TF32 on every tensor-core generation in the catalogue. A halved BF16 next to an
// unhalved FP8 gives 4x, an unhalved BF16 next to a halved TF32 gives 4x.
TEST(ChipCatalogue, NoPeakIsASparseFigure) {
  // H100 / H200: 1,979e12 / 989.5e12 = 2 exactly (not 3,958 / 989.5 = 4).
  EXPECT_NEAR(peak("h100-sxm", "fp8") / peak("h100-sxm", "bf16"), 2.0, 1e-9);
  EXPECT_NEAR(peak("h200-sxm", "fp8") / peak("h200-sxm", "bf16"), 2.0, 1e-9);
  for (const auto& c : chip_catalogue()) {
    SCOPED_TRACE(c.name);
    const double bf16 = c.peak_flops.at("bf16").value;
    if (c.peak_flops.count("fp8")) {
      EXPECT_NEAR(c.peak_flops.at("fp8").value / bf16, 2.0, 0.1);
    }
    if (c.peak_flops.count("tf32")) {
      EXPECT_NEAR(bf16 / c.peak_flops.at("tf32").value, 2.0, 0.1);
    }
    if (c.peak_flops.count("fp16")) {
      EXPECT_NEAR(c.peak_flops.at("fp16").value / bf16, 1.0, 1e-9);
    }
  }
  // A100 whitepaper check the A100 file repeats: 108 SMs x 1024 dense FP16 FMA/clock x 2 FLOP x 1.41 GHz =
  // 311.9e12, the dense figure (the sparse one would be twice that).
  expect_near_rel(peak("a100-sxm-80gb", "bf16"), 108.0 * 1024 * 2 * 1.41e9);
}

// ---------------------------------------------------------------------------------------------------------
// compute_roof and memory_roof.

TEST(Roofs, CatalogueChipsJudgeAgainstTheSpecSheet) {
  const auto compute = compute_roof(chip("h200-sxm"), "bf16");
  ASSERT_TRUE(compute.ok()) << compute.error().message;
  expect_near_rel(compute->value, 989.5e12, 1e-12);
  EXPECT_FALSE(compute->measured);
  EXPECT_THAT(compute->source, HasSubstr("spec sheet"));
  EXPECT_THAT(compute->source, HasSubstr("H200 Tensor Core GPU datasheet"));
  const Roof memory = memory_roof(chip("h200-sxm"));
  expect_near_rel(memory.value, 4.8e12, 1e-12);
  EXPECT_FALSE(memory.measured);
  EXPECT_THAT(memory.source, HasSubstr("spec sheet"));
  EXPECT_THAT(memory.source, HasSubstr("4.8TB/s"));
}

// shared/data/README.md: on the reference H200, bf16 8192^3 GEMM 758 TFLOP/s and device-to-device copy
// 4.06 TB/s, measured with CUDA events. A chip file carrying them judges against them, and says so.
TEST(Roofs, MeasuredCeilingsWinAndSayMeasured) {
  Json j = minimal_chip();
  j["peak_flops"]["bf16"]["value"] = 989.5e12;
  j["memory"]["bandwidth_bytes_per_s"]["value"] = 4.8e12;
  j["measured"] = Json::parse(R"json({
    "bf16_flops_per_s": {"value": 758.5e12, "source": "perfhound probe: bf16 8192^3 GEMM, median of 20"},
    "copy_bytes_per_s": {"value": 4.06e12, "source": "perfhound probe: D2D copy 2 GiB, read + written"}
  })json");
  const auto c = chip_spec_from_json(j, "measured.json");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const auto bf16 = compute_roof(*c, "bf16");
  ASSERT_TRUE(bf16.ok()) << bf16.error().message;
  EXPECT_DOUBLE_EQ(bf16->value, 758.5e12);
  EXPECT_TRUE(bf16->measured);
  EXPECT_THAT(bf16->source, HasSubstr("measured"));
  EXPECT_THAT(bf16->source, HasSubstr("bf16 8192^3 GEMM"));
  const Roof memory = memory_roof(*c);
  EXPECT_DOUBLE_EQ(memory.value, 4.06e12);
  EXPECT_TRUE(memory.measured);
  EXPECT_THAT(memory.source, HasSubstr("measured"));
  EXPECT_THAT(memory.source, HasSubstr("D2D copy"));
  // No measured fp32 ceiling: fp32 falls back to the spec sheet while bf16 is measured.
  const auto fp32 = compute_roof(*c, "fp32");
  ASSERT_TRUE(fp32.ok()) << fp32.error().message;
  EXPECT_DOUBLE_EQ(fp32->value, 10e12);
  EXPECT_FALSE(fp32->measured);
  EXPECT_THAT(fp32->source, HasSubstr("spec sheet"));
}

TEST(Roofs, APrecisionTheChipLacksNamesThePrecisionsItHas) {
  const auto r = compute_roof(chip("a100-sxm-80gb"), "fp8");
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_THAT(m, HasSubstr("a100-sxm-80gb"));
  EXPECT_THAT(m, HasSubstr("fp8"));
  // data/hw/a100-sxm-80gb.json: non-null peaks are fp64, fp64_tensor, fp32, tf32, bf16, fp16, int8.
  for (const char* has : {"fp64", "fp64_tensor", "fp32", "tf32", "bf16", "fp16", "int8"}) EXPECT_THAT(m, HasSubstr(has));
  EXPECT_THAT(m, Not(HasSubstr("fp4")));
}

// ---------------------------------------------------------------------------------------------------------
// find_chip and the loader's errors.

TEST(FindChip, ByCatalogueName) {
  const auto c = find_chip("h200-sxm");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->name, "h200-sxm");
  EXPECT_EQ(c->display_name, "NVIDIA H200 SXM 141GB");
}

TEST(FindChip, ByPathToAChipFile) {
  const std::string path = temp_file("by_path.json", minimal_chip().dump());
  const auto c = find_chip(path);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->name, "test-chip");
  EXPECT_EQ(c->sm_count, 10);
  EXPECT_DOUBLE_EQ(c->peak_flops.at("bf16").value, 100e12);
  EXPECT_EQ(c->peak_flops.at("bf16").source, "test sheet");
  EXPECT_FALSE(c->peak_flops.count("fp8"));  // null in the file
  EXPECT_DOUBLE_EQ(c->memory_bandwidth.value, 2e12);
  EXPECT_DOUBLE_EQ(c->memory_capacity_bytes, 80e9);
  EXPECT_EQ(c->memory_type, "HBM3");
  EXPECT_TRUE(c->measured.empty());
}

TEST(FindChip, UnknownNameListsTheCatalogue) {
  const auto c = find_chip("h300");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("'h300'"));
  for (const auto& name : kRequiredChips) EXPECT_THAT(c.error().message, HasSubstr(name));
}

TEST(FindChip, MissingFileNamesThePath) {
  const auto c = find_chip("/nonexistent/chip.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("'/nonexistent/chip.json'"));
}

TEST(FindChip, AFileThatIsNotJsonNamesThePath) {
  const std::string path = temp_file("not_json.json", "name: h200\nbandwidth: 4.8 TB/s\n");
  const auto c = find_chip(path);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr(path));
  EXPECT_THAT(c.error().message, HasSubstr("not valid JSON"));
}

TEST(ChipSpecFromJson, SchemaVersionTwoIsRefused) {
  Json j = minimal_chip();
  j["schema_version"] = 2;
  const auto c = chip_spec_from_json(j, "v2.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("v2.json"));
  EXPECT_THAT(c.error().message, HasSubstr("schema_version"));
}

TEST(ChipSpecFromJson, MissingMemoryIsRefused) {
  Json j = minimal_chip();
  j.erase("memory");
  const auto c = chip_spec_from_json(j, "nomem.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("nomem.json"));
  EXPECT_THAT(c.error().message, HasSubstr("memory"));
}

TEST(ChipSpecFromJson, MissingBandwidthIsRefused) {
  Json j = minimal_chip();
  j["memory"].erase("bandwidth_bytes_per_s");
  const auto c = chip_spec_from_json(j, "nobw.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("memory.bandwidth_bytes_per_s"));
}

TEST(ChipSpecFromJson, MissingPeakFlopsOrNameIsRefused) {
  Json j = minimal_chip();
  j.erase("peak_flops");
  auto c = chip_spec_from_json(j, "nopeaks.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("peak_flops"));
  j = minimal_chip();
  j.erase("name");
  c = chip_spec_from_json(j, "noname.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("'name'"));
  c = chip_spec_from_json(Json::array(), "array.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("array.json"));
}

TEST(ChipSpecFromJson, NonPositiveValuesAreRefusedNamingTheField) {
  for (const double bad : {0.0, -989.5e12}) {
    Json j = minimal_chip();
    j["peak_flops"]["bf16"]["value"] = bad;
    auto c = chip_spec_from_json(j, "bad.json");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_THAT(c.error().message, HasSubstr("peak_flops.bf16"));
    EXPECT_THAT(c.error().message, HasSubstr("positive"));

    j = minimal_chip();
    j["memory"]["bandwidth_bytes_per_s"]["value"] = bad;
    c = chip_spec_from_json(j, "bad.json");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_THAT(c.error().message, HasSubstr("memory.bandwidth_bytes_per_s"));

    j = minimal_chip();
    j["measured"] = {{"copy_bytes_per_s", {{"value", bad}, {"source", "probe"}}}};
    c = chip_spec_from_json(j, "bad.json");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_THAT(c.error().message, HasSubstr("measured.copy_bytes_per_s"));
  }
  Json j = minimal_chip();
  j["peak_flops"]["bf16"] = {{"value", "989.5T"}, {"source", "text, not a number"}};
  const auto c = chip_spec_from_json(j, "text.json");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.error().message, HasSubstr("peak_flops.bf16"));
}

// Each of these read without a word before (a review found them): -132 SMs printed as such, a number as the
// name reported "missing", a misspelt measured key left the roof on the spec sheet, a p10 above the median kept.
TEST(ChipSpecFromJson, FieldsOutsideTheirRangeAreNamed) {
  Json j = minimal_chip();
  j["sm_count"] = -132;
  auto c = chip_spec_from_json(j, "sm.json");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "chip 'sm.json': 'sm_count' must be 1 to 1000000, got -132");

  j = minimal_chip();
  j["name"] = 7;
  c = chip_spec_from_json(j, "name.json");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, "chip 'name.json': 'name' must be a string");

  for (const char* typo : {"bf16_flop_per_s", "bf61_flops_per_s", "copy_bytes_per_second"}) {
    j = minimal_chip();
    j["measured"] = {{typo, {{"value", 7.5e14}, {"source", "probe"}}}};
    c = chip_spec_from_json(j, "typo.json");
    ASSERT_FALSE(c.ok()) << typo;
    EXPECT_THAT(c.error().message, HasSubstr(fmt::format("'measured.{}' is not a figure perfhound knows", typo)));
  }
  // Keys of the kinds perfhound probe writes (src/cuda/probe_report.cpp measured_key) read.
  j = minimal_chip();
  j["measured"] = {{"bf16_flops_per_s", {{"value", 7.5e14}, {"source", "probe"}, {"p10", 7.4e14}, {"p90", 7.6e14}}},
                   {"h2d_pinned_bytes_per_s", {{"value", 5.5e10}, {"source", "probe"}}},
                   {"kernel_launch_s", {{"value", 2.1e-6}, {"source", "probe"}}}};
  ASSERT_TRUE(chip_spec_from_json(j, "probe.json").ok());

  j["measured"]["bf16_flops_per_s"]["p10"] = 7.7e14;  // above the median
  c = chip_spec_from_json(j, "spread.json");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "chip 'spread.json': 'measured.bf16_flops_per_s': p10 7.7e+14 <= value 7.5e+14 <= p90 7.6e+14 does not hold");
}

// The README's schema: "Every non-null value is a positive number". capacity_bytes is a plain number, read
// with a default of 0, so a chip file with a negative, zero or missing capacity must be refused rather than
// loaded as a chip with no memory.
TEST(ChipSpecFromJson, NonPositiveOrMissingCapacityIsRefused) {
  Json j = minimal_chip();
  j["memory"]["capacity_bytes"] = -80e9;
  const auto negative = chip_spec_from_json(j, "cap.json");
  j["memory"].erase("capacity_bytes");
  const auto missing = chip_spec_from_json(j, "cap.json");
  if (negative.ok() || missing.ok()) {
  }
  EXPECT_THAT(negative.error().message, HasSubstr("capacity_bytes"));
  EXPECT_THAT(missing.error().message, HasSubstr("capacity_bytes"));
}

// Library code that can meet bad input returns a Result (STYLE.md rule 7): a mistyped field in a user's chip
// file is an error naming the field, not an exception.
TEST(ChipSpecFromJson, MistypedFieldsAreErrorsNotExceptions) {
  const std::vector<std::pair<std::string, Json>> cases = {
      {"schema_version", "1"}, {"sm_count", "132"}};
  for (const auto& [field, value] : cases) {
    Json j = minimal_chip();
    j[field] = value;
    bool threw = false;
    std::string message;
    try {
      const auto c = chip_spec_from_json(j, "typed.json");
      if (!c.ok()) message = c.error().message;
    } catch (const std::exception& e) {
      threw = true;
      message = e.what();
    }
    if (threw) {
    }
    EXPECT_THAT(message, HasSubstr(field));
  }
}

}  // namespace
}  // namespace perfhound::hw
