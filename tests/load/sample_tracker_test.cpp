#include "load/sample_tracker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/percentile.h"

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(SampleTrackerTest, EmptyIsAllNaN) {
  SampleTracker t;
  const SampleSummary s = t.summary();
  EXPECT_EQ(s.count, 0u);
  EXPECT_TRUE(s.exact);
  EXPECT_EQ(s.method, kExactMethod);
  for (double v : {s.mean, s.stddev, s.min, s.p1, s.p50, s.p99, s.p999, s.max, s.nearest_rank.p50}) {
    EXPECT_TRUE(std::isnan(v));
  }
  EXPECT_TRUE(std::isnan(s.population_stddev()));
}

TEST(SampleTrackerTest, OneSampleIsEveryStatistic) {
  SampleTracker t;
  t.add(0.25);
  const SampleSummary s = t.summary();
  EXPECT_EQ(s.count, 1u);
  for (double v : {s.mean, s.min, s.p1, s.p25, s.p50, s.p90, s.p999, s.max, s.nearest_rank.p1, s.nearest_rank.p999}) {
    EXPECT_EQ(v, 0.25);
  }
  EXPECT_TRUE(std::isnan(s.stddev));           // n - 1 = 0
  EXPECT_EQ(s.population_stddev(), 0.0);       // np.std([x]) == 0
}

TEST(SampleTrackerTest, ExactSummaryIsNumpyLinearAndNearestRank) {
  SampleTracker t;
  for (double v : {0.4, 0.1, 0.3, 0.2}) t.add(v);
  const SampleSummary s = t.summary();
  ASSERT_EQ(s.count, 4u);
  EXPECT_TRUE(s.exact);
  EXPECT_DOUBLE_EQ(s.mean, 0.25);
  // deviations +-0.15, +-0.05: sum of squares 2 (0.0225 + 0.0025) = 0.05; sample var 0.05 / 3.
  EXPECT_NEAR(s.stddev, std::sqrt(0.05 / 3), 1e-15);
  EXPECT_NEAR(s.population_stddev(), std::sqrt(0.05 / 4), 1e-15);
  EXPECT_DOUBLE_EQ(s.min, 0.1);
  EXPECT_DOUBLE_EQ(s.max, 0.4);
  // numpy linear on [0.1, 0.2, 0.3, 0.4]: h = 3 q / 100.
  EXPECT_NEAR(s.p25, 0.175, 1e-15);  // h = 0.75: 0.1 + 0.75 * 0.1
  EXPECT_NEAR(s.p50, 0.25, 1e-15);   // h = 1.5
  EXPECT_NEAR(s.p90, 0.37, 1e-15);   // h = 2.7: 0.3 + 0.7 * 0.1
  EXPECT_NEAR(s.p99, 0.397, 1e-15);  // h = 2.97
  // nearest rank r = ceil(q / 100 * 4).
  EXPECT_EQ(s.nearest_rank.p1, 0.1);   // r = 1
  EXPECT_EQ(s.nearest_rank.p25, 0.1);  // r = 1
  EXPECT_EQ(s.nearest_rank.p50, 0.2);  // r = 2
  EXPECT_EQ(s.nearest_rank.p75, 0.3);  // r = 3
  EXPECT_EQ(s.nearest_rank.p90, 0.4);  // r = ceil(3.6) = 4
}

// Any percentile, as the summary computes its fixed ones: numpy linear on [0.1, 0.2, 0.3, 0.4] at q = 97 is
// h = 2.91, 0.3 + 0.91 * 0.1 = 0.391; past the raw limit, the histogram's value, as summary() reports it.
TEST(SampleTrackerTest, AnyPercentileAgreesWithTheSummary) {
  SampleTracker t;
  EXPECT_TRUE(std::isnan(t.percentile(99)));
  for (double v : {0.4, 0.1, 0.3, 0.2}) t.add(v);
  EXPECT_NEAR(t.percentile(97), 0.391, 1e-15);
  EXPECT_EQ(t.percentile(99), t.summary().p99);
  // Five samples past a raw limit of 4: nearest rank on [0.1, 0.2, 0.25, 0.3, 0.4], the bucket's value within
  // 0.1% above it. p99: rank ceil(4.95) = 5, 0.4, the maximum, which the clamp keeps exact; p50: rank 3, 0.25;
  // p97 (no summary field): rank ceil(4.85) = 5.
  SampleTracker h(4);
  for (double v : {0.4, 0.1, 0.3, 0.2, 0.25}) h.add(v);
  ASSERT_FALSE(h.exact());
  EXPECT_EQ(h.percentile(99), 0.4);
  EXPECT_GE(h.percentile(50), 0.25);
  EXPECT_LE(h.percentile(50), 0.25 * 1.001);
  EXPECT_EQ(h.percentile(97), 0.4);
}

TEST(SampleTrackerTest, NaNAndInfinityAreUndefinedNotSamples) {
  SampleTracker t;
  t.add(kNaN);
  t.add(1.0);
  t.add(kInf);
  t.add(-kInf);
  const SampleSummary s = t.summary();
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.undefined_count, 3u);
  EXPECT_EQ(t.undefined_count(), 3u);
  EXPECT_EQ(s.mean, 1.0);
}

// Nearest-rank order statistic from integers: q in thousandths of a percent.
double exact_nearest_rank(const std::vector<double>& sorted, std::int64_t q_milli) {
  const auto n = static_cast<std::int64_t>(sorted.size());
  const std::int64_t rank = std::max<std::int64_t>(1, (q_milli * n + 100'000 - 1) / 100'000);
  return sorted[static_cast<std::size_t>(rank - 1)];
}

TEST(SampleTrackerTest, SwitchesToHistogramPastTheLimitWithinOneTenthPercent) {
  constexpr std::size_t kLimit = 1000;
  SampleTracker t(kLimit);
  std::vector<double> values;
  // 1.37 ms * k: whole nanoseconds, spread over three decades so several histogram buckets are used.
  for (std::size_t k = 1; k <= kLimit; ++k) values.push_back(1.37e-3 * static_cast<double>(k * k % 997 + 1));
  for (double v : values) t.add(v);
  EXPECT_TRUE(t.exact());  // exactly raw_limit samples: still raw
  EXPECT_TRUE(t.summary().exact);

  values.push_back(2.5);
  t.add(2.5);  // one past the limit
  EXPECT_FALSE(t.exact());
  const SampleSummary s = t.summary();
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.method, kHistogramMethod);
  EXPECT_EQ(s.count, kLimit + 1);
  EXPECT_EQ(s.out_of_range_count, 0u);

  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const core::Summary exact = core::summarize_sorted(sorted);
  // Mean and stddev stay exact (Welford), min and max exactly so.
  EXPECT_NEAR(s.mean, exact.mean, 1e-12 * exact.mean);
  EXPECT_NEAR(s.stddev, exact.stddev, 1e-9 * exact.stddev);
  EXPECT_EQ(s.min, exact.min);
  EXPECT_EQ(s.max, exact.max);
  // Percentiles: nearest rank, x <= r <= x (1 + 10^-3).
  const std::pair<std::int64_t, double> checks[] = {{1'000, s.p1},   {25'000, s.p25}, {50'000, s.p50},
                                                     {90'000, s.p90}, {99'000, s.p99}, {99'900, s.p999}};
  for (const auto& [q_milli, reported] : checks) {
    const double x = exact_nearest_rank(sorted, q_milli);
    EXPECT_GE(reported, x) << q_milli;
    EXPECT_LE(reported, x * (1 + 1e-3)) << q_milli;
  }
  EXPECT_EQ(s.nearest_rank.p50, s.p50);  // one definition in histogram mode
}

TEST(SampleTrackerTest, HistogramCountsOutOfRangeButKeepsExactExtremes) {
  SampleTracker t(2);
  for (double v : {-0.5, 1.0, 2.0, 4000.0}) t.add(v);  // -0.5 and 4000 s (> 1 hour) are outside [0, 3600]
  const SampleSummary s = t.summary();
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.out_of_range_count, 2u);
  EXPECT_EQ(s.min, -0.5);
  EXPECT_EQ(s.max, 4000.0);
  EXPECT_DOUBLE_EQ(s.mean, (-0.5 + 1.0 + 2.0 + 4000.0) / 4);
  // Percentiles over the in-range {1, 2}: p50 has rank ceil(0.5 * 2) = 1, the exact histogram minimum.
  EXPECT_EQ(s.p50, 1.0);
  EXPECT_EQ(s.p1, 1.0);
  EXPECT_GE(s.p99, 2.0);
  EXPECT_LE(s.p99, 2.0 * (1 + 1e-3));
}

TEST(SampleTrackerTest, CountScaleIsExactForSmallIntegers) {
  SampleTracker t(1, kCountScale);
  for (double v : {7.0, 3.0, 1999.0}) t.add(v);
  const SampleSummary s = t.summary();
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.p50, 7.0);  // rank 2 of {3, 7, 1999}; values below 2000 are their own bucket
  EXPECT_EQ(s.max, 1999.0);
  EXPECT_EQ(s.p99, 1999.0);
}

TEST(SampleTrackerTest, MergeOfRawTrackersIsTheConcatenation) {
  SampleTracker a, b, both;
  for (double v : {0.3, 0.1}) {
    a.add(v);
    both.add(v);
  }
  for (double v : {0.4, 0.2}) {
    b.add(v);
    both.add(v);
  }
  b.add(kNaN);
  a.merge(b);
  const SampleSummary m = a.summary(), e = both.summary();
  EXPECT_TRUE(m.exact);
  EXPECT_EQ(m.count, 4u);
  EXPECT_EQ(m.undefined_count, 1u);
  EXPECT_DOUBLE_EQ(m.mean, e.mean);
  EXPECT_DOUBLE_EQ(m.stddev, e.stddev);
  EXPECT_DOUBLE_EQ(m.p50, e.p50);
  EXPECT_DOUBLE_EQ(m.p90, e.p90);
}

TEST(SampleTrackerTest, MergePastTheLimitMovesToTheHistogram) {
  SampleTracker a(3), b(3), c(3);
  for (double v : {0.010, 0.020}) a.add(v);
  for (double v : {0.030, 0.040}) b.add(v);
  for (double v : {0.050, 0.060, 0.070, 0.080}) c.add(v);  // c is already a histogram
  ASSERT_FALSE(c.exact());
  a.merge(b);  // 4 > 3
  EXPECT_FALSE(a.exact());
  a.merge(c);  // histogram + histogram
  const SampleSummary s = a.summary();
  EXPECT_EQ(s.count, 8u);
  EXPECT_NEAR(s.mean, 0.045, 1e-15);
  // sample stddev of 10..80 ms step 10: sqrt(sum (k - 4.5)^2 * 1e-4 / 7) = sqrt(42 * 1e-4 / 7).
  EXPECT_NEAR(s.stddev, std::sqrt(42e-4 / 7), 1e-15);
  EXPECT_EQ(s.min, 0.010);
  EXPECT_EQ(s.max, 0.080);
  // p50: rank 4 -> 40 ms, within 0.1%.
  EXPECT_GE(s.p50, 0.040);
  EXPECT_LE(s.p50, 0.040 * (1 + 1e-3));
}

TEST(SampleTrackerTest, MergeRawIntoHistogram) {
  SampleTracker a(2), b(2);
  for (double v : {1.0, 2.0, 3.0}) a.add(v);
  b.add(4.0);
  a.merge(b);
  const SampleSummary s = a.summary();
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.max, 4.0);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
}

TEST(SampleTrackerDeathTest, MergeOfDifferentConfigsIsABug) {
  SampleTracker a(10), b(20);
  EXPECT_DEATH(a.merge(b), "check failed");
  SampleTracker c(10, kSecondsScale), d(10, kCountScale);
  EXPECT_DEATH(c.merge(d), "check failed");
}

}  // namespace
}  // namespace perfhound::load
