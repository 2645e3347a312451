// compare_samples: the test, the interval and the verdict per metric, and the geometric mean.
//
// Reference numbers come from scipy 1.10.1 / numpy 1.24.2 (Debian 12's python3-scipy), never from this code:
//   mannwhitneyu(A, B, alternative='two-sided', method='asymptotic').pvalue for the p-values;
//   the Hodges-Lehmann shift and Moses interval by brute force: d = sort(B[j] - A[i] for all i, j),
//     numpy.median(d), k = floor(N / 2 + 0.5 - norm.ppf(0.975) * sqrt(N (n1 + n2 + 1) / 12)),
//     [d[k - 1], d[N - k]];
//   numpy.percentile for percentiles, numpy.exp(numpy.mean(numpy.log(r))) for the geometric means.
#include "compare/compare_samples.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace perfhound::compare {
namespace {

using ::testing::HasSubstr;

// A = 100, 101, ..., 119 (say milliseconds); B the same shifted by `by`.
std::vector<double> ramp(double by = 0) {
  std::vector<double> v(20);
  std::iota(v.begin(), v.end(), 100.0);
  for (double& x : v) x += by;
  return v;
}

TEST(CompareDistributions, AClearImprovementIsTheKnownShiftAndBetter) {
  const auto r = compare_distributions(ramp(), ramp(-10), Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->method, TestMethod::kMannWhitney);
  EXPECT_EQ(r->n_a, 20u);
  EXPECT_EQ(r->n_b, 20u);
  EXPECT_DOUBLE_EQ(r->a, 109.5);  // numpy.median(A)
  EXPECT_DOUBLE_EQ(r->b, 99.5);
  EXPECT_DOUBLE_EQ(r->shift, -10.0);  // B is A - 10: the Hodges-Lehmann shift is exactly that
  EXPECT_DOUBLE_EQ(r->shift_lo, -14.0);  // d[127], d[272] of the 400 sorted differences (k = 128)
  EXPECT_DOUBLE_EQ(r->shift_hi, -6.0);
  EXPECT_NEAR(r->p_value, 5.2125496206037515e-05, 1e-15);  // scipy
  EXPECT_DOUBLE_EQ(r->change, -10.0 / 109.5);
  EXPECT_DOUBLE_EQ(r->change_lo, -14.0 / 109.5);
  EXPECT_DOUBLE_EQ(r->change_hi, -6.0 / 109.5);
  EXPECT_DOUBLE_EQ(r->ratio, 99.5 / 109.5);
  EXPECT_EQ(r->verdict, Verdict::kBetter);
  EXPECT_TRUE(r->note.empty()) << r->note;
}

TEST(CompareDistributions, TheSameShiftUpIsARegressionForLatencyAndAGainForThroughput) {
  const auto latency = compare_distributions(ramp(), ramp(10), Direction::kLowerIsBetter);
  ASSERT_TRUE(latency.ok());
  EXPECT_DOUBLE_EQ(latency->shift, 10.0);
  EXPECT_DOUBLE_EQ(latency->shift_lo, 6.0);
  EXPECT_DOUBLE_EQ(latency->shift_hi, 14.0);
  EXPECT_NEAR(latency->p_value, 5.2125496206037515e-05, 1e-15);
  EXPECT_EQ(latency->verdict, Verdict::kWorse);
  const auto throughput = compare_distributions(ramp(), ramp(10), Direction::kHigherIsBetter);
  ASSERT_TRUE(throughput.ok());
  EXPECT_EQ(throughput->verdict, Verdict::kBetter);
}

TEST(CompareDistributions, IdenticalDistributionsAreNoDifference) {
  const auto r = compare_distributions(ramp(), ramp(), Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->p_value, 1.0);  // scipy: 1.0
  EXPECT_DOUBLE_EQ(r->shift, 0.0);
  EXPECT_DOUBLE_EQ(r->shift_lo, -4.0);
  EXPECT_DOUBLE_EQ(r->shift_hi, 4.0);
  EXPECT_EQ(r->verdict, Verdict::kNoDifference);

  // Interleaved: A the odd numbers 1..39, B the even 0..38. scipy p = 0.7971974192691748, HL shift -1 [-9, 7].
  std::vector<double> odd, even;
  for (int i = 0; i < 20; ++i) {
    odd.push_back(2 * i + 1);
    even.push_back(2 * i);
  }
  const auto mixed = compare_distributions(odd, even, Direction::kLowerIsBetter);
  ASSERT_TRUE(mixed.ok());
  EXPECT_NEAR(mixed->p_value, 0.7971974192691748, 1e-13);
  EXPECT_DOUBLE_EQ(mixed->shift, -1.0);
  EXPECT_DOUBLE_EQ(mixed->shift_lo, -9.0);
  EXPECT_DOUBLE_EQ(mixed->shift_hi, 7.0);
  EXPECT_EQ(mixed->verdict, Verdict::kNoDifference);
}

TEST(CompareDistributions, ThreeRunsASideCannotReachSignificance) {
  // Completely separated, yet scipy's p is 0.08085559837005224 > 0.05: the smallest 3 + 3 allows.
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  const auto r = compare_distributions(a, b, Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->p_value, 0.08085559837005224, 1e-14);
  EXPECT_NEAR(r->min_p_value, 0.08085559837005224, 1e-14);
  EXPECT_EQ(r->verdict, Verdict::kNoDifference);
  EXPECT_THAT(r->note, HasSubstr("cannot reach p < 0.05"));
  EXPECT_THAT(r->note, HasSubstr("no 95% interval"));  // 3 and 3 values give k < 1
  EXPECT_TRUE(std::isnan(r->shift_lo));
  EXPECT_DOUBLE_EQ(r->shift, 3.0);  // median of {1, 2, 3, 2, 3, 4, 3, 4, 5}
}

TEST(CompareDistributions, AZeroShiftWithDifferentRanksIsExplained) {
  // A = 120 zeros and 1..80, B = 120 zeros and 1001..1080 (ITL-like: most gaps 0). scipy p =
  // 0.0017753627161867756; numpy.median of all B_j - A_i is 0, yet B's nonzero values are all larger.
  std::vector<double> a(120, 0.0), b(120, 0.0);
  for (int i = 1; i <= 80; ++i) {
    a.push_back(i);
    b.push_back(1000 + i);
  }
  const auto r = compare_distributions(a, b, Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->p_value, 0.0017753627161867756, 1e-14);
  EXPECT_DOUBLE_EQ(r->shift, 0.0);
  EXPECT_EQ(r->verdict, Verdict::kWorse);
  EXPECT_THAT(r->note, HasSubstr("the shift is 0"));
}

TEST(CompareDistributions, MinimumPValueMatchesScipyOnSeparatedSamples) {
  EXPECT_NEAR(mann_whitney_min_p_value(3, 3), 0.08085559837005224, 1e-14);
  EXPECT_NEAR(mann_whitney_min_p_value(5, 5), 0.012185780355344813, 1e-14);
  EXPECT_NEAR(mann_whitney_min_p_value(1, 100), 0.08953872058022876, 1e-14);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p_value(0, 5), 1.0);
}

TEST(CompareDistributions, AnEmptySideIsNoTestAndBadValuesAreErrors) {
  const std::vector<double> none;
  const auto r = compare_distributions(none, ramp(), Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kNoTest);
  EXPECT_EQ(r->method, TestMethod::kNone);
  EXPECT_EQ(r->note, "no values in A");
  EXPECT_DOUBLE_EQ(r->b, 109.5);

  const std::vector<double> bad = {1, NAN};
  const auto nan = compare_distributions(ramp(), bad, Direction::kLowerIsBetter);
  ASSERT_FALSE(nan.ok());
  EXPECT_THAT(nan.error().message, HasSubstr("B value 1 is nan"));
  CompareOptions options;
  options.alpha = 1.5;
  const auto alpha = compare_distributions(ramp(), ramp(), Direction::kLowerIsBetter, options);
  ASSERT_FALSE(alpha.ok());
  EXPECT_THAT(alpha.error().message, HasSubstr("alpha 1.5"));
}

TEST(CompareDistributions, AlphaSetsTheIntervalLevelToo) {
  // At alpha 0.2 the interval is the 80% one: k = floor(200.5 - 1.2815515655446004 * sqrt(400 * 41 / 12))
  // = floor(153.12) = 153, so [d[152], d[247]] = [-13, -7] for B = A - 10 (brute force as above).
  CompareOptions options;
  options.alpha = 0.2;
  const auto r = compare_distributions(ramp(), ramp(-10), Direction::kLowerIsBetter, options);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->shift_lo, -13.0);
  EXPECT_DOUBLE_EQ(r->shift_hi, -7.0);
}

TEST(ComparePercentiles, SeparatedSamplesGiveTheExactDifferenceAndTheSmallestPValue) {
  // A = 1..200, B = 1001..1200: numpy.percentile(B, 99) - numpy.percentile(A, 99) = 1198.01 - 198.01 = 1000.
  // Every replicate's p99(B*) exceeds every p99(A*), so no d* <= 0 and p = 2 / (2000 + 1).
  std::vector<double> a(200), b(200);
  std::iota(a.begin(), a.end(), 1.0);
  std::iota(b.begin(), b.end(), 1001.0);
  const auto r = compare_percentiles(a, b, 99, Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->method, TestMethod::kBootstrap);
  EXPECT_NEAR(r->a, 198.01, 1e-9);
  EXPECT_NEAR(r->b, 1198.01, 1e-9);
  EXPECT_NEAR(r->shift, 1000.0, 1e-9);
  EXPECT_DOUBLE_EQ(r->p_value, 2.0 / 2001.0);
  // Resampled p99s stay inside each sample's range, so every d* is within [1001 - 200, 1200 - 1].
  EXPECT_GE(r->shift_lo, 801.0);
  EXPECT_LE(r->shift_hi, 1199.0);
  EXPECT_LE(r->shift_lo, r->shift);
  EXPECT_GE(r->shift_hi, r->shift);
  EXPECT_NEAR(r->change, 1000.0 / 198.01, 1e-9);
  EXPECT_EQ(r->verdict, Verdict::kWorse);
}

TEST(ComparePercentiles, TheSameSampleIsNoDifferenceAndTheSeedReproduces) {
  std::vector<double> a(200);
  std::iota(a.begin(), a.end(), 1.0);
  const auto r = compare_percentiles(a, a, 95, Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->shift, 0.0);
  EXPECT_GT(r->p_value, 0.5);
  EXPECT_EQ(r->verdict, Verdict::kNoDifference);
  const auto again = compare_percentiles(a, a, 95, Direction::kLowerIsBetter);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(r->shift_lo, again->shift_lo);
  EXPECT_EQ(r->p_value, again->p_value);
}

TEST(ComparePercentiles, OneValueASideIsNoTest) {
  const std::vector<double> one = {5}, two = {7, 9};
  const auto r = compare_percentiles(one, two, 50, Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kNoTest);
  EXPECT_DOUBLE_EQ(r->shift, 3.0);  // 8 - 5
  EXPECT_THAT(r->note, HasSubstr("1 value in A"));
  EXPECT_FALSE(compare_percentiles(two, two, 101, Direction::kLowerIsBetter).ok());
}

// The top (100 - q)% of n values holds one when n (1 - q/100) >= 1: n >= 100 for p99, 20 for p95, 10 for p90.
TEST(ComparePercentiles, ATailWithoutAValueBeyondItIsNoTest) {
  EXPECT_EQ(samples_for_percentile(99), 100u);
  EXPECT_EQ(samples_for_percentile(95), 20u);
  EXPECT_EQ(samples_for_percentile(90), 10u);
  EXPECT_EQ(samples_for_percentile(50), 2u);
  // 99 values a side, completely separated: p99 of 99 is 0.02 of the way from the 98th to the 99th value.
  std::vector<double> a(99), b(99);
  std::iota(a.begin(), a.end(), 1.0);
  std::iota(b.begin(), b.end(), 1001.0);
  auto r = compare_percentiles(a, b, 99, Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kNoTest);
  EXPECT_NEAR(r->shift, 1000.0, 1e-9);  // the values are still given
  EXPECT_EQ(r->note, "p99 of 99 and 99 values is about the largest: at least 100 a side are needed to test it");
  // One more a side and it is tested (and significant).
  a.push_back(100);
  b.push_back(1100);
  r = compare_percentiles(a, b, 99, Direction::kLowerIsBetter);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kWorse);
}

TEST(CompareValues, IsTheRatioWithoutATest) {
  const MetricComparison c = compare_values(50, 55, "one run per side");
  EXPECT_DOUBLE_EQ(c.ratio, 1.1);
  EXPECT_DOUBLE_EQ(c.shift, 5.0);
  EXPECT_DOUBLE_EQ(c.change, 0.1);
  EXPECT_TRUE(std::isnan(c.p_value));
  EXPECT_EQ(c.verdict, Verdict::kNoTest);
  EXPECT_EQ(c.note, "one run per side");
  const MetricComparison zero = compare_values(0, 3, "");
  EXPECT_TRUE(std::isnan(zero.ratio));
  EXPECT_TRUE(std::isnan(zero.change));
}

TEST(Judge, SignificanceThenDirection) {
  EXPECT_EQ(judge(0.01, 0.05, -1, Direction::kLowerIsBetter), Verdict::kBetter);
  EXPECT_EQ(judge(0.01, 0.05, +1, Direction::kLowerIsBetter), Verdict::kWorse);
  EXPECT_EQ(judge(0.01, 0.05, +1, Direction::kHigherIsBetter), Verdict::kBetter);
  EXPECT_EQ(judge(0.01, 0.05, -1, Direction::kHigherIsBetter), Verdict::kWorse);
  EXPECT_EQ(judge(0.05, 0.05, -1, Direction::kLowerIsBetter), Verdict::kNoDifference);  // p < alpha, strictly
  EXPECT_EQ(judge(0.01, 0.05, 0, Direction::kLowerIsBetter), Verdict::kNoDifference);
  EXPECT_EQ(judge(NAN, 0.05, -1, Direction::kLowerIsBetter), Verdict::kNoTest);
  EXPECT_EQ(verdict_name(Verdict::kNoDifference), "no significant difference");
}

TEST(Geomean, OfKnownRatios) {
  const std::vector<double> square = {2, 8};
  EXPECT_NEAR(*geomean(square), 4.0, 1e-15);
  const std::vector<double> balanced = {0.5, 0.8, 1.25, 2.0};
  EXPECT_NEAR(*geomean(balanced), 1.0, 1e-15);
  const std::vector<double> mixed = {1.1, 1.2, 0.9};
  EXPECT_NEAR(*geomean(mixed), 1.059104500597819, 1e-15);  // numpy
  const std::vector<double> empty, zero = {1, 0}, negative = {-1};
  EXPECT_FALSE(geomean(empty).ok());
  ASSERT_FALSE(geomean(zero).ok());
  EXPECT_THAT(geomean(zero).error().message, HasSubstr("ratio 1 is 0"));
  EXPECT_FALSE(geomean(negative).ok());
}

}  // namespace
}  // namespace perfhound::compare
