#include "roofline/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfhound::roofline {
namespace {

using core::Error;
using core::Result;
using core::Status;

Status require_positive(double value, std::string_view field) {
  if (!std::isfinite(value)) return Error{fmt::format("{} must be a finite number, got {}", field, value)};
  if (value <= 0) return Error{fmt::format("{} must be positive, got {}", field, value)};
  return Status::success();
}

Status require_non_negative(double value, std::string_view field) {
  if (!std::isfinite(value)) return Error{fmt::format("{} must be a finite number, got {}", field, value)};
  if (value < 0) return Error{fmt::format("{} must not be negative, got {}", field, value)};
  return Status::success();
}

// Inputs already validated: peaks and time positive, flops and bytes non-negative.
RooflinePoint compute_point(double peak_flops_per_s, double peak_bytes_per_s, double flops, double bytes,
                            double time_s) {
  RooflinePoint p;
  p.ridge_point = peak_flops_per_s / peak_bytes_per_s;
  p.achieved_flops_per_s = flops / time_s;
  p.achieved_bytes_per_s = bytes / time_s;
  p.bound_time_s = std::max(flops / peak_flops_per_s, bytes / peak_bytes_per_s);
  p.fraction_of_attainable = p.bound_time_s / time_s;
  if (bytes > 0) {
    p.arithmetic_intensity = flops / bytes;
    p.attainable_flops_per_s = std::min(peak_flops_per_s, p.arithmetic_intensity * peak_bytes_per_s);
  } else if (flops > 0) {
    p.arithmetic_intensity = std::numeric_limits<double>::infinity();
    p.attainable_flops_per_s = peak_flops_per_s;
  } else {
    // Only reachable from place_hierarchical: a level a copy kernel never touched.
    p.arithmetic_intensity = std::numeric_limits<double>::quiet_NaN();
    p.attainable_flops_per_s = 0;
  }
  if (!(p.fraction_of_attainable >= kBelowBothFraction)) {
    p.roofline_case = RooflineCase::kBelowBoth;
  } else if (p.arithmetic_intensity < p.ridge_point) {
    p.roofline_case = RooflineCase::kMemorySlope;
  } else {
    p.roofline_case = RooflineCase::kComputeRoof;
  }
  return p;
}

Status validate_kernel(double flops, double time_s) {
  PH_TRY(require_positive(time_s, "--time"));
  PH_TRY(require_non_negative(flops, "--flops"));
  return Status::success();
}

}  // namespace

Result<RooflinePoint> place_on_roofline(const Roof& roof, const KernelMeasurement& kernel) {
  const std::string roof_name = fmt::format("roof '{}'", roof.label);
  PH_TRY(require_positive(roof.peak_flops_per_s, roof_name + " peak_flops_per_s"));
  PH_TRY(require_positive(roof.peak_bytes_per_s, roof_name + " peak_bytes_per_s"));
  PH_TRY(validate_kernel(kernel.flops, kernel.time_s));
  PH_TRY(require_non_negative(kernel.bytes, "--bytes"));
  if (kernel.flops == 0 && kernel.bytes == 0) {
    return Error{"--flops and --bytes are both 0: nothing to place on the roofline"};
  }
  return compute_point(roof.peak_flops_per_s, roof.peak_bytes_per_s, kernel.flops, kernel.bytes, kernel.time_s);
}

std::string_view case_name(RooflineCase roofline_case) {
  switch (roofline_case) {
    case RooflineCase::kMemorySlope:
      return "memory_slope";
    case RooflineCase::kComputeRoof:
      return "compute_roof";
    case RooflineCase::kBelowBoth:
      return "below_both";
  }
  PH_CHECK(false);
  return {};
}

std::string_view advice(RooflineCase roofline_case) {
  // Seed section 9 step 3, with section 6 steps 3-5 for the reason.
  switch (roofline_case) {
    case RooflineCase::kMemorySlope:
      return "memory-bound: the kernel is at the bandwidth limit; only fusion, fewer bytes (quantize) or "
             "higher arithmetic intensity (batch) helps";
    case RooflineCase::kComputeRoof:
      return "compute-bound: on the compute roof; only lower precision (FP8/INT8) or better tiling helps";
    case RooflineCase::kBelowBoth:
      return "below both roofs: overhead-bound or low occupancy, the hardware isn't the limit, the execution "
             "is; tune launch config, registers, tiling";
  }
  PH_CHECK(false);
  return {};
}

Result<HierarchicalPoint> place_hierarchical(double peak_flops_per_s, double flops, double time_s,
                                             const std::vector<MemoryLevel>& levels) {
  PH_TRY(require_positive(peak_flops_per_s, "peak_flops_per_s"));
  PH_TRY(validate_kernel(flops, time_s));
  if (levels.empty()) return Error{"hierarchical roofline needs at least one memory level, got none"};
  bool any_bytes = false;
  for (const MemoryLevel& level : levels) {
    const std::string name = fmt::format("memory level '{}'", level.name);
    PH_TRY(require_non_negative(level.bytes, name + " bytes"));
    PH_TRY(require_positive(level.peak_bytes_per_s, name + " peak_bytes_per_s"));
    any_bytes = any_bytes || level.bytes > 0;
  }
  if (flops == 0 && !any_bytes) {
    return Error{"--flops is 0 and every memory level moved 0 bytes: nothing to place on the roofline"};
  }
  HierarchicalPoint result;
  result.levels.reserve(levels.size());
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const MemoryLevel& level = levels[i];
    result.levels.push_back(
        {level.name, compute_point(peak_flops_per_s, level.peak_bytes_per_s, flops, level.bytes, time_s)});
    if (result.levels[i].point.bound_time_s > result.levels[result.binding_level].point.bound_time_s) {
      result.binding_level = i;
    }
  }
  return result;
}

}  // namespace perfhound::roofline
