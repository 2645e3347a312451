#include "trace/trace_analysis.h"

namespace perfhound::trace {

TraceAnalysis analyze_trace(const Timeline& timeline, std::size_t top_kernels) {
  TraceAnalysis a;
  a.utilization = utilization(timeline);
  a.gaps = gap_attribution(timeline);
  a.kernels = kernel_breakdown(timeline, top_kernels);
  a.data = data_movement(timeline);
  a.communication = communication(timeline);
  a.launches = launch_overhead(timeline);
  a.verdict = decide_verdict(a.utilization, a.gaps, a.kernels, a.data, a.communication, a.launches);
  return a;
}

nlohmann::ordered_json to_json(const TraceAnalysis& a, std::size_t longest_gaps) {
  nlohmann::ordered_json j;
  j["verdict"] = to_json(a.verdict);
  j["utilization"] = to_json(a.utilization);
  j["idle_gaps"] = to_json(a.gaps, longest_gaps);
  j["kernels"] = to_json(a.kernels);
  j["data_movement"] = to_json(a.data);
  j["communication"] = to_json(a.communication);
  j["launch_overhead"] = to_json(a.launches);
  return j;
}

}  // namespace perfhound::trace
