#include "sim/step_time.h"

#include <cmath>

#include "model/efficiency.h"

namespace perfhound::sim {

StepTime step_time(const model::StepCost& cost, const StepTimeModel& m) {
  const model::Efficiency bound = model::efficiency(cost, std::nullopt, m.peak_flops_per_s * m.compute_efficiency,
                                                    m.peak_bytes_per_s * m.bandwidth_efficiency);
  StepTime t;
  t.compute_time_s = bound.compute_time_s;
  t.memory_time_s = bound.memory_time_s;
  t.memory_bound = bound.memory_bound;
  t.roofline_ns = std::llround(bound.bound_time_s * 1e9);
  t.dur_ns = t.roofline_ns + m.overhead_ns;
  return t;
}

}  // namespace perfhound::sim
