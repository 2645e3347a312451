// A writer of the Prometheus text exposition format, version 0.0.4 (Content-Type
// "text/plain; version=0.0.4; charset=utf-8"), for GET /metrics of `perfhound serve`:
// https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
//
// Each call writes one series; the first series of a metric family is preceded by its "# HELP" and "# TYPE"
// lines, and further calls with the same name right after it (other label values) add series to that family.
// A family must be written contiguously: writing a name again after another family aborts (an exposition
// with a split family is invalid). Metric and label names are checked against the format's grammar
// ([a-zA-Z_:][a-zA-Z0-9_:]*, [a-zA-Z_][a-zA-Z0-9_]*); a bad name is a bug and aborts.
//
// Escaping: label values escape backslash, double quote and newline (\\, \", \n); HELP text escapes
// backslash and newline. Numbers are written as the Python client (and so vLLM) writes them: shortest
// round-trip digits with ".0" on integral values ("3.0", "0.25", "1e+20"), "+Inf", "-Inf", "NaN".
// Histogram buckets carry `le` after the caller's labels.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfhound::serve {

struct PrometheusLabel {
  std::string_view name;
  std::string_view value;
};
using PrometheusLabels = std::vector<PrometheusLabel>;

class PrometheusWriter {
 public:
  // A monotonic total; `name` is the full sample name, "_total" included (vllm:prompt_tokens_total), which
  // is also the name the TYPE line carries, as the Python client writes it. value >= 0.
  void counter(std::string_view name, std::string_view help, const PrometheusLabels& labels, double value);
  void gauge(std::string_view name, std::string_view help, const PrometheusLabels& labels, double value);
  // A classic histogram. `upper_bounds` are finite and strictly increasing (the +Inf bucket is implicit);
  // `bucket_counts[i]` is the number of observations in (upper_bounds[i-1], upper_bounds[i]] -- not
  // cumulative, the writer accumulates -- so bucket_counts.size() == upper_bounds.size(). Observations above
  // the last bound are count minus the sum of bucket_counts (so that sum must not exceed count). `sum` is
  // the sum of the observed values. Writes name_bucket{...,le="..."} for every bound and le="+Inf", then
  // name_sum and name_count.
  void histogram(std::string_view name, std::string_view help, const PrometheusLabels& labels,
                 std::span<const double> upper_bounds, std::span<const std::uint64_t> bucket_counts, double sum,
                 std::uint64_t count);

  const std::string& str() const { return out_; }

 private:
  void begin_family(std::string_view name, std::string_view help, std::string_view type);
  void write_series(std::string_view name, std::string_view suffix, const PrometheusLabels& labels,
                    std::string_view le, std::string_view value);

  std::string out_;
  std::vector<std::string> families_;  // names written so far, the current one last
  std::string_view current_type_;      // "counter", "gauge" or "histogram" (a literal)
};

// A Prometheus sample value as written: "3.0", "0.25", "+Inf", "NaN" (see above).
std::string format_prometheus_value(double value);

// The names vLLM's /metrics exposes (V1 engine, vllm/v1/metrics/loggers.py as of vLLM 0.11), so
// dashboards and autoscalers built for vLLM read `perfhound serve` unchanged. Where vLLM renamed a metric
// the current name is used:
//   vllm:kv_cache_usage_perc replaces vllm:gpu_cache_usage_perc (deprecated in vLLM 0.9, vllm PR #18354,
//     hidden by default since; kubernetes-sigs/inference-perf PR #277 moved to the new name for that reason);
//   vllm:inter_token_latency_seconds replaces vllm:time_per_output_token_seconds (deprecated in 0.11, "Renamed
//     as vllm:inter_token_latency_seconds", vllm PR #24015; slated for removal in 0.13).
// vLLM labels every series with model_name (the served model name) and engine (the engine index, "0" with
// one engine); vllm:request_success_total adds finished_reason ("stop", "length", "abort").
namespace vllm_metrics {

inline constexpr std::string_view kModelNameLabel = "model_name";
inline constexpr std::string_view kEngineLabel = "engine";
inline constexpr std::string_view kFinishedReasonLabel = "finished_reason";

// Gauges.
inline constexpr std::string_view kNumRequestsRunning = "vllm:num_requests_running";
inline constexpr std::string_view kNumRequestsRunningHelp = "Number of requests in model execution batches.";
inline constexpr std::string_view kNumRequestsWaiting = "vllm:num_requests_waiting";
inline constexpr std::string_view kNumRequestsWaitingHelp = "Number of requests waiting to be processed.";
inline constexpr std::string_view kKvCacheUsagePerc = "vllm:kv_cache_usage_perc";  // a 0..1 ratio
inline constexpr std::string_view kKvCacheUsagePercHelp = "KV-cache usage. 1 means 100 percent usage.";

// Counters (full sample names).
inline constexpr std::string_view kPromptTokensTotal = "vllm:prompt_tokens_total";
inline constexpr std::string_view kPromptTokensTotalHelp = "Number of prefill tokens processed.";
inline constexpr std::string_view kGenerationTokensTotal = "vllm:generation_tokens_total";
inline constexpr std::string_view kGenerationTokensTotalHelp = "Number of generation tokens processed.";
inline constexpr std::string_view kNumPreemptionsTotal = "vllm:num_preemptions_total";
inline constexpr std::string_view kNumPreemptionsTotalHelp = "Cumulative number of preemption from the engine.";
inline constexpr std::string_view kRequestSuccessTotal = "vllm:request_success_total";
inline constexpr std::string_view kRequestSuccessTotalHelp = "Count of successfully processed requests.";

// Histograms, in seconds, with vLLM's bucket bounds.
inline constexpr std::string_view kTimeToFirstTokenSeconds = "vllm:time_to_first_token_seconds";
inline constexpr std::string_view kTimeToFirstTokenSecondsHelp = "Histogram of time to first token in seconds.";
inline constexpr std::array<double, 22> kTimeToFirstTokenBuckets = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
    1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
inline constexpr std::string_view kInterTokenLatencySeconds = "vllm:inter_token_latency_seconds";
inline constexpr std::string_view kInterTokenLatencySecondsHelp = "Histogram of inter-token latency in seconds.";
inline constexpr std::array<double, 19> kInterTokenLatencyBuckets = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
inline constexpr std::string_view kE2eRequestLatencySeconds = "vllm:e2e_request_latency_seconds";
inline constexpr std::string_view kE2eRequestLatencySecondsHelp = "Histogram of e2e request latency in seconds.";
inline constexpr std::array<double, 21> kRequestLatencyBuckets = {
    0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
    30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

}  // namespace vllm_metrics

}  // namespace perfhound::serve
