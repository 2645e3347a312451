#include "load/compat_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

constexpr std::int64_t kMs = 1'000'000;
constexpr double kTol = 1e-9;

RequestRecord completed(std::int64_t intended_ms, std::int64_t sent_ms, std::initializer_list<std::int64_t> chunks_ms,
                        std::int64_t end_ms, std::int64_t usage_tokens = -1) {
  RequestRecord r;
  r.intended_ns = intended_ms * kMs;
  r.sent_ns = sent_ms * kMs;
  for (std::int64_t c : chunks_ms) r.chunk_ns.push_back(c * kMs);
  r.first_token_ns = r.chunk_ns.front();
  r.end_ns = end_ms * kMs;
  r.http_status = 200;
  r.usage_completion_tokens = usage_tokens;
  return r;
}

// Three completed requests and one failure (times in ms):
//   A: intended 0,   sent 0,   chunks 100 150 200 250, end 260, 4 tokens
//   B: intended 100, sent 120, chunks 300 340 420,     end 430, 3 tokens
//   C: intended 200, sent 200, chunks 350 450,         end 450, 6 tokens (usage)
//   D: intended 300, sent 310, end 500, timeout
LoadSummary run_summary() {
  LoadMetricsTracker t;
  t.add(completed(0, 0, {100, 150, 200, 250}, 260));
  t.add(completed(100, 120, {300, 340, 420}, 430));
  t.add(completed(200, 200, {350, 450}, 450, 6));
  RequestRecord d;
  d.intended_ns = 300 * kMs;
  d.sent_ns = 310 * kMs;
  d.end_ns = 500 * kMs;
  d.error = ErrorKind::kTimeout;
  d.error_message = "timed out";
  t.add(d);
  return t.summary();
}

const CompatMetric& find(const std::vector<CompatMetric>& metrics, const std::string& name) {
  for (const auto& m : metrics) {
    if (m.name == name) return m;
  }
  ADD_FAILURE() << "no metric " << name;
  static const CompatMetric none;
  return none;
}

double stat(const CompatMetric& m, const std::string& name) {
  for (const auto& [n, v] : m.stats) {
    if (n == name) return v;
  }
  ADD_FAILURE() << m.name << " has no stat " << name;
  return std::nan("");
}

std::vector<std::string> stat_names(const CompatMetric& m) {
  std::vector<std::string> names;
  for (const auto& [n, v] : m.stats) names.push_back(n);
  return names;
}

TEST(CompatViewTest, ParsesToolNames) {
  for (CompatTool tool : {CompatTool::kVllm, CompatTool::kGenaiPerf, CompatTool::kAiperf, CompatTool::kGuidellm}) {
    auto parsed = parse_compat_tool(compat_tool_name(tool));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, tool);
  }
  EXPECT_EQ(compat_tool_name(CompatTool::kGenaiPerf), "genai-perf");
  auto bad = parse_compat_tool("VLLM");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("--compat"));
  EXPECT_THAT(bad.error().message, HasSubstr("'VLLM'"));
  EXPECT_THAT(bad.error().message, HasSubstr("vllm, genai-perf, aiperf, guidellm"));
}

TEST(CompatViewTest, VllmTtftTpotItlE2elByHand) {
  const auto view = compat_view(run_summary(), CompatTool::kVllm);
  const CompatMetric& ttft = find(view, "ttft");
  EXPECT_EQ(ttft.unit, "ms");
  EXPECT_EQ(stat_names(ttft), (std::vector<std::string>{"mean", "median", "std", "p99"}));
  // From the actual send: A 100, B 300 - 120 = 180, C 150 ms.
  EXPECT_NEAR(stat(ttft, "mean"), 430.0 / 3, kTol);
  EXPECT_NEAR(stat(ttft, "median"), 150.0, kTol);
  EXPECT_NEAR(stat(ttft, "p99"), 179.4, kTol);  // sorted {100, 150, 180}, h = 1.98: 150 + 0.98 * 30
  // np.std: deviations -130/3, 110/3, 20/3 -> sum of squares 29400 / 9, / n = 3, sqrt.
  EXPECT_NEAR(stat(ttft, "std"), std::sqrt((130.0 * 130 + 110.0 * 110 + 20.0 * 20) / 9 / 3), kTol);

  // TPOT = (last chunk - first chunk) / (tokens - 1): A 150 / 3 = 50, B 120 / 2 = 60, C 100 / 5 = 20.
  const CompatMetric& tpot = find(view, "tpot");
  EXPECT_NEAR(stat(tpot, "mean"), 130.0 / 3, kTol);
  EXPECT_NEAR(stat(tpot, "median"), 50.0, kTol);
  EXPECT_NEAR(stat(tpot, "p99"), 59.8, kTol);  // sorted {20, 50, 60}, h = 1.98: 50 + 0.98 * 10
  // deviations 20/3, 50/3, -70/3: sum of squares 7800 / 9, np.std = sqrt(7800 / 27).
  EXPECT_NEAR(stat(tpot, "std"), std::sqrt(7800.0 / 27), kTol);

  // ITL pooled: A 50 50 50, B 40 80, C 100.
  const CompatMetric& itl = find(view, "itl");
  EXPECT_NEAR(stat(itl, "mean"), 370.0 / 6, kTol);
  EXPECT_NEAR(stat(itl, "median"), 50.0, kTol);
  EXPECT_NEAR(stat(itl, "p99"), 99.0, kTol);  // h = 4.95 between 80 and 100

  // E2EL to the last content chunk from the send: A 250, B 420 - 120 = 300, C 250.
  const CompatMetric& e2el = find(view, "e2el");
  EXPECT_NEAR(stat(e2el, "mean"), 800.0 / 3, kTol);
  EXPECT_NEAR(stat(e2el, "median"), 250.0, kTol);

  // Window 0 (A intended) .. 500 (D end): 0.5 s.
  EXPECT_NEAR(stat(find(view, "duration"), "value"), 0.5, kTol);
  EXPECT_EQ(stat(find(view, "completed"), "value"), 3.0);
  EXPECT_EQ(stat(find(view, "failed"), "value"), 1.0);
  EXPECT_NEAR(stat(find(view, "request_throughput"), "value"), 6.0, kTol);       // 3 / 0.5
  EXPECT_NEAR(stat(find(view, "output_throughput"), "value"), 26.0, kTol);       // (4 + 3 + 6) / 0.5
  EXPECT_EQ(stat(find(view, "max_concurrent_requests"), "value"), 3.0);  // B, C, D around 310-430
  for (const auto& m : view) EXPECT_NE(m.name, "request_goodput");         // no SLO given
}

TEST(CompatViewTest, GenaiPerfItlIsOurTpotWhenTheStreamEndsAtTheLastChunk) {
  // [DONE] at the last chunk (end == last chunk): genai-perf's ITL (latency to the last response) is
  // exactly perfhound's TPOT.
  LoadMetricsTracker t;
  t.add(completed(0, 0, {100, 130, 190}, 190));  // TPOT (190 - 100) / 2 = 45
  t.add(completed(0, 10, {200, 260}, 260));      // TPOT 60 / 1 = 60
  const LoadSummary s = t.summary();
  const auto view = compat_view(s, CompatTool::kGenaiPerf);
  const CompatMetric& itl = find(view, "inter_token_latency");
  EXPECT_NEAR(stat(itl, "avg"), s.from_sent.tpot_s.mean * 1000, kTol);
  EXPECT_NEAR(stat(itl, "avg"), 52.5, kTol);
  EXPECT_NEAR(stat(itl, "max"), s.from_sent.tpot_s.max * 1000, kTol);
  EXPECT_EQ(stat_names(itl), (std::vector<std::string>{"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95",
                                                       "p99", "min", "max", "std"}));
  // request_latency is to the last response from the send: 190 and 250.
  EXPECT_NEAR(stat(find(view, "request_latency"), "avg"), 220.0, kTol);
}

TEST(CompatViewTest, GenaiPerfDefinitionsByHand) {
  const auto view = compat_view(run_summary(), CompatTool::kGenaiPerf);
  // inter_token_latency uses the last response, not [DONE]: A 50, not our TPOT 160 / 3.
  EXPECT_NEAR(stat(find(view, "inter_token_latency"), "min"), 20.0, kTol);
  EXPECT_NEAR(stat(find(view, "inter_token_latency"), "p50"), 50.0, kTol);
  // output_token_throughput_per_request = tokens / request_latency: A 4 / 0.25 = 16, B 3 / 0.30 = 10,
  // C 6 / 0.25 = 24.
  const CompatMetric& per_request = find(view, "output_token_throughput_per_request");
  EXPECT_EQ(per_request.unit, "tokens/sec");
  EXPECT_NEAR(stat(per_request, "avg"), 50.0 / 3, kTol);
  EXPECT_NEAR(stat(per_request, "p50"), 16.0, kTol);
  EXPECT_NEAR(stat(find(view, "time_to_second_token"), "max"), 100.0, kTol);  // C: 450 - 350
  EXPECT_NEAR(stat(find(view, "output_sequence_length"), "avg"), 13.0 / 3, kTol);
  EXPECT_NEAR(stat(find(view, "request_throughput"), "avg"), 6.0, kTol);
  EXPECT_NEAR(stat(find(view, "output_token_throughput"), "avg"), 26.0, kTol);
}

TEST(CompatViewTest, GuidellmTpotIncludesTheFirstToken) {
  const LoadSummary s = run_summary();
  const auto view = compat_view(s, CompatTool::kGuidellm);
  // time_per_output_token = (last chunk - send) / tokens: A 250 / 4 = 62.5, B 300 / 3 = 100, C 250 / 6.
  const CompatMetric& tpot = find(view, "time_per_output_token_ms");
  EXPECT_EQ(tpot.unit, "ms");
  EXPECT_NEAR(stat(tpot, "mean"), (62.5 + 100.0 + 250.0 / 6) / 3, kTol);
  EXPECT_NEAR(stat(tpot, "median"), 62.5, kTol);  // nearest rank 2 of 3
  // vLLM's TPOT for the same run excludes the first token: A 50.
  EXPECT_GT(stat(tpot, "median"), stat(find(compat_view(s, CompatTool::kVllm), "tpot"), "median"));
  // inter_token_latency_ms = (last - first token) / (tokens - 1): {50, 60, 20}.
  EXPECT_NEAR(stat(find(view, "inter_token_latency_ms"), "mean"), 130.0 / 3, kTol);
  // request_latency in seconds to the stream end from the send: A 0.26, B 0.31, C 0.25.
  const CompatMetric& latency = find(view, "request_latency");
  EXPECT_EQ(latency.unit, "s");
  EXPECT_NEAR(stat(latency, "max"), 0.31, kTol);
  // Request totals: 3 successful, 1 errored (a timeout is not "incomplete"), 4 in total.
  const CompatMetric& totals = find(view, "request_totals");
  EXPECT_EQ(stat(totals, "successful"), 3.0);
  EXPECT_EQ(stat(totals, "incomplete"), 0.0);
  EXPECT_EQ(stat(totals, "errored"), 1.0);
  EXPECT_EQ(stat(totals, "total"), 4.0);
  // requests_per_second: console shows status total, 4 / 0.5; successful 3 / 0.5.
  EXPECT_NEAR(stat(find(view, "requests_per_second"), "mean"), 8.0, kTol);
  EXPECT_NEAR(stat(find(view, "requests_per_second"), "successful_mean"), 6.0, kTol);
  // In flight: A 260, B 310, C 250, D 190 = 1010 ms over 500 ms.
  EXPECT_NEAR(stat(find(view, "request_concurrency"), "mean"), 2.02, kTol);
}

TEST(CompatViewTest, GuidellmPercentilesAreNearestRankVllmLinear) {
  LoadMetricsTracker t;
  // TTFT from the send 100, 200, 300, 400 ms.
  t.add(completed(0, 0, {100}, 100));
  t.add(completed(0, 0, {200}, 200));
  t.add(completed(0, 0, {300}, 300));
  t.add(completed(0, 0, {400}, 400));
  const LoadSummary s = t.summary();
  // numpy linear median: 250; nearest rank (searchsorted on the CDF): the 2nd value, 200.
  EXPECT_NEAR(stat(find(compat_view(s, CompatTool::kVllm), "ttft"), "median"), 250.0, kTol);
  EXPECT_NEAR(stat(find(compat_view(s, CompatTool::kGuidellm), "time_to_first_token_ms"), "median"), 200.0, kTol);
  // p95: nearest rank ceil(3.8) = 4 -> 400; genai-perf's linear p95: h = 2.85 -> 300 + 0.85 * 100.
  EXPECT_NEAR(stat(find(compat_view(s, CompatTool::kGuidellm), "time_to_first_token_ms"), "p95"), 400.0, kTol);
  EXPECT_NEAR(stat(find(compat_view(s, CompatTool::kGenaiPerf), "time_to_first_token"), "p95"), 385.0, kTol);
}

TEST(CompatViewTest, AiperfDefinitionsByHand) {
  const auto view = compat_view(run_summary(), CompatTool::kAiperf);
  // output_token_throughput_per_user = 1 / inter_token_latency: 1 / 0.05, 1 / 0.06, 1 / 0.02 tokens/s.
  const CompatMetric& per_user = find(view, "output_token_throughput_per_user");
  EXPECT_EQ(per_user.unit, "tokens/sec/user");
  EXPECT_NEAR(stat(per_user, "avg"), (20.0 + 1 / 0.06 + 50.0) / 3, kTol);
  EXPECT_NEAR(stat(per_user, "max"), 50.0, kTol);
  // inter_chunk_latency: pooled gaps, the same as vLLM's ITL.
  EXPECT_NEAR(stat(find(view, "inter_chunk_latency"), "avg"), 370.0 / 6, kTol);
  EXPECT_NEAR(stat(find(view, "inter_token_latency"), "avg"), 130.0 / 3, kTol);
  EXPECT_NEAR(stat(find(view, "ttft"), "p50"), 150.0, kTol);
  EXPECT_EQ(stat(find(view, "request_count"), "value"), 3.0);
  EXPECT_EQ(stat(find(view, "error_request_count"), "value"), 1.0);
  EXPECT_NEAR(stat(find(view, "benchmark_duration"), "value"), 0.5, kTol);
  EXPECT_EQ(stat_names(find(view, "ttft")), (std::vector<std::string>{"avg", "min", "max", "p1", "p5", "p10", "p25",
                                                                      "p50", "p75", "p90", "p95", "p99", "std"}));
}

TEST(CompatViewTest, GoodputAppearsOnlyWithAnSlo) {
  LoadMetricsTracker t([](const RequestLatencies& l) { return l.ttft_s <= 0.15; });
  t.add(completed(0, 0, {100, 200}, 200));
  t.add(completed(0, 0, {300, 400}, 400));
  const LoadSummary s = t.summary();
  // 1 good request over the 0.4 s window.
  EXPECT_NEAR(stat(find(compat_view(s, CompatTool::kVllm), "request_goodput"), "value"), 2.5, kTol);
  EXPECT_NEAR(stat(find(compat_view(s, CompatTool::kGenaiPerf), "request_goodput"), "avg"), 2.5, kTol);
  EXPECT_NEAR(stat(find(compat_view(s, CompatTool::kAiperf), "goodput"), "avg"), 2.5, kTol);
}

TEST(CompatViewTest, JsonFormWithNullsForEmptySamples) {
  LoadMetricsTracker t;
  const auto view = compat_view(t.summary(), CompatTool::kVllm);
  const nlohmann::ordered_json j = to_json(CompatTool::kVllm, view);
  EXPECT_EQ(j["tool"], "vllm");
  EXPECT_EQ(j["start"], "sent");
  ASSERT_TRUE(j["metrics"].is_array());
  bool saw_ttft = false;
  for (const auto& m : j["metrics"]) {
    EXPECT_TRUE(m.contains("definition"));
    if (m["name"] == "ttft") {
      saw_ttft = true;
      EXPECT_EQ(m["unit"], "ms");
      EXPECT_TRUE(m["stats"]["mean"].is_null());  // no sample: null, not vLLM's 0
    }
  }
  EXPECT_TRUE(saw_ttft);
}

TEST(CompatViewTest, EveryMetricHasUnitDefinitionAndStats) {
  const LoadSummary s = run_summary();
  for (CompatTool tool : {CompatTool::kVllm, CompatTool::kGenaiPerf, CompatTool::kAiperf, CompatTool::kGuidellm}) {
    for (const auto& m : compat_view(s, tool)) {
      EXPECT_FALSE(m.name.empty());
      EXPECT_FALSE(m.unit.empty()) << m.name;
      EXPECT_FALSE(m.definition.empty()) << m.name;
      EXPECT_FALSE(m.stats.empty()) << m.name;
    }
  }
}

}  // namespace
}  // namespace perfhound::load
