#include "core/rank_tests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace perfhound::core {
namespace {

using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Reference values come from scipy 1.10.1 / numpy 1.24.2. Each case quotes the exact command; the shell
// prefix is always
//   PYTHONPATH=/opt/ref/root/usr/lib/python3/dist-packages /usr/bin/python3 -c "..."
// and for the Mann-Whitney cases the "..." is
//   import scipy.stats, numpy; from scipy.stats._mannwhitneyu import _get_mwu_z; <DATA>;
//   r=scipy.stats.mannwhitneyu(x, y, alternative='two-sided', method='asymptotic', use_continuity=True);
//   u=max(r.statistic, len(x)*len(y)-r.statistic);
//   z=_get_mwu_z(u, len(x), len(y), scipy.stats.rankdata(numpy.concatenate([x, y])));
//   print(repr(float(r.statistic)), repr(float(r.pvalue)), repr(float(z)))
// with <DATA> as given per case (z is scipy's internal standardized statistic, which it does not return).
// Tolerances: u1 is a sum of half-integers, exact in doubles, so compared exactly; p and z agree to rounding
// in a handful of operations, so 1e-12 relative (p) and 1e-12 absolute (z, all |z| < 10 here).
void expect_mwu(const std::vector<double>& x, const std::vector<double>& y, double u1, double p, double z) {
  auto r = mann_whitney_u(x, y);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->u1, u1);
  EXPECT_EQ(r->u2, static_cast<double>(x.size() * y.size()) - u1);
  EXPECT_NEAR(r->p_value, p, 1e-12 * p);
  if (std::isinf(z)) {
    EXPECT_EQ(r->z, z);
  } else {
    EXPECT_NEAR(r->z, z, 1e-12);
  }
}

TEST(MannWhitneyTest, NoTiesUnequalSizes) {
  // <DATA> = x=[1.1, 2.3, 3.5, 4.0, 5.9]; y=[2.2, 6.1, 7.4, 8.0, 9.3, 10.5]
  // -> 4.0 0.05523425371806383 1.9170289512680814
  expect_mwu({1.1, 2.3, 3.5, 4.0, 5.9}, {2.2, 6.1, 7.4, 8.0, 9.3, 10.5}, 4.0, 0.05523425371806383,
             1.9170289512680814);
}

TEST(MannWhitneyTest, XLargerGivesLargeU1) {
  // <DATA> = x=[10, 20, 30]; y=[1, 2, 3, 4]
  // -> 12.0 0.05182992721790968 1.9445436482630056
  expect_mwu({10, 20, 30}, {1, 2, 3, 4}, 12.0, 0.05182992721790968, 1.9445436482630056);
}

TEST(MannWhitneyTest, TiesAcrossAndWithinSamples) {
  // <DATA> = x=[1, 2, 2, 3, 3, 3, 4]; y=[2, 3, 3, 4, 4, 5, 5, 6]
  // -> 11.0 0.04988443697992588 1.9609535902338044
  expect_mwu({1, 2, 2, 3, 3, 3, 4}, {2, 3, 3, 4, 4, 5, 5, 6}, 11.0, 0.04988443697992588, 1.9609535902338044);
}

TEST(MannWhitneyTest, ManyTiesLargerSamples) {
  // <DATA> = x=[(i*37 % 101)*0.5 for i in range(60)]; y=[(j*53 % 89)*0.5 + 3 for j in range(80)]
  // -> 2364.5 0.8828285530169768 0.1473844823982914
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) x.push_back((i * 37 % 101) * 0.5);
  for (int j = 0; j < 80; ++j) y.push_back((j * 53 % 89) * 0.5 + 3);
  expect_mwu(x, y, 2364.5, 0.8828285530169768, 0.1473844823982914);
}

TEST(MannWhitneyTest, IdenticalSamplesGivePOne) {
  // <DATA> = x=[3, 1, 4, 1, 5]; y=[3, 1, 4, 1, 5]
  // -> 12.5 1.0 -0.10882143751650175
  expect_mwu({3, 1, 4, 1, 5}, {3, 1, 4, 1, 5}, 12.5, 1.0, -0.10882143751650175);
}

TEST(MannWhitneyTest, AllValuesEqualGivesPOneAndInfiniteZ) {
  // <DATA> = x=[2, 2, 2]; y=[2, 2]
  // -> 3.0 1.0 -inf  (the tie-corrected variance is exactly 0)
  expect_mwu({2, 2, 2}, {2, 2}, 3.0, 1.0, -kInf);
}

TEST(MannWhitneyTest, SingleValueSamples) {
  // <DATA> = x=[1.0]; y=[2.0]
  // -> 0.0 1.0 0.0
  expect_mwu({1.0}, {2.0}, 0.0, 1.0, 0.0);
  // <DATA> = x=[1.0]; y=[1.0, 2.0]
  // -> 0.5 1.0 0.0
  expect_mwu({1.0}, {1.0, 2.0}, 0.5, 1.0, 0.0);
}

TEST(MannWhitneyTest, CompleteSeparationHasTinyP) {
  // <DATA> = x=list(range(30)); y=[100.0 + j for j in range(30)]
  // -> 0.0 3.019859359162157e-11 6.64559922588161
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) x.push_back(i);
  for (int j = 0; j < 30; ++j) y.push_back(100.0 + j);
  expect_mwu(x, y, 0.0, 3.019859359162157e-11, 6.64559922588161);
}

TEST(MannWhitneyTest, InfinitiesAreRanked) {
  // <DATA> = x=[1.0, float('inf')]; y=[2.0, 3.0]
  // -> 2.0 1.0 -0.3872983346207417
  expect_mwu({1.0, kInf}, {2.0, 3.0}, 2.0, 1.0, -0.3872983346207417);
  // <DATA> = x=[1, 5]; y=[2, 3, float('-inf')]
  // -> 4.0 0.7728299926844475 0.2886751345948129
  expect_mwu({1, 5}, {2, 3, -kInf}, 4.0, 0.7728299926844475, 0.2886751345948129);
  // With both +inf and -inf present scipy 1.10's rankdata returns NaN ranks (and so a NaN result); we
  // rank them like any other values: x = [1, inf] over y = [2, 3, -inf] wins 4 of 6 pairs.
  auto r = mann_whitney_u(std::vector<double>{1.0, kInf}, std::vector<double>{2.0, 3.0, -kInf});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->u1, 4.0);
}

TEST(MannWhitneyTest, SwappingSamplesSwapsUAndKeepsP) {
  const std::vector<double> x = {1, 2, 2, 3, 3, 3, 4}, y = {2, 3, 3, 4, 4, 5, 5, 6};
  auto a = mann_whitney_u(x, y);
  auto b = mann_whitney_u(y, x);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->u1, b->u2);
  EXPECT_EQ(a->u2, b->u1);
  EXPECT_EQ(a->z, b->z);
  EXPECT_EQ(a->p_value, b->p_value);
}

TEST(MannWhitneyTest, RejectsEmptyAndNaN) {
  const std::vector<double> none, some = {1, 2};
  auto r = mann_whitney_u(none, some);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("mann-whitney u: sample x is empty"));
  r = mann_whitney_u(some, none);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("sample y is empty"));
  r = mann_whitney_u(some, std::vector<double>{3, kNaN});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("y[1] is NaN"));
}

// Hodges-Lehmann references: the "..." of the prefix above is
//   import scipy.stats, numpy; <DATA>; d=numpy.sort(numpy.subtract.outer(y, x).ravel()); N=d.size;
//   k=int(numpy.floor(N/2 + 0.5 - scipy.stats.norm.ppf((1+c)/2)*numpy.sqrt(N*(len(x)+len(y)+1)/12)));
//   print(repr(float(numpy.median(d))), k, N+1-k, repr(float(d[k-1])) if k>=1 else None,
//         repr(float(d[N-k])) if k>=1 else None)
// printing the shift, rank_lo, rank_hi, lo and hi. Every value is one difference y_j - x_i (or the mean of
// two) computed by the same IEEE operations, so they are compared exactly.
void expect_hl(const std::vector<double>& x, const std::vector<double>& y, double confidence, double shift,
               std::int64_t rank_lo, std::int64_t rank_hi, double lo, double hi) {
  auto s = hodges_lehmann_shift(x, y);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(*s, shift);
  auto r = hodges_lehmann_interval(x, y, confidence);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->shift, shift);
  EXPECT_EQ(r->rank_lo, rank_lo);
  EXPECT_EQ(r->rank_hi, rank_hi);
  EXPECT_EQ(r->lo, lo);
  EXPECT_EQ(r->hi, hi);
}

TEST(HodgesLehmannTest, HandComputedTinyCases) {
  // Differences y - x for x = {1, 2}, y = {3, 5}: 2, 1, 4, 3 -> sorted 1 2 3 4 -> median (2 + 3) / 2.
  auto even = hodges_lehmann_shift(std::vector<double>{1, 2}, std::vector<double>{3, 5});
  ASSERT_TRUE(even.ok());
  EXPECT_EQ(*even, 2.5);
  // x = {1, 2, 3}, y = {10}: 9, 8, 7 -> median 8.
  auto odd = hodges_lehmann_shift(std::vector<double>{1, 2, 3}, std::vector<double>{10});
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(*odd, 8.0);
  // Sign convention: y below x gives a negative shift.
  auto negative = hodges_lehmann_shift(std::vector<double>{10}, std::vector<double>{1, 2, 3});
  ASSERT_TRUE(negative.ok());
  EXPECT_EQ(*negative, -8.0);
  // One value each: the shift is the difference.
  auto single = hodges_lehmann_shift(std::vector<double>{4}, std::vector<double>{6.5});
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(*single, 2.5);
}

TEST(HodgesLehmannTest, NoTiesUnequalSizes) {
  // <DATA> = x=[1.1, 2.3, 3.5, 4.0, 5.9]; y=[2.2, 6.1, 7.4, 8.0, 9.3, 10.5]; c=0.95
  // -> 4.25 4 27 -0.09999999999999964 7.000000000000001
  expect_hl({1.1, 2.3, 3.5, 4.0, 5.9}, {2.2, 6.1, 7.4, 8.0, 9.3, 10.5}, 0.95, 4.25, 4, 27,
            -0.09999999999999964, 7.000000000000001);
}

TEST(HodgesLehmannTest, Ties) {
  // <DATA> = x=[1, 2, 2, 3, 3, 3, 4]; y=[2, 3, 3, 4, 4, 5, 5, 6]; c=0.95
  // -> 1.0 11 46 0.0 3.0
  expect_hl({1, 2, 2, 3, 3, 3, 4}, {2, 3, 3, 4, 4, 5, 5, 6}, 0.95, 1.0, 11, 46, 0.0, 3.0);
}

TEST(HodgesLehmannTest, IdenticalSamplesGiveZeroShift) {
  // <DATA> = x=[3, 1, 4, 1, 5]; y=[3, 1, 4, 1, 5]; c=0.9
  // -> 0.0 5 21 -2.0 2.0
  expect_hl({3, 1, 4, 1, 5}, {3, 1, 4, 1, 5}, 0.9, 0.0, 5, 21, -2.0, 2.0);
}

TEST(HodgesLehmannTest, TenByTenMatchesTabulatedCriticalValue) {
  // For m = n = 10 at 95%, tables of the exact null distribution give C = 24 (P(U <= 23) = 0.0216 <=
  // 0.025 < P(U <= 24)); the continuity-corrected normal approximation agrees.
  // <DATA> = x=list(range(10)); y=[j + 0.5 for j in range(10)]; c=0.95
  // -> 0.5 24 77 -2.5 3.5
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) x.push_back(i);
  for (int j = 0; j < 10; ++j) y.push_back(j + 0.5);
  expect_hl(x, y, 0.95, 0.5, 24, 77, -2.5, 3.5);
}

TEST(HodgesLehmannTest, LargerSamplesUseSelectionPath) {
  // 300 x 251 = 75300 differences, far above the brute-force cut-over (4 * 551), so the estimate and both
  // endpoints come from the pivoting selection.
  std::vector<double> x, y;
  for (int i = 0; i < 300; ++i) x.push_back((i * 37 % 101) * 0.5);
  for (int j = 0; j < 251; ++j) y.push_back((j * 53 % 89) * 0.25 + 3);
  // <DATA> = x=[i*37 % 101*0.5 for i in range(300)]; y=[j*53 % 89*0.25 + 3 for j in range(251)]; c=0.95
  // -> -10.75 34002 41299 -13.25 -8.5
  expect_hl(x, y, 0.95, -10.75, 34002, 41299, -13.25, -8.5);
  // Same <DATA> with c=0.99
  // -> -10.75 32856 42445 -14.0 -7.75
  expect_hl(x, y, 0.99, -10.75, 32856, 42445, -14.0, -7.75);
}

TEST(HodgesLehmannTest, MillionDifferencesWithInexactValues) {
  std::vector<double> x, y;
  for (int i = 0; i < 1000; ++i) x.push_back(i * 0.001);
  for (int j = 0; j < 1200; ++j) y.push_back(((j * 7919) % 1009) * 0.0011 + 0.1);
  // <DATA> = x=[i*0.001 for i in range(1000)]; y=[j*7919 % 1009*0.0011 + 0.1 for j in range(1200)]; c=0.95
  // -> 0.15510000000000002 570922 629079 0.12819999999999998 0.182
  expect_hl(x, y, 0.95, 0.15510000000000002, 570922, 629079, 0.12819999999999998, 0.182);
}

TEST(HodgesLehmannTest, SmallestSamplesForTheirConfidence) {
  // <DATA> = x=[1, 2, 3, 4]; y=[5, 6, 7, 8]; c=0.8
  // -> 4.0 4 13 3.0 5.0
  expect_hl({1, 2, 3, 4}, {5, 6, 7, 8}, 0.8, 4.0, 4, 13, 3.0, 5.0);
  // <DATA> = x=[1, 2, 3]; y=[4, 5, 6]; c=0.95
  // -> 3.0 0 10 None None  (k = 0: no 95% interval from 3 and 3 values)
  auto r = hodges_lehmann_interval(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}, 0.95);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("samples of 3 and 3 values are too small for a 95% interval"));
  auto shift = hodges_lehmann_shift(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  ASSERT_TRUE(shift.ok());
  EXPECT_EQ(*shift, 3.0);
}

TEST(HodgesLehmannTest, MatchesBruteForceOnRandomSamples) {
  // The selection against sorting all n1 * n2 differences, over sizes on both sides of the brute-force
  // cut-over and value grids coarse enough to make many equal differences.
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n1 = 1 + rng() % 150, n2 = 1 + rng() % 150;
    const double grid = trial % 3 == 0 ? 1.0 : (trial % 3 == 1 ? 0.01 : 1e-9);
    std::vector<double> x(n1), y(n2);
    for (double& v : x) v = static_cast<double>(rng() % 200) * grid;
    for (double& v : y) v = static_cast<double>(rng() % 230) * grid + 3 * grid;
    std::vector<double> d;
    for (double b : y) {
      for (double a : x) d.push_back(b - a);
    }
    std::sort(d.begin(), d.end());
    const std::size_t total = d.size();
    const double median = total % 2 == 1 ? d[total / 2] : (d[total / 2 - 1] + d[total / 2]) / 2;
    auto s = hodges_lehmann_shift(x, y);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(*s, median) << "trial " << trial << " n1 " << n1 << " n2 " << n2;
    auto r = hodges_lehmann_interval(x, y, 0.9);
    if (!r.ok()) {
      EXPECT_LT(total, 20u) << r.error().message;  // only tiny samples lack a 90% interval
      continue;
    }
    ASSERT_EQ(r->lo, d[static_cast<std::size_t>(r->rank_lo - 1)]) << "trial " << trial;
    ASSERT_EQ(r->hi, d[static_cast<std::size_t>(r->rank_hi - 1)]) << "trial " << trial;
    EXPECT_EQ(r->rank_lo + r->rank_hi, static_cast<std::int64_t>(total) + 1);
    EXPECT_LE(r->lo, r->shift);
    EXPECT_GE(r->hi, r->shift);
  }
}

TEST(HodgesLehmannTest, IntervalCoverageIsNominalUnderShiftModel) {
  // x ~ N(0, 1), y ~ N(0.5, 1), 1000 repeats each for 10 x 10 and 30 x 45 values. For 10 x 10, k = 24 and
  // the exact coverage is 1 - 2 P(U <= 23) = 1 - 2 * 0.021629 = 0.9567, from
  //   PYTHONPATH=/opt/ref/root/usr/lib/python3/dist-packages /usr/bin/python3 -c
  //   "from scipy.stats._mannwhitneyu import _mwu_state; print(_mwu_state.cdf(23, 10, 10))"
  // -> 0.021628526272489117; for 30 x 45 the normal approximation makes it ~0.95. 1000 repeats give
  // binomial sd 0.7%, so [0.93, 0.975] is about 3 sd either side (this run: 956 and 951). Normals come
  // from our own Box-Muller over mt19937_64 so the outcome does not depend on the standard library.
  std::mt19937_64 rng(5);
  auto normal = [&rng] {
    const double u1 = (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53;
    const double u2 = static_cast<double>(rng() >> 11) * 0x1p-53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
  };
  for (const auto& [n1, n2] : {std::pair{10, 10}, std::pair{30, 45}}) {
    int hits = 0;
    for (int rep = 0; rep < 1000; ++rep) {
      std::vector<double> x(static_cast<std::size_t>(n1)), y(static_cast<std::size_t>(n2));
      for (double& v : x) v = normal();
      for (double& v : y) v = normal() + 0.5;
      auto r = hodges_lehmann_interval(x, y, 0.95);
      ASSERT_TRUE(r.ok());
      if (r->lo <= 0.5 && 0.5 <= r->hi) ++hits;
    }
    EXPECT_GE(hits, 930) << n1 << " x " << n2;
    EXPECT_LE(hits, 975) << n1 << " x " << n2;
  }
}

TEST(HodgesLehmannTest, SwappingSamplesNegatesTheShift) {
  const std::vector<double> x = {1.1, 2.3, 3.5, 4.0, 5.9}, y = {2.2, 6.1, 7.4, 8.0, 9.3, 10.5};
  auto a = hodges_lehmann_interval(x, y);
  auto b = hodges_lehmann_interval(y, x);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->shift, -b->shift);
  EXPECT_EQ(a->lo, -b->hi);
  EXPECT_EQ(a->hi, -b->lo);
}

TEST(HodgesLehmannTest, RejectsBadInput) {
  const std::vector<double> none, some = {1, 2};
  auto r = hodges_lehmann_shift(none, some);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("hodges-lehmann: sample x is empty"));
  r = hodges_lehmann_shift(some, none);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("sample y is empty"));
  r = hodges_lehmann_shift(std::vector<double>{1, kNaN}, some);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("x[1] is NaN"));
  r = hodges_lehmann_shift(some, std::vector<double>{-kInf, 2});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("y[0] is -inf"));
  const std::vector<double> many = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (double c : {0.0, 1.0, -0.2, 2.0, kNaN}) {
    auto i = hodges_lehmann_interval(many, many, c);
    ASSERT_FALSE(i.ok()) << c;
    EXPECT_THAT(i.error().message, HasSubstr("not strictly between 0 and 1"));
  }
  auto i = hodges_lehmann_interval(none, many);
  ASSERT_FALSE(i.ok());
  EXPECT_THAT(i.error().message, HasSubstr("sample x is empty"));
}

}  // namespace
}  // namespace perfhound::core
