#include "load/compat_view.h"

#include <cmath>
#include <limits>

#include "core/check.h"

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMs = 1000.0;  // seconds -> milliseconds
constexpr double kOne = 1.0;

using Stats = std::vector<std::pair<std::string, double>>;

// vLLM vllm/benchmarks/serve.py calculate_metrics: np.mean, np.median, np.std, np.percentile(p) for each of
// --metric-percentiles (default "99").
Stats vllm_stats(const SampleSummary& s, double k) {
  return {{"mean", s.mean * k}, {"median", s.p50 * k}, {"std", s.population_stddev() * k}, {"p99", s.p99 * k}};
}

// genai-perf genai_perf/metrics/statistics.py: avg, p1 .. p99 (np.percentile), min, max, std (np.std).
Stats genai_perf_stats(const SampleSummary& s, double k) {
  return {{"avg", s.mean * k}, {"p1", s.p1 * k},   {"p5", s.p5 * k},   {"p10", s.p10 * k},
          {"p25", s.p25 * k},  {"p50", s.p50 * k}, {"p75", s.p75 * k}, {"p90", s.p90 * k},
          {"p95", s.p95 * k},  {"p99", s.p99 * k}, {"min", s.min * k}, {"max", s.max * k},
          {"std", s.population_stddev() * k}};
}

// AIPerf MetricResult (aiperf/common/models/record_models.py), filled by MetricArray.to_result: np.min,
// np.max, np.mean, np.std, np.percentile([1, 5, 10, 25, 50, 75, 90, 95, 99]).
Stats aiperf_stats(const SampleSummary& s, double k) {
  return {{"avg", s.mean * k}, {"min", s.min * k},   {"max", s.max * k},   {"p1", s.p1 * k},
          {"p5", s.p5 * k},    {"p10", s.p10 * k},   {"p25", s.p25 * k},   {"p50", s.p50 * k},
          {"p75", s.p75 * k},  {"p90", s.p90 * k},   {"p95", s.p95 * k},   {"p99", s.p99 * k},
          {"std", s.population_stddev() * k}};
}

// guidellm DistributionSummary (src/guidellm/schemas/statistics.py): percentiles by searchsorted on the
// CDF (nearest rank), variance with weights summing to 1 (denominator n).
Stats guidellm_stats(const SampleSummary& s, double k) {
  return {{"mean", s.mean * k},
          {"median", s.nearest_rank.p50 * k},
          {"p95", s.nearest_rank.p95 * k},
          {"p99", s.nearest_rank.p99 * k},
          {"std_dev", s.population_stddev() * k},
          {"min", s.min * k},
          {"max", s.max * k}};
}

CompatMetric scalar(std::string name, std::string unit, std::string definition, double value) {
  return {std::move(name), std::move(unit), std::move(definition), {{"value", value}}};
}

std::uint64_t failed_of_kind(const LoadSummary& s, ErrorKind kind) {
  for (const auto& e : s.errors) {
    if (e.kind == kind) return e.count;
  }
  return 0;
}

double as_double(std::uint64_t v) { return static_cast<double>(v); }

std::vector<CompatMetric> vllm_view(const LoadSummary& s) {
  const StartLatencies& l = s.from_sent;
  std::vector<CompatMetric> m;
  m.push_back(scalar("completed", "requests", "completed requests", as_double(s.completed)));
  m.push_back(scalar("failed", "requests", "measured requests that did not complete", as_double(s.failed)));
  m.push_back(scalar("duration", "s",
                     "benchmark duration; perfhound's window (earliest start to latest end of a measured "
                     "request), vLLM's is the wall clock around the whole gather",
                     s.window_s));
  m.push_back(scalar("total_input_tokens", "tokens", "sum of completed requests' prompt tokens (usage, else workload)",
                     as_double(s.total_input_tokens)));
  m.push_back(scalar("total_output_tokens", "tokens",
                     "sum of completed requests' output tokens (usage, else counted chunks)",
                     as_double(s.total_output_tokens)));
  m.push_back(scalar("request_throughput", "req/s", "completed / duration", s.requests_per_s));
  if (s.goodput_defined) {
    m.push_back(scalar("request_goodput", "req/s", "completed requests meeting every SLO / duration", s.goodput_per_s));
  }
  m.push_back(scalar("output_throughput", "tok/s", "total_output_tokens / duration", s.output_tokens_per_s));
  m.push_back(scalar("total_token_throughput", "tok/s", "(total_input_tokens + total_output_tokens) / duration",
                     s.total_tokens_per_s));
  m.push_back(scalar("max_concurrent_requests", "requests",
                     "peak requests in flight, sweep over [sent, end) with ends first on ties (vLLM sweeps "
                     "successful requests only; perfhound every measured one)",
                     as_double(s.max_in_flight)));
  m.push_back({"ttft", "ms", "first content chunk - actual send, per completed request", vllm_stats(l.ttft_s, kMs)});
  m.push_back({"tpot", "ms",
               "(last content chunk - first content chunk) / (output tokens - 1), per request with >= 2 output "
               "tokens (perfhound tpot_to_last_token)",
               vllm_stats(s.tpot_to_last_token_s, kMs)});
  m.push_back({"itl", "ms", "every gap between consecutive content chunks, pooled over completed requests",
               vllm_stats(s.itl_s, kMs)});
  m.push_back({"e2el", "ms", "last content chunk - actual send, per completed request (perfhound ttlt from sent)",
               vllm_stats(l.ttlt_s, kMs)});
  return m;
}

std::vector<CompatMetric> genai_perf_view(const LoadSummary& s) {
  const StartLatencies& l = s.from_sent;
  std::vector<CompatMetric> m;
  m.push_back({"time_to_first_token", "ms", "first content response - request timestamp (actual send)",
               genai_perf_stats(l.ttft_s, kMs)});
  m.push_back({"time_to_second_token", "ms", "second content response - first content response",
               genai_perf_stats(s.ttst_s, kMs)});
  m.push_back({"inter_token_latency", "ms",
               "(request_latency - time_to_first_token) / (output_sequence_length - 1), per request with >= 2 "
               "output tokens (perfhound tpot_to_last_token; genai-perf rounds it to whole ns)",
               genai_perf_stats(s.tpot_to_last_token_s, kMs)});
  m.push_back({"request_latency", "ms", "last content response - request timestamp (perfhound ttlt from sent)",
               genai_perf_stats(l.ttlt_s, kMs)});
  m.push_back({"output_token_throughput_per_request", "tokens/sec",
               "output_sequence_length / request_latency, per request",
               genai_perf_stats(l.output_tokens_per_s_to_last_token, kOne)});
  m.push_back({"output_sequence_length", "tokens",
               "output tokens per request (usage, else counted chunks; genai-perf tokenizes the text)",
               genai_perf_stats(s.output_tokens, kOne)});
  m.push_back({"input_sequence_length", "tokens",
               "prompt tokens per request (usage, else workload; genai-perf tokenizes the prompt)",
               genai_perf_stats(s.input_tokens, kOne)});
  m.push_back({"request_throughput", "requests/sec",
               "completed / benchmark duration (last response - first request timestamp)",
               {{"avg", s.requests_per_s}}});
  m.push_back({"output_token_throughput", "tokens/sec", "sum of output_sequence_length / benchmark duration",
               {{"avg", s.output_tokens_per_s}}});
  if (s.goodput_defined) {
    m.push_back({"request_goodput", "requests/sec", "requests meeting every constraint / benchmark duration",
                 {{"avg", s.goodput_per_s}}});
  }
  m.push_back(scalar("request_count", "count", "completed requests", as_double(s.completed)));
  return m;
}

std::vector<CompatMetric> aiperf_view(const LoadSummary& s) {
  const StartLatencies& l = s.from_sent;
  std::vector<CompatMetric> m;
  m.push_back({"ttft", "ms", "Time to First Token: responses[0].perf_ns - start_perf_ns (first content chunk)",
               aiperf_stats(l.ttft_s, kMs)});
  m.push_back({"ttst", "ms", "Time to Second Token: responses[1].perf_ns - responses[0].perf_ns",
               aiperf_stats(s.ttst_s, kMs)});
  m.push_back({"request_latency", "ms",
               "last content response - start_perf_ns (perfhound ttlt from sent)", aiperf_stats(l.ttlt_s, kMs)});
  m.push_back({"inter_token_latency", "ms",
               "(request_latency - ttft) / (output_sequence_length - 1), per request with >= 2 output tokens "
               "(perfhound tpot_to_last_token)",
               aiperf_stats(s.tpot_to_last_token_s, kMs)});
  m.push_back({"inter_chunk_latency", "ms", "gaps between consecutive response chunks, pooled (perfhound itl)",
               aiperf_stats(s.itl_s, kMs)});
  m.push_back({"output_token_throughput_per_user", "tokens/sec/user",
               "1 / inter_token_latency, per request (perfhound decode_tokens_per_s)",
               aiperf_stats(s.decode_tokens_per_s, kOne)});
  m.push_back({"output_sequence_length", "tokens", "output (+ reasoning) tokens per request",
               aiperf_stats(s.output_tokens, kOne)});
  m.push_back({"input_sequence_length", "tokens", "prompt tokens per request", aiperf_stats(s.input_tokens, kOne)});
  m.push_back({"request_throughput", "requests/sec", "request_count / benchmark_duration",
               {{"avg", s.requests_per_s}}});
  m.push_back({"output_token_throughput", "tokens/sec", "total output sequence length / benchmark_duration",
               {{"avg", s.output_tokens_per_s}}});
  m.push_back({"total_token_throughput", "tokens/sec", "(total input + total output tokens) / benchmark_duration",
               {{"avg", s.total_tokens_per_s}}});
  if (s.goodput_defined) {
    m.push_back({"goodput", "requests/sec", "requests meeting every SLO / benchmark_duration",
                 {{"avg", s.goodput_per_s}}});
  }
  m.push_back(scalar("request_count", "requests", "successfully completed requests", as_double(s.completed)));
  m.push_back(scalar("error_request_count", "requests", "failed requests", as_double(s.failed)));
  m.push_back(scalar("benchmark_duration", "sec", "max_response_timestamp - min_request_timestamp", s.window_s));
  return m;
}

std::vector<CompatMetric> guidellm_view(const LoadSummary& s) {
  const StartLatencies& l = s.from_sent;
  const std::uint64_t incomplete = failed_of_kind(s, ErrorKind::kCancelled);
  std::vector<CompatMetric> m;
  m.push_back({"request_totals", "requests", "successful / incomplete (cancelled) / errored / total",
               {{"successful", as_double(s.completed)},
                {"incomplete", as_double(incomplete)},
                {"errored", as_double(s.failed - incomplete)},
                {"total", as_double(s.measured)}}});
  m.push_back({"request_latency", "s", "request_end - request_start (end of stream - actual send)",
               guidellm_stats(l.e2e_s, kOne)});
  m.push_back({"time_to_first_token_ms", "ms", "first token iteration - request_start",
               guidellm_stats(l.ttft_s, kMs)});
  m.push_back({"inter_token_latency_ms", "ms",
               "(last token iteration - first token iteration) / (output tokens - 1) (perfhound "
               "tpot_to_last_token)",
               guidellm_stats(s.tpot_to_last_token_s, kMs)});
  m.push_back({"time_per_output_token_ms", "ms",
               "(last token iteration - request_start) / output tokens: includes the first token (perfhound "
               "ntpot_to_last_token from sent)",
               guidellm_stats(l.ntpot_to_last_token_s, kMs)});
  m.push_back({"output_token_count", "tokens", "output tokens per request (usage, else token iterations)",
               guidellm_stats(s.output_tokens, kOne)});
  m.push_back({"prompt_token_count", "tokens", "prompt tokens per request", guidellm_stats(s.input_tokens, kOne)});
  const double measured_rate = s.window_s > 0 ? as_double(s.measured) / s.window_s : kNaN;
  m.push_back({"requests_per_second", "requests/sec",
               "mean of the rate distribution of request ends over the window = requests / window; console "
               "shows status total (errored included), successful beside it",
               {{"mean", measured_rate}, {"successful_mean", s.requests_per_s}}});
  m.push_back({"output_tokens_per_second", "tokens/sec",
               "output tokens / window (perfhound counts completed requests' tokens only)",
               {{"mean", s.output_tokens_per_s}}});
  m.push_back({"prompt_tokens_per_second", "tokens/sec", "prompt tokens / window",
               {{"mean", s.window_s > 0 ? as_double(s.total_input_tokens) / s.window_s : kNaN}}});
  m.push_back({"tokens_per_second", "tokens/sec", "(prompt + output tokens) / window",
               {{"mean", s.total_tokens_per_s}}});
  m.push_back({"request_concurrency", "requests", "time-weighted mean of requests in flight over the window",
               {{"mean", s.mean_in_flight}}});
  return m;
}

nlohmann::ordered_json number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

// One row per peer: adding a tool is adding its view function and a row here.
struct ToolEntry {
  CompatTool tool;
  std::string_view name;
  std::vector<CompatMetric> (*view)(const LoadSummary&);
};
constexpr ToolEntry kTools[] = {
    {CompatTool::kVllm, "vllm", vllm_view},
    {CompatTool::kGenaiPerf, "genai-perf", genai_perf_view},
    {CompatTool::kAiperf, "aiperf", aiperf_view},
    {CompatTool::kGuidellm, "guidellm", guidellm_view},
};

const ToolEntry& entry(CompatTool tool) {
  for (const auto& e : kTools) {
    if (e.tool == tool) return e;
  }
  PH_CHECK(false);  // every enumerator has a row
  return kTools[0];
}

}  // namespace

std::string_view compat_tool_name(CompatTool tool) { return entry(tool).name; }

core::Result<CompatTool> parse_compat_tool(std::string_view text) {
  std::string choices;
  for (const auto& e : kTools) {
    if (text == e.name) return e.tool;
    choices += choices.empty() ? "" : ", ";
    choices += e.name;
  }
  return core::Error{"--compat: unknown tool '" + std::string(text) + "' (use one of " + choices + ")"};
}

std::vector<CompatMetric> compat_view(const LoadSummary& summary, CompatTool tool) {
  return entry(tool).view(summary);
}

nlohmann::ordered_json to_json(CompatTool tool, const std::vector<CompatMetric>& metrics) {
  nlohmann::ordered_json j;
  j["tool"] = compat_tool_name(tool);
  j["start"] = "sent";
  auto list = nlohmann::ordered_json::array();
  for (const auto& m : metrics) {
    nlohmann::ordered_json stats = nlohmann::ordered_json::object();
    for (const auto& [name, value] : m.stats) stats[name] = number(value);
    list.push_back({{"name", m.name}, {"unit", m.unit}, {"definition", m.definition}, {"stats", std::move(stats)}});
  }
  j["metrics"] = std::move(list);
  return j;
}

}  // namespace perfhound::load
