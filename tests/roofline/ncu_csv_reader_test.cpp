// Tests for the ncu CSV reader: the real H200 export (tests/data/ncu/h200_roofline_raw.csv, a copy of
// shared/data/ncu/, ncu 2025.3 `--set roofline --csv --page raw`) and small synthetic exports for the units,
// the tensor aggregation rules and bad input. Expected figures are worked out from the raw fields in the
// comments (value * rate * duration, with the weights Nsight Compute's roofline sections use).
#include "roofline/ncu_csv_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#ifndef PERFHOUND_TEST_DATA
#define PERFHOUND_TEST_DATA "data"
#endif

namespace perfhound::roofline {
namespace {

const std::string kH200 = std::string(PERFHOUND_TEST_DATA) + "/ncu/h200_roofline_raw.csv";

// 2 * 8192^3 and the work of 8192 rows padded to 26 tiles of 320 rows: 2 * 8320 * 8192 * 8192.
constexpr double kGemmFlops = 1099511627776.0;
constexpr double kPaddedGemmFlops = 1116691496960.0;
constexpr double kAddElements = 67108864.0;  // 64M = 2^26

void expect_near_rel(double actual, double expected, double rel) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << "expected " << expected << " within " << rel * 100 << "%";
}

class H200File : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto parsed = read_ncu_csv(kH200);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    csv_ = new NcuCsv(std::move(parsed).value());
  }
  static void TearDownTestSuite() {
    delete csv_;
    csv_ = nullptr;
  }
  static const NcuKernel& kernel(std::size_t id) { return csv_->kernels.at(id); }
  static NcuCsv* csv_;
};
NcuCsv* H200File::csv_ = nullptr;

TEST_F(H200File, ReadsNineKernelsWithTheirNamesAndKeepsNcusNotes) {
  // The README says "the first 12 kernels"; the file holds 9 rows (IDs 0-8) after the header and units row.
  ASSERT_EQ(csv_->kernels.size(), 9u);
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(kernel(i).id, static_cast<std::int64_t>(i));
  const std::string fill_fp32 =
      "void at::<unnamed>::distribution_elementwise_grid_stride_kernel<float, 4, void "
      "templates::normal_and_transform<float, float, at::CUDAGeneratorImpl *, ";
  for (const std::size_t id : {0u, 1u, 5u, 6u}) EXPECT_TRUE(kernel(id).name.starts_with(fill_fp32)) << id;
  EXPECT_NE(kernel(3).name.find("normal_and_transform<c10::BFloat16, float"), std::string::npos);
  EXPECT_EQ(kernel(2).name,
            "void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>, "
            "std::array<char *, 3>>(int, T2, T3)");
  EXPECT_EQ(kernel(4).name, "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  EXPECT_EQ(kernel(7).name, "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(T1::Params)");
  EXPECT_TRUE(kernel(8).name.starts_with("void cublasLt::splitKreduce_kernel<32, 16, int, float, "));
  EXPECT_EQ(kernel(0).device, "NVIDIA H200");
  EXPECT_EQ(kernel(0).line, 6);  // 3 notes, header on line 4, units on line 5
  EXPECT_EQ(kernel(8).line, 14);
  ASSERT_EQ(csv_->notes.size(), 3u);
  EXPECT_EQ(csv_->notes[0],
            "==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results "
            "may be inconsistent.");
  EXPECT_EQ(csv_->notes[1], "==PROF== Connected to process 495 (/usr/bin/python3.12)");
}

TEST_F(H200File, DurationsComeFromGpuTimeDurationInNanoseconds) {
  EXPECT_DOUBLE_EQ(kernel(0).duration_s, 157248e-9);   // "157,248" ns
  EXPECT_DOUBLE_EQ(kernel(4).duration_s, 1406144e-9);  // "1,406,144" ns
  EXPECT_DOUBLE_EQ(kernel(5).duration_s, 3040e-9);
}

TEST_F(H200File, Bf16GemmTensorFlopsAreThePaddedTileWork) {
  const NcuKernel& gemm = kernel(4);
  // sm__ops_path_tensor_src_bf16_dst_fp32.sum = "1,116,691,496,960" = 2 * 8320 * 8192^2 exactly: 1.5625% above
  // 2 * 8192^3 (8192 rows in 26 tiles of 320 = 8320 rows), so within 2% of the matmul's FLOPs, not within 1%.
  EXPECT_DOUBLE_EQ(gemm.flops_by_precision.tensor, kPaddedGemmFlops);
  EXPECT_DOUBLE_EQ(gemm.total_flops, kPaddedGemmFlops);
  EXPECT_NEAR(gemm.total_flops / kGemmFlops, 8320.0 / 8192.0, 1e-12);
  expect_near_rel(gemm.total_flops, kGemmFlops, 0.02);
  // Counted once: the per-instruction op_hgmma counter holds the same 1.1167e12 and is not added.
  ASSERT_EQ(gemm.tensor_flops_by_metric.size(), 1u);
  EXPECT_EQ(gemm.tensor_flops_by_metric[0].first, "sm__ops_path_tensor_src_bf16_dst_fp32.sum");
  EXPECT_DOUBLE_EQ(gemm.flops_by_precision.fp32, 0);
  EXPECT_DOUBLE_EQ(gemm.flops_by_precision.fp16, 0);
  // Dense peak of the instruction that did the work: 540,672 ops/cycle * 1,571,872,202.75 Hz =
  // 849,867,287,605,248 FLOP/s (ncu's own .peak_sustained_elapsed.per_second: 849,867,287,606,390.25).
  EXPECT_EQ(gemm.peaks.tensor_metric, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off");
  ASSERT_TRUE(gemm.peaks.tensor_flops_per_s.has_value());
  EXPECT_NEAR(*gemm.peaks.tensor_flops_per_s, 849867287605248.0, 1e3);
  EXPECT_DOUBLE_EQ(gemm.peaks.sm_clock_hz, 1571872202.75);
  // DRAM: dram__bytes.sum.per_second 908,173,137,317.37 * 1.406144e-3 s = 1,277,022,208 bytes.
  EXPECT_NEAR(gemm.dram_bytes, 1277022208.0, 1.0);
}

TEST_F(H200File, Bf16GemmIsOnTheComputeRoofAt93Percent) {
  const NcuKernel& gemm = kernel(4);
  const std::optional<Roof> roof = roof_from_row(gemm);
  ASSERT_TRUE(roof.has_value());
  EXPECT_EQ(roof->label,
            "NVIDIA H200 tensor (sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off) + "
            "DRAM at 1.57 GHz");
  const auto point = place_on_roofline(*roof, dram_measurement(gemm));
  ASSERT_TRUE(point.ok()) << point.error().message;
  // (1.11669e12 / 8.49867e14 FLOP/s) / 1.406144e-3 s = 0.93445; ncu's sm__pipe_tensor_cycles_active: 93.44%.
  EXPECT_NEAR(point->fraction_of_attainable, 0.93445, 1e-4);
  EXPECT_EQ(point->roofline_case, RooflineCase::kComputeRoof);
}

TEST_F(H200File, Fp32AddIsOneFfmaPerElementAndMovesThreeArrays) {
  const NcuKernel& add = kernel(2);
  // smsp__..._ffma_pred_on.sum.per_cycle_elapsed 191.15 * 1,923,783,966.71 Hz * 182,496e-9 s = 67,109,492
  // thread FFMAs = 2^26 within 0.01%; no FADD at all: CUDAFunctor_add computes a + alpha * b.
  expect_near_rel(add.fp32_instructions.fma, kAddElements, 1e-4);
  EXPECT_DOUBLE_EQ(add.fp32_instructions.add, 0);
  EXPECT_DOUBLE_EQ(add.fp32_instructions.mul, 0);
  // So Nsight Compute's roofline counts 2 FLOPs per element: 134.2M fp32 FLOPs, not 64M.
  expect_near_rel(add.flops_by_precision.fp32, 2 * kAddElements, 1e-4);
  EXPECT_DOUBLE_EQ(add.flops_by_precision.tensor, 0);
  // DRAM: 4,306,334,210,064.88 B/s * 182,496e-9 s = 785,888,768 B vs 3 * 4 * 64M = 805,306,368 (-2.4%).
  EXPECT_NEAR(add.dram_bytes, 785888768.0, 1.0);
  expect_near_rel(add.dram_bytes, 3 * 4 * kAddElements, 0.05);
  // L2 -> SM traffic is the two inputs only: 2,944,332,982,640.72 * 182,496e-9 = 537,328,992 ~ 2 * 4 * 64M.
  ASSERT_TRUE(add.l2_bytes.has_value());
  EXPECT_NEAR(*add.l2_bytes, 537328992.0, 1.0);
  expect_near_rel(*add.l2_bytes, 2 * 4 * kAddElements, 0.001);
  ASSERT_TRUE(add.l1_bytes.has_value());
  EXPECT_NEAR(*add.l1_bytes, 570425344.0, 1.0);  // 3,125,686,831,492.20 B/s * 182,496e-9 s
}

TEST_F(H200File, DevicePeaksAtTheMeasuredClocks) {
  const NcuPeaks& p = kernel(2).peaks;
  EXPECT_DOUBLE_EQ(p.sm_clock_hz, 1923783966.71);
  ASSERT_TRUE(p.max_sm_clock_hz.has_value());
  EXPECT_DOUBLE_EQ(*p.max_sm_clock_hz, 1.98e9);  // device__attribute_clock_rate 1,980,000 kHz
  // fp32: 16,896 FFMA/cycle * 2 * 1,923,783,966.71 Hz; fp64: 8,448 * 2 * clock; fp16: 16,896 HFMA * 4 * clock.
  EXPECT_NEAR(*p.fp32_flops_per_s, 65008507803064.3, 1.0);
  EXPECT_NEAR(*p.fp64_flops_per_s, 32504253901532.2, 1.0);
  EXPECT_NEAR(*p.fp16_flops_per_s, 130017015606128.6, 1.0);
  // DRAM 1,504 B/cycle * 3,198,784,265.59 Hz = 4.811e12 (H200: 4.8 TB/s); L2 6,016 * 1,709,166,228.30 Hz;
  // L1 16,896 * 1,923,783,966.71 Hz.
  EXPECT_NEAR(*p.dram_bytes_per_s, 4810971535447.4, 1.0);
  EXPECT_NEAR(*p.l2_bytes_per_s, 10282344029452.8, 1.0);
  EXPECT_NEAR(*p.l1_bytes_per_s, 32504253901532.2, 1.0);
  EXPECT_FALSE(p.tensor_flops_per_s.has_value());  // no tensor work, no tensor roof
  EXPECT_TRUE(p.tensor_metric.empty());
}

TEST_F(H200File, Fp32AddBindsOnDramLikeNcuSays) {
  const NcuKernel& add = kernel(2);
  const std::vector<MemoryLevel> levels = memory_levels(add);
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "L1");
  EXPECT_EQ(levels[2].name, "DRAM");
  const auto h = place_hierarchical(*add.peaks.fp32_flops_per_s, add.total_flops, add.duration_s, levels);
  ASSERT_TRUE(h.ok()) << h.error().message;
  // Bound times: L1 5.70e8 / 3.25e13 = 17.5 us, L2 5.37e8 / 1.03e13 = 52.3 us, DRAM 7.86e8 / 4.81e12 =
  // 163.4 us of 182.5 us: DRAM binds at 0.8951, ncu's gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
  // for this kernel is 89.51%.
  EXPECT_EQ(h->binding_level, 2u);
  EXPECT_NEAR(h->levels[2].point.fraction_of_attainable, 0.8951, 1e-4);
  EXPECT_EQ(h->levels[2].point.roofline_case, RooflineCase::kMemorySlope);
}

TEST_F(H200File, SmallSgemmAndSplitKReduce) {
  // fp32 [64x1024] @ [1024x1024]: 2 * 64 * 1024 * 1024 = 134,217,728 FLOPs as 2^26 FFMA, plus the epilogue's
  // 524,219 FMUL (64 * 1024 * 8 split-K partials = 524,288) = 134,741,838.
  const NcuKernel& sgemm = kernel(7);
  expect_near_rel(sgemm.fp32_instructions.fma, 67108864.0, 1e-4);
  expect_near_rel(sgemm.flops_by_precision.fp32, 134741838.0, 1e-6);
  expect_near_rel(sgemm.total_flops, 2.0 * 64 * 1024 * 1024, 0.005);
  // The reduce adds the 8 partials: FADD 81.00/cycle * 1,963,716,350.40 Hz * 3,296e-9 s = 524,265.
  expect_near_rel(kernel(8).fp32_instructions.add, 524265.0, 1e-4);
}

TEST_F(H200File, TinyFillIsFarBelowBoth) {
  // 3.04 us fill of 256 blocks: 5.11M fp32 + 0.79M fp16 FLOPs and 10,240 DRAM bytes; against the fp32 peak
  // 65.6e12 FLOP/s the bound is 5.898e6 / 6.5615e13 = 89.9 ns of 3,040 ns: 0.0296 of the roof.
  const NcuKernel& fill = kernel(5);
  EXPECT_NEAR(fill.dram_bytes, 10240.0, 1e-3);
  const std::optional<Roof> roof = roof_from_row(fill);
  ASSERT_TRUE(roof.has_value());
  EXPECT_EQ(roof->label, "NVIDIA H200 fp32 + DRAM at 1.94 GHz");
  const auto point = place_on_roofline(*roof, dram_measurement(fill));
  ASSERT_TRUE(point.ok());
  EXPECT_NEAR(point->fraction_of_attainable, 0.02957, 1e-4);
  EXPECT_EQ(point->roofline_case, RooflineCase::kBelowBoth);
}

// ---- synthetic exports ---------------------------------------------------------------------------------

struct Column {
  std::string name;
  std::string unit;
  std::string value;
};

// One kernel, hand-sized: 2 us at 1 GHz, so a per-cycle rate r is r * 1e9 * 2e-6 = 2000 r per kernel.
std::vector<Column> synthetic_columns() {
  return {
      {"ID", "", "0"},
      {"Kernel Name", "", "void k<float, 4>(int, \"\"T2\"\")"},
      {"gpu__time_duration.sum", "us", "2"},
      {"smsp__cycles_elapsed.avg.per_second", "Ghz", "1"},
      {"sm__cycles_elapsed.avg.per_second", "hz", "1,000,000,000"},
      {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", "inst/cycle", "1"},
      {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", "inst/cycle", "0.5"},
      {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", "inst/cycle", "2"},
      {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed", "inst/cycle", "0"},
      {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed", "inst/cycle", "0"},
      {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", "inst/cycle", "0.25"},
      {"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed", "inst/cycle", "0.5"},
      {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed", "inst/cycle", "0"},
      {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed", "inst/cycle", "1"},
      {"dram__bytes.sum.per_second", "Gbyte/s", "1.5"},
      {"sm__ops_path_tensor_src_fp16.sum", "", "1,000,000"},
      {"sm__ops_path_tensor_src_fp16_dst_fp32.sum", "", "600,000"},
      {"sm__ops_path_tensor_src_fp8_sparsity_off.sum", "", "50,000"},
      {"sm__ops_path_tensor_src_fp8_sparsity_on.sum", "", "0"},
      {"sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained", "", "2,048"},
  };
}

std::string quoted_row(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) line += (i ? ",\"" : "\"") + fields[i] + "\"";
  return line + "\n";
}

std::string render(const std::vector<Column>& columns, bool with_units = true) {
  std::vector<std::string> names, units, values;
  for (const Column& c : columns) {
    names.push_back(c.name);
    units.push_back(c.unit);
    values.push_back(c.value);
  }
  return "==PROF== Connected to process 1 (/usr/bin/python3)\n" + quoted_row(names) +
         (with_units ? quoted_row(units) : std::string()) + quoted_row(values);
}

std::vector<Column> with(std::vector<Column> columns, const std::string& name, const std::string& unit,
                         const std::string& value) {
  for (Column& c : columns) {
    if (c.name == name) {
      c.unit = unit;
      c.value = value;
    }
  }
  return columns;
}

std::vector<Column> without(std::vector<Column> columns, const std::string& name) {
  std::erase_if(columns, [&](const Column& c) { return c.name == name; });
  return columns;
}

void expect_error(const core::Result<NcuCsv>& result, const std::string& text) {
  ASSERT_FALSE(result.ok()) << "expected an error containing: " << text;
  EXPECT_NE(result.error().message.find(text), std::string::npos) << result.error().message;
}

TEST(NcuCsvSynthetic, WeightsUnitsAndTensorAggregation) {
  const auto csv = parse_ncu_csv(render(synthetic_columns()), "s.csv");
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  ASSERT_EQ(csv->kernels.size(), 1u);
  const NcuKernel& k = csv->kernels[0];
  EXPECT_EQ(k.name, "void k<float, 4>(int, \"T2\")");  // quoted commas and doubled quotes
  EXPECT_DOUBLE_EQ(k.duration_s, 2e-6);                // "2" us
  // fp32: 2000 FADD + 1000 FMUL + 2 * 4000 FFMA = 11,000; fp64: 2 * 500 DFMA = 1,000;
  // fp16: 2 * 1000 HADD + 4 * 2000 HFMA = 10,000.
  EXPECT_DOUBLE_EQ(k.fp32_instructions.add, 2000);
  EXPECT_DOUBLE_EQ(k.fp32_instructions.fma, 4000);
  EXPECT_DOUBLE_EQ(k.flops_by_precision.fp32, 11000);
  EXPECT_DOUBLE_EQ(k.flops_by_precision.fp64, 1000);
  EXPECT_DOUBLE_EQ(k.flops_by_precision.fp16, 10000);
  // Tensor: src_fp16 1,000,000 (its finer src_fp16_dst_fp32 is inside it, not added) + fp8 50,000.
  EXPECT_DOUBLE_EQ(k.flops_by_precision.tensor, 1050000);
  ASSERT_EQ(k.tensor_flops_by_metric.size(), 2u);
  EXPECT_EQ(k.tensor_flops_by_metric[0].first, "sm__ops_path_tensor_src_fp16.sum");
  EXPECT_DOUBLE_EQ(k.total_flops, 1072000);
  // DRAM: 1.5 Gbyte/s * 2e-6 s = 3,000 bytes; no L1/L2 columns.
  EXPECT_DOUBLE_EQ(k.dram_bytes, 3000);
  EXPECT_FALSE(k.l2_bytes.has_value());
  EXPECT_FALSE(k.l1_bytes.has_value());
  // No op_* counters and the dominant aggregate (src_fp16) may be a sparse rate: no tensor peak.
  EXPECT_FALSE(k.peaks.tensor_flops_per_s.has_value());
  EXPECT_FALSE(k.peaks.dram_bytes_per_s.has_value());
  EXPECT_FALSE(roof_from_row(k).has_value());
  ASSERT_EQ(csv->notes.size(), 1u);
}

TEST(NcuCsvSynthetic, DenseAggregatePeakIsUsedWhenItCarriesTheWork) {
  // fp8 (sparsity off) dominant: peak 2,048 ops/cycle * 1e9 Hz = 2.048e12.
  auto columns = with(synthetic_columns(), "sm__ops_path_tensor_src_fp16.sum", "", "0");
  const auto csv = parse_ncu_csv(render(columns), "s.csv");
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  ASSERT_TRUE(csv->kernels[0].peaks.tensor_flops_per_s.has_value());
  EXPECT_DOUBLE_EQ(*csv->kernels[0].peaks.tensor_flops_per_s, 2.048e12);
  EXPECT_EQ(csv->kernels[0].peaks.tensor_metric, "sm__ops_path_tensor_src_fp8_sparsity_off");
}

TEST(NcuCsvSynthetic, MillisecondsCrlfAndDramCount) {
  auto columns = with(synthetic_columns(), "gpu__time_duration.sum", "msecond", "0.002");
  columns.push_back({"dram__bytes.sum", "Kbyte", "7"});  // a count, preferred over rate * duration
  std::string text = render(columns);
  std::string crlf;
  for (const char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const auto csv = parse_ncu_csv(crlf, "s.csv");
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  EXPECT_DOUBLE_EQ(csv->kernels[0].duration_s, 2e-6);
  EXPECT_DOUBLE_EQ(csv->kernels[0].dram_bytes, 7000);
  EXPECT_EQ(csv->kernels[0].name, "void k<float, 4>(int, \"T2\")");
}

TEST(NcuCsvSynthetic, NotACsv) {
  expect_error(parse_ncu_csv("hello world\nthis is not ncu output\n", "x.csv"),
               "ncu CSV 'x.csv': no header line (one starting with \"ID\",) found");
  expect_error(parse_ncu_csv("", "empty.csv"), "no header line");
}

TEST(NcuCsvSynthetic, HeaderWithoutTheNeededColumns) {
  const std::string text = "\"ID\",\"Kernel Name\",\"launch__grid_size\"\n\"\",\"\",\"\"\n\"0\",\"k\",\"1\"\n";
  // Missing: duration, the SMSP clock, 9 instruction rates, DRAM, tensor = 1 + 12 more.
  const auto csv = parse_ncu_csv(text, "x.csv");
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(csv.error().message,
            "ncu CSV 'x.csv': missing column 'gpu__time_duration.sum' (and 12 more roofline metrics); export with "
            "ncu --set roofline --csv --page raw");
  // Dropping one tensor source is fine while others remain.
  EXPECT_TRUE(parse_ncu_csv(render(without(synthetic_columns(), "sm__ops_path_tensor_src_fp16.sum")), "ok.csv").ok());
  expect_error(parse_ncu_csv(render(without(synthetic_columns(), "dram__bytes.sum.per_second")), "x.csv"),
               "missing column 'dram__bytes.sum.per_second' (or 'dram__bytes.sum'); export with");
}

TEST(NcuCsvSynthetic, RowWithTheWrongNumberOfFieldsNamesTheLine) {
  std::string text = render(synthetic_columns());
  text += "\"1\",\"short row\"\n";  // line 5: note, header, units, kernel, this
  expect_error(parse_ncu_csv(text, "x.csv"),
               "ncu CSV 'x.csv': line 5: expected 20 fields as in the header (line 2), got 2");
}

TEST(NcuCsvSynthetic, OtherBadInput) {
  expect_error(parse_ncu_csv(render(synthetic_columns(), /*with_units=*/false), "x.csv"),
               "line 3: expected the units row (empty \"ID\" field) after the header on line 2");
  expect_error(parse_ncu_csv(render(with(synthetic_columns(), "gpu__time_duration.sum", "fortnight", "1")), "x.csv"),
               "column 'gpu__time_duration.sum' has unit 'fortnight', which perfhound does not know");
  expect_error(
      parse_ncu_csv(render(with(synthetic_columns(), "smsp__cycles_elapsed.avg.per_second", "hz", "n/a")), "x.csv"),
      "line 4 (kernel ID 0): column 'smsp__cycles_elapsed.avg.per_second' has no value ('n/a')");
  expect_error(parse_ncu_csv(render(with(synthetic_columns(), "dram__bytes.sum.per_second", "byte/s", "12q")), "x.csv"),
               "line 4 (kernel ID 0): column 'dram__bytes.sum.per_second': cannot parse '12q' as a number");
  expect_error(parse_ncu_csv(render(with(synthetic_columns(), "gpu__time_duration.sum", "ns", "0")), "x.csv"),
               "gpu__time_duration.sum must be positive, got 0");
  // A negative byte rate was placed on the roofline as -1.19 GiB, exit 0, its "case" column another flag's
  // error (a review found it); a negative peak (an optional column) likewise.
  expect_error(parse_ncu_csv(render(with(synthetic_columns(), "dram__bytes.sum.per_second", "byte/s", "-5")), "x.csv"),
               "line 4 (kernel ID 0): column 'dram__bytes.sum.per_second' must not be negative, got '-5'");
  expect_error(parse_ncu_csv(render(with(synthetic_columns(), "sm__ops_path_tensor_src_fp16.sum", "", "-1")), "x.csv"),
               "line 4 (kernel ID 0): column 'sm__ops_path_tensor_src_fp16.sum' must not be negative, got '-1'");
  expect_error(parse_ncu_csv(render(synthetic_columns()) + "\"1\",\"unterminated\n", "x.csv"),
               "line 5: unterminated quoted field");
  std::string no_rows = render(synthetic_columns());
  no_rows.erase(no_rows.find("\n\"0\",\"void") + 1);  // keep note, header, units
  expect_error(parse_ncu_csv(no_rows, "x.csv"), "no kernel rows");
  expect_error(read_ncu_csv("/nonexistent/perfhound/x.csv"), "ncu CSV '/nonexistent/perfhound/x.csv': cannot open");
}

}  // namespace
}  // namespace perfhound::roofline
