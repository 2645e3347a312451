// The roofline chart (Williams, Waterman & Patterson, CACM 2009): log-log, arithmetic intensity against
// FLOP/s, one roof per precision (the memory slope up to the ridge, then flat at the peak) and each kernel
// as a labelled point. Pure: roofs and points in, a LogLogChart out (render it with render_svg).
#pragma once

#include <string>
#include <vector>

#include "report/svg_chart.h"

namespace perfhound::report {

struct RoofLine {
  std::string label;        // e.g. "bf16 990 TFLOP/s (spec sheet)"
  double peak_flops_per_s;  // > 0
  double peak_bytes_per_s;  // > 0
  bool highlighted = false;  // the roof the kernels are judged against: solid; others dashed
};

struct KernelDot {
  double arithmetic_intensity;  // FLOP/byte, > 0 to be drawn
  double achieved_flops_per_s;  // > 0 to be drawn
  std::string label;
};

LogLogChart roofline_chart(const std::string& title, const std::vector<RoofLine>& roofs,
                           const std::vector<KernelDot>& kernels);

}  // namespace perfhound::report
