// Every analysis of one timeline, run together: what `perfhound trace` computes for one trace (or one rank
// of a distributed run). Pure: a Timeline in, results out.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "trace/communication.h"
#include "trace/data_movement.h"
#include "trace/gap_attribution.h"
#include "trace/kernel_breakdown.h"
#include "trace/launch_overhead.h"
#include "trace/timeline.h"
#include "trace/utilization.h"
#include "trace/verdict.h"

namespace perfhound::trace {

struct TraceAnalysis {
  Utilization utilization;
  GapAttribution gaps;
  KernelBreakdown kernels;
  DataMovement data;
  Communication communication;
  LaunchOverhead launches;
  Verdict verdict;
};

TraceAnalysis analyze_trace(const Timeline& timeline, std::size_t top_kernels = kDefaultTopKernels);

// Everything in one JSON object (SI units, ratios 0..1), the verdict first.
nlohmann::ordered_json to_json(const TraceAnalysis& analysis, std::size_t longest_gaps = kJsonLongestGaps);

}  // namespace perfhound::trace
