// The Prometheus text format (0.0.4) written out by hand for a counter, a gauge and a histogram, label and
// HELP escaping, the family rules, and the vLLM metric names and buckets.
#include "serve/prometheus_writer.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace perfhound::serve {
namespace {

namespace vm = vllm_metrics;

TEST(PrometheusWriter, Counter) {
  PrometheusWriter w;
  w.counter(vm::kPromptTokensTotal, vm::kPromptTokensTotalHelp, {{"model_name", "llama-3-8b"}, {"engine", "0"}},
            1234);
  EXPECT_EQ(w.str(),
            "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n"
            "# TYPE vllm:prompt_tokens_total counter\n"
            "vllm:prompt_tokens_total{model_name=\"llama-3-8b\",engine=\"0\"} 1234.0\n");
}

TEST(PrometheusWriter, Gauge) {
  PrometheusWriter w;
  w.gauge(vm::kKvCacheUsagePerc, vm::kKvCacheUsagePercHelp, {{"model_name", "m"}}, 0.25);
  EXPECT_EQ(w.str(),
            "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
            "# TYPE vllm:kv_cache_usage_perc gauge\n"
            "vllm:kv_cache_usage_perc{model_name=\"m\"} 0.25\n");
}

TEST(PrometheusWriter, GaugeWithoutLabels) {
  PrometheusWriter w;
  w.gauge("up", "Whether the target is up.", {}, 1);
  EXPECT_EQ(w.str(), "# HELP up Whether the target is up.\n# TYPE up gauge\nup 1.0\n");
}

TEST(PrometheusWriter, HistogramAccumulatesBuckets) {
  // Observations 0.05, 0.2, 0.3, 0.7, 3.0: 1 in (-inf, 0.1], 2 in (0.1, 0.5], 1 in (0.5, 1], 1 above 1.
  const std::array<double, 3> bounds = {0.1, 0.5, 1.0};
  const std::array<std::uint64_t, 3> counts = {1, 2, 1};
  PrometheusWriter w;
  w.histogram(vm::kTimeToFirstTokenSeconds, vm::kTimeToFirstTokenSecondsHelp, {{"model_name", "m"}}, bounds, counts,
              4.25, 5);
  EXPECT_EQ(w.str(),
            "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.\n"
            "# TYPE vllm:time_to_first_token_seconds histogram\n"
            "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"0.1\"} 1.0\n"
            "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"0.5\"} 3.0\n"
            "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"1.0\"} 4.0\n"
            "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"+Inf\"} 5.0\n"
            "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} 4.25\n"
            "vllm:time_to_first_token_seconds_count{model_name=\"m\"} 5.0\n");
}

TEST(PrometheusWriter, EmptyHistogram) {
  const std::array<double, 1> bounds = {2.5};
  const std::array<std::uint64_t, 1> counts = {0};
  PrometheusWriter w;
  w.histogram("h_seconds", "H.", {}, bounds, counts, 0, 0);
  EXPECT_EQ(w.str(),
            "# HELP h_seconds H.\n# TYPE h_seconds histogram\n"
            "h_seconds_bucket{le=\"2.5\"} 0.0\n"
            "h_seconds_bucket{le=\"+Inf\"} 0.0\n"
            "h_seconds_sum 0.0\n"
            "h_seconds_count 0.0\n");
}

TEST(PrometheusWriter, LabelValuesEscapeBackslashQuoteAndNewline) {
  PrometheusWriter w;
  w.gauge("g", "G.", {{"model_name", "a\\b\"c\nd"}}, 1);
  // a\b"c<newline>d -> a\\b\"c\nd
  EXPECT_EQ(w.str(), "# HELP g G.\n# TYPE g gauge\ng{model_name=\"a\\\\b\\\"c\\nd\"} 1.0\n");
}

TEST(PrometheusWriter, HelpEscapesBackslashAndNewlineButNotQuotes) {
  PrometheusWriter w;
  w.gauge("g", "say \"hi\"\\now\nnext", {}, 2);
  EXPECT_EQ(w.str(), "# HELP g say \"hi\"\\\\now\\nnext\n# TYPE g gauge\ng 2.0\n");
}

TEST(PrometheusWriter, SeriesOfOneFamilyShareHelpAndType) {
  PrometheusWriter w;
  w.counter(vm::kRequestSuccessTotal, vm::kRequestSuccessTotalHelp,
            {{"model_name", "m"}, {"finished_reason", "length"}}, 7);
  w.counter(vm::kRequestSuccessTotal, vm::kRequestSuccessTotalHelp, {{"model_name", "m"}, {"finished_reason", "stop"}},
            3);
  w.gauge(vm::kNumRequestsRunning, vm::kNumRequestsRunningHelp, {{"model_name", "m"}}, 2);
  EXPECT_EQ(w.str(),
            "# HELP vllm:request_success_total Count of successfully processed requests.\n"
            "# TYPE vllm:request_success_total counter\n"
            "vllm:request_success_total{model_name=\"m\",finished_reason=\"length\"} 7.0\n"
            "vllm:request_success_total{model_name=\"m\",finished_reason=\"stop\"} 3.0\n"
            "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
            "# TYPE vllm:num_requests_running gauge\n"
            "vllm:num_requests_running{model_name=\"m\"} 2.0\n");
}

TEST(PrometheusWriter, ValuesAreSpelledAsThePythonClientSpellsThem) {
  EXPECT_EQ(format_prometheus_value(0), "0.0");
  EXPECT_EQ(format_prometheus_value(3), "3.0");
  EXPECT_EQ(format_prometheus_value(-2), "-2.0");
  EXPECT_EQ(format_prometheus_value(0.001), "0.001");
  EXPECT_EQ(format_prometheus_value(2560), "2560.0");
  EXPECT_EQ(format_prometheus_value(0.1 + 0.2), "0.30000000000000004");  // round-trip digits, not %g
  EXPECT_EQ(format_prometheus_value(1e20), "1e+20");
  EXPECT_EQ(format_prometheus_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_prometheus_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_prometheus_value(std::nan("")), "NaN");
}

TEST(PrometheusWriterDeathTest, SplitFamilyAborts) {
  PrometheusWriter w;
  w.gauge("a", "A.", {}, 1);
  w.gauge("b", "B.", {}, 1);
  EXPECT_DEATH(w.gauge("a", "A.", {}, 2), "check failed");
}

TEST(PrometheusWriterDeathTest, BadNamesAndCountsAbort) {
  PrometheusWriter w;
  EXPECT_DEATH(w.gauge("1bad", "x", {}, 1), "check failed");
  EXPECT_DEATH(w.gauge("g", "x", {{"bad-label", "v"}}, 1), "check failed");
  EXPECT_DEATH(w.counter("c_total", "x", {}, -1), "check failed");
  const std::array<double, 2> unsorted = {1.0, 0.5};
  const std::array<std::uint64_t, 2> counts = {0, 0};
  EXPECT_DEATH(w.histogram("h", "x", {}, unsorted, counts, 0, 0), "check failed");
  const std::array<double, 2> bounds = {0.5, 1.0};
  const std::array<std::uint64_t, 2> too_many = {3, 3};
  EXPECT_DEATH(w.histogram("h", "x", {}, bounds, too_many, 0, 5), "check failed");  // 6 in buckets > count 5
}

TEST(VllmMetrics, NamesAndBucketsMatchVllm) {
  EXPECT_EQ(vm::kKvCacheUsagePerc, "vllm:kv_cache_usage_perc");
  EXPECT_EQ(vm::kInterTokenLatencySeconds, "vllm:inter_token_latency_seconds");
  EXPECT_EQ(vm::kNumPreemptionsTotal, "vllm:num_preemptions_total");
  EXPECT_EQ(vm::kTimeToFirstTokenBuckets.front(), 0.001);
  EXPECT_EQ(vm::kTimeToFirstTokenBuckets.back(), 2560.0);
  EXPECT_EQ(vm::kInterTokenLatencyBuckets.back(), 80.0);
  EXPECT_EQ(vm::kRequestLatencyBuckets.back(), 7680.0);
  // The vLLM buckets go through the writer unchanged (strictly increasing, finite).
  std::vector<std::uint64_t> counts(vm::kRequestLatencyBuckets.size(), 0);
  PrometheusWriter w;
  w.histogram(vm::kE2eRequestLatencySeconds, vm::kE2eRequestLatencySecondsHelp, {{"model_name", "m"}},
              vm::kRequestLatencyBuckets, counts, 0, 0);
  EXPECT_NE(w.str().find("vllm:e2e_request_latency_seconds_bucket{model_name=\"m\",le=\"7680.0\"} 0.0\n"),
            std::string::npos);
}

}  // namespace
}  // namespace perfhound::serve
