#include "load/slo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- Parsing ------------------------------------------------------------------------------------------------

TEST(ParseSlo, TermsInOrderWithDefaultPercentile) {
  const auto slo = parse_slo("ttft=500ms,tpot=50ms,e2e=10s");
  ASSERT_TRUE(slo.ok()) << slo.error().message;
  ASSERT_EQ(slo->terms.size(), 3u);
  EXPECT_EQ(slo->terms[0].metric, SloMetric::kTtft);
  EXPECT_DOUBLE_EQ(slo->terms[0].threshold_s, 0.5);
  EXPECT_EQ(slo->terms[0].percentile, 99);
  EXPECT_EQ(slo->terms[1].metric, SloMetric::kTpot);
  EXPECT_DOUBLE_EQ(slo->terms[1].threshold_s, 0.05);
  EXPECT_EQ(slo->terms[2].metric, SloMetric::kE2e);
  EXPECT_DOUBLE_EQ(slo->terms[2].threshold_s, 10);
  EXPECT_FALSE(slo->empty());
}

TEST(ParseSlo, UnitsBareMillisecondsAliasesAndPercentiles) {
  // "0.5s" and "500" (bare: milliseconds, as vLLM's --goodput) are the same threshold; e2el is e2e.
  const auto slo = parse_slo("ttft=0.5s@p95, itl=50us ,e2el=2m@p99.9,ntpot=800ns,tpot=25@p50");
  ASSERT_TRUE(slo.ok()) << slo.error().message;
  ASSERT_EQ(slo->terms.size(), 5u);
  EXPECT_DOUBLE_EQ(slo->terms[0].threshold_s, 0.5);
  EXPECT_EQ(slo->terms[0].percentile, 95);
  EXPECT_EQ(slo->terms[1].metric, SloMetric::kItl);
  EXPECT_DOUBLE_EQ(slo->terms[1].threshold_s, 50e-6);
  EXPECT_EQ(slo->terms[2].metric, SloMetric::kE2e);
  EXPECT_DOUBLE_EQ(slo->terms[2].threshold_s, 120);
  EXPECT_EQ(slo->terms[2].percentile, 99.9);
  EXPECT_EQ(slo->terms[3].metric, SloMetric::kNtpot);
  EXPECT_DOUBLE_EQ(slo->terms[3].threshold_s, 800e-9);
  EXPECT_DOUBLE_EQ(slo->terms[4].threshold_s, 0.025);
  EXPECT_EQ(slo->terms[4].percentile, 50);
  EXPECT_DOUBLE_EQ(parse_slo("ttft=500")->terms[0].threshold_s, 0.5);
  EXPECT_DOUBLE_EQ(parse_slo("ttft=0.25")->terms[0].threshold_s, 250e-6);  // 0.25 ms
}

TEST(ParseSlo, ToStringIsCanonicalAndParsesBack) {
  const auto slo = parse_slo("ttft=1.5s@p95,e2el=10s,tpot=0.05s,itl=50us,ntpot=1234ns");
  ASSERT_TRUE(slo.ok()) << slo.error().message;
  const std::string spec = slo->to_string();
  EXPECT_EQ(spec, "ttft=1500ms@p95,e2e=10s@p99,tpot=50ms@p99,itl=50us@p99,ntpot=1234ns@p99");
  const auto again = parse_slo(spec);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->to_string(), spec);
  ASSERT_EQ(again->terms.size(), slo->terms.size());
  for (std::size_t i = 0; i < slo->terms.size(); ++i) {
    EXPECT_EQ(again->terms[i].metric, slo->terms[i].metric);
    EXPECT_EQ(again->terms[i].threshold_s, slo->terms[i].threshold_s);
    EXPECT_EQ(again->terms[i].percentile, slo->terms[i].percentile);
  }
  EXPECT_EQ(parse_slo("tpot=50ms@p99.9")->to_string(), "tpot=50ms@p99.9");
  EXPECT_EQ(Slo{}.to_string(), "");
}

TEST(ParseSlo, ToJsonInSecondsWithTheSpec) {
  const auto slo = parse_slo("ttft=500ms@p95,tpot=50ms");
  ASSERT_TRUE(slo.ok()) << slo.error().message;
  EXPECT_EQ(slo->to_json().dump(),
            R"({"spec":"ttft=500ms@p95,tpot=50ms@p99","terms":[{"metric":"ttft","threshold_s":0.5,"percentile":95.0},)"
            R"({"metric":"tpot","threshold_s":0.05,"percentile":99.0}]})");
}

void expect_error(std::string_view spec, std::string_view substring) {
  const auto r = parse_slo(spec);
  ASSERT_FALSE(r.ok()) << "'" << spec << "' parsed";
  EXPECT_THAT(r.error().message, HasSubstr(std::string(substring))) << "spec '" << spec << "'";
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
}

TEST(ParseSlo, ErrorsNameTheProblemAndQuoteTheTerm) {
  expect_error("", "empty SLO");
  expect_error("  ", "empty SLO");
  expect_error("ttft=500ms,", "empty term in 'ttft=500ms,'");
  expect_error("ttft=500ms,,tpot=5ms", "empty term");
  expect_error("ttft", "cannot parse 'ttft': no '='");
  expect_error("ttft:500", "write METRIC=THRESHOLD with '='");  // vLLM's --goodput syntax
  expect_error("ttfb=500ms", "unknown metric 'ttfb' in 'ttfb=500ms' (use ttft, tpot, itl, e2e (or e2el), ntpot)");
  expect_error("TTFT=500ms", "unknown metric 'TTFT'");
  expect_error("ttft=500ms,ttft=1s", "metric ttft is given twice, in 'ttft=500ms' and 'ttft=1s'");
  expect_error("e2e=10s,e2el=5s", "metric e2e is given twice, in 'e2e=10s' and 'e2el=5s'");
  expect_error("ttft=5xs", "cannot parse 'ttft=5xs': '5xs' is not a duration (use e.g. 500ms");
  expect_error("ttft=inf", "'inf' is not a duration");
  expect_error("ttft=", "cannot parse 'ttft=': no threshold");
  expect_error("ttft=@p95", "no threshold");
  expect_error("ttft=0ms", "threshold in 'ttft=0ms' is not positive");
  expect_error("ttft=0", "threshold in 'ttft=0' is not positive");
  expect_error("ttft=-5ms", "threshold in 'ttft=-5ms' is not positive");
  expect_error("ttft=-5", "not positive");
  expect_error("ttft=0.1ns", "not positive (it rounds to 0 ns)");
  expect_error("ttft=0.0000001", "rounds to 0 ns");  // 1e-7 ms = 0.1 ns
  expect_error("ttft=500ms@p0", "percentile in 'ttft=500ms@p0' must be above 0 and below 100");
  expect_error("ttft=500ms@p100", "must be above 0 and below 100");
  expect_error("ttft=500ms@p150", "must be above 0 and below 100");
  expect_error("ttft=500ms@p-1", "must be above 0 and below 100");
  expect_error("ttft=500ms@95", "write the percentile as @p99 or @p99.9, not '@95'");
  expect_error("ttft=500ms@", "write the percentile as @p99");
  expect_error("ttft=500ms@pxx", "'@pxx' is not a percentile");
  expect_error("ttft=500ms@p99@p95", "'@p99@p95' is not a percentile");
}

// ---- Goodput per request ------------------------------------------------------------------------------------

RequestLatencies latencies(double ttft, double e2e, double tpot, double itl, double ntpot) {
  return RequestLatencies{ttft, e2e, tpot, ntpot, itl, 1.0, 10.0};
}

TEST(SloMetBy, EveryTermAtOrBelowItsThreshold) {
  const auto slo = parse_slo("ttft=500ms,tpot=50ms,e2e=10s");
  ASSERT_TRUE(slo.ok()) << slo.error().message;
  EXPECT_TRUE(slo->met_by(latencies(0.2, 5, 0.03, 0.03, 0.5)));
  EXPECT_TRUE(slo->met_by(latencies(0.5, 10, 0.05, 0.03, 0.5)));  // equal to the threshold is within it
  EXPECT_FALSE(slo->met_by(latencies(0.6, 5, 0.03, 0.03, 0.5)));
  EXPECT_FALSE(slo->met_by(latencies(0.2, 5, 0.051, 0.03, 0.5)));
  EXPECT_FALSE(slo->met_by(latencies(0.2, 10.5, 0.03, 0.03, 0.5)));
  // itl and ntpot have no term here, so their values do not matter.
  EXPECT_TRUE(slo->met_by(latencies(0.2, 5, 0.03, 99, 99)));
  EXPECT_TRUE(Slo{}.met_by(latencies(99, 99, 99, 99, 99)));
}

TEST(SloMetBy, UndefinedPerTokenValuesDoNotViolateButNoFirstTokenDoes) {
  const auto slo = parse_slo("ttft=500ms,tpot=50ms,itl=40ms,ntpot=100ms,e2e=10s");
  ASSERT_TRUE(slo.ok()) << slo.error().message;
  // One output token: tpot and itl are NaN (RequestLatencies), which vLLM counts as tpot = 0.
  EXPECT_TRUE(slo->met_by(latencies(0.02, 0.05, kNaN, kNaN, 0.05)));
  // No first token / not completed: every field NaN; TTFT and E2E were not met.
  EXPECT_FALSE(slo->met_by(latencies(kNaN, kNaN, kNaN, kNaN, kNaN)));
  EXPECT_FALSE(parse_slo("e2e=10s")->met_by(latencies(0.2, kNaN, kNaN, kNaN, kNaN)));
  EXPECT_TRUE(parse_slo("tpot=50ms")->met_by(latencies(kNaN, kNaN, kNaN, kNaN, kNaN)));
}

TEST(SloMetric, ValuesAndNames) {
  const RequestLatencies l{1, 2, 3, 4, 5, 6, 7};  // ttft, e2e, tpot, ntpot, mean_itl, tokens_per_chunk, tokens
  EXPECT_EQ(metric_value(l, SloMetric::kTtft), 1);
  EXPECT_EQ(metric_value(l, SloMetric::kE2e), 2);
  EXPECT_EQ(metric_value(l, SloMetric::kTpot), 3);
  EXPECT_EQ(metric_value(l, SloMetric::kNtpot), 4);
  EXPECT_EQ(metric_value(l, SloMetric::kItl), 5);
  EXPECT_EQ(metric_name(SloMetric::kTtft), "ttft");
  EXPECT_EQ(metric_name(SloMetric::kTpot), "tpot");
  EXPECT_EQ(metric_name(SloMetric::kItl), "itl");
  EXPECT_EQ(metric_name(SloMetric::kE2e), "e2e");
  EXPECT_EQ(metric_name(SloMetric::kNtpot), "ntpot");
}

// ---- Binomial CDF -------------------------------------------------------------------------------------------
//
// Reference values are exact: sum_{j<=k} C(n,j) a^j (b-a)^(n-j) / b^n for q = a/b, in Python integers (3.11.7),
// whose int / int division rounds correctly to the nearest double. The argument we pass is the double nearest
// a/b; that moves the exact value by at most |d ln P / d ln q| * 2^-53 relative, < 1e-13 for every case here.
// Tolerances: 1e-12 relative below the mean, 1e-14 absolute at or above it (binomial_cdf's stated accuracy;
// observed: 2e-14 relative and 3e-15 absolute at n = 10^7, a few ulps for n <= 10^4).

void expect_cdf(std::int64_t k, std::int64_t n, double q, double exact) {
  const double got = binomial_cdf(k, n, q);
  if (static_cast<double>(k) < static_cast<double>(n) * q) {
    EXPECT_NEAR(got, exact, 1e-12 * exact) << "k=" << k << " n=" << n << " q=" << q;
  } else {
    EXPECT_NEAR(got, exact, 1e-14) << "k=" << k << " n=" << n << " q=" << q;
  }
}

TEST(BinomialCdf, ExactSumsSmallN) {
  // python3 -c "from math import comb; c=lambda k,n,a,b: sum(comb(n,j)*a**j*(b-a)**(n-j) for j in range(k+1))/b**n;
  //   print(*[repr(c(*t)) for t in [(0,459,1,100),(0,458,1,100),(1,10,1,2),(5,100,1,10),(10,1000,1,100),
  //   (3,20,3,10),(15,20,3,10),(0,44,1,10),(0,43,1,10)]])"
  // -> 0.009920974201040626 0.010021186061657198 0.0107421875 0.05757688648703381 0.5830408033010982
  //    0.107086804503731 0.9999944497469218 0.009697737297875236 0.010775263664305817
  expect_cdf(0, 459, 0.01, 0.009920974201040626);
  expect_cdf(0, 458, 0.01, 0.010021186061657198);
  expect_cdf(1, 10, 0.5, 0.0107421875);
  expect_cdf(5, 100, 0.1, 0.05757688648703381);
  expect_cdf(10, 1000, 0.01, 0.5830408033010982);
  expect_cdf(3, 20, 0.3, 0.107086804503731);
  expect_cdf(15, 20, 0.3, 0.9999944497469218);
  expect_cdf(0, 44, 0.1, 0.009697737297875236);
  expect_cdf(0, 43, 0.1, 0.010775263664305817);
}

TEST(BinomialCdf, ExactSumsHundredThousand) {
  // Same formula (85 s):
  // python3 -c "from math import comb; c=lambda k,n,a,b: sum(comb(n,j)*a**j*(b-a)**(n-j) for j in range(k+1))/b**n;
  //   print(repr(c(900,100000,1,100)), repr(c(1000,100000,1,100)), repr(c(1100,100000,1,100)),
  //   repr(c(10,100000,1,1000)))"
  // -> 0.0006608413334501526 0.5084094733514329 0.9991790300893386 1.0924478414690433e-30
  expect_cdf(900, 100000, 0.01, 0.0006608413334501526);   // 3.2 sd below the mean
  expect_cdf(1000, 100000, 0.01, 0.5084094733514329);     // at the mean
  expect_cdf(1100, 100000, 0.01, 0.9991790300893386);     // 3.2 sd above
  expect_cdf(10, 100000, 0.001, 1.0924478414690433e-30);  // a far tail keeps its relative precision
  // The same sum taken downward from j = k with exact integer steps T_{j-1} = T_j j (b-a) / ((n-j+1) a):
  // python3 -c "
  // from math import comb
  // def c(k,n,a,b):
  //   t=comb(n,k)*a**k*(b-a)**(n-k); s=t
  //   for j in range(k,0,-1): t=t*j*(b-a)//((n-j+1)*a); s+=t
  //   return s/b**n
  // print(repr(c(9800,100000,1,10)))"   -> 0.01752532473762312
  expect_cdf(9800, 100000, 0.1, 0.01752532473762312);
}

TEST(BinomialCdf, TenMillionAgainstFiftyDigitSums) {
  // n = 10^7 is beyond the exact integer sums (99^(10^7) has 20 million digits); these are mpmath 1.3 sums at
  // 50 significant digits: the mass at k from log-gammas, then the neighbour ratio j (1-q) / ((n-j+1) q)
  // downward (or (n-j) q / ((j+1)(1-q)) upward for the complement) until a term is below 1e-45 of the sum:
  // python3 -c "
  // import mpmath as mp; mp.mp.dps = 50
  // def lower(k, n, q):
  //   t = mp.exp(mp.loggamma(n+1)-mp.loggamma(k+1)-mp.loggamma(n-k+1)+k*mp.log(q)+(n-k)*mp.log(1-q)); s = t
  //   for j in range(k, 0, -1):
  //     t = t*j*(1-q)/((n-j+1)*q); s += t
  //     if t < s*mp.mpf('1e-45'): break
  //   return s
  // def upper_complement(k, n, q):
  //   j = k+1; t = mp.exp(mp.loggamma(n+1)-mp.loggamma(j+1)-mp.loggamma(n-j+1)+j*mp.log(q)+(n-j)*mp.log(1-q)); s = t
  //   while j < n:
  //     t = t*(n-j)*q/((j+1)*(1-q)); j += 1; s += t
  //     if t < s*mp.mpf('1e-45'): break
  //   return 1-s
  // c = mp.mpf(1)/100; u = mp.mpf(1)/10**6; h = mp.mpf(1)/2
  // print(mp.nstr(lower(99000,10**7,c),17), mp.nstr(lower(99990,10**7,c),17), mp.nstr(lower(0,10**7,u),17),
  //       mp.nstr(lower(5,10**7,u),17), mp.nstr(lower(4999000,10**7,h),17), mp.nstr(upper_complement(100300,10**7,c),17),
  //       mp.nstr(upper_complement(5001000,10**7,h),17))"
  // -> 0.00073292731055923053 0.48816338878083389 4.5399702763252205e-5 0.067085868295838472 0.2636479281033219
  //    0.83023583872460719 0.73655864851435669
  // (The same script gives 0.00066084133345015261 and 0.99917903008933866 for the n = 10^5 cases above.)
  expect_cdf(99000, 10'000'000, 0.01, 0.00073292731055923053);   // 3.2 sd below the mean
  expect_cdf(99990, 10'000'000, 0.01, 0.48816338878083389);      // just below: ~3000 terms
  expect_cdf(0, 10'000'000, 1e-6, 4.5399702763252205e-5);
  expect_cdf(5, 10'000'000, 1e-6, 0.067085868295838472);
  expect_cdf(4999000, 10'000'000, 0.5, 0.2636479281033219);      // sd = 1581: ~14000 terms
  expect_cdf(100300, 10'000'000, 0.01, 0.83023583872460719);
  expect_cdf(5001000, 10'000'000, 0.5, 0.73655864851435669);
}

TEST(BinomialCdf, EdgeCases) {
  EXPECT_EQ(binomial_cdf(-1, 10, 0.5), 0);
  EXPECT_EQ(binomial_cdf(10, 10, 0.5), 1);
  EXPECT_EQ(binomial_cdf(11, 10, 0.5), 1);
  EXPECT_EQ(binomial_cdf(0, 0, 0.5), 1);  // no trials: X = 0
  EXPECT_EQ(binomial_cdf(0, 10, 0.0), 1);
  EXPECT_EQ(binomial_cdf(9, 10, 1.0), 0);
  EXPECT_EQ(binomial_cdf(0, 1, 0.25), 0.75);
  // Underflow: 0.99^100000 = e^-1005 is below the smallest double.
  EXPECT_EQ(binomial_cdf(0, 100000, 0.01), 0);
}

TEST(BinomialCdf, MonotoneInNAndK) {
  double prev = 1;
  for (std::int64_t n = 5; n <= 5000; n += 37) {
    const double p = binomial_cdf(5, n, 0.01);
    EXPECT_LE(p, prev) << n;
    prev = p;
  }
  prev = 0;
  for (std::int64_t k = 0; k <= 300; ++k) {
    const double p = binomial_cdf(k, 300, 0.5);
    EXPECT_GE(p, prev) << k;
    prev = p;
  }
  // Symmetry of q = 1/2: P[X <= k] + P[X <= n - k - 1] = 1.
  EXPECT_NEAR(binomial_cdf(140, 300, 0.5) + binomial_cdf(159, 300, 0.5), 1.0, 1e-15);
}

// ---- The bound: MLPerf LoadGen's early-stopping figures ----------------------------------------------------
//
// Exact check of each minimum N below: P[Bin(N, a/b) <= t] <= 1/100 < P[Bin(N - 1, a/b) <= t], in integers:
// python3 -c "
// from math import comb
// def holds(t, n, a, b):
//   term = comb(n, t)*a**t*(b-a)**(n-t); s = term
//   for j in range(t, 0, -1): term = term*j*(b-a)//((n-j+1)*a); s += term
//   return 100*s <= b**n
// for (t, N, a, b) in [(0,459,1,100),(0,44,1,10),(1,662,1,100),(1,64,1,10),(10,2010,1,100),(10,197,1,10),
//     (11,2144,1,100),(11,210,1,10),(454,50583,1,100),(686,7462,1,10),(687,7473,1,10),(7797,79943,1,10),
//     (7798,79953,1,10),(973,104770,1,100),(981,105599,1,100)]:
//   print(t, N, holds(t, N, a, b), holds(t, N-1, a, b))"
// -> True False for every row.
// Also python3 -c "print(min(n for n in range(1,10**4) if 0.99**n <= 0.01), min(n for n in range(1,10**4) if
// 0.9**n <= 0.01))" -> 459 44.

TEST(MinRequestsForBound, NoOverThresholdRequests) {
  // With none over, P = p^n: 0.99^459 = 0.00992 <= 0.01 < 0.99^458 = 0.01002. LoadGen prints this figure for
  // a Server run (p99, c = 0.99) without overlatency queries: "Processed 21 queries. Would need to run at
  // least 438 more queries" and "Processed 300 queries. Would need to run at least 159 more queries"
  // (mlperf_log_summary.txt excerpts in MLCommons' docs); 21 + 438 = 300 + 159 = 459.
  EXPECT_EQ(min_requests_for_bound(0, 99, 0.99), 459);
  EXPECT_EQ(min_requests_for_bound(0, 90, 0.99), 44);  // 0.9^44 = 0.0097 <= 0.01 < 0.9^43 = 0.0108
}

TEST(MinRequestsForBound, MatchesLoadGenSingleStreamFigures) {
  // LoadGen SingleStream (p90) requires h_min + 1 queries, h_min = find_min_passing(t = 1): its summaries say
  // "Processed at least 64 queries", and for p99 "would need to process at least 662 total queries".
  EXPECT_EQ(min_requests_for_bound(1, 90, 0.99), 64);
  EXPECT_EQ(min_requests_for_bound(1, 99, 0.99), 662);
  EXPECT_EQ(min_requests_for_bound(10, 99, 0.99), 2010);
  EXPECT_EQ(min_requests_for_bound(11, 99, 0.99), 2144);
  EXPECT_EQ(min_requests_for_bound(10, 90, 0.99), 197);
  EXPECT_EQ(min_requests_for_bound(11, 90, 0.99), 210);
  // Its estimate discards the t - 1 slowest of q queries, t the largest with min_requests(t) <= q (results.cc,
  // PerformanceSummary::EarlyStopping). Published summaries: q = 100 -> "Would discard 2", 201 -> 9,
  // 659 -> 47, 708 -> 51, 7469 -> 685, 79944 -> 7796.
  const auto discarded = [](std::int64_t q) {
    std::int64_t t = 1;
    while (min_requests_for_bound(t + 1, 90, 0.99) <= q) ++t;
    return t - 1;
  };
  EXPECT_EQ(discarded(100), 2);
  EXPECT_EQ(discarded(201), 9);
  EXPECT_EQ(discarded(659), 47);
  EXPECT_EQ(discarded(708), 51);
  EXPECT_EQ(discarded(7469), 685);
  EXPECT_EQ(discarded(79944), 7796);
  EXPECT_EQ(min_requests_for_bound(686, 90, 0.99), 7462);
  EXPECT_EQ(min_requests_for_bound(687, 90, 0.99), 7473);
  EXPECT_EQ(min_requests_for_bound(7797, 90, 0.99), 79943);
  EXPECT_EQ(min_requests_for_bound(7798, 90, 0.99), 79953);
}

TEST(MinRequestsForBound, MatchesLoadGenServerTotals) {
  // Server summaries print queries_issued and "Would need to run at least N more": 985 + 104614 = 105599,
  // 985 + 103785 = 104770, 460 + 50123 = 50583. Each total is exactly min_requests(t) for one t.
  EXPECT_EQ(min_requests_for_bound(981, 99, 0.99), 105599);
  EXPECT_EQ(min_requests_for_bound(973, 99, 0.99), 104770);
  EXPECT_EQ(min_requests_for_bound(454, 99, 0.99), 50583);
}

TEST(MinRequestsForBound, IsTheFirstNWhereTheBoundHolds) {
  for (const double percentile : {50.0, 90.0, 95.0, 99.0, 99.9}) {
    for (const double confidence : {0.9, 0.95, 0.99}) {
      for (const std::int64_t over : {0, 1, 2, 7, 50, 400}) {
        const std::int64_t n = min_requests_for_bound(over, percentile, confidence);
        const double q = (100 - percentile) / 100;
        EXPECT_LE(binomial_cdf(over, n, q), 1 - confidence) << over << " " << percentile << " " << confidence;
        EXPECT_GT(binomial_cdf(over, n - 1, q), 1 - confidence) << over << " " << percentile << " " << confidence;
      }
    }
  }
  // Equality with 1 - c counts as holding (the rules' <=): P[Bin(1, 0.5) <= 0] = 0.5.
  EXPECT_EQ(min_requests_for_bound(0, 50, 0.5), 1);
  // Higher confidence or a higher percentile needs more requests.
  EXPECT_GT(min_requests_for_bound(3, 99, 0.999), min_requests_for_bound(3, 99, 0.99));
  EXPECT_GT(min_requests_for_bound(3, 99.9, 0.99), min_requests_for_bound(3, 99, 0.99));
  // A far tail: p99.999 with none over needs ln(0.01) / ln(1 - 1e-5) ~ 460515 requests.
  const std::int64_t far = min_requests_for_bound(0, 99.999, 0.99);
  EXPECT_NEAR(static_cast<double>(far), std::log(0.01) / std::log1p(-1e-5), 1.0);
}

// ---- The verdict -------------------------------------------------------------------------------------------

SloTerm ttft_p99() { return SloTerm{SloMetric::kTtft, 0.5, 99}; }

TEST(EvaluateSloTerm, WithoutConfidenceThePointEstimateDecides) {
  const auto v = evaluate_slo_term(ttft_p99(), 0.42, 100, 1, std::nullopt);
  EXPECT_TRUE(v.met);
  EXPECT_FALSE(v.confidence_asked);
  EXPECT_TRUE(std::isnan(v.confidence));
  EXPECT_FALSE(v.holds_at_confidence);
  EXPECT_EQ(v.more_requests_needed, 0);
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.n, 100);
  EXPECT_EQ(v.over, 1);
  EXPECT_EQ(v.observed_s, 0.42);
  EXPECT_FALSE(evaluate_slo_term(ttft_p99(), 0.51, 100, 2, std::nullopt).passed());
  EXPECT_TRUE(evaluate_slo_term(ttft_p99(), 0.5, 100, 0, std::nullopt).met);  // at the threshold
  EXPECT_FALSE(evaluate_slo_term(ttft_p99(), kNaN, 0, 0, std::nullopt).met);
}

TEST(EvaluateSloTerm, MoreRequestsNeededAsLoadGenCountsThem) {
  // LoadGen: "Processed 21 queries. Would need to run at least 438 more queries".
  const auto v = evaluate_slo_term(ttft_p99(), 0.3, 21, 0, 0.99);
  EXPECT_TRUE(v.met);
  EXPECT_TRUE(v.confidence_asked);
  EXPECT_EQ(v.confidence, 0.99);
  EXPECT_FALSE(v.holds_at_confidence);
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.more_requests_needed, 438);
  EXPECT_EQ(evaluate_slo_term(ttft_p99(), 0.3, 300, 0, 0.99).more_requests_needed, 159);
  EXPECT_EQ(evaluate_slo_term(ttft_p99(), 0.6, 985, 981, 0.99).more_requests_needed, -1);  // 99.6% over
  // The same over count in a run that is long enough holds.
  const auto enough = evaluate_slo_term(ttft_p99(), 0.3, 459, 0, 0.99);
  EXPECT_TRUE(enough.holds_at_confidence);
  EXPECT_TRUE(enough.passed());
  EXPECT_EQ(enough.more_requests_needed, 0);
  EXPECT_FALSE(evaluate_slo_term(ttft_p99(), 0.3, 458, 0, 0.99).holds_at_confidence);
}

TEST(EvaluateSloTerm, MoreRequestsNeededIsConsistentWithTheMinimum) {
  for (const std::int64_t over : {0, 1, 3, 10, 100}) {
    const std::int64_t need = min_requests_for_bound(over, 99, 0.99);
    for (const std::int64_t n : {over, over + 1, need / 2, need - 1, need, need + 1, 2 * need}) {
      if (n < over || over * 100 > n) continue;  // the -1 case is tested separately
      const auto v = evaluate_slo_term(ttft_p99(), 0.3, n, over, 0.99);
      EXPECT_EQ(v.holds_at_confidence, n >= need) << over << " " << n;
      EXPECT_EQ(v.more_requests_needed, n >= need ? 0 : need - n) << over << " " << n;
      // Running the advised number more, all within the threshold, makes it hold; one fewer does not.
      if (!v.holds_at_confidence) {
        EXPECT_TRUE(evaluate_slo_term(ttft_p99(), 0.3, n + v.more_requests_needed, over, 0.99).holds_at_confidence);
        EXPECT_FALSE(
            evaluate_slo_term(ttft_p99(), 0.3, n + v.more_requests_needed - 1, over, 0.99).holds_at_confidence);
      }
    }
  }
}

TEST(EvaluateSloTerm, NeverWhenTheObservedRateIsAboveTheAllowance) {
  // 2 of 100 over a p99 threshold: 2% > 1%.
  EXPECT_EQ(evaluate_slo_term(ttft_p99(), 0.7, 100, 2, 0.99).more_requests_needed, -1);
  // Exactly 1% is not above it: LoadGen's count (every further request within the threshold) applies.
  const auto boundary = evaluate_slo_term(ttft_p99(), 0.5, 100, 1, 0.99);
  EXPECT_EQ(boundary.more_requests_needed, 662 - 100);
  // p90: 11 of 100 is above 10%, 10 of 100 is not.
  const SloTerm p90{SloMetric::kE2e, 10, 90};
  EXPECT_EQ(evaluate_slo_term(p90, 11, 100, 11, 0.95).more_requests_needed, -1);
  EXPECT_GT(evaluate_slo_term(p90, 10, 100, 10, 0.95).more_requests_needed, 0);
}

TEST(EvaluateSloTerm, FailedRequestsAreCountedByTheCallerAsOver) {
  // 1000 requests, 3 slow and 2 failed: the caller passes over = 5 (the header's contract).
  const auto v = evaluate_slo_term(ttft_p99(), 0.45, 1000, 5, 0.99);
  EXPECT_FALSE(v.holds_at_confidence);  // P[Bin(1000, 0.01) <= 5] = 0.066 > 0.01
  EXPECT_EQ(v.more_requests_needed, min_requests_for_bound(5, 99, 0.99) - 1000);
}

TEST(EvaluateSloTerm, NoRequests) {
  const auto v = evaluate_slo_term(ttft_p99(), kNaN, 0, 0, 0.99);
  EXPECT_FALSE(v.met);
  EXPECT_FALSE(v.holds_at_confidence);
  EXPECT_EQ(v.more_requests_needed, 459);
}

TEST(EvaluateSloTerm, ToJson) {
  const auto asked = to_json(evaluate_slo_term(ttft_p99(), 0.25, 21, 0, 0.99));
  EXPECT_EQ(asked.dump(),
            R"({"metric":"ttft","threshold_s":0.5,"percentile":99.0,"observed_s":0.25,"requests":21,)"
            R"("over_threshold":0,"met":true,"confidence":0.99,"holds_at_confidence":false,)"
            R"("more_requests_needed":438,"passed":false})");
  const auto plain = to_json(evaluate_slo_term(ttft_p99(), kNaN, 0, 0, std::nullopt));
  EXPECT_EQ(plain.dump(),
            R"({"metric":"ttft","threshold_s":0.5,"percentile":99.0,"observed_s":null,"requests":0,)"
            R"("over_threshold":0,"met":false,"confidence":null,"holds_at_confidence":null,)"
            R"("more_requests_needed":null,"passed":false})");
}

}  // namespace
}  // namespace perfhound::load
