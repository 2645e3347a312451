// The --compat view: a LoadSummary under a peer tool's metric names, definitions, units and statistic set,
// so a perfhound run can be read side by side with `vllm bench serve`, genai-perf, AIPerf or guidellm.
// docs/metrics.md ("The load metric dictionary") maps every peer name to ours with its source.
//
// Every peer measures from the actual send (vLLM: perf_counter() before the POST; genai-perf: Perf
// Analyzer's request timestamp; AIPerf: start_perf_ns; guidellm: timings.request_start), so every view reads
// the from_sent latencies. All four end a request's token timeline at its last content chunk, which is why
// LoadMetricsTracker keeps the to-last-token variants (ttlt, tpot_to_last_token, ...).
//
// Statistic sets (each tool's own): vLLM mean / median / std / p99 in ms (std is numpy's np.std, denominator
// n); genai-perf and AIPerf avg / min / max / std (np.std) / p1 p5 p10 p25 p50 p75 p90 p95 p99 (numpy
// linear); guidellm mean / median / p95 / p99 / std_dev (denominator n) / min / max, its percentiles
// nearest-rank (searchsorted on the cumulative distribution). While a tracker is exact the values are
// those statistics exactly; after it moved to its histogram, percentiles are nearest-rank within 0.1%.
//
// Where a peer reports 0 for an empty sample (vLLM's np.mean(x or 0)), the view reports NaN (JSON null):
// "no sample" is not a measured zero.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "load/load_metrics.h"

namespace perfhound::load {

enum class CompatTool { kVllm, kGenaiPerf, kAiperf, kGuidellm };

// "vllm", "genai-perf", "aiperf", "guidellm".
std::string_view compat_tool_name(CompatTool tool);
// The inverse; the error quotes the text and lists the choices (for --compat).
core::Result<CompatTool> parse_compat_tool(std::string_view text);

struct CompatMetric {
  std::string name;        // the tool's own metric name (its JSON key stem)
  std::string unit;        // the tool's unit ("ms", "s", "tokens", "tokens/sec", "requests/sec", ...)
  std::string definition;  // the tool's definition, in terms of perfhound's tracked quantities
  // In the tool's statistic set and order, in `unit`; a scalar metric has one entry named "value".
  std::vector<std::pair<std::string, double>> stats;
};

std::vector<CompatMetric> compat_view(const LoadSummary& summary, CompatTool tool);

// {"tool": "...", "start": "sent", "metrics": [{"name", "unit", "definition", "stats": {stat: value}}]};
// NaN as null.
nlohmann::ordered_json to_json(CompatTool tool, const std::vector<CompatMetric>& metrics);

}  // namespace perfhound::load
