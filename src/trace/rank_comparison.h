// Comparing the ranks of a distributed run (one trace per rank): in a synchronous job every collective waits
// for the slowest rank, so one straggler slows all of them, and the fast ranks show the cost as time spent
// waiting inside communication kernels.
//
// Per rank the comparison takes the median profiler-step time when the traces have ProfilerStep ranges,
// else the GPU's active span. A rank is a straggler when its time is at least kStragglerRatio times the
// median over ranks. Edge cases: one rank -> no comparison (straggler false); ranks without GPU activity
// have time 0 and are never the straggler.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/timeline.h"
#include "trace/trace_analysis.h"

namespace perfhound::trace {

// 10% slower than the median rank: below that, step-to-step noise on one GPU (clocks, thermals) is of the
// same size, so calling it a straggler would not survive a rerun.
inline constexpr double kStragglerRatio = 1.10;

struct RankSummary {
  std::string source;
  int rank = -1;                 // from the trace's distributedInfo, else the file's position in the folder
  std::int64_t time_ns = 0;      // median step time, or the active span
  bool from_steps = false;
  std::int64_t busy_ns = 0;      // busiest device
  std::int64_t comm_ns = 0;      // communication kernel time (union)
  std::int64_t exposed_comm_ns = 0;
  BottleneckKind verdict = BottleneckKind::kKernelBound;
};

struct RankComparison {
  std::vector<RankSummary> ranks;  // ascending rank
  std::int64_t median_time_ns = 0;
  int slowest_rank = -1;
  std::int64_t slowest_time_ns = 0;
  double slowest_over_median = 0;
  bool straggler = false;
  int least_comm_rank = -1;  // the rank that waits least in communication: usually the one the others wait for
};

RankSummary summarize_rank(const Timeline& timeline, const TraceAnalysis& analysis, int fallback_rank);
RankComparison compare_ranks(std::vector<RankSummary> ranks);

nlohmann::ordered_json to_json(const RankComparison& comparison);

}  // namespace perfhound::trace
