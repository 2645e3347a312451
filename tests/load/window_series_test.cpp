// WindowSeries: records placed by end time, per-window counts, rates and percentiles, pairwise merging when
// the series is full, fixed windows, warm-up and unplaceable records. Expected values worked out by hand.
#include "load/window_series.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace perfhound::load {
namespace {

constexpr std::int64_t kMs = 1'000'000;  // ns per ms
constexpr std::int64_t kS = 1'000'000'000;
constexpr double kTol = 1e-12;
// 2 significant digits: a reported percentile r of true order statistic x has x <= r <= x * (1 + 10^-2).
constexpr double kSketchError = 0.01;

// A completed request: intended = sent, first token at first_ms, `tokens` content chunks 10 ms apart from
// the first token, done at end_ms (all ms from the schedule start).
RequestRecord completed(std::int64_t intended_ms, std::int64_t first_ms, std::int64_t end_ms, int tokens = 1) {
  RequestRecord r;
  r.intended_ns = r.sent_ns = intended_ms * kMs;
  r.first_byte_ns = r.sent_ns;
  r.first_token_ns = first_ms * kMs;
  for (int i = 0; i < tokens; ++i) r.chunk_ns.push_back((first_ms + 10 * i) * kMs);
  r.end_ns = end_ms * kMs;
  r.http_status = 200;
  return r;
}

RequestRecord failed(std::int64_t intended_ms, std::int64_t end_ms) {
  RequestRecord r;
  r.intended_ns = r.sent_ns = intended_ms * kMs;
  r.end_ns = end_ms < 0 ? -1 : end_ms * kMs;
  r.http_status = 503;
  r.error = ErrorKind::kHttpStatus;
  r.error_message = "503 Service Unavailable";
  return r;
}

void expect_within_sketch(double reported, double truth) {
  EXPECT_GE(reported, truth - kTol);
  EXPECT_LE(reported, truth * (1 + kSketchError));
}

TEST(WindowSeries, EndTimeDecidesTheWindow) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS);
  // A: sent 200 ms, first token 300, 4 chunks (300 310 320 330), done 900 -> window 0 ([0, 1 s)).
  series.add(completed(200, 300, 900, 4));
  // B: sent 500, done at 1000 ms exactly -> window 1 (windows are [start, end)); usage says 10 tokens.
  RequestRecord b = completed(500, 700, 1000, 2);
  b.usage_completion_tokens = 10;
  series.add(b);
  // D: failed at 1200 -> window 1. C: sent 1500, done 2500 -> window 2, which ends at 2.5 s (the latest end).
  series.add(failed(1100, 1200));
  series.add(completed(1500, 1600, 2500, 3));

  const auto w = series.windows();
  ASSERT_EQ(w.size(), 3u);
  EXPECT_DOUBLE_EQ(w[0].start_s, 0.0);
  EXPECT_DOUBLE_EQ(w[0].end_s, 1.0);
  EXPECT_DOUBLE_EQ(w[1].start_s, 1.0);
  EXPECT_DOUBLE_EQ(w[1].end_s, 2.0);
  EXPECT_DOUBLE_EQ(w[2].start_s, 2.0);
  EXPECT_DOUBLE_EQ(w[2].end_s, 2.5);

  EXPECT_EQ(w[0].completed, 1u);
  EXPECT_EQ(w[0].failed, 0u);
  EXPECT_EQ(w[1].completed, 1u);
  EXPECT_EQ(w[1].failed, 1u);
  EXPECT_EQ(w[2].completed, 1u);

  // Output tokens: A 4 counted chunks, B its usage 10 (not its 2 chunks), C 3 chunks.
  EXPECT_EQ(w[0].output_tokens, 4u);
  EXPECT_EQ(w[1].output_tokens, 10u);
  EXPECT_EQ(w[2].output_tokens, 3u);
  // Rates over each window's own duration: 1 / 1 s, 1 / 1 s, and 1 / 0.5 s for the cut-short last one.
  EXPECT_NEAR(w[0].requests_per_s, 1.0, kTol);
  EXPECT_NEAR(w[1].requests_per_s, 1.0, kTol);
  EXPECT_NEAR(w[2].requests_per_s, 2.0, kTol);
  EXPECT_NEAR(w[0].output_tokens_per_s, 4.0, kTol);
  EXPECT_NEAR(w[1].output_tokens_per_s, 10.0, kTol);
  EXPECT_NEAR(w[2].output_tokens_per_s, 6.0, kTol);  // 3 tokens / 0.5 s

  // One sample per window: every percentile is that sample exactly (clamped to min = max).
  // A: TTFT 300 - 200 = 100 ms; E2E 900 - 200 = 700 ms; TPOT (900 - 300) / (4 - 1) = 200 ms.
  EXPECT_NEAR(w[0].ttft_p50_s, 0.100, kTol);
  EXPECT_NEAR(w[0].ttft_p99_s, 0.100, kTol);
  EXPECT_NEAR(w[0].e2e_p95_s, 0.700, kTol);
  EXPECT_NEAR(w[0].tpot_p95_s, 0.200, kTol);
  // B: TTFT 700 - 500 = 200 ms; E2E 500 ms; TPOT (1000 - 700) / (10 - 1) = 33.33.. ms (not exact in ns:
  // 33333333.3 rounds to 33333333 ns).
  EXPECT_NEAR(w[1].ttft_p50_s, 0.200, kTol);
  EXPECT_NEAR(w[1].e2e_p50_s, 0.500, kTol);
  EXPECT_NEAR(w[1].tpot_p50_s, 0.3 / 9, 1e-9);
  // C: TTFT 100 ms, E2E 1000 ms, TPOT (2500 - 1600) / 2 = 450 ms.
  EXPECT_NEAR(w[2].ttft_p95_s, 0.100, kTol);
  EXPECT_NEAR(w[2].e2e_p95_s, 1.000, kTol);
  EXPECT_NEAR(w[2].tpot_p95_s, 0.450, kTol);
  EXPECT_EQ(w[0].latency_out_of_range, 0u);
  EXPECT_EQ(series.window_ns(), 1 * kS);
  EXPECT_EQ(series.merges(), 0u);
}

TEST(WindowSeries, PercentilesOfOneWindowWithinTheSketchError) {
  WindowSeries series(LatencyStart::kIntended, 10 * kS);
  // 100 requests sent at 0 with TTFT 1, 2, .., 100 ms, all done by 5 s: window 0.
  for (int i = 1; i <= 100; ++i) series.add(completed(0, i, 5000));
  const auto w = series.windows();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].completed, 100u);
  // Nearest rank over N = 100: p50 is the 50th smallest (50 ms), p95 the 95th, p99 the 99th.
  expect_within_sketch(w[0].ttft_p50_s, 0.050);
  expect_within_sketch(w[0].ttft_p95_s, 0.095);
  expect_within_sketch(w[0].ttft_p99_s, 0.099);
  // Every E2E is 5 s: min = max, so exact.
  EXPECT_NEAR(w[0].e2e_p50_s, 5.0, kTol);
  // One token each: TPOT undefined, no sample.
  EXPECT_TRUE(std::isnan(w[0].tpot_p50_s));
}

TEST(WindowSeries, LatencyStartSent) {
  WindowSeries from_sent(LatencyStart::kSent, 1 * kS);
  WindowSeries from_intended(LatencyStart::kIntended, 1 * kS);
  // Intended 0, sent 50 ms late, first token 150 ms, done 400 ms.
  RequestRecord r = completed(0, 150, 400);
  r.sent_ns = 50 * kMs;
  from_sent.add(r);
  from_intended.add(r);
  EXPECT_NEAR(from_sent.windows()[0].ttft_p50_s, 0.100, kTol);      // 150 - 50
  EXPECT_NEAR(from_intended.windows()[0].ttft_p50_s, 0.150, kTol);  // 150 - 0
  EXPECT_NEAR(from_sent.windows()[0].e2e_p50_s, 0.350, kTol);       // 400 - 50
  EXPECT_NEAR(from_intended.windows()[0].e2e_p50_s, 0.400, kTol);
}

TEST(WindowSeries, FullSeriesDoublesTheWindowMergingPairs) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS, /*max_windows=*/4);
  // Ends at 0.5, 1.5, 2.5, 3.5 s: windows 0..3, TTFT 100, 200, 300, 400 ms (first token 100 ms per 100 ms
  // of index, sent at 0 each).
  series.add(completed(0, 100, 500));
  series.add(completed(0, 200, 1500));
  series.add(completed(0, 300, 2500));
  series.add(failed(0, 3200));
  series.add(completed(0, 400, 3500));
  EXPECT_EQ(series.windows().size(), 4u);
  EXPECT_EQ(series.merges(), 0u);

  // End 4.5 s is window 4 of 1 s, past the 4 allowed: the window doubles to 2 s and it lands in window 2.
  series.add(completed(0, 500, 4500));
  EXPECT_EQ(series.window_ns(), 2 * kS);
  EXPECT_EQ(series.merges(), 1u);
  const auto w = series.windows();
  ASSERT_EQ(w.size(), 3u);
  // [0, 2): old windows 0 and 1 -> TTFT {100, 200} ms, E2E {500, 1500} ms.
  EXPECT_DOUBLE_EQ(w[0].start_s, 0.0);
  EXPECT_DOUBLE_EQ(w[0].end_s, 2.0);
  EXPECT_EQ(w[0].completed, 2u);
  EXPECT_EQ(w[0].failed, 0u);
  EXPECT_NEAR(w[0].requests_per_s, 1.0, kTol);  // 2 / 2 s
  // Nearest rank over 2: p50 rank ceil(1) = 1 -> the minimum, exact; p95 rank ceil(1.9) = 2 -> the maximum,
  // exact after the clamp to max.
  EXPECT_NEAR(w[0].ttft_p50_s, 0.100, kTol);
  EXPECT_NEAR(w[0].ttft_p95_s, 0.200, kTol);
  EXPECT_NEAR(w[0].ttft_p99_s, 0.200, kTol);
  EXPECT_NEAR(w[0].e2e_p50_s, 0.500, kTol);
  EXPECT_NEAR(w[0].e2e_p99_s, 1.500, kTol);
  // [2, 4): old windows 2 and 3 -> TTFT {300, 400}, one failure (3.2 s).
  EXPECT_DOUBLE_EQ(w[1].start_s, 2.0);
  EXPECT_EQ(w[1].completed, 2u);
  EXPECT_EQ(w[1].failed, 1u);
  EXPECT_NEAR(w[1].ttft_p50_s, 0.300, kTol);
  EXPECT_NEAR(w[1].ttft_p95_s, 0.400, kTol);
  // [4, 4.5]: the new record alone, a quarter of the 2 s window: no rate (1 / 0.5 s would read as a spike).
  EXPECT_DOUBLE_EQ(w[2].start_s, 4.0);
  EXPECT_DOUBLE_EQ(w[2].end_s, 4.5);
  EXPECT_EQ(w[2].completed, 1u);
  EXPECT_TRUE(std::isnan(w[2].requests_per_s));
  EXPECT_NEAR(w[2].ttft_p50_s, 0.500, kTol);

  // Records keep landing by end time after the merge: 0.9 s is in [0, 2) now, with TTFT 50 ms.
  // TTFT {50, 100, 200}: p50 rank ceil(1.5) = 2 -> 100 ms (bucket top, within 1%), p95 rank 3 -> 200 exact.
  series.add(completed(0, 50, 900));
  const auto after = series.windows();
  EXPECT_EQ(after[0].completed, 3u);
  expect_within_sketch(after[0].ttft_p50_s, 0.100);
  EXPECT_NEAR(after[0].ttft_p95_s, 0.200, kTol);
}

TEST(WindowSeries, FarEndDoublesAsOftenAsNeeded) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS, /*max_windows=*/4);
  series.add(completed(0, 100, 500));
  // 20 s: window 20 of 1 s; of 2 s window 10; of 4 s window 5; of 8 s window 2 < 4: three doublings.
  series.add(completed(19'000, 19'300, 20'000));
  EXPECT_EQ(series.window_ns(), 8 * kS);
  EXPECT_EQ(series.merges(), 3u);
  const auto w = series.windows();
  // [0, 8): the first; [8, 16): empty but reported; [16, 20]: the second, 1 / 4 s.
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].completed, 1u);
  EXPECT_EQ(w[1].completed + w[1].failed, 0u);
  EXPECT_DOUBLE_EQ(w[1].requests_per_s, 0.0);
  EXPECT_TRUE(std::isnan(w[1].ttft_p50_s));
  EXPECT_TRUE(std::isnan(w[1].e2e_p99_s));
  EXPECT_DOUBLE_EQ(w[2].start_s, 16.0);
  EXPECT_DOUBLE_EQ(w[2].end_s, 20.0);
  EXPECT_NEAR(w[2].requests_per_s, 0.25, kTol);
  EXPECT_NEAR(w[2].ttft_p50_s, 0.300, kTol);
}

TEST(WindowSeries, MergeCarriesAWindowWithOnlyFailures) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS, /*max_windows=*/2);
  series.add(failed(0, 500));           // window 0: a failure only, no sketches
  series.add(completed(0, 100, 1500));  // window 1: TTFT 100 ms
  series.add(completed(0, 200, 2500));  // window 2 > 1: double to 2 s; [0, 2) = failure + TTFT 100
  const auto w = series.windows();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].completed, 1u);
  EXPECT_EQ(w[0].failed, 1u);
  EXPECT_NEAR(w[0].ttft_p50_s, 0.100, kTol);
  EXPECT_NEAR(w[1].ttft_p50_s, 0.200, kTol);
}

TEST(WindowSeries, FixedWindowsNeverMerge) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS, /*max_windows=*/4, /*fixed=*/true);
  series.add(completed(0, 100, 500));
  series.add(completed(0, 100, 3900));  // window 3, the last allowed
  series.add(completed(0, 100, 4500));  // window 4: past the last, counted, not placed
  EXPECT_EQ(series.window_ns(), 1 * kS);
  EXPECT_EQ(series.merges(), 0u);
  EXPECT_EQ(series.past_last_window_count(), 1u);
  const auto w = series.windows();
  ASSERT_EQ(w.size(), 4u);
  EXPECT_DOUBLE_EQ(w[3].end_s, 3.9);  // the latest placed end
  EXPECT_EQ(w[0].completed + w[1].completed + w[2].completed + w[3].completed, 2u);
}

TEST(WindowSeries, WarmupIgnoredAndLeadingEmptyWindowsTrimmed) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS, /*max_windows=*/4);
  RequestRecord warm = completed(0, 100, 500);
  warm.warmup = true;
  series.add(warm);
  RequestRecord late_warm = completed(0, 100, 100'000);  // would force doublings if it counted
  late_warm.warmup = true;
  series.add(late_warm);
  series.add(completed(2000, 2100, 2600));
  EXPECT_EQ(series.warmup_ignored(), 2u);
  EXPECT_EQ(series.window_ns(), 1 * kS);
  const auto w = series.windows();
  // Windows 0 and 1 hold nothing measured: the output starts at window 2, [2, 2.6].
  ASSERT_EQ(w.size(), 1u);
  EXPECT_DOUBLE_EQ(w[0].start_s, 2.0);
  EXPECT_DOUBLE_EQ(w[0].end_s, 2.6);
  EXPECT_EQ(w[0].completed, 1u);
  EXPECT_NEAR(w[0].requests_per_s, 1 / 0.6, 1e-9);
}

TEST(WindowSeries, RecordsWithoutEndAreCounted) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS);
  series.add(failed(0, -1));
  EXPECT_EQ(series.without_end_count(), 1u);
  EXPECT_TRUE(series.windows().empty());
}

TEST(WindowSeries, LastWindowOfZeroDurationHasUndefinedRates) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS);
  series.add(completed(0, 100, 500));
  series.add(completed(0, 100, 1000));  // exactly on the boundary: window 1, which then lasts 0 s
  const auto w = series.windows();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_DOUBLE_EQ(w[1].start_s, 1.0);
  EXPECT_DOUBLE_EQ(w[1].end_s, 1.0);
  EXPECT_EQ(w[1].completed, 1u);
  EXPECT_TRUE(std::isnan(w[1].requests_per_s));
  EXPECT_TRUE(std::isnan(w[1].output_tokens_per_s));
  EXPECT_TRUE(to_json(w)[1]["requests_per_s"].is_null());
}

// A review found a soak's last window cut to 0.4 ms holding one request: 2,364 req/s in the table and the chart.
// Under half a window the rate is undefined; at half it stands (the test above: [2, 2.5] at 2 req/s).
TEST(WindowSeries, ALastWindowCutToUnderHalfHasUndefinedRates) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS);
  series.add(completed(0, 100, 500));
  series.add(completed(0, 100, 1400));  // window 1 ends at 1.4 s: 0.4 of a window
  auto w = series.windows();
  ASSERT_EQ(w.size(), 2u);
  EXPECT_DOUBLE_EQ(w[1].end_s, 1.4);
  EXPECT_EQ(w[1].completed, 1u);
  EXPECT_TRUE(std::isnan(w[1].requests_per_s));
  EXPECT_TRUE(std::isnan(w[1].output_tokens_per_s));
  EXPECT_NEAR(w[0].requests_per_s, 1.0, kTol);  // full windows keep theirs

  series.add(completed(0, 100, 1500));  // now half a window: 2 / 0.5 s
  w = series.windows();
  EXPECT_NEAR(w[1].requests_per_s, 4.0, kTol);
}

TEST(WindowSeries, LatencyAboveOneHourIsOutOfRange) {
  WindowSeries series(LatencyStart::kIntended, 3600 * kS);
  // Sent at 0, first token at 100 ms, done at 1 h + 1 s: E2E above the sketch's 1 h; TTFT is fine.
  series.add(completed(0, 100, 3'601'000));
  const auto w = series.windows();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].latency_out_of_range, 1u);
  EXPECT_TRUE(std::isnan(w[0].e2e_p50_s));
  EXPECT_NEAR(w[0].ttft_p50_s, 0.100, kTol);
}

TEST(WindowSeries, SketchMemoryPerWindow) {
  // 2 digits: h = 128 (the first power of two >= 10^2), 256 sub-buckets. Buckets until 256 * 2^b > 3.6e12:
  // 2^b > 1.40625e10 -> b = 34 (2^33 = 8.6e9, 2^34 = 1.7e10), 35 buckets, (35 + 1) * 128 = 4608 counters.
  // Three histograms of 8-byte counters: 3 * 4608 * 8 = 110592 bytes.
  EXPECT_EQ(WindowSeries::sketch_bytes_per_window(), 110592u);
}

TEST(WindowSeries, Json) {
  WindowSeries series(LatencyStart::kIntended, 1 * kS);
  series.add(completed(0, 100, 500, 3));  // TTFT 100, E2E 500, TPOT (500 - 100) / 2 = 200 ms
  series.add(failed(1000, 1500));         // window 1: a failure only
  const auto j = to_json(series.windows());
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  const std::vector<std::string> keys = {
      "start_s",    "end_s",      "completed",  "failed",     "output_tokens", "requests_per_s",
      "output_tokens_per_s", "ttft_p50_s", "ttft_p95_s", "ttft_p99_s", "tpot_p50_s", "tpot_p95_s",
      "tpot_p99_s", "e2e_p50_s",  "e2e_p95_s",  "e2e_p99_s",  "latency_out_of_range"};
  std::vector<std::string> got;
  for (const auto& [key, value] : j[0].items()) got.push_back(key);
  EXPECT_EQ(got, keys);
  EXPECT_DOUBLE_EQ(j[0]["start_s"].get<double>(), 0.0);
  EXPECT_EQ(j[0]["completed"].get<int>(), 1);
  EXPECT_EQ(j[0]["output_tokens"].get<int>(), 3);
  EXPECT_NEAR(j[0]["ttft_p95_s"].get<double>(), 0.100, kTol);
  EXPECT_NEAR(j[0]["tpot_p50_s"].get<double>(), 0.200, kTol);
  EXPECT_NEAR(j[0]["e2e_p99_s"].get<double>(), 0.500, kTol);
  // Window 1: [1, 1.5], no completed request: rate 0, percentiles null.
  EXPECT_EQ(j[1]["failed"].get<int>(), 1);
  EXPECT_DOUBLE_EQ(j[1]["requests_per_s"].get<double>(), 0.0);
  EXPECT_TRUE(j[1]["ttft_p50_s"].is_null());
  EXPECT_TRUE(j[1]["e2e_p99_s"].is_null());
  EXPECT_DOUBLE_EQ(j[1]["end_s"].get<double>(), 1.5);
}

}  // namespace
}  // namespace perfhound::load
