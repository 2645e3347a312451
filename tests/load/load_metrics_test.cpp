#include "load/load_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace perfhound::load {
namespace {

constexpr std::int64_t kMs = 1'000'000;  // ns per ms
constexpr double kTol = 1e-12;

std::vector<std::int64_t> ms_list(std::initializer_list<std::int64_t> ms) {
  std::vector<std::int64_t> out;
  for (std::int64_t v : ms) out.push_back(v * kMs);
  return out;
}

RequestRecord completed(std::uint64_t index, std::int64_t intended_ms, std::int64_t sent_ms,
                        std::initializer_list<std::int64_t> chunks_ms, std::int64_t end_ms) {
  RequestRecord r;
  r.index = index;
  r.intended_ns = intended_ms * kMs;
  r.sent_ns = sent_ms * kMs;
  r.first_byte_ns = r.sent_ns + kMs;
  r.chunk_ns = ms_list(chunks_ms);
  r.first_token_ns = r.chunk_ns.empty() ? -1 : r.chunk_ns.front();
  r.end_ns = end_ms * kMs;
  r.http_status = 200;
  return r;
}

RequestRecord failed(std::uint64_t index, std::int64_t intended_ms, std::int64_t sent_ms, std::int64_t end_ms,
                     ErrorKind kind, int status, std::string message) {
  RequestRecord r;
  r.index = index;
  r.intended_ns = intended_ms * kMs;
  r.sent_ns = sent_ms * kMs;
  r.end_ns = end_ms * kMs;
  r.http_status = status;
  r.error = kind;
  r.error_message = std::move(message);
  return r;
}

// The run every test below starts from (times in ms from the schedule start):
//   A: intended 0,   sent 0,   chunks 100 150 200 250, end 260; usage 4 output, 10 prompt tokens
//   B: intended 100, sent 120, chunks 300 340 420,     end 430; no usage: 3 counted, workload prompt 20
//   C: intended 200, sent 200, chunks 350 450,         end 450; usage 6 output (3 per chunk), 30 prompt
//   D: intended 300, sent 310, end 500, timeout after a first chunk, status 200
//   E: intended 400, sent 400, end 410, HTTP 503
//   G: intended 450, sent 455, end 480, timeout, status 200
//   F: warm-up, intended 0, sent 0, end 5000: in nothing but warmup_discarded
std::vector<RequestRecord> run_records() {
  RequestRecord a = completed(0, 0, 0, {100, 150, 200, 250}, 260);
  a.usage_completion_tokens = 4;
  a.usage_prompt_tokens = 10;
  a.input_tokens = 12;
  RequestRecord b = completed(1, 100, 120, {300, 340, 420}, 430);
  b.input_tokens = 20;
  RequestRecord c = completed(2, 200, 200, {350, 450}, 450);
  c.usage_completion_tokens = 6;
  c.usage_prompt_tokens = 30;
  RequestRecord d = failed(3, 300, 310, 500, ErrorKind::kTimeout, 200, "timed out after 1s");
  d.chunk_ns = ms_list({400});
  RequestRecord e = failed(4, 400, 400, 410, ErrorKind::kHttpStatus, 503, "503 Service Unavailable");
  RequestRecord g = failed(6, 450, 455, 480, ErrorKind::kTimeout, 200, "a later timeout");
  RequestRecord f = completed(5, 0, 0, {1000, 2000}, 5000);
  f.warmup = true;
  // Completion order: A 260, E 410, B 430, C 450, G 480, D 500; the warm-up one first.
  return {f, a, e, b, c, g, d};
}

LoadSummary run_summary(GoodputPredicate slo = {}, std::int64_t bin_ns = kDefaultConcurrencyBinNs,
                        std::size_t raw_limit = SampleTracker::kDefaultRawLimit) {
  LoadMetricsTracker t(std::move(slo), bin_ns, raw_limit);
  for (const auto& r : run_records()) t.add(r);
  return t.summary();
}

TEST(LoadMetricsTest, CountsWarmupErrorsAndStatuses) {
  const LoadSummary s = run_summary();
  EXPECT_EQ(s.requests_total, 7u);
  EXPECT_EQ(s.warmup_discarded, 1u);
  EXPECT_EQ(s.measured, 6u);
  EXPECT_EQ(s.completed, 3u);
  EXPECT_EQ(s.failed, 3u);
  ASSERT_EQ(s.errors.size(), 2u);  // ErrorKind order: timeout before http-status
  EXPECT_EQ(s.errors[0].kind, ErrorKind::kTimeout);
  EXPECT_EQ(s.errors[0].count, 2u);
  EXPECT_EQ(s.errors[0].first_message, "a later timeout");  // G (end 480) arrives before D (end 500)
  EXPECT_EQ(s.errors[1].kind, ErrorKind::kHttpStatus);
  EXPECT_EQ(s.errors[1].count, 1u);
  EXPECT_EQ(s.errors[1].first_message, "503 Service Unavailable");
  ASSERT_EQ(s.http_status.size(), 2u);
  EXPECT_EQ(s.http_status[0].status, 200);
  EXPECT_EQ(s.http_status[0].count, 5u);  // A B C D G; the warm-up's 200 is not counted
  EXPECT_EQ(s.http_status[1].status, 503);
  EXPECT_EQ(s.http_status[1].count, 1u);
}

TEST(LoadMetricsTest, LatenciesFromBothStarts) {
  const LoadSummary s = run_summary();
  const StartLatencies& in = s.from_intended;
  const StartLatencies& sent = s.from_sent;
  // TTFT from intended: A 100 - 0, B 300 - 100, C 350 - 200 = {100, 200, 150} ms.
  EXPECT_EQ(in.ttft_s.count, 3u);
  EXPECT_NEAR(in.ttft_s.mean, 0.150, kTol);
  EXPECT_NEAR(in.ttft_s.p50, 0.150, kTol);
  EXPECT_NEAR(in.ttft_s.p90, 0.190, kTol);   // sorted {100, 150, 200}, h = 1.8: 150 + 0.8 * 50
  EXPECT_NEAR(in.ttft_s.stddev, 0.050, kTol);  // deviations -50, 50, 0: sqrt(5000 / 2)
  // TTFT from sent: B is 300 - 120 = 180 -> {100, 180, 150}.
  EXPECT_NEAR(sent.ttft_s.mean, (0.100 + 0.180 + 0.150) / 3, kTol);
  EXPECT_NEAR(sent.ttft_s.p99, 0.1794, kTol);  // sorted {100, 150, 180}, h = 1.98: 150 + 0.98 * 30
  // E2E from intended: A 260, B 430 - 100 = 330, C 450 - 200 = 250.
  EXPECT_NEAR(in.e2e_s.mean, (0.260 + 0.330 + 0.250) / 3, kTol);
  EXPECT_NEAR(in.e2e_s.max, 0.330, kTol);
  EXPECT_NEAR(sent.e2e_s.max, 0.310, kTol);  // B: 430 - 120
  // TPOT = (end - first token) / (tokens - 1): A 160 / 3, B 130 / 2 = 65, C 100 / 5 = 20 (start-free).
  EXPECT_NEAR(in.tpot_s.min, 0.020, kTol);
  EXPECT_NEAR(in.tpot_s.p50, 0.160 / 3, kTol);
  EXPECT_NEAR(in.tpot_s.max, 0.065, kTol);
  EXPECT_NEAR(sent.tpot_s.mean, in.tpot_s.mean, kTol);
  // NTPOT = e2e / tokens: from intended A 260 / 4 = 65, B 330 / 3 = 110, C 250 / 6.
  EXPECT_NEAR(in.ntpot_s.max, 0.110, kTol);
  EXPECT_NEAR(sent.ntpot_s.max, 0.310 / 3, kTol);
  // mean ITL per request = (last - first chunk) / (chunks - 1): A 150 / 3 = 50, B 120 / 2 = 60, C 100.
  EXPECT_NEAR(in.mean_itl_s.mean, (0.050 + 0.060 + 0.100) / 3, kTol);
  // TTLT = last chunk - start: intended A 250, B 320, C 250; sent B 300.
  EXPECT_NEAR(in.ttlt_s.max, 0.320, kTol);
  EXPECT_NEAR(sent.ttlt_s.max, 0.300, kTol);
  EXPECT_NEAR(sent.ttlt_s.p50, 0.250, kTol);
  // NTPOT to last token from sent: A 250 / 4 = 62.5, B 300 / 3 = 100, C 250 / 6.
  EXPECT_NEAR(sent.ntpot_to_last_token_s.p50, 0.0625, kTol);
  EXPECT_NEAR(sent.ntpot_to_last_token_s.max, 0.100, kTol);
  // Output tokens per second per request from sent: A 4 / 0.26, B 3 / 0.31, C 6 / 0.25 = 24.
  EXPECT_NEAR(sent.output_tokens_per_s.max, 24.0, 1e-9);
  EXPECT_NEAR(sent.output_tokens_per_s.min, 3 / 0.31, 1e-9);
  // ... and to the last token: A 4 / 0.25 = 16, B 3 / 0.30 = 10, C 24.
  EXPECT_NEAR(sent.output_tokens_per_s_to_last_token.p50, 16.0, 1e-9);
  EXPECT_NEAR(sent.output_tokens_per_s_to_last_token.min, 10.0, 1e-9);
  EXPECT_TRUE(in.ttft_s.exact);
}

TEST(LoadMetricsTest, StartIndependentDistributions) {
  const LoadSummary s = run_summary();
  // Pooled ITL: A 50 50 50, B 40 80, C 100 -> sorted {40, 50, 50, 50, 80, 100}.
  EXPECT_EQ(s.itl_s.count, 6u);
  EXPECT_NEAR(s.itl_s.mean, 0.370 / 6, kTol);
  EXPECT_NEAR(s.itl_s.p50, 0.050, kTol);  // h = 2.5 between 50 and 50
  EXPECT_NEAR(s.itl_s.p99, 0.099, kTol);  // h = 4.95: 80 + 0.95 * 20
  // TTST: A 50, B 40, C 100.
  EXPECT_NEAR(s.ttst_s.p50, 0.050, kTol);
  // TPOT to last token: A (250 - 100) / 3 = 50, B (420 - 300) / 2 = 60, C (450 - 350) / 5 = 20.
  EXPECT_NEAR(s.tpot_to_last_token_s.mean, 0.130 / 3, kTol);
  EXPECT_NEAR(s.tpot_to_last_token_s.p50, 0.050, kTol);
  // Its inverse per request: 20, 16.67, 50 tokens/s.
  EXPECT_NEAR(s.decode_tokens_per_s.mean, (20.0 + 1 / 0.06 + 50.0) / 3, 1e-9);
  // Tokens per chunk: A 4 / 4, B 3 / 3, C 6 / 2.
  EXPECT_NEAR(s.tokens_per_chunk.max, 3.0, kTol);
  EXPECT_NEAR(s.tokens_per_chunk.p50, 1.0, kTol);
  // Output tokens {4, 3, 6}; input tokens {10 (usage), 20 (workload), 30 (usage)}.
  EXPECT_NEAR(s.output_tokens.mean, 13.0 / 3, kTol);
  EXPECT_NEAR(s.input_tokens.p50, 20.0, kTol);
  // Schedule lag (every measured request that was sent): A 0, B 20, C 0, D 10, E 0, G 5 ms.
  EXPECT_EQ(s.schedule_lag_s.count, 6u);
  EXPECT_NEAR(s.schedule_lag_s.mean, 0.035 / 6, kTol);
  EXPECT_NEAR(s.schedule_lag_s.max, 0.020, kTol);
}

TEST(LoadMetricsTest, WindowAndThroughput) {
  const LoadSummary s = run_summary();
  // Earliest measured start: A intended 0; latest end: D 500 (the warm-up's 5000 is excluded).
  EXPECT_EQ(s.window_start_ns, 0);
  EXPECT_EQ(s.window_end_ns, 500 * kMs);
  EXPECT_DOUBLE_EQ(s.window_s, 0.5);
  EXPECT_EQ(s.total_output_tokens, 13u);  // 4 + 3 + 6
  EXPECT_EQ(s.total_input_tokens, 60u);   // 10 + 20 + 30
  EXPECT_DOUBLE_EQ(s.requests_per_s, 6.0);        // 3 / 0.5
  EXPECT_DOUBLE_EQ(s.output_tokens_per_s, 26.0);  // 13 / 0.5
  EXPECT_DOUBLE_EQ(s.total_tokens_per_s, 146.0);  // 73 / 0.5
  EXPECT_EQ(s.output_token_source, TokenSource::kMixed);
  EXPECT_EQ(s.output_tokens_from_usage, 2u);
  EXPECT_EQ(s.output_tokens_counted, 1u);
  EXPECT_EQ(s.input_token_source, TokenSource::kMixed);
  EXPECT_EQ(s.input_tokens_from_usage, 2u);
  EXPECT_EQ(s.input_tokens_from_workload, 1u);
  EXPECT_FALSE(s.goodput_defined);
  EXPECT_TRUE(std::isnan(s.goodput_per_s));
}

TEST(LoadMetricsTest, GoodputWithAPredicate) {
  // TTFT from intended <= 160 ms: A (100) and C (150) meet it, B (200) does not.
  const LoadSummary s = run_summary([](const RequestLatencies& l) { return l.ttft_s <= 0.160; });
  EXPECT_TRUE(s.goodput_defined);
  EXPECT_EQ(s.good_completed, 2u);
  EXPECT_DOUBLE_EQ(s.goodput_per_s, 4.0);  // 2 / 0.5
  EXPECT_DOUBLE_EQ(s.goodput_ratio, 2.0 / 3);
}

TEST(LoadMetricsTest, ConcurrencyBins) {
  // In flight [sent, end): A [0, 260), B [120, 430), C [200, 450), D [310, 500), E [400, 410), G [455, 480).
  const LoadSummary s = run_summary({}, 100 * kMs);
  ASSERT_EQ(s.concurrency.size(), 5u);  // bins of 100 ms up to the latest end 500
  const double expected[] = {
      1.00,  // [0, 100): A 100
      1.80,  // [100, 200): A 100 + B 80
      2.60,  // [200, 300): A 60 + B 100 + C 100
      2.90,  // [300, 400): B 100 + C 100 + D 90
      2.15,  // [400, 500): B 30 + C 50 + D 100 + E 10 + G 25
  };
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_NEAR(s.concurrency[k].start_s, 0.1 * static_cast<double>(k), kTol) << k;
    EXPECT_NEAR(s.concurrency[k].mean_in_flight, expected[k], kTol) << k;
  }
  // At 400 B, C, D and E overlap.
  EXPECT_EQ(s.max_in_flight, 4u);
  // Total in flight 260 + 310 + 250 + 190 + 10 + 25 = 1045 ms over a 500 ms window.
  EXPECT_NEAR(s.mean_in_flight, 2.09, kTol);
  EXPECT_EQ(s.concurrency_clipped, 0u);
}

TEST(LoadMetricsTest, LastBinIsAveragedUpToTheLatestEnd) {
  // One 1 s bin, but the run ends at 500 ms: 1045 ms in flight over 500 ms.
  const LoadSummary s = run_summary();
  ASSERT_EQ(s.concurrency.size(), 1u);
  EXPECT_NEAR(s.concurrency[0].mean_in_flight, 2.09, kTol);
}

TEST(LoadMetricsTest, OrderOfArrivalDoesNotMatter) {
  std::vector<RequestRecord> records = run_records();
  LoadMetricsTracker forward(nullptr, 100 * kMs), backward(nullptr, 100 * kMs);
  for (const auto& r : records) forward.add(r);
  std::reverse(records.begin(), records.end());  // the latest end first: the bins grow, then fill in
  for (const auto& r : records) backward.add(r);
  const LoadSummary f = forward.summary(), b = backward.summary();
  ASSERT_EQ(f.concurrency.size(), b.concurrency.size());
  for (std::size_t k = 0; k < f.concurrency.size(); ++k) {
    EXPECT_DOUBLE_EQ(f.concurrency[k].mean_in_flight, b.concurrency[k].mean_in_flight);
  }
  EXPECT_EQ(f.max_in_flight, b.max_in_flight);
  EXPECT_DOUBLE_EQ(f.from_sent.ttft_s.p99, b.from_sent.ttft_s.p99);
  EXPECT_EQ(f.window_start_ns, b.window_start_ns);
  EXPECT_EQ(f.window_end_ns, b.window_end_ns);
}

TEST(LoadMetricsTest, TouchingIntervalsAreNotConcurrent) {
  // [0, 100) and [100, 200): the end at 100 is taken before the send at 100.
  LoadMetricsTracker t;
  t.add(completed(0, 0, 0, {50}, 100));
  t.add(completed(1, 100, 100, {150}, 200));
  EXPECT_EQ(t.summary().max_in_flight, 1u);
}

TEST(LoadMetricsTest, TrackersSwitchToTheHistogramPastTheLimit) {
  // raw_limit 2 with 3 completed requests: every per-request tracker holds a histogram.
  const LoadSummary s = run_summary({}, kDefaultConcurrencyBinNs, 2);
  const SampleSummary& ttft = s.from_intended.ttft_s;
  EXPECT_FALSE(ttft.exact);
  EXPECT_EQ(ttft.method, kHistogramMethod);
  EXPECT_EQ(ttft.count, 3u);
  EXPECT_NEAR(ttft.mean, 0.150, 1e-15);  // mean stays exact
  // Nearest rank of {100, 150, 200} ms: p50 rank 2 = 150 ms, p90 rank 3 = 200 ms, within 0.1% above.
  EXPECT_GE(ttft.p50, 0.150);
  EXPECT_LE(ttft.p50, 0.150 * 1.001);
  EXPECT_GE(ttft.p90, 0.200 - 1e-15);
  EXPECT_LE(ttft.p90, 0.200 * 1.001);
  EXPECT_EQ(ttft.min, 0.100);  // rank 1 and the extremes are exact
  EXPECT_EQ(ttft.max, 0.200);
  // The pooled ITL (6 gaps) too: p50 rank 3 of {40, 50, 50, 50, 80, 100} = 50 ms.
  EXPECT_FALSE(s.itl_s.exact);
  EXPECT_GE(s.itl_s.p50, 0.050);
  EXPECT_LE(s.itl_s.p50, 0.050 * 1.001);
}

TEST(LoadMetricsTest, CompletedWithoutTokensIsUndefinedNotDropped) {
  LoadMetricsTracker t;
  t.add(completed(0, 0, 0, {}, 100));  // [DONE] with no content
  const LoadSummary s = t.summary();
  EXPECT_EQ(s.completed, 1u);
  EXPECT_EQ(s.from_intended.ttft_s.count, 0u);
  EXPECT_EQ(s.from_intended.ttft_s.undefined_count, 1u);
  EXPECT_EQ(s.output_tokens.count, 1u);  // a real zero
  EXPECT_EQ(s.output_tokens.max, 0.0);
  EXPECT_EQ(s.output_token_source, TokenSource::kCounted);
}

TEST(LoadMetricsTest, EmptyRun) {
  LoadMetricsTracker t;
  const LoadSummary s = t.summary();
  EXPECT_EQ(s.requests_total, 0u);
  EXPECT_EQ(s.window_s, 0.0);
  EXPECT_TRUE(std::isnan(s.requests_per_s));
  EXPECT_TRUE(std::isnan(s.mean_in_flight));
  EXPECT_EQ(s.goodput_ratio, 0.0);
  EXPECT_TRUE(s.concurrency.empty());
  EXPECT_EQ(s.max_in_flight, 0u);
  EXPECT_EQ(s.output_token_source, TokenSource::kNone);
}

TEST(LoadMetricsTest, CorruptEndTimeIsClippedAndCounted) {
  LoadMetricsTracker t;
  RequestRecord r = completed(0, 0, 0, {50}, 100);
  r.end_ns = std::numeric_limits<std::int64_t>::max();
  t.add(r);
  const LoadSummary s = t.summary();
  EXPECT_EQ(s.concurrency_clipped, 1u);
  EXPECT_EQ(s.concurrency.size(), kMaxConcurrencyBins);
}

TEST(LoadMetricsTest, JsonNamesUnitsAndNulls) {
  LoadMetricsTracker t;
  RequestRecord r = completed(0, 0, 0, {100, 150}, 160);
  t.add(r);
  const nlohmann::ordered_json j = to_json(t.summary());
  EXPECT_EQ(j["requests"]["completed"], 1);
  EXPECT_DOUBLE_EQ(j["window"]["duration_s"].get<double>(), 0.16);
  EXPECT_DOUBLE_EQ(j["latency"]["from_intended"]["ttft"]["p99_s"].get<double>(), 0.1);
  EXPECT_TRUE(j["latency"]["from_intended"]["ttft"]["stddev_s"].is_null());  // one sample
  EXPECT_EQ(j["latency"]["from_intended"]["ttft"]["method"], "exact (numpy linear)");
  EXPECT_TRUE(j["latency"]["from_sent"]["output_tokens_rate"].contains("mean_per_s"));
  EXPECT_TRUE(j["output_tokens"].contains("p50_tokens"));
  EXPECT_TRUE(j["goodput"].is_null());
  EXPECT_EQ(j["throughput"]["output_token_source"], "counted");
  EXPECT_DOUBLE_EQ(j["concurrency"]["bin_s"].get<double>(), 1.0);
  EXPECT_EQ(j["concurrency"]["max_in_flight"], 1);
  EXPECT_EQ(j["errors"].size(), 0u);
}

TEST(LoadMetricsTest, TokenSourceNames) {
  EXPECT_EQ(token_source_name(TokenSource::kNone), "none");
  EXPECT_EQ(token_source_name(TokenSource::kUsage), "usage");
  EXPECT_EQ(token_source_name(TokenSource::kCounted), "counted");
  EXPECT_EQ(token_source_name(TokenSource::kMixed), "mixed");
}

}  // namespace
}  // namespace perfhound::load
