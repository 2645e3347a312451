// The live checks' judgement on hand-built records: every number below is worked out from the records the test
// builds (TTFT = first_token_ns - sent_ns, TPOT = (end - first token) / (tokens - 1), medians numpy-linear).
#include "audit/live_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace perfhound::audit {
namespace {

using ::testing::HasSubstr;
using load::ErrorKind;
using load::RequestRecord;

constexpr std::int64_t kMs = 1'000'000;

// A completed stream: its first token at ttft_ns, then one chunk every tpot_ns, `chunks` in all; usage as given.
RequestRecord stream(std::int64_t ttft_ns, std::int64_t tpot_ns, int chunks, std::int64_t usage, std::int64_t max_tokens = 8,
                     int finishes = 1, const char* reason = "length") {
  RequestRecord r;
  r.sent_ns = 0;
  r.first_byte_ns = ttft_ns / 2;
  r.first_token_ns = ttft_ns;
  for (int i = 0; i < chunks; ++i) r.chunk_ns.push_back(ttft_ns + i * tpot_ns);
  r.end_ns = r.chunk_ns.back();
  r.http_status = 200;
  r.max_tokens = max_tokens;
  r.usage_completion_tokens = usage;
  r.finish_events = finishes;
  r.finish_reason = reason;
  return r;
}

// 16 streams with TTFT 100, 101, ..., 115 ms scaled by `scale`: median 107.5 ms x scale.
std::vector<RequestRecord> sixteen(double scale, std::int64_t tpot_ns = 10 * kMs) {
  std::vector<RequestRecord> v;
  for (int i = 0; i < 16; ++i) v.push_back(stream(static_cast<std::int64_t>((100 + i) * kMs * scale), tpot_ns, 8, 8));
  return v;
}

TEST(LiveChecks, RepeatedPromptServedTwiceAsFastIsACache) {
  const auto distinct = sixteen(1.0);
  const auto same = sixteen(0.5);  // every same-prompt TTFT half its distinct counterpart: shift about -50%
  const LiveCheck c = judge_repeated_prompt(same, distinct);
  EXPECT_EQ(c.id, "repeated-prompt");
  EXPECT_EQ(c.mlperf, "TEST04");
  EXPECT_FALSE(c.passed);
  EXPECT_NEAR(c.numbers["distinct_ttft_median_s"].get<double>(), 0.1075, 1e-9);
  EXPECT_NEAR(c.numbers["same_ttft_median_s"].get<double>(), 0.05375, 1e-9);
  // HL shift: the median of all 256 differences 0.5 (100 + j) - (100 + i) ms, i.e. 0.5 j - i - 50; its median is
  // 0.5 * 7.5 - 7.5 - 50 = -53.75 ms, -50% of 107.5 ms.
  EXPECT_NEAR(c.numbers["relative_shift"].get<double>(), -0.5, 1e-9);
  EXPECT_LT(c.numbers["relative_interval"][1].get<double>(), -0.10);
  EXPECT_THAT(c.what, HasSubstr("a cache serves repeated prompts"));
}

TEST(LiveChecks, RepeatedPromptAtTheSameSpeedPasses) {
  const LiveCheck c = judge_repeated_prompt(sixteen(1.0), sixteen(1.0));
  EXPECT_TRUE(c.passed);
  EXPECT_NEAR(c.numbers["relative_shift"].get<double>(), 0.0, 1e-12);
  EXPECT_EQ(c.numbers["same"], 16);
  EXPECT_EQ(c.numbers["distinct"], 16);
}

TEST(LiveChecks, NothingCompletedIsNotJudgedAndDoesNotPass) {
  std::vector<RequestRecord> failed(3);
  for (auto& r : failed) r.error = ErrorKind::kConnect;
  const LiveCheck c = judge_repeated_prompt(failed, failed);
  EXPECT_FALSE(c.passed);
  EXPECT_THAT(c.what, HasSubstr("not judged"));
  EXPECT_EQ(c.numbers["failed"], 6);
  EXPECT_FALSE(judge_stream_accounting(failed).passed);
  EXPECT_FALSE(judge_output_length(failed, false).passed);
  EXPECT_FALSE(judge_seed_stability(failed, failed).passed);
}

TEST(LiveChecks, StreamAccountingCountsEachInconsistency) {
  std::vector<RequestRecord> v = {stream(10 * kMs, kMs, 8, 8), stream(10 * kMs, kMs, 8, 8)};
  EXPECT_TRUE(judge_stream_accounting(v).passed);
  EXPECT_EQ(judge_stream_accounting(v).numbers["content_chunks"], 16);
  v.push_back(stream(10 * kMs, kMs, 8, 8, 8, 2));       // two finish_reasons
  v.push_back(stream(10 * kMs, kMs, 8, 8, 8, 0, ""));   // none
  v.push_back(stream(10 * kMs, kMs, 6, 5));             // 6 content chunks, usage says 5 tokens
  v.push_back(stream(10 * kMs, kMs, 4, 8));             // 2 tokens a chunk: consistent
  v.push_back(stream(10 * kMs, kMs, 8, -1));            // no usage block
  RequestRecord warm = stream(10 * kMs, kMs, 8, 8, 8, 3);  // warm-up: not judged
  warm.warmup = true;
  v.push_back(warm);
  RequestRecord reset = stream(10 * kMs, kMs, 3, -1);
  reset.error = ErrorKind::kReset;
  v.push_back(reset);
  const LiveCheck c = judge_stream_accounting(v);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.numbers["completed"], 7);
  EXPECT_EQ(c.numbers["failed"], 1);
  EXPECT_EQ(c.numbers["several_finish_reasons"], 1);
  EXPECT_EQ(c.numbers["no_finish_reason"], 1);
  EXPECT_EQ(c.numbers["more_chunks_than_usage_tokens"], 1);
  EXPECT_EQ(c.numbers["no_usage"], 1);
  EXPECT_EQ(c.numbers["content_chunks"], 8 + 8 + 8 + 8 + 6 + 4);  // the six with usage
  EXPECT_EQ(c.numbers["usage_completion_tokens"], 8 * 5 + 5);
}

TEST(LiveChecks, OutputLengthShortIsFineUnlessIgnoreEosLongIsNever) {
  std::vector<RequestRecord> v = {stream(kMs, kMs, 8, 8), stream(kMs, kMs, 8, 8), stream(kMs, kMs, 6, 6, 8, 1, "stop")};
  const LiveCheck plain = judge_output_length(v, false);
  EXPECT_TRUE(plain.passed);
  EXPECT_EQ(plain.numbers["under_max_tokens"], 1);
  EXPECT_EQ(plain.numbers["at_max_tokens"], 2);
  EXPECT_EQ(plain.numbers["finish_reasons"]["length"], 2);
  EXPECT_EQ(plain.numbers["finish_reasons"]["stop"], 1);
  EXPECT_DOUBLE_EQ(plain.numbers["output_over_max_tokens"]["min"].get<double>(), 0.75);  // 6 of 8
  const LiveCheck strict = judge_output_length(v, true);
  EXPECT_FALSE(strict.passed);
  EXPECT_THAT(strict.what, HasSubstr("1 shorter though ignore_eos was asked"));
  v.push_back(stream(kMs, kMs, 9, 9));  // 9 tokens for max_tokens 8
  const LiveCheck over = judge_output_length(v, false);
  EXPECT_FALSE(over.passed);
  EXPECT_EQ(over.numbers["over_max_tokens"], 1);
  EXPECT_DOUBLE_EQ(over.numbers["output_over_max_tokens"]["max"].get<double>(), 9.0 / 8.0);
}

TEST(LiveChecks, SeedStabilityFailsOnlyBeyondTenPercent) {
  EXPECT_TRUE(judge_seed_stability(sixteen(1.0), sixteen(1.0)).passed);
  EXPECT_TRUE(judge_seed_stability(sixteen(1.0), sixteen(1.03)).passed);  // +3%: inside the band
  const LiveCheck slow = judge_seed_stability(sixteen(1.0), sixteen(1.5));
  EXPECT_FALSE(slow.passed);
  EXPECT_NEAR(slow.numbers["ttft"]["relative_shift"].get<double>(), 0.5, 1e-9);  // 1.5 j - i + 50 -> +53.75 ms
  // TPOT alone can fail it: the same TTFTs, every token 20 ms apart instead of 10.
  const LiveCheck tpot = judge_seed_stability(sixteen(1.0), sixteen(1.0, 20 * kMs));
  EXPECT_FALSE(tpot.passed);
  EXPECT_NEAR(tpot.numbers["tpot"]["seed_a_median_s"].get<double>(), 0.010, 1e-9);
  EXPECT_NEAR(tpot.numbers["tpot"]["seed_b_median_s"].get<double>(), 0.020, 1e-9);
  EXPECT_THAT(tpot.what, HasSubstr("differs by more than 10%"));
}

}  // namespace
}  // namespace perfhound::audit
