// The charts of `perfhound report` as Vega-Lite specs (https://vega.github.io/vega-lite/docs/spec.html), built
// from result documents. Pure: documents in, JSON specs out; the HTML page (report/html_report.h) and the
// SVG/PNG export render them.
//
// Every spec carries its data inline under "datasets" (named below), so it renders with no network, and
// several inputs share one chart, one series (color) each:
//   pareto                 sweeps: x = achieved throughput (requests/s), y = the sweep's latency_metric at
//                          its latency_percentile (without one: the percentile its SLO names for that
//                          metric, else p95), one point per sweep point labelled by its load, joined in
//                          sweep order; the SLO box (y from 0 to the threshold), the knee and the operating
//                          point marked. Datasets "pareto_points", "slo", "knee", "operating_point".
//   ttft_cdf, tpot_cdf     load runs and every sweep point: the percentiles the run reports (min as quantile 0,
//                          p1 ... p99.9, max as quantile 1) as an empirical CDF. Dataset "ttft_cdf"/"tpot_cdf".
//   latency_over_time      result.windows: TTFT, TPOT and E2E p50/p95/p99 per window, at the window's
//                          midpoint. Dataset "latency_over_time".
//   concurrency_over_time  summary.concurrency.bins (mean requests in flight) and the windows' requests/s and
//                          output tokens/s. Dataset "concurrency_over_time".
// Latencies come from summary.latency.from_intended or .from_sent as the run or sweep point says
// (report_input.h stated_latency_from: "intended send time" / "actual send time"; a load run must state it;
// a sweep that does not is read by its mode: over concurrency closed loop, else intended). Values that are null or missing are left out of the data and counted
// in the chart's notes, never drawn as zero.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "report/report_input.h"

namespace perfhound::report {

enum class ChartId { kPareto, kTtftCdf, kTpotCdf, kLatencyOverTime, kConcurrencyOverTime };

struct ChartInfo {
  ChartId id;
  std::string_view name;   // the --chart name: "pareto", "ttft_cdf", ...
  std::string_view needs;  // what an input must hold for the chart to have data, for messages
};

// Every chart, in the order the HTML report shows them.
std::span<const ChartInfo> chart_catalogue();
const ChartInfo& chart_info(ChartId id);
// The chart named `name`; the error lists the names.
core::Result<ChartId> chart_from_name(std::string_view name);
// pareto when any input is a sweep, else ttft_cdf.
ChartId default_chart(std::span<const ReportInput> inputs);

struct ChartSpec {
  bool has_data = false;            // false: no input holds what the chart draws (the spec is still valid)
  nlohmann::ordered_json spec;      // a complete Vega-Lite v6 spec
  std::vector<std::string> notes;   // what was left out of the chart and why, one sentence each
};

ChartSpec chart_spec(ChartId chart, std::span<const ReportInput> inputs);

// The label of inputs[i] in legends: the file name without directory and ".json", or the whole path when
// two inputs share a file name.
std::string input_label(std::span<const ReportInput> inputs, std::size_t i);

}  // namespace perfhound::report
