// chunks-together: counted zero gaps between content chunks, judged against the 5% limit. Every count below is
// worked by hand from the chunk times given.
#include "load/delivery_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace perfhound::load {
namespace {

constexpr std::int64_t kMs = 1'000'000;

RequestRecord with_chunks(std::uint64_t index, std::vector<std::int64_t> chunks_ms) {
  RequestRecord r;
  r.index = index;
  r.intended_ns = r.sent_ns = 0;
  r.first_byte_ns = kMs / 2;
  for (std::int64_t ms : chunks_ms) r.chunk_ns.push_back(ms * kMs);
  r.first_token_ns = r.chunk_ns.front();
  r.end_ns = r.chunk_ns.back();
  r.http_status = 200;
  r.usage_completion_tokens = static_cast<std::int64_t>(r.chunk_ns.size());
  return r;
}

LoadSummary summary_of(const std::vector<RequestRecord>& records) {
  LoadMetricsTracker tracker;
  for (const RequestRecord& r : records) tracker.add(r);
  return tracker.summary();
}

TEST(DeliveryCheck, ChunksInPairsAreHalfTheGapsAndRaiseIt) {
  // What the server did before 2026-12-07: tokens two at a time every two steps.
  const LoadSummary s = summary_of({with_chunks(0, {2, 2, 4, 4, 6, 6}), with_chunks(1, {3, 3, 5, 5})});
  EXPECT_EQ(s.itl_s.count, 5u + 3u);
  EXPECT_EQ(s.itl_zero_gaps, 3u + 2u);
  const auto d = check_chunk_delivery(s);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->kind, &core::kChunksTogether);
  EXPECT_EQ(d->message, "5 of 8 gaps between content chunks are zero (62%)");
}

TEST(DeliveryCheck, ChunksAStepApartRaiseNothing) {
  const LoadSummary s = summary_of({with_chunks(0, {1, 2, 3, 4}), with_chunks(1, {5, 6, 7})});
  EXPECT_EQ(s.itl_zero_gaps, 0u);
  EXPECT_FALSE(check_chunk_delivery(s).has_value());
}

TEST(DeliveryCheck, TheLimitIsFivePercentOfTheGaps) {
  // 20 gaps: one zero is 5% (not over), two are 10%.
  std::vector<std::int64_t> apart;
  for (std::int64_t ms = 1; ms <= 21; ++ms) apart.push_back(ms);
  std::vector<std::int64_t> one_zero = apart;
  one_zero[1] = one_zero[0];
  EXPECT_FALSE(check_chunk_delivery(summary_of({with_chunks(0, one_zero)})).has_value());
  std::vector<std::int64_t> two_zero = one_zero;
  two_zero[3] = two_zero[2];
  const auto d = check_chunk_delivery(summary_of({with_chunks(0, two_zero)}));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->message, "2 of 20 gaps between content chunks are zero (10%)");
}

TEST(DeliveryCheck, NoGapsNoJudgement) {
  EXPECT_FALSE(check_chunk_delivery(summary_of({with_chunks(0, {4})})).has_value());
  EXPECT_FALSE(check_chunk_delivery(LoadSummary{}).has_value());
}

}  // namespace
}  // namespace perfhound::load
