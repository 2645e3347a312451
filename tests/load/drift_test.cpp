// detect_drift on synthetic windows and metric series; medians and thresholds worked out by hand.
#include "load/drift.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

WindowFigures window(double rps, double ttft_p95_s = 0.1, double e2e_p95_s = 2.0, std::uint64_t completed = 100,
                     std::uint64_t failed = 0) {
  WindowFigures w;
  w.requests_per_s = rps;
  w.ttft_p95_s = ttft_p95_s;
  w.e2e_p95_s = e2e_p95_s;
  w.completed = completed;
  w.failed = failed;
  return w;
}

// Windows of 100 s: each completed count is its rate x 100, so the counting-noise test sees thirds of
// thousands of requests (10 req/s: 1,000 a window).
std::vector<WindowFigures> throughputs(const std::vector<double>& rps) {
  std::vector<WindowFigures> out;
  for (double r : rps) out.push_back(window(r, 0.1, 2.0, static_cast<std::uint64_t>(std::llround(r * 100))));
  return out;
}

const DriftFinding* find(const DriftReport& report, const std::string& what) {
  for (const auto& f : report.findings) {
    if (f.what == what) return &f;
  }
  return nullptr;
}

TEST(Drift, SteadyRunHasNoFinding) {
  // Noise of +-3% around 10 req/s; medians 10 and 10.
  const auto w = throughputs({10.0, 9.7, 10.3, 10.1, 9.9, 10.0, 10.2, 9.8, 10.0});
  const DriftReport r = detect_drift(w, {});
  EXPECT_TRUE(r.enough_windows);
  EXPECT_EQ(r.third_windows, 3u);  // 9 / 3
  EXPECT_TRUE(r.findings.empty());
  EXPECT_TRUE(r.notes.empty());
}

TEST(Drift, ThroughputFalling20PercentIsFlagged) {
  // First third {10, 10, 10}: median 10; last third {8, 8, 8}: median 8. 8 < (1 - 0.10) * 10 = 9.
  // Change 8 / 10 - 1 = -20.0%.
  const auto w = throughputs({10, 10, 10, 9, 9, 9, 8, 8, 8});
  const DriftReport r = detect_drift(w, {});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].what, "throughput decay");
  EXPECT_THAT(r.findings[0].detail, HasSubstr("median 8 req/s over the last 3 windows"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("vs 10 req/s over the first 3"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("-20.0%"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("limit -10.0%"));
}

TEST(Drift, ThroughputDropWithinTheLimitIsNotFlagged) {
  // Last median 9.2 >= 9 (10% below 10): not flagged. With throughput_drop 0.05 the limit is 9.5: flagged.
  const auto w = throughputs({10, 10, 10, 9.5, 9.5, 9.5, 9.2, 9.2, 9.2});
  EXPECT_TRUE(detect_drift(w, {}).findings.empty());
  DriftOptions strict;
  strict.throughput_drop = 0.05;
  EXPECT_NE(find(detect_drift(w, {}, strict), "throughput decay"), nullptr);
}

// A review's steady soaks at 30 req/s over 1 s windows: thirds of ~60 requests, whose Poisson spread alone
// crossed the 10% limit. First {32, 30} median 31, last {26, 29} median 27.5: -11.3%, past the limit; but
// A = 62, B = 55: z = 7 / sqrt(117) = 0.65 < 3, noise: a note, no finding. The same fall over 100 s windows
// (A = 6,200, B = 5,500: z = 700 / sqrt(11,700) = 6.5) is flagged.
TEST(Drift, AFallWithinCountingNoiseIsNotFlagged) {
  std::vector<WindowFigures> w;
  for (double r : {32.0, 30.0, 31.0, 28.0, 26.0, 29.0}) w.push_back(window(r, 0.1, 2.0, static_cast<std::uint64_t>(r)));
  const DriftReport r = detect_drift(w, {});
  EXPECT_EQ(find(r, "throughput decay"), nullptr);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_THAT(r.notes[0], HasSubstr("median 27.5 req/s over the last 2 windows vs 31 req/s over the first 2 (-11.3%"));
  EXPECT_THAT(r.notes[0], HasSubstr("55 vs 62 requests is within counting noise (0.6 standard deviations, 3 needed)"));

  const DriftReport long_windows = detect_drift(throughputs({32, 30, 31, 28, 26, 29}), {});
  const DriftFinding* f = find(long_windows, "throughput decay");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->detail, HasSubstr("5500 vs 6200 requests, 6.5 standard deviations of counting noise"));
}

TEST(Drift, MediansIgnoreOneOddWindow) {
  // Last third {10, 2, 10}: one stalled window; median 10, no decay.
  const auto w = throughputs({10, 10, 10, 10, 10, 10, 10, 2, 10});
  EXPECT_TRUE(detect_drift(w, {}).findings.empty());
}

TEST(Drift, SevenWindowsCompareTwoAndTwo) {
  // k = floor(7 / 3) = 2: first {10, 12} median 11, last {9, 9.5} median 9.25; the middle 3 windows are
  // not compared. 9.25 < 0.9 * 11 = 9.9: flagged, 9.25 / 11 - 1 = -15.9%.
  const auto w = throughputs({10, 12, 1, 1, 1, 9, 9.5});
  const DriftReport r = detect_drift(w, {});
  EXPECT_EQ(r.third_windows, 2u);
  const DriftFinding* f = find(r, "throughput decay");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->detail, HasSubstr("median 9.25 req/s over the last 2 windows vs 11 req/s"));
  EXPECT_THAT(f->detail, HasSubstr("-15.9%"));
}

TEST(Drift, TtftGrowthIsFlaggedAndE2eSteadyIsNot) {
  // p95 TTFT first {0.10, 0.12, 0.11}: median 0.11; last {0.15, 0.14, 0.16}: median 0.15.
  // 0.15 > 1.25 * 0.11 = 0.1375: flagged; 0.15 / 0.11 - 1 = +36.4%. E2E p95 2 s throughout.
  std::vector<WindowFigures> w;
  for (double t : {0.10, 0.12, 0.11, 0.12, 0.13, 0.14, 0.15, 0.14, 0.16}) w.push_back(window(10, t));
  const DriftReport r = detect_drift(w, {});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].what, "TTFT growth");
  EXPECT_THAT(r.findings[0].detail, HasSubstr("median p95 TTFT 150 ms over the last 3 windows vs 110 ms"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("+36.4%"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("limit +25.0%"));
}

TEST(Drift, E2eGrowthIsFlaggedSeparately) {
  // p95 E2E first {2, 2, 2} -> 2 s; last {3, 3, 2.4} -> median 3 s > 1.25 * 2 = 2.5: flagged (+50.0%).
  // p95 TTFT 0.1 s throughout.
  std::vector<WindowFigures> w;
  for (double e : {2.0, 2.0, 2.0, 2.2, 2.5, 2.6, 3.0, 3.0, 2.4}) w.push_back(window(10, 0.1, e));
  const DriftReport r = detect_drift(w, {});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].what, "E2E latency growth");
  EXPECT_THAT(r.findings[0].detail, HasSubstr("median p95 E2E 3.00 s over the last 3 windows vs 2.00 s"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("+50.0%"));
}

TEST(Drift, LatencyWithoutSamplesIsNotJudged) {
  // The first third has no TTFT sample at all (NaN p95s): a note, no finding.
  std::vector<WindowFigures> w;
  for (int i = 0; i < 6; ++i) w.push_back(window(10, i < 2 ? kNaN : 0.5));
  const DriftReport r = detect_drift(w, {});
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_THAT(r.notes[0], HasSubstr("TTFT growth"));
}

TEST(Drift, ErrorGrowth) {
  // First third: 1 failed of 100 per window -> 3 / 300 = 1.0%; last: 3 of 100 -> 9 / 300 = 3.0%.
  // 3.0% > 1.0% + 1 point: flagged, +2.0 points.
  std::vector<WindowFigures> w;
  for (int f : {1, 1, 1, 2, 2, 2, 3, 3, 3}) w.push_back(window(10, 0.1, 2.0, 100 - f, f));
  const DriftReport r = detect_drift(w, {});
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].what, "error growth");
  EXPECT_THAT(r.findings[0].detail, HasSubstr("3.00% failed over the last 3 windows (9 of 300)"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("vs 1.00% over the first 3 (3 of 300)"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("+2.0 points"));
}

TEST(Drift, SmallErrorGrowthIsNotFlagged) {
  // 1.0% -> 1.67% (5 of 300): +0.67 points, within the 1 point allowed.
  std::vector<WindowFigures> w;
  for (int f : {1, 1, 1, 1, 1, 1, 2, 2, 1}) w.push_back(window(10, 0.1, 2.0, 100 - f, f));
  EXPECT_TRUE(detect_drift(w, {}).findings.empty());
}

TEST(Drift, TooFewWindowsGiveNoVerdict) {
  // Five windows with a 50% throughput fall: still no verdict.
  const auto w = throughputs({10, 10, 10, 5, 5});
  const DriftReport r = detect_drift(w, {});
  EXPECT_FALSE(r.enough_windows);
  EXPECT_EQ(r.third_windows, 0u);
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_THAT(r.notes[0], HasSubstr("5 windows, at least 6 needed"));
  EXPECT_FALSE(detect_drift(std::vector<WindowFigures>{}, {}).enough_windows);
}

std::vector<MetricSample> series(const std::string& name, const std::vector<double>& values) {
  std::vector<MetricSample> out;
  for (std::size_t i = 0; i < values.size(); ++i) out.push_back({static_cast<double>(i) * 10, name, values[i]});
  return out;
}

TEST(Drift, TargetMemoryRising) {
  // Six scrapes, given out of time order: sorted by t they are 1.0, 1.0, 1.05, 1.1, 1.2, 1.2 GB.
  // k = 2: first median 1.0e9, last 1.2e9 > 1.1 * 1.0e9: flagged, +20.0%.
  auto m = series("process_resident_memory_bytes", {1.0e9, 1.0e9, 1.05e9, 1.1e9, 1.2e9, 1.2e9});
  std::swap(m[0], m[5]);
  std::swap(m[1], m[3]);
  const DriftReport r = detect_drift(throughputs({10, 10, 10, 10, 10, 10}), m);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].what, "target memory rising");
  EXPECT_THAT(r.findings[0].detail, HasSubstr("process_resident_memory_bytes"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("over the last 2 samples"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("+20.0%"));
}

TEST(Drift, KvCacheUsageUsesAnAbsoluteGrowth) {
  // 0.30 .. 0.47: first median (0.30 + 0.32) / 2 = 0.31, last (0.45 + 0.47) / 2 = 0.46; 0.46 > 0.31 + 0.10.
  // +15.0 points.
  const auto rising = series("vllm:kv_cache_usage_perc", {0.30, 0.32, 0.36, 0.40, 0.45, 0.47});
  const DriftReport r = detect_drift(std::vector<WindowFigures>{}, rising);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].what, "KV cache usage rising");
  EXPECT_THAT(r.findings[0].detail, HasSubstr("median 46.0%"));
  EXPECT_THAT(r.findings[0].detail, HasSubstr("+15.0 points"));
  // 0.50 -> 0.58 is +16% relative but +8 points absolute: not flagged. The older name matches too.
  const auto mild = series("vllm:gpu_cache_usage_perc", {0.50, 0.50, 0.54, 0.54, 0.58, 0.58});
  EXPECT_EQ(find(detect_drift(std::vector<WindowFigures>{}, mild), "KV cache usage rising"), nullptr);
  const auto old_rising = series("vllm:gpu_cache_usage_perc", {0.1, 0.1, 0.2, 0.2, 0.3, 0.3});
  EXPECT_NE(find(detect_drift(std::vector<WindowFigures>{}, old_rising), "KV cache usage rising"), nullptr);
}

TEST(Drift, QueueGrowing) {
  // From an empty queue: first median 0, last (3 + 4) / 2 = 3.5 > 0.
  const auto from_empty = series("vllm:num_requests_waiting", {0, 0, 0, 1, 3, 4});
  const DriftReport r = detect_drift(std::vector<WindowFigures>{}, from_empty);
  const DriftFinding* f = find(r, "queue growing");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->detail, HasSubstr("median 3.5 waiting"));
  EXPECT_THAT(f->detail, HasSubstr("from an empty queue"));
  // Relative: 10 -> 12 is +20% > 10%: flagged; 10 -> 10.5 is +5%: not; a steady empty queue: not.
  EXPECT_NE(find(detect_drift(std::vector<WindowFigures>{}, series("sglang:num_requests_waiting",
                                                                   {10, 10, 11, 11, 12, 12})),
                 "queue growing"),
            nullptr);
  EXPECT_TRUE(detect_drift(std::vector<WindowFigures>{},
                           series("vllm:num_requests_waiting", {10, 10, 10, 10, 10.5, 10.5}))
                  .findings.empty());
  EXPECT_TRUE(
      detect_drift(std::vector<WindowFigures>{}, series("vllm:num_requests_waiting", {0, 0, 0, 0, 0, 0}))
          .findings.empty());
}

TEST(Drift, OtherMetricsAreIgnoredAndShortSeriesNoted) {
  auto m = series("vllm:num_requests_running", {1, 2, 4, 8, 16, 32});  // not judged
  const auto short_series = series("process_resident_memory_bytes", {1e9, 2e9, 3e9});
  m.insert(m.end(), short_series.begin(), short_series.end());
  const DriftReport r = detect_drift(std::vector<WindowFigures>{}, m);
  EXPECT_TRUE(r.findings.empty());
  // One note for the windows (none given), one for the three-sample memory series.
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_THAT(r.notes[1], HasSubstr("metric 'process_resident_memory_bytes': 3 samples, at least 6 needed"));
}

}  // namespace
}  // namespace perfhound::load
