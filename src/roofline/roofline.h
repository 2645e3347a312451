// The roofline model (Williams, Waterman & Patterson, "Roofline: An Insightful Visual Performance Model for
// Multicore Architectures", CACM 52(4), 2009) applied to one measured kernel, and the three cases of the
// seed's section 6 / section 9 step 3 ("the roofline in practice"): on the memory slope, on the compute
// roof, or far below both.
//
// Units: FLOPs and bytes are counts, times seconds, rates per second, ratios 0..1 (STYLE.md rule 5).
//
// For a roof with peak P (FLOP/s) and bandwidth B (bytes/s) and a kernel of F FLOPs moving Y bytes in T s:
//   arithmetic_intensity   AI = F / Y                         (FLOP/byte; +inf when Y = 0)
//   ridge_point                 P / B                         (FLOP/byte)
//   attainable_flops_per_s      min(P, AI * B)                (the roof above the kernel's AI)
//   achieved_flops_per_s        F / T,  achieved_bytes_per_s = Y / T
//   bound_time_s                max(F / P, Y / B)             (the fastest any implementation could be)
//   fraction_of_attainable      bound_time_s / T
// The last equals achieved / attainable whenever F > 0 (F/T / min(P, F*B/Y) = max(F/P, Y/B) / T), and stays
// defined for a pure copy (F = 0, where attainable FLOP/s is 0): it is then the bandwidth utilisation.
// A fraction above 1 means the kernel beat the roof: the roof is not a bound for it (wrong precision, a
// sparse spec-sheet figure, FLOPs counted differently from the hardware); the case is still reported, the
// caller should warn.
//
// Case, in this order:
//   kBelowBoth   fraction_of_attainable < kBelowBothFraction: neither limit explains the time.
//   kMemorySlope AI < ridge_point: memory-bound, near the bandwidth roof.
//   kComputeRoof AI >= ridge_point: compute-bound, near the compute roof.
//
// Edge cases: F > 0 and Y = 0 gives AI = +inf and the compute roof; F = 0 and Y > 0 gives AI = 0 and the
// memory slope (or below both). Errors (Result, message names the field): time zero, negative or not finite;
// negative or non-finite flops or bytes; flops and bytes both zero; a peak zero, negative or not finite.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::roofline {

// Below this fraction of the binding roof a kernel is "far below both" (seed section 6 step 5). 0.5 means at
// least half of the kernel's time is explained by neither roof, so fixing the execution (launch config,
// occupancy, tiling) has more than 2x to give. It sits between Nsight Compute's own "latency issue" rule
// (sections/SpeedOfLight.py: both SOL throughputs below 60% of peak) and model/efficiency.h's kFarBelowRoof
// (0.30), and below what well-run kernels reach against spec-sheet roofs on the reference H200
// (shared/data/traces/h200/info.json: bf16 GEMM 758 of 989 TFLOP/s = 0.77, copy 4.06 of 4.8 TB/s = 0.85),
// so a kernel at the achievable ceiling is never called "below both" even when judged against the spec sheet.
inline constexpr double kBelowBothFraction = 0.5;

// One compute roof and one memory roof, e.g. {989e12, 3.35e12, "H100 SXM bf16 dense + HBM3"}.
struct Roof {
  double peak_flops_per_s = 0;
  double peak_bytes_per_s = 0;
  std::string label;
};

// What was measured for one kernel: FLOPs executed, bytes moved at the memory level of the roof, its time.
struct KernelMeasurement {
  double flops = 0;
  double bytes = 0;
  double time_s = 0;
};

enum class RooflineCase { kMemorySlope, kComputeRoof, kBelowBoth };

struct RooflinePoint {
  double arithmetic_intensity = 0;  // FLOP/byte, +inf when bytes = 0
  double ridge_point = 0;           // FLOP/byte
  double attainable_flops_per_s = 0;
  double achieved_flops_per_s = 0;
  double achieved_bytes_per_s = 0;
  double fraction_of_attainable = 0;  // 0..1, above 1 when the roof is not a bound (see above)
  double bound_time_s = 0;
  RooflineCase roofline_case = RooflineCase::kBelowBoth;
};

// Validates and places the kernel under the roof.
core::Result<RooflinePoint> place_on_roofline(const Roof& roof, const KernelMeasurement& kernel);

// Stable identifier for JSON and tables: "memory_slope", "compute_roof", "below_both".
std::string_view case_name(RooflineCase roofline_case);
// What to do about it, in the seed's words (section 9 step 3, section 6).
std::string_view advice(RooflineCase roofline_case);

// Hierarchical roofline (Yang, Kurth & Williams, "Hierarchical Roofline analysis for GPUs", CCPE 2020;
// Nsight Compute's SpeedOfLight_Hierarchical*RooflineChart sections): one compute roof, several memory
// levels, each with the bytes the kernel moved there and that level's bandwidth.
struct MemoryLevel {
  std::string name;  // "L1", "L2", "DRAM"
  double bytes = 0;
  double peak_bytes_per_s = 0;
};

struct LevelPoint {
  std::string name;
  RooflinePoint point;
};

struct HierarchicalPoint {
  std::vector<LevelPoint> levels;  // in the order given
  // The level with the lowest attainable FLOP/s, i.e. the largest bound time (the same level whenever
  // flops > 0; the bound time also decides for a copy kernel, where every attainable FLOP/s is 0). Ties go
  // to the level listed first.
  std::size_t binding_level = 0;
};

// Errors: as place_on_roofline for flops, time and the compute peak; no levels; a level with negative or
// non-finite bytes or a non-positive bandwidth (message names the level); flops zero and every level's
// bytes zero. A level with zero bytes while flops > 0 is placed on the compute roof (AI = +inf). A level
// with zero bytes while flops = 0 (a copy that never touched it) gets AI = NaN, bound time 0, fraction 0 and
// kBelowBoth, and never binds.
core::Result<HierarchicalPoint> place_hierarchical(double peak_flops_per_s, double flops, double time_s,
                                                   const std::vector<MemoryLevel>& levels);

}  // namespace perfhound::roofline
