// Reader for Nsight Compute CSV exports of the roofline metrics: `ncu --set roofline --csv --page raw`,
// one row per profiled kernel. Each row becomes the FLOPs (by precision), bytes (DRAM, L2, L1) and duration
// of one kernel, computed the way Nsight Compute's own roofline charts compute them, plus the device peaks
// the row carries.
//
// File layout (checked on shared/data/ncu/h200_roofline_raw.csv, ncu 2025.3, H200): any number of lines
// before the header (ncu's own "==PROF==" / "==WARNING==" notes, or the application's stdout, which the
// user's redirect mixes in); the header, whose first field is "ID" (then "Process ID", ..., "Kernel Name",
// ..., then one column per metric); right after it a units row (empty "ID", then e.g. "ns", "byte/s", "hz",
// "inst/cycle", or "" for dimensionless); then one row per kernel. Every field is quoted; kernel names
// contain commas; numbers carry thousands separators ("1,406,144"). "==" lines after the header are notes
// too. Notes are kept (NcuCsv::notes): ncu's "Running with unmodified GPU clocks" warning says the numbers
// move with boost clocks and should be shown to the user.
//
// What Nsight Compute's roofline sections compute (section files shipped with Nsight Compute in sections/:
// SpeedOfLight_RooflineChart.section, SpeedOfLight_HierarchicalSingle/Double/Half/TensorRooflineChart.section;
// a public copy of the 2025 files: github.com/xingxerx/Qallow, sections/; the FP32 formula is also stated by
// NVIDIA staff at forums.developer.nvidia.com/t/about-the-flops-in-ncu-report/215350/6):
//   achieved FP32 FLOP/s = (fadd + fmul + 2 * ffma) * smsp__cycles_elapsed.avg.per_second, where each term
//     is smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}_pred_on.sum.per_cycle_elapsed (predicated-on
//     thread instructions per elapsed cycle); the "2 *" is the section's derived metric
//     derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2. FP64 the same with dadd, dmul, dfma.
//   achieved FP16 FLOP/s = (2 * hadd + 2 * hmul + 4 * hfma) * smsp__cycles_elapsed.avg.per_second: the half
//     section counts every half instruction as a packed pair (HADD2/HMUL2/HFMA2), hence _x2 and _x4.
//   peak FLOP/s = sm__sass_thread_inst_executed_op_{ffma,dfma}_pred_on.sum.peak_sustained * 2 (hfma: * 4)
//     * sm__cycles_elapsed.avg.per_second: peak_sustained is per cycle summed over all SMs, times the clock
//     the SMs actually ran at during this kernel.
//   tensor ops: sm__ops_path_tensor_* are counters of "math ops executed in Tensor path" (ncu --query-metrics,
//     quoted at forums.developer.nvidia.com/t/number-of-floating-point-operations-in-one-hmma-instruction/
//     275450/2). .sum is the count, .sum.per_second = .sum / gpu__time_duration, .sum.per_cycle_elapsed =
//     .sum / sm__cycles_elapsed.avg, .sum.peak_sustained = ops per cycle over all SMs. A math op is a FLOP:
//     a multiply-add counts 2 (on this file the bf16 GEMM's count is exactly 2 * M * N * K, see below). The
//     tensor section's charts for compute capability 9.0+ (the ones using the _mem_lgds L1 metric) draw one
//     roofline per instruction type, sm__ops_path_tensor_op_<hmma|hgmma|imma|igmma|...>_src_<type>[_dst_
//     <type>]_sparsity_<off|on>, work = .sum.per_cycle_elapsed * sm__cycles_elapsed.avg.per_second, peak =
//     .sum.peak_sustained * the same clock. sm__pipe_tensor*_cycles_active (also in the set) are pipe
//     utilisation percentages, not op counts; they corroborate (93.44% for the GEMM below).
//   DRAM bytes/s = dram__bytes.sum.per_second; peak = dram__bytes.sum.peak_sustained *
//     dram__cycles_elapsed.avg.per_second.
//   L2 bytes/s = derived__lts__lts2xbar_bytes.sum.per_second = lts__lts2xbar_cycles_active.sum.per_second * 32;
//     peak = derived__lts__lts2xbar_bytes.sum.peak_sustained * lts__cycles_elapsed.avg.per_second.
//   L1 bytes/s = derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second (compute capability 9.0+;
//     _mem_lg for 7.5-8.9, plain for <= 7.2) = l1tex__lsu_writeback_active_mem_lgds.sum.per_second * 128;
//     peak = its .peak_sustained * l1tex__cycles_elapsed.avg.per_second. L2 and L1 traffic are bytes
//     returned to the SMs (loads), DRAM traffic is reads and writes: on this file the 64M fp32 add moves
//     537 MB through L2 (its two inputs) and 786 MB through DRAM (inputs and output).
//
// What this reader computes per kernel, as counts (rate * gpu__time_duration.sum, which is what the rates are
// averaged over):
//   duration_s from gpu__time_duration.sum in the unit of the units row (ns/us/ms/s, or nsecond...).
//   fp32/fp64/fp16 instruction counts and FLOPs with the section's weights above.
//   tensor FLOPs = the sum of the per-source aggregates sm__ops_path_tensor_src_<type>.sum (bf16_dst_fp32,
//     fp16, tf32_dst_fp32, fp8_sparsity_off/on, fp64, int8, int1, ...), each source type once. The
//     per-instruction sm__ops_path_tensor_op_* counters cover the same work again (on this file
//     op_hgmma_src_bf16_dst_fp32_sparsity_off.sum = src_bf16_dst_fp32.sum = 1,116,691,496,960): adding both
//     double-counts, a mistake in some public scripts. An aggregate is skipped when a coarser one is present
//     (X_sparsity_on when X is, src_fp16_dst_fp32 when src_fp16 is). Unverified: Blackwell's fp4/fp6
//     groupings (src_fp4_fp6_fp8_dst_*) are summed like the others; check against op_* there.
//   dram_bytes from dram__bytes.sum when exported, else dram__bytes.sum.per_second * duration;
//   l2_bytes, l1_bytes as above when the columns are there.
//   peaks (per kernel, at the clocks measured during that kernel, as Nsight Compute draws them). The tensor
//     peak is that of the op_* metric carrying most of the kernel's tensor work, so a dense kernel gets the
//     dense peak. The aggregate src_* peak_sustained is not used for that: it is the fastest variant of the
//     source, the sparse one (here src_bf16_dst_fp32 1,081,344 ops/cycle vs op_hgmma_..._sparsity_off
//     540,672 = 132 SMs * 4096; the datasheet's dense bf16 989.4 TFLOP/s is 540,672 ops/cycle at 1.83 GHz);
//     judged against it the GEMM below sits at 47% of peak (ncu's own src_bf16_dst_fp32.sum.pct_of_peak_
//     sustained_elapsed: 46.72%) instead of 93%. Only when no op_* metric carries
//     the work is an aggregate's peak used, and only one that cannot be sparse (*_sparsity_off, src_fp64).
//
// Two things the real file shows that a napkin would get wrong:
//   - The bf16 8192^3 matmul (nvjet_sm90_tst_320x128_...) executes 1,116,691,496,960 tensor FLOPs =
//     2 * 8320 * 8192 * 8192, 1.56% above 2 * 8192^3: 8192 rows in 320-row tiles is 26 tiles = 8320 rows, and
//     the tensor cores do the padded tile's work. It ran at 1.57 GHz (clocks not locked; the fills ran at 1.93 GHz),
//     at 93% of the dense tensor peak for that clock (sm__pipe_tensor_cycles_active: 93.44%).
//   - The 64M-element fp32 add executes 2^26 FFMA and 0 FADD (PyTorch's CUDAFunctor_add computes
//     a + alpha * b), so Nsight Compute counts 2 * 2^26 = 134M FP32 FLOPs, not 64M.
//
// Errors (one line, prefixed "ncu CSV '<name>'"): no header line; a missing column, named, with the fix
// ("missing column 'gpu__time_duration.sum'; export with ncu --set roofline --csv --page raw"); no units row;
// a unit this reader does not know (named with its column); a row whose field count differs from the
// header's, or an unterminated quote (both with the line number); a needed value empty, "n/a" or not a
// number (line, kernel ID, column); no kernel rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "roofline/roofline.h"

namespace perfhound::roofline {

// Predicated-on thread instructions of one precision, over the kernel.
struct FpInstructionCounts {
  double add = 0;
  double mul = 0;
  double fma = 0;
};

struct FlopsByPrecision {
  double fp64 = 0;
  double fp32 = 0;
  double fp16 = 0;    // non-tensor half precision (HADD2/HMUL2/HFMA2)
  double tensor = 0;  // every tensor-core source type
};

// Device ceilings from the row, at the clocks measured during this kernel. Absent when the columns are not
// exported (or, for tensor, when the kernel did no tensor work).
struct NcuPeaks {
  double sm_clock_hz = 0;                 // sm__cycles_elapsed.avg.per_second
  std::optional<double> max_sm_clock_hz;  // device__attribute_clock_rate (kHz in the file)
  std::optional<double> fp64_flops_per_s;
  std::optional<double> fp32_flops_per_s;
  std::optional<double> fp16_flops_per_s;
  std::optional<double> tensor_flops_per_s;
  std::string tensor_metric;  // the metric (no suffix) the tensor peak is from, e.g. sm__ops_path_tensor_op_...
  std::optional<double> dram_bytes_per_s;
  std::optional<double> l2_bytes_per_s;
  std::optional<double> l1_bytes_per_s;
};

struct NcuKernel {
  std::int64_t id = 0;
  std::string name;    // "Kernel Name" as exported (demangled by default)
  std::string device;  // device__attribute_display_name, empty when not exported
  int line = 0;        // 1-based line of the row in the file
  double duration_s = 0;
  FpInstructionCounts fp64_instructions;
  FpInstructionCounts fp32_instructions;
  FpInstructionCounts fp16_instructions;
  FlopsByPrecision flops_by_precision;
  // Non-zero tensor contributions, e.g. {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1.1167e12}.
  std::vector<std::pair<std::string, double>> tensor_flops_by_metric;
  double total_flops = 0;  // fp64 + fp32 + fp16 + tensor
  double dram_bytes = 0;
  std::optional<double> l2_bytes;
  std::optional<double> l1_bytes;
  NcuPeaks peaks;
};

struct NcuCsv {
  std::vector<NcuKernel> kernels;  // in file order
  std::vector<std::string> notes;  // lines skipped as not part of the table, e.g. "==WARNING== ..."
};

// `source_name` names the input in error messages (usually the path).
core::Result<NcuCsv> parse_ncu_csv(std::string_view text, std::string_view source_name);
// Reads the file and parses it; an unreadable file is an error naming the path.
core::Result<NcuCsv> read_ncu_csv(const std::string& path);

// The kernel against a DRAM roof: {total_flops, dram_bytes, duration_s}.
KernelMeasurement dram_measurement(const NcuKernel& kernel);

// The roof Nsight Compute would judge the kernel against: the peak of the precision that did most of its
// FLOPs, and the DRAM bandwidth, both from the row at the kernel's measured clocks. nullopt when the kernel
// did no FLOPs or the row lacks those peaks. Label e.g. "NVIDIA H200 tensor (sm__ops_path_tensor_op_hgmma_
// src_bf16_dst_fp32_sparsity_off) + DRAM at 1.57 GHz". A kernel mixing precisions is placed with all its
// FLOPs (dram_measurement) under the dominant precision's roof, which flatters it slightly when the minor
// precision has a lower peak; Nsight Compute instead draws one chart per precision.
std::optional<Roof> roof_from_row(const NcuKernel& kernel);

// L1, L2, DRAM levels (in that order) for place_hierarchical(), each where both its bytes and its peak are
// in the row.
std::vector<MemoryLevel> memory_levels(const NcuKernel& kernel);

}  // namespace perfhound::roofline
