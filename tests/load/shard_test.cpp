// load/shard: the K/N flag, a total's division over shards and the schedule's issue limit, against values
// worked out by hand.
#include "load/shard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

TEST(Shard, ParsesKOverN) {
  const auto s = parse_shard("2/4");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 4u);
  EXPECT_FALSE(s->whole());
  EXPECT_TRUE(parse_shard("0/1")->whole());
}

TEST(Shard, BadTextNamesTheFlagAndTheProblem) {
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"2", "no '/'"}, {"x/4", "K"}, {"1/", "N"}, {"1/0", "N = 0"}, {"4/4", "K >= N"}, {"-1/4", "K"}, {"1/4x", "N"}}) {
    const auto s = parse_shard(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_THAT(s.error().message, HasSubstr("--shard: '" + text + "'"));
    EXPECT_THAT(s.error().message, HasSubstr(why)) << text;
  }
}

TEST(Shard, PartsSumToTheTotalAndTheFirstTakeTheRemainder) {
  // 10 over 4: 3, 3, 2, 2 (10 = 4 * 2 + 2).
  const std::vector<std::uint64_t> expected = {3, 3, 2, 2};
  for (std::uint64_t k = 0; k < 4; ++k) EXPECT_EQ(shard_part(10, {k, 4}), expected[k]);
  EXPECT_EQ(shard_part(3, {3, 4}), 0u);
  EXPECT_EQ(shard_part(7, {0, 1}), 7u);
}

TEST(Shard, IssueLimitIsTheWarmupPrefixPlusTheMeasuredRequests) {
  const auto every_10ns = [](std::uint64_t i) { return static_cast<std::int64_t>(i) * 10; };
  // Count warm-up: 5 + 4.
  EXPECT_EQ(shard_issue_limit(every_10ns, 5, 0, 4, std::nullopt), 9u);
  // Time warm-up 25 ns: arrivals at 0, 10, 20 are before it -> 3 + 4.
  EXPECT_EQ(shard_issue_limit(every_10ns, 0, 25, 4, std::nullopt), 7u);
  // Both: the longer prefix decides (max(2, 3) = 3), as the runner's "index < N or time < T" does.
  EXPECT_EQ(shard_issue_limit(every_10ns, 2, 25, 4, std::nullopt), 7u);
  EXPECT_EQ(shard_issue_limit(every_10ns, 6, 25, 4, std::nullopt), 10u);
  // A replayed trace of 2 rows whose every arrival is inside the warm-up: the walk stops at its end.
  EXPECT_EQ(shard_issue_limit(every_10ns, 0, 1000, 4, 2), 6u);
}

TEST(Shard, IssueLimitWalksTheScheduleInOrderOnce) {
  std::vector<std::uint64_t> asked;
  const auto at = [&](std::uint64_t i) {
    asked.push_back(i);
    return static_cast<std::int64_t>(i) * 10;
  };
  (void)shard_issue_limit(at, 0, 25, 1, std::nullopt);
  EXPECT_EQ(asked, (std::vector<std::uint64_t>{0, 1, 2, 3}));  // 0, 10, 20 inside, 30 ends the prefix
}

}  // namespace
}  // namespace perfhound::load
