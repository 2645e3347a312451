// few-samples-for-tail in a load run: each quoted latency's own sample count, and SLO gate terms past p99. The
// counts are worked by hand from the records built below (a one-token reply has no TPOT and no ITL).
#include "load/tail_samples.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace perfhound::load {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// A completed request with one content chunk per token, 10 ms apart from 20 ms.
RequestRecord reply(std::uint64_t index, int tokens) {
  RequestRecord r;
  r.index = index;
  r.intended_ns = r.sent_ns = 0;
  r.first_byte_ns = 10 * kMs;
  for (int t = 0; t < tokens; ++t) r.chunk_ns.push_back((20 + 10 * t) * kMs);
  r.first_token_ns = r.chunk_ns.front();
  r.end_ns = r.chunk_ns.back();
  r.http_status = 200;
  r.usage_completion_tokens = tokens;
  return r;
}

// `one_token` replies of one token, then `three_token` of three.
LoadSummary summary_of(int one_token, int three_token) {
  LoadMetricsTracker tracker;
  std::uint64_t i = 0;
  for (int k = 0; k < one_token; ++k) tracker.add(reply(i++, 1));
  for (int k = 0; k < three_token; ++k) tracker.add(reply(i++, 3));
  return tracker.summary();
}

TEST(TailSamples, ALatencyWithFewerSamplesThanRequestsIsNamed) {
  // 130 completed, 62 of them one token long: TPOT and mean ITL from 68 requests; ITL pools 2 gaps x 68 = 136.
  const LoadSummary s = summary_of(62, 68);
  ASSERT_EQ(s.completed, 130u);
  ASSERT_EQ(s.from_sent.tpot_s.count, 68u);
  const auto d = check_tail_samples(s, LatencyStart::kSent);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, &core::kFewSamplesForTail);
  EXPECT_EQ(d->message, "p99 (needs 100) from fewer samples: TPOT 68, ITL (mean per request) 68");
}

TEST(TailSamples, FewRequestsAreSaidWithTheLatenciesThatHaveFewerStill) {
  // 42 completed, 12 one token long: TPOT and mean ITL from 30; ITL pools 60 gaps, more than the 42 requests.
  const auto d = check_tail_samples(summary_of(12, 30), LatencyStart::kSent);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->message, "p99 (needs 100) from 42 completed requests; fewer for TPOT 30, ITL (mean per request) 30");
  EXPECT_EQ(check_tail_samples(summary_of(0, 42), LatencyStart::kSent)->message,
            "p99 (needs 100) from 42 completed requests");
  // Every tail column of the table the samples cannot carry: from 12, p95 (20) and p99 (100), not p90 (10); from
  // 3, all three. And a latency under 20 among 100-odd requests makes its p95 short too.
  EXPECT_EQ(check_tail_samples(summary_of(0, 12), LatencyStart::kSent)->message,
            "p95 (needs 20) and p99 (needs 100) from 12 completed requests");
  EXPECT_EQ(check_tail_samples(summary_of(0, 3), LatencyStart::kSent)->message,
            "p90 (needs 10), p95 (needs 20) and p99 (needs 100) from 3 completed requests");
  EXPECT_EQ(check_tail_samples(summary_of(100, 15), LatencyStart::kSent)->message,
            "p95 (needs 20) and p99 (needs 100) from fewer samples: TPOT 15, ITL (per chunk, pooled) 30, "
            "ITL (mean per request) 15");  // 15 three-token replies: 2 gaps each, 30 pooled
}

TEST(TailSamples, EnoughSamplesOrNoneCompletedSayNothing) {
  EXPECT_FALSE(check_tail_samples(summary_of(0, 100), LatencyStart::kSent).has_value());
  EXPECT_FALSE(check_tail_samples(summary_of(0, 0), LatencyStart::kSent).has_value());
  // 100 TPOT samples exactly, beside 50 one-token replies: enough.
  EXPECT_FALSE(check_tail_samples(summary_of(50, 100), LatencyStart::kSent).has_value());
}

TEST(TailSamples, AGateBeyondP99WantsItsOwnCount) {
  const SloTerm p999{SloMetric::kTtft, 0.5, 99.9};
  ASSERT_TRUE(check_gate_samples(p999, 200).has_value());
  EXPECT_EQ(check_gate_samples(p999, 200)->message, "SLO p99.9 ttft judged from 200 samples (needs 1000)");
  EXPECT_FALSE(check_gate_samples(p999, 1000).has_value());
  EXPECT_FALSE(check_gate_samples(p999, 0).has_value());  // nothing judged: the gate says so itself
  // At p99 and below the table's check speaks for the tail; a p99 gate on 50 samples adds nothing.
  EXPECT_FALSE(check_gate_samples({SloMetric::kTpot, 0.05, 99}, 50).has_value());
}

}  // namespace
}  // namespace perfhound::load
