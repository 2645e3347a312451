// How long one engine step takes: the roofline bound of its FLOPs and bytes on derated roofs, plus a fixed
// host overhead,
//   dur = max(flops / (peak FLOP/s x compute_efficiency), bytes / (peak bandwidth x bandwidth_efficiency))
//         + overhead,
// with flops and bytes per GPU from model::step_cost and the bound from model::efficiency (the arithmetic the
// MFU/MBU command uses). The bound is rounded to the nearest nanosecond before the overhead is added.
#pragma once

#include <cstdint>

#include "model/transformer_math.h"

namespace perfhound::sim {

struct StepTimeModel {
  double peak_flops_per_s = 0;  // the compute roof, per GPU
  double peak_bytes_per_s = 0;  // the memory roof, per GPU
  double compute_efficiency = 1;
  double bandwidth_efficiency = 1;
  std::int64_t overhead_ns = 0;
};

struct StepTime {
  std::int64_t dur_ns = 0;       // roofline_ns + overhead
  std::int64_t roofline_ns = 0;  // the larger of the two bounds, rounded
  double compute_time_s = 0;     // flops / derated compute roof
  double memory_time_s = 0;      // bytes / derated memory roof
  bool memory_bound = false;     // the memory bound is the larger (ties count as memory)
};

// A zero cost (an empty step) takes the overhead alone.
StepTime step_time(const model::StepCost& cost, const StepTimeModel& m);

}  // namespace perfhound::sim
