#include "core/percentile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace perfhound::core {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// References are numpy 1.24.2, run as
//   PYTHONPATH=/opt/ref/root/usr/lib/python3/dist-packages /usr/bin/python3 -c "..."
// with the "..." quoted per case (wrapped here at statement or bracket boundaries; join the lines to
// run it). numpy computes the same interpolation in a different order (q / 100
// before multiplying by n - 1, and b - (b - a) * (1 - t) when t >= 0.5), so results may differ in the last
// bits: by a few ulps of the result plus a few ulps of the interpolation weight times the gap b - a.
// expect_numpy() allows 8 ulps of |expected| + |gap|, the gap bounded by the sample's range.
void expect_numpy(double actual, double expected, double range) {
  const double tolerance = 8 * std::numeric_limits<double>::epsilon() * (std::fabs(expected) + range);
  EXPECT_NEAR(actual, expected, tolerance);
}

TEST(PercentileTest, MatchesNumpyLinearOnOddCount) {
  // import numpy; x=[15.0, 20.0, 35.0, 40.0, 50.0];
  // print([repr(float(numpy.percentile(x, q))) for q in [0, 10, 25, 33.3, 50, 75, 90, 99, 99.9, 100]])
  // -> ['15.0', '17.0', '20.0', '24.979999999999997', '35.0', '40.0', '46.0', '49.6', '49.96000000000001',
  //     '50.0']
  const std::vector<double> x = {15.0, 20.0, 35.0, 40.0, 50.0};
  const std::vector<std::pair<double, double>> cases = {
      {0, 15.0},  {10, 17.0}, {25, 20.0}, {33.3, 24.979999999999997}, {50, 35.0},
      {75, 40.0}, {90, 46.0}, {99, 49.6}, {99.9, 49.96000000000001},  {100, 50.0}};
  for (const auto& [q, expected] : cases) {
    SCOPED_TRACE(q);
    expect_numpy(percentile_of_sorted(x, q), expected, 35.0);
  }
}

TEST(PercentileTest, EvenCountMedianIsTheMidpoint) {
  // import numpy; x=[7.0, 1.0, 3.0, 5.0];
  // print([repr(float(numpy.percentile(x, q))) for q in [0, 25, 50, 75, 100]])
  // -> ['1.0', '2.5', '4.0', '5.5', '7.0']
  const std::vector<double> sorted = {1.0, 3.0, 5.0, 7.0};
  EXPECT_EQ(percentile_of_sorted(sorted, 0), 1.0);
  expect_numpy(percentile_of_sorted(sorted, 25), 2.5, 6.0);
  expect_numpy(percentile_of_sorted(sorted, 50), 4.0, 6.0);
  expect_numpy(percentile_of_sorted(sorted, 75), 5.5, 6.0);
  EXPECT_EQ(percentile_of_sorted(sorted, 100), 7.0);
  const Summary s = summarize(std::vector<double>{7.0, 1.0, 3.0, 5.0});
  EXPECT_EQ(s.p50, 4.0);
}

TEST(PercentileTest, ZeroAndHundredAreExactMinAndMax) {
  const std::vector<double> sorted = {-3.5, 0.1, 0.2, 1e300};
  EXPECT_EQ(percentile_of_sorted(sorted, 0), -3.5);
  EXPECT_EQ(percentile_of_sorted(sorted, 100), 1e300);
}

TEST(PercentileTest, OneValueIsEveryPercentile) {
  const std::vector<double> one = {42.5};
  for (double q : {0.0, 0.1, 50.0, 99.9, 100.0}) EXPECT_EQ(percentile_of_sorted(one, q), 42.5) << q;
  const Summary s = summarize(one);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.mean, 42.5);
  EXPECT_TRUE(std::isnan(s.stddev));  // n - 1 = 0 in the denominator
  EXPECT_EQ(s.min, 42.5);
  EXPECT_EQ(s.p50, 42.5);
  EXPECT_EQ(s.p999, 42.5);
  EXPECT_EQ(s.max, 42.5);
}

TEST(PercentileTest, EmptySampleSummarizesToNaN) {
  const Summary s = summarize(std::vector<double>{});
  EXPECT_EQ(s.count, 0u);
  for (double v : {s.mean, s.stddev, s.min, s.p50, s.p90, s.p95, s.p99, s.p999, s.max}) {
    EXPECT_TRUE(std::isnan(v));
  }
  const Summary sorted = summarize_sorted(std::vector<double>{});
  EXPECT_EQ(sorted.count, 0u);
  EXPECT_TRUE(std::isnan(sorted.p50));
}

TEST(PercentileTest, ConstantSampleIsExactlyConstant) {
  // 0.1 is inexact in binary; x_lo + frac * (x_hi - x_lo) keeps it exact where x_lo * (1 - frac) +
  // x_hi * frac would not.
  const std::vector<double> x(37, 0.1);
  for (double q : {0.0, 13.7, 50.0, 95.0, 99.9, 100.0}) EXPECT_EQ(percentile_of_sorted(x, q), 0.1) << q;
  const Summary s = summarize(x);
  EXPECT_DOUBLE_EQ(s.mean, 0.1);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.p99, 0.1);
}

TEST(PercentileTest, SummarizeMatchesNumpyOnLargeCloseValues) {
  // Values near 1e9 (timestamps in ns) stress the mean and variance: naive sum-of-squares loses digits.
  // import numpy; x=[(i*7919 % 1000)*0.37 + 1e9 for i in range(1000)];
  // print([repr(float(numpy.percentile(x, q))) for q in [50, 90, 95, 99, 99.9]], repr(float(numpy.mean(x))),
  //       repr(float(numpy.std(x, ddof=1))))
  // -> ['1000000184.815', '1000000332.667', '1000000351.1485', '1000000365.9337', '1000000369.26037']
  //    1000000184.815 106.8631913549976
  // numpy's mean and two-pass stddev are exact here (checked with fractions.Fraction: 1000000184.815,
  // 106.86319135499758). A one-pass Welford update was off by 1.3e-8 relative on the stddev here; the
  // corrected two-pass algorithm must match to 1e-12 relative, the mean to 1e-15.
  const double range = 369.63;
  std::vector<double> x;
  for (int i = 0; i < 1000; ++i) x.push_back((i * 7919 % 1000) * 0.37 + 1e9);
  const Summary s = summarize(x);
  EXPECT_EQ(s.count, 1000u);
  expect_numpy(s.p50, 1000000184.815, range);
  expect_numpy(s.p90, 1000000332.667, range);
  expect_numpy(s.p95, 1000000351.1485, range);
  expect_numpy(s.p99, 1000000365.9337, range);
  expect_numpy(s.p999, 1000000369.26037, range);
  EXPECT_NEAR(s.mean, 1000000184.815, 1000000184.815 * 1e-15);
  EXPECT_NEAR(s.stddev, 106.8631913549976, 106.8631913549976 * 1e-12);
  EXPECT_EQ(s.min, 1e9);
  EXPECT_EQ(s.max, *std::max_element(x.begin(), x.end()));
}

TEST(PercentileTest, SummarizeMatchesNumpyOnSkewedUnsortedSample) {
  // import numpy; x=[2.5, 0.1, 9.75, 3.25, 3.25, 100.0, 0.001];
  // print([repr(float(numpy.percentile(x, q))) for q in [0, 50, 90, 95, 99, 99.9, 100]],
  //       repr(float(numpy.mean(x))), repr(float(numpy.std(x, ddof=1))))
  // -> ['0.001', '3.25', '45.85000000000003', '72.92499999999994', '94.58499999999995', '99.45850000000006',
  //     '100.0'] 16.978714285714286 36.752574352981426
  // Mean and stddev: 1e-14 relative (a few roundings in 7 terms).
  const std::vector<double> x = {2.5, 0.1, 9.75, 3.25, 3.25, 100.0, 0.001};
  const Summary s = summarize(x);
  EXPECT_EQ(s.count, 7u);
  EXPECT_EQ(s.min, 0.001);
  expect_numpy(s.p50, 3.25, 100.0);
  expect_numpy(s.p90, 45.85000000000003, 100.0);
  expect_numpy(s.p95, 72.92499999999994, 100.0);
  expect_numpy(s.p99, 94.58499999999995, 100.0);
  expect_numpy(s.p999, 99.45850000000006, 100.0);
  EXPECT_EQ(s.max, 100.0);
  EXPECT_NEAR(s.mean, 16.978714285714286, 16.978714285714286 * 1e-14);
  EXPECT_NEAR(s.stddev, 36.752574352981426, 36.752574352981426 * 1e-14);
  // summarize() sorts a copy; summarize_sorted() on the sorted sample agrees exactly.
  std::vector<double> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  const Summary t = summarize_sorted(sorted);
  EXPECT_EQ(t.p90, s.p90);
  EXPECT_EQ(t.mean, s.mean);
}

TEST(PercentileTest, Infinities) {
  // An infinite sample propagates to the percentiles that interpolate toward it with a non-zero weight,
  // and to the mean and max.
  const std::vector<double> sorted = {1.0, 2.0, kInf};
  EXPECT_EQ(percentile_of_sorted(sorted, 0), 1.0);
  EXPECT_EQ(percentile_of_sorted(sorted, 25), 1.5);
  EXPECT_EQ(percentile_of_sorted(sorted, 75), kInf);
  EXPECT_EQ(percentile_of_sorted(sorted, 100), kInf);
  // Landing exactly on 2.0 with inf next is 2.0, the order statistic. numpy.percentile([1, 2, inf], 50)
  // computes 2 + 0 * inf = nan; perfhound deliberately differs (see percentile.cpp).
  EXPECT_EQ(percentile_of_sorted(sorted, 50), 2.0);
  const Summary s = summarize(std::vector<double>{kInf, 1.0, 3.0, 2.0});
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, kInf);
  EXPECT_EQ(s.mean, kInf);
}

// Finite values whose sum passes the largest double (1.8e308) still have a finite mean and spread: by hand,
// mean (1 + 1.5 + 1.7) / 3 = 1.4e308 and stddev sqrt((0.4^2 + 0.1^2 + 0.3^2) / 2) = sqrt(0.13) e308. It had
// been inf.
TEST(PercentileTest, HugeFiniteValuesHaveAFiniteMeanAndSpread) {
  const Summary s = summarize(std::vector<double>{1.5e308, 1e308, 1.7e308});
  EXPECT_NEAR(s.mean / 1e308, 1.4, 1e-15);
  EXPECT_NEAR(s.stddev / 1e308, std::sqrt(0.13), 1e-15);
  // Negative ones too, and a spread of 1e200 (its square, 1e400, would pass the largest double unscaled).
  const Summary negative = summarize(std::vector<double>{-1.5e308, -1e308, -1.7e308});
  EXPECT_NEAR(negative.mean / 1e308, -1.4, 1e-15);
  const Summary wide = summarize(std::vector<double>{0, 2e200});
  EXPECT_NEAR(wide.mean / 1e200, 1.0, 1e-15);
  EXPECT_NEAR(wide.stddev / 1e200, std::sqrt(2.0), 1e-15);  // deviations +-1e200 over n - 1 = 1
  // Tiny ones: the squares of 1e-200's deviations underflow unscaled (stddev had been 0). By hand: mean 2e-200,
  // stddev sqrt((1 + 0 + 1) / 2) e-200 = 1e-200.
  const Summary tiny = summarize(std::vector<double>{1e-200, 2e-200, 3e-200});
  EXPECT_NEAR(tiny.mean / 1e-200, 2.0, 1e-15);
  EXPECT_NEAR(tiny.stddev / 1e-200, 1.0, 1e-15);
  // Subnormals: finite, and the mean of two equal ones is that one.
  const double smallest = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(summarize(std::vector<double>{smallest, smallest}).mean, smallest);
}

TEST(PercentileDeathTest, CallerBugsAbort) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<double> empty, x = {1.0, 2.0};
  EXPECT_DEATH((void)percentile_of_sorted(empty, 50), "check failed");
  EXPECT_DEATH((void)percentile_of_sorted(x, -1), "check failed");
  EXPECT_DEATH((void)percentile_of_sorted(x, 100.5), "check failed");
  EXPECT_DEATH((void)summarize(std::vector<double>{1.0, std::nan("")}), "check failed");
}

// pQ is more than the maximum once the top (100 - Q)% holds a sample: n >= 100 / (100 - Q), by hand.
// The one wording of few-samples-for-tail: every quoted tail (p90 up, below p100) the count cannot carry, lowest
// first, with what it needs (ceil(100 / (100 - q)): p90 10, p95 20, p99 100, p99.9 1000).
TEST(SamplesForPercentile, ShortTailsNamesEachTailTheCountCannotCarry) {
  EXPECT_EQ(short_tails(5, std::vector<double>{50, 90, 95, 99, 99.9, 100}),
            "p90 (needs 10), p95 (needs 20), p99 (needs 100) and p99.9 (needs 1000)");
  EXPECT_EQ(short_tails(15, std::vector<double>{99, 95, 90}), "p95 (needs 20) and p99 (needs 100)");
  EXPECT_EQ(short_tails(999, std::vector<double>{99.9}), "p99.9 (needs 1000)");
  EXPECT_EQ(short_tails(1000, std::vector<double>{90, 99, 99.9}), "");
  EXPECT_EQ(short_tails(0, std::vector<double>{50, 100}), "");  // not tails
}

TEST(SamplesForPercentile, TheTopShareMustHoldASample) {
  EXPECT_EQ(samples_for_percentile(99), 100u);
  EXPECT_EQ(samples_for_percentile(99.9), 1000u);  // 100 / 0.0999999999999943 would round up to 1001
  EXPECT_EQ(samples_for_percentile(99.99), 10000u);
  EXPECT_EQ(samples_for_percentile(95), 20u);
  EXPECT_EQ(samples_for_percentile(97), 34u);  // 33.3 -> 34
  EXPECT_EQ(samples_for_percentile(50), 2u);
  EXPECT_EQ(samples_for_percentile(0), 1u);
}

}  // namespace
}  // namespace perfhound::core
