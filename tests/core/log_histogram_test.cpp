#include "core/log_histogram.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace perfhound::core {
namespace {

using ::testing::HasSubstr;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kHourNs = std::int64_t{3600} * 1000 * 1000 * 1000;

std::int64_t pow10(int digits) {
  std::int64_t p = 1;
  for (int i = 0; i < digits; ++i) p *= 10;
  return p;
}

// Nearest-rank order statistic computed independently of the histogram: q is given in thousandths of a
// percent so the rank ceil(q / 100 * n) is exact integer arithmetic.
std::int64_t exact_nearest_rank(const std::vector<std::int64_t>& sorted, std::int64_t q_milli) {
  const auto n = static_cast<std::int64_t>(sorted.size());
  std::int64_t rank = (q_milli * n + 100'000 - 1) / 100'000;
  rank = std::max<std::int64_t>(rank, 1);
  return sorted[static_cast<std::size_t>(rank - 1)];
}

// Reported r against true x: x <= r and (r - x) / x <= 10^-d, in integers (x = 0 forces r = 0).
void expect_within_bound(std::int64_t reported, std::int64_t exact, int digits, const std::string& where) {
  EXPECT_GE(reported, exact) << where;
  // (r - x) * 10^d <= x, with long double so large x cannot overflow the product.
  EXPECT_LE(static_cast<long double>(reported - exact) * static_cast<long double>(pow10(digits)),
            static_cast<long double>(exact))
      << where << ": reported " << reported << " exact " << exact;
}

TEST(LogHistogramTest, RejectsDigitsOutOfRange) {
  for (int digits : {-1, 0, 6, 17}) {
    auto h = LogHistogram::create(1000, digits);
    ASSERT_FALSE(h.ok()) << digits;
    EXPECT_THAT(h.error().message, HasSubstr("significant digits " + std::to_string(digits)));
    EXPECT_THAT(h.error().message, HasSubstr("use 1 to 5"));
  }
}

TEST(LogHistogramTest, RejectsHighestBelowTwo) {
  for (std::int64_t highest : {std::int64_t{-5}, std::int64_t{0}, std::int64_t{1}}) {
    auto h = LogHistogram::create(highest, 3);
    ASSERT_FALSE(h.ok()) << highest;
    EXPECT_THAT(h.error().message, HasSubstr("highest trackable value " + std::to_string(highest)));
  }
}

TEST(LogHistogramTest, AcceptsExtremeValidConfigs) {
  for (int digits = 1; digits <= 5; ++digits) {
    EXPECT_TRUE(LogHistogram::create(2, digits).ok());
    EXPECT_TRUE(LogHistogram::create(kInt64Max, digits).ok());
  }
}

TEST(LogHistogramTest, CounterCountsMatchHdrHistogram) {
  // HdrHistogram_c hdr_init(1, 3600000000, 3) has counts_len 23552 (its test_create).
  EXPECT_EQ(LogHistogram(3'600'000'000, 3).bucket_count(), 23552u);
  // One hour in ns at 3 digits: 32 buckets of 1024 plus bucket 0's lower half.
  EXPECT_EQ(LogHistogram(kHourNs, 3).bucket_count(), 33792u);
  // Anything below sub_bucket_count (2^ceil(log2(2 * 10^d))) fits in bucket 0 alone: 2 halves.
  EXPECT_EQ(LogHistogram(2, 1).bucket_count(), 32u);
  EXPECT_EQ(LogHistogram(31, 1).bucket_count(), 32u);
  EXPECT_EQ(LogHistogram(32, 1).bucket_count(), 48u);
  EXPECT_EQ(LogHistogram(2, 2).bucket_count(), 256u);
  EXPECT_EQ(LogHistogram(2, 5).bucket_count(), 262144u);
  // The top bucket of a full int64 range: 2^63 - 1 has 1 leading zero.
  EXPECT_EQ(LogHistogram(kInt64Max, 3).bucket_count(), (53u + 1u) * 1024u);
}

TEST(LogHistogramTest, EmptyHistogram) {
  const LogHistogram h(kHourNs, 3);
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.overflow_count(), 0);
  EXPECT_EQ(h.underflow_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_TRUE(std::isnan(h.mean()));
  for (double q : {0.0, 50.0, 100.0}) EXPECT_EQ(h.value_at_percentile(q), 0) << q;
}

TEST(LogHistogramTest, OneValueIsExactEverywhere) {
  // 123456789 is far above 2 * 10^2, so its bucket is wide; clamping to [min, max] makes it exact.
  LogHistogram h(kHourNs, 2);
  h.record(123'456'789);
  EXPECT_EQ(h.total_count(), 1);
  EXPECT_EQ(h.min(), 123'456'789);
  EXPECT_EQ(h.max(), 123'456'789);
  for (double q : {0.0, 1.0, 50.0, 99.9, 100.0}) EXPECT_EQ(h.value_at_percentile(q), 123'456'789) << q;
  EXPECT_NEAR(h.mean(), 123'456'789.0, 123'456'789.0 * 1e-2);
}

TEST(LogHistogramTest, ValueZero) {
  LogHistogram h(1000, 3);
  h.record(0);
  EXPECT_EQ(h.total_count(), 1);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.value_at_percentile(50), 0);
  EXPECT_EQ(h.mean(), 0.0);
  h.record(0, 3);
  h.record(500);
  EXPECT_EQ(h.value_at_percentile(80), 0);  // rank 4 of 5
  EXPECT_EQ(h.value_at_percentile(81), 500);
  EXPECT_EQ(h.lowest_equivalent_value(0), 0);
  EXPECT_EQ(h.highest_equivalent_value(0), 0);
}

TEST(LogHistogramTest, HighestTrackableValueIsInRangeAndOneMoreOverflows) {
  for (std::int64_t highest : {std::int64_t{2}, std::int64_t{1000}, kHourNs, kInt64Max}) {
    LogHistogram h(highest, 3);
    h.record(highest);
    h.record(1);
    EXPECT_EQ(h.total_count(), 2) << highest;
    EXPECT_EQ(h.overflow_count(), 0) << highest;
    EXPECT_EQ(h.max(), highest);
    EXPECT_EQ(h.value_at_percentile(100), highest);
    EXPECT_EQ(h.value_at_percentile(50), 1);
    EXPECT_GE(h.highest_equivalent_value(highest), highest);
    if (highest < kInt64Max) {
      h.record(highest + 1);
      EXPECT_EQ(h.overflow_count(), 1);
      EXPECT_EQ(h.total_count(), 2);
      EXPECT_EQ(h.max(), highest);
    }
  }
}

TEST(LogHistogramTest, OutOfRangeValuesAreCountedNotBucketed) {
  LogHistogram h(1000, 2);
  h.record(10);
  h.record(1001, 4);
  h.record(kInt64Max);
  h.record(-1, 2);
  h.record(std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(h.total_count(), 1);
  EXPECT_EQ(h.overflow_count(), 5);
  EXPECT_EQ(h.underflow_count(), 3);
  EXPECT_EQ(h.min(), 10);
  EXPECT_EQ(h.max(), 10);
  EXPECT_EQ(h.value_at_percentile(100), 10);
  EXPECT_EQ(h.mean(), 10.0);
}

TEST(LogHistogramTest, CountZeroChangesNothing) {
  LogHistogram h(1000, 2);
  h.record(500, 0);
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
}

TEST(LogHistogramTest, RecordWithCountEqualsRepeatedRecords) {
  LogHistogram a(kHourNs, 2), b(kHourNs, 2);
  a.record(7777, 5);
  a.record(123, 2);
  for (int i = 0; i < 5; ++i) b.record(7777);
  b.record(123);
  b.record(123);
  EXPECT_EQ(a.total_count(), b.total_count());
  EXPECT_EQ(a.mean(), b.mean());
  for (double q = 0; q <= 100; q += 5) EXPECT_EQ(a.value_at_percentile(q), b.value_at_percentile(q)) << q;
}

TEST(LogHistogramTest, ValuesBelowSubBucketCountAreExact) {
  for (int digits = 1; digits <= 3; ++digits) {
    LogHistogram h(kHourNs, digits);
    const std::int64_t exact_limit =
        static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(2 * pow10(digits))));
    for (std::int64_t v = 0; v < exact_limit; ++v) {
      ASSERT_EQ(h.lowest_equivalent_value(v), v) << digits;
      ASSERT_EQ(h.highest_equivalent_value(v), v) << digits;
    }
    EXPECT_LT(h.lowest_equivalent_value(exact_limit + 1), exact_limit + 1) << digits;
  }
}

TEST(LogHistogramTest, EquivalentRangesAreTightPowerOfTwoWide) {
  std::mt19937_64 rng(42);
  for (int digits = 1; digits <= 5; ++digits) {
    const LogHistogram h(kInt64Max, digits);
    for (int i = 0; i < 20000; ++i) {
      // Log-uniform over all magnitudes, so every bucket is exercised.
      const int shift = static_cast<int>(rng() % 63);
      const auto v = static_cast<std::int64_t>(rng() >> (shift + 1));
      const std::int64_t lo = h.lowest_equivalent_value(v);
      const std::int64_t hi = h.highest_equivalent_value(v);
      ASSERT_LE(lo, v);
      ASSERT_GE(hi, v);
      const auto width = static_cast<std::uint64_t>(hi - lo) + 1;
      ASSERT_TRUE(std::has_single_bit(width)) << v;
      ASSERT_EQ(h.lowest_equivalent_value(hi), lo) << v;
      expect_within_bound(hi, v, digits, "digits " + std::to_string(digits));
    }
  }
}

struct Distribution {
  std::string name;
  std::function<std::int64_t(std::mt19937_64&)> draw;
};

std::vector<Distribution> distributions() {
  return {
      {"uniform 0..1e6", [](std::mt19937_64& rng) { return static_cast<std::int64_t>(rng() % 1'000'001); }},
      {"lognormal latency ~1ms",
       [](std::mt19937_64& rng) {
         std::lognormal_distribution<double> d(std::log(1e6), 1.0);
         return static_cast<std::int64_t>(d(rng));
       }},
      {"exponential mean 50us",
       [](std::mt19937_64& rng) {
         std::exponential_distribution<double> d(1.0 / 50e3);
         return static_cast<std::int64_t>(d(rng));
       }},
      {"pareto tail alpha 1.2",
       [](std::mt19937_64& rng) {
         std::uniform_real_distribution<double> u(0.0, 1.0);
         return static_cast<std::int64_t>(std::min(1e3 / std::pow(1.0 - u(rng), 1.0 / 1.2), 1e12));
       }},
      {"small integers with ties",
       [](std::mt19937_64& rng) { return static_cast<std::int64_t>(rng() % 50); }},
  };
}

TEST(LogHistogramTest, PercentilesWithinRelativeErrorOfExactNearestRank) {
  // q in thousandths of a percent: 0, 0.001, 0.1, 1, 7, 25, 50, 75, 90, 99, 99.9, 99.99, 100.
  const std::vector<std::int64_t> q_millis = {0,     1,     100,   1000,  7000,  25000, 50000,
                                              75000, 90000, 99000, 99900, 99990, 100000};
  std::mt19937_64 rng(20240521);
  for (const Distribution& dist : distributions()) {
    for (int digits = 1; digits <= 3; ++digits) {
      for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{17}, std::size_t{20000}}) {
        LogHistogram h(kHourNs, digits);
        std::vector<std::int64_t> values(n);
        for (auto& v : values) {
          v = dist.draw(rng);
          h.record(v);
        }
        std::sort(values.begin(), values.end());
        ASSERT_EQ(h.total_count(), static_cast<std::int64_t>(n));
        EXPECT_EQ(h.min(), values.front());
        EXPECT_EQ(h.max(), values.back());
        for (std::int64_t q_milli : q_millis) {
          const double q = static_cast<double>(q_milli) / 1000.0;
          const std::string where = dist.name + ", digits " + std::to_string(digits) + ", n " +
                                    std::to_string(n) + ", q " + std::to_string(q);
          expect_within_bound(h.value_at_percentile(q), exact_nearest_rank(values, q_milli), digits, where);
        }
        EXPECT_EQ(h.value_at_percentile(0), values.front());
        EXPECT_EQ(h.value_at_percentile(100), values.back());
        // Midpoints are within 10^-d of each value, so the mean is too.
        long double exact_mean = 0;
        for (std::int64_t v : values) exact_mean += static_cast<long double>(v);
        exact_mean /= static_cast<long double>(n);
        EXPECT_NEAR(h.mean(), static_cast<double>(exact_mean),
                    static_cast<double>(exact_mean) * std::pow(10.0, -digits) + 1e-9)
            << dist.name << " digits " << digits;
      }
    }
  }
}

TEST(LogHistogramTest, NearestRankDefinitionOnExactValues) {
  // 1..1000 at 3 digits: every value below 2048 is its own bucket, so results are the order statistics.
  LogHistogram h(100000, 3);
  for (std::int64_t v = 1; v <= 1000; ++v) h.record(v);
  EXPECT_EQ(h.value_at_percentile(0), 1);
  EXPECT_EQ(h.value_at_percentile(0.05), 1);  // rank ceil(0.5) = 1
  EXPECT_EQ(h.value_at_percentile(0.1), 1);   // rank 1
  EXPECT_EQ(h.value_at_percentile(0.15), 2);  // rank ceil(1.5) = 2
  EXPECT_EQ(h.value_at_percentile(7), 70);
  EXPECT_EQ(h.value_at_percentile(50), 500);    // the lower middle, not the midpoint 500.5
  EXPECT_EQ(h.value_at_percentile(99.9), 999);  // 99.9 / 100 * 1000 is 999.0000000000001 in doubles
  EXPECT_EQ(h.value_at_percentile(99.95), 1000);
  EXPECT_EQ(h.value_at_percentile(100), 1000);
  EXPECT_DOUBLE_EQ(h.mean(), 500.5);  // exact below 2 * 10^d
}

TEST(LogHistogramTest, PercentileOfHundredValuesHitsIntendedRankForEveryIntegerQ) {
  // q / 100 * 100 is not q for q = 7, 14, 28, 29, 55, 56, 57, 58 (0.07 * 100 is 7.000000000000001).
  LogHistogram h(1000, 3);
  for (std::int64_t v = 1; v <= 100; ++v) h.record(v);
  for (int q = 1; q <= 100; ++q) EXPECT_EQ(h.value_at_percentile(q), q) << q;
}

TEST(LogHistogramTest, ReportsBucketTopClampedToMax) {
  LogHistogram h(kHourNs, 1);  // 16 sub-buckets per half: wide buckets
  h.record(1000);
  h.record(1001);
  // 1000 and 1001 share a bucket [992, 1023]: the 1st is min (exact), the 2nd is clamped to max.
  EXPECT_EQ(h.lowest_equivalent_value(1000), 992);
  EXPECT_EQ(h.highest_equivalent_value(1000), 1023);
  EXPECT_EQ(h.value_at_percentile(50), 1000);
  EXPECT_EQ(h.value_at_percentile(100), 1001);
  h.record(1500);
  // Now rank 2 of 3 is 1001 and its bucket top 1023 is below max: reported as 1023.
  EXPECT_EQ(h.value_at_percentile(60), 1023);
}

TEST(LogHistogramTest, MergeOfHalvesEqualsWhole) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(std::log(2e6), 1.5);
  for (int digits = 1; digits <= 3; ++digits) {
    LogHistogram whole(kHourNs, digits), first(kHourNs, digits), second(kHourNs, digits);
    for (int i = 0; i < 10000; ++i) {
      const auto v = static_cast<std::int64_t>(d(rng));
      whole.record(v);
      (i % 2 == 0 ? first : second).record(v);
    }
    whole.record(kHourNs + 1);
    second.record(kHourNs + 1);
    whole.record(-3);
    first.record(-3);
    ASSERT_TRUE(first.merge(second).ok());
    EXPECT_EQ(first.total_count(), whole.total_count());
    EXPECT_EQ(first.overflow_count(), 1);
    EXPECT_EQ(first.underflow_count(), 1);
    EXPECT_EQ(first.min(), whole.min());
    EXPECT_EQ(first.max(), whole.max());
    EXPECT_EQ(first.mean(), whole.mean());
    for (double q = 0; q <= 100; q += 0.25) {
      ASSERT_EQ(first.value_at_percentile(q), whole.value_at_percentile(q)) << q;
    }
  }
}

TEST(LogHistogramTest, MergeIntoEmptyAndWithItself) {
  LogHistogram a(1'000'000, 2), empty(1'000'000, 2);
  a.record(5);
  a.record(50'000);
  ASSERT_TRUE(empty.merge(a).ok());
  EXPECT_EQ(empty.min(), 5);
  EXPECT_EQ(empty.max(), 50'000);
  EXPECT_EQ(empty.total_count(), 2);
  LogHistogram nothing(1'000'000, 2);
  ASSERT_TRUE(a.merge(nothing).ok());
  EXPECT_EQ(a.min(), 5);
  EXPECT_EQ(a.total_count(), 2);
  ASSERT_TRUE(a.merge(a).ok());
  EXPECT_EQ(a.total_count(), 4);
  EXPECT_EQ(a.value_at_percentile(50), 5);  // rank 2 of 4
  EXPECT_EQ(a.value_at_percentile(51), 50'000);
}

TEST(LogHistogramTest, MergeRejectsDifferentConfigAndLeavesTargetUnchanged) {
  LogHistogram a(1'000'000, 2);
  a.record(10);
  const LogHistogram other_digits(1'000'000, 3);
  const LogHistogram other_highest(2'000'000, 2);
  Status s = a.merge(other_digits);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("3 significant digits"));
  EXPECT_THAT(s.error().message, HasSubstr("same config"));
  s = a.merge(other_highest);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, HasSubstr("highest trackable value 2000000"));
  EXPECT_EQ(a.total_count(), 1);
  EXPECT_EQ(a.max(), 10);
}

TEST(LogHistogramTest, ResetEmptiesButKeepsConfig) {
  LogHistogram h(1'000'000, 2);
  h.record(10);
  h.record(2'000'000);
  h.record(-1);
  const std::size_t buckets = h.bucket_count();
  h.reset();
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.overflow_count(), 0);
  EXPECT_EQ(h.underflow_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.value_at_percentile(50), 0);
  EXPECT_EQ(h.bucket_count(), buckets);
  EXPECT_EQ(h.highest_trackable_value(), 1'000'000);
  EXPECT_EQ(h.significant_digits(), 2);
  h.record(77);
  EXPECT_EQ(h.min(), 77);
  EXPECT_EQ(h.max(), 77);
}

TEST(LogHistogramDeathTest, CallerBugsAbort) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  LogHistogram h(1000, 2);
  EXPECT_DEATH(h.record(5, -1), "check failed");
  EXPECT_DEATH((void)h.value_at_percentile(100.5), "check failed");
  EXPECT_DEATH((void)h.value_at_percentile(std::nan("")), "check failed");
  EXPECT_DEATH(LogHistogram(1000, 0), "check failed");
}

}  // namespace
}  // namespace perfhound::core
