#include "report/roofline_chart.h"

#include <algorithm>
#include <limits>

namespace perfhound::report {

LogLogChart roofline_chart(const std::string& title, const std::vector<RoofLine>& roofs,
                           const std::vector<KernelDot>& kernels) {
  LogLogChart chart;
  chart.title = title;
  chart.x_label = "arithmetic intensity (FLOP per byte of DRAM traffic)";
  chart.y_label = "FLOP/s";
  // The roofs span a decade either side of every kernel and every ridge point, so both slopes show.
  double lo = std::numeric_limits<double>::max(), hi = 0;
  for (const auto& k : kernels) {
    if (k.arithmetic_intensity > 0) {
      lo = std::min(lo, k.arithmetic_intensity);
      hi = std::max(hi, k.arithmetic_intensity);
    }
  }
  for (const auto& r : roofs) {
    const double ridge = r.peak_flops_per_s / r.peak_bytes_per_s;
    lo = std::min(lo, ridge);
    hi = std::max(hi, ridge);
  }
  if (hi == 0) return chart;
  lo /= 10;
  hi *= 10;
  for (const auto& r : roofs) {
    const double ridge = r.peak_flops_per_s / r.peak_bytes_per_s;
    ChartLine line;
    line.label = r.label;
    line.dashed = !r.highlighted;
    line.points = {{lo, lo * r.peak_bytes_per_s}, {ridge, r.peak_flops_per_s}, {hi, r.peak_flops_per_s}};
    chart.lines.push_back(std::move(line));
  }
  for (const auto& k : kernels) chart.points.push_back({k.arithmetic_intensity, k.achieved_flops_per_s, k.label});
  return chart;
}

}  // namespace perfhound::report
