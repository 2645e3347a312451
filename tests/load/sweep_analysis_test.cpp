#include "load/sweep_analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTol = 1e-9;

// Points whose throughput equals the load, as in an open-loop sweep below capacity.
std::vector<SweepPoint> curve(const std::vector<double>& throughput, const std::vector<double>& latency_s) {
  std::vector<SweepPoint> points;
  for (std::size_t i = 0; i < throughput.size(); ++i) {
    points.push_back({.load = static_cast<double>(i + 1), .throughput = throughput[i], .latency_s = latency_s[i]});
  }
  return points;
}

// M/M/1 with service rate mu = 10: mean time in system W = 1 / (mu - lambda), throughput = lambda.
// lambda = 1, 2, ..., 9, 9.5 (indices 0 .. 9); W = 1/9, 1/8, 1/7, 1/6, 1/5, 1/4, 1/3, 1/2, 1, 2.
std::vector<SweepPoint> mm1() {
  std::vector<SweepPoint> points;
  for (double lambda : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 9.5}) {
    points.push_back({.load = lambda, .throughput = lambda, .latency_s = 1 / (10 - lambda), .in_slo = false});
  }
  return points;
}

// A closed-loop sweep as real servers give it: concurrency 1..128, throughput nearly linear then flat and a
// little lower at the last load, p95 flat then a hockey stick.
std::vector<SweepPoint> realistic() {
  const std::vector<double> load = {1, 2, 4, 8, 16, 32, 64, 128};
  const std::vector<double> thr = {2, 4, 8, 14, 26, 38, 42, 41};
  const std::vector<double> lat = {0.50, 0.50, 0.51, 0.53, 0.60, 0.80, 1.50, 3.00};
  std::vector<SweepPoint> points;
  for (std::size_t i = 0; i < load.size(); ++i) points.push_back({.load = load[i], .throughput = thr[i], .latency_s = lat[i]});
  return points;
}

// ---- find_knee (Kneedle) ----------------------------------------------------------------------------------

TEST(FindKnee, MM1HockeyStick) {
  // Throughput is monotone, so the peak is the last point and the curve is all ten points.
  // x = (lambda - 1) / 8.5 = 2 (lambda - 1) / 17;  y = (W - 1/9) / (2 - 1/9) = (9 W - 1) / 17.
  // 17 d = 2 lambda - 2 - 9 W + 1 = 2 lambda - 1 - 9 / (10 - lambda):
  //   lambda 1: 1 - 1 = 0        2: 3 - 1.125 = 1.875   3: 5 - 9/7 = 3.714   4: 7 - 1.5 = 5.5
  //          5: 9 - 1.8 = 7.2    6: 11 - 2.25 = 8.75    7: 13 - 3 = 10       8: 15 - 4.5 = 10.5
  //          9: 17 - 9 = 8       9.5: 18 - 18 = 0
  // The maximum is lambda = 8 (index 7), d = 10.5 / 17 = 0.617647. Guards: rise 2 / (1/9) = 18 >= 1.5.
  const auto points = mm1();
  const auto knee = find_knee(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 7u);
  EXPECT_DOUBLE_EQ(knee->throughput, 8);
  EXPECT_DOUBLE_EQ(knee->latency_s, 0.5);
  EXPECT_NEAR(knee->score, 10.5 / 17, kTol);
}

TEST(FindKnee, GuardsAreOptions) {
  const auto points = mm1();
  // max d = 10.5 / 17 = 0.6176 < 0.7;  rise = 18 < 20.
  EXPECT_FALSE(find_knee(points, {.min_rise = 1.5, .min_score = 0.7}).has_value());
  EXPECT_TRUE(find_knee(points, {.min_rise = 1.5, .min_score = 0.6}).has_value());
  EXPECT_FALSE(find_knee(points, {.min_rise = 20, .min_score = 0.1}).has_value());
  EXPECT_TRUE(find_knee(points, {.min_rise = 17.9, .min_score = 0.1}).has_value());
}

TEST(FindKnee, RealisticSweepWithDropAtTheEnd) {
  // The peak is 42 at index 6; the last point (41, 3.00 s) is past it: it may not be the knee, but its latency
  // sets the scale.  x = (thr - 2) / 40 up to the peak: 0, .05, .15, .3, .6, .9, 1;
  // y = (lat - .5) / (3.0 - .5): 0, 0, .004, .012, .04, .12, .4;  d = 0, .05, .146, .288, .56, .78, .6
  // -> index 5 (concurrency 32), d = .9 - .12 = 0.78. Rise 3.0 / .5 = 6.
  const auto points = realistic();
  const auto knee = find_knee(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 5u);
  EXPECT_DOUBLE_EQ(knee->throughput, 38);
  EXPECT_DOUBLE_EQ(knee->latency_s, 0.80);
  EXPECT_NEAR(knee->score, 0.78, kTol);
}

TEST(FindKnee, FlatCurveHasNoKnee) {
  // Latency within 4% everywhere. Normalised, the noise alone would give a knee:
  //   x = 0, .25, .5, .75, 1;  y = (lat - .099) / .004 = .25, .75, 0, .5, 1;  d = -.25, -.5, .5, .25, 0,
  // max d = .5 >= .1, but the rise guard stops it: .103 / .099 = 1.04 < 1.5.
  const auto points = curve({1, 2, 3, 4, 5}, {0.100, 0.102, 0.099, 0.101, 0.103});
  EXPECT_FALSE(find_knee(points).has_value());
  EXPECT_FALSE(find_knee_by_slope(points).has_value());
}

TEST(FindKnee, StraightLineHasNoKnee) {
  // latency = 0.1 + 0.05 thr, thr = 1..9: rise .55 / .15 = 3.7 passes, but y = x after normalising, d = 0.
  std::vector<double> thr, lat;
  for (int i = 1; i <= 9; ++i) {
    thr.push_back(i);
    lat.push_back(0.1 + 0.05 * i);
  }
  const auto points = curve(thr, lat);
  EXPECT_FALSE(find_knee(points).has_value());
  // Every segment has slope 0.05 = s0 (floor .25 * .15 / 8 = .0047 is below it): ratio 1 < 3.
  EXPECT_FALSE(find_knee_by_slope(points).has_value());
}

TEST(FindKnee, ConcaveCurveHasNoKnee) {
  // x = 0, .25, .5, .75, 1;  y = (lat - .1) / .75 = 0, .533, .8, .933, 1;  d = 0, -.283, -.3, -.183, 0.
  EXPECT_FALSE(find_knee(curve({1, 2, 3, 4, 5}, {0.1, 0.5, 0.7, 0.8, 0.85})).has_value());
}

TEST(FindKnee, TwoPointsHaveNoKnee) {
  const auto points = curve({10, 20}, {0.1, 1.0});
  EXPECT_FALSE(find_knee(points).has_value());
  EXPECT_FALSE(find_knee_by_slope(points).has_value());
  EXPECT_FALSE(find_knee(std::vector<SweepPoint>{}).has_value());
}

TEST(FindKnee, LatencyExplodingPastThePeakMakesThePeakTheKnee) {
  // Peak 40 at index 4; past it throughput falls to 36 while latency reaches 10 s: queueing dominates beyond
  // the peak, so the peak is the last point before it.  x = (thr - 10) / 30 up to the peak:
  // 0, 1/3, 2/3, 28/30, 1;  y = (lat - .1) / 9.9: 0, 0, .00101, .00202, .0101;
  // d = 0, .3333, .6657, .9313, .9899 -> index 4, d = 1 - .1 / 9.9 = 9.8 / 9.9.
  const auto points = curve({10, 20, 30, 38, 40, 36}, {0.10, 0.10, 0.11, 0.12, 0.20, 10.0});
  const auto knee = find_knee(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 4u);
  EXPECT_DOUBLE_EQ(knee->throughput, 40);
  EXPECT_NEAR(knee->score, 9.8 / 9.9, kTol);
  // Without the overload point the curve ends at the peak: y = (lat - .1) / .1 = 0, 0, .1, .2, 1,
  // d = 0, .3333, .5667, .7333, 0 -> index 3, d = 28/30 - .2 = 11/15.
  const auto before = curve({10, 20, 30, 38, 40}, {0.10, 0.10, 0.11, 0.12, 0.20});
  const auto knee_before = find_knee(before);
  ASSERT_TRUE(knee_before.has_value());
  EXPECT_EQ(knee_before->index, 3u);
  EXPECT_NEAR(knee_before->score, 11.0 / 15, kTol);
}

TEST(FindKnee, FlatToThePeakThenBrokenKneeIsThePeak) {
  // Peak 40 at index 3; up to it latency rises only .13 / .10 = 1.3, but past it reaches 3.0 (rise 30).
  // x = 0, 1/3, 2/3, 1;  y = (lat - .1) / 2.9 = 0, 0, 0, .01034;  d = 0, .333, .667, .98966: the peak,
  // d = 1 - (.13 - .10) / (3.0 - .10) = 2.87 / 2.9 = 0.989655.
  const auto points = curve({10, 20, 30, 40, 35, 30}, {0.10, 0.10, 0.10, 0.13, 1.0, 3.0});
  const auto knee = find_knee(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 3u);
  EXPECT_DOUBLE_EQ(knee->throughput, 40);
  EXPECT_NEAR(knee->score, 2.87 / 2.9, kTol);
  // Latency falling past the peak is no break.
  EXPECT_FALSE(find_knee(curve({10, 20, 30, 40, 35}, {0.10, 0.10, 0.10, 0.13, 0.12})).has_value());
}

TEST(FindKnee, PeakAtTheLowestLoadHasNoKnee) {
  // Saturated from the first load: nothing gentle was measured.
  const auto points = curve({40, 35, 30}, {0.1, 1.0, 3.0});
  EXPECT_FALSE(find_knee(points).has_value());
  EXPECT_FALSE(find_knee_by_slope(points).has_value());
}

TEST(FindKnee, InvalidPointsAreIgnored) {
  // An invalid point first in the span, past capacity with a huge latency, and a valid point with no latency.
  auto points = mm1();
  points.insert(points.begin(), {.load = 9.75, .throughput = 9.75, .latency_s = 100, .valid = false});
  points.push_back({.load = 9.9, .throughput = 9.9, .latency_s = kNaN});
  const auto knee = find_knee(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 8u);  // lambda = 8 as in MM1HockeyStick, one place later in the span
  EXPECT_DOUBLE_EQ(knee->throughput, 8);
  EXPECT_NEAR(knee->score, 10.5 / 17, kTol);

  // Had it been valid it would move the knee: x = (lambda - 1) / 8.75, y = (W - 1/9) / (100 - 1/9):
  //   lambda 9.5: 8.5 / 8.75 - 1.8889 / 99.8889 = .97143 - .01891 = .95252
  //   lambda 9:   8 / 8.75 - .8889 / 99.8889    = .91429 - .00890 = .90539;  lambda 9.75: 1 - 1 = 0.
  points[0].valid = true;
  const auto moved = find_knee(points);
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(moved->index, 10u);  // lambda = 9.5
  EXPECT_NEAR(moved->score, 8.5 / 8.75 - (2 - 1.0 / 9) / (100 - 1.0 / 9), kTol);
}

TEST(FindKnee, IndexIsIntoTheSpanAsGiven) {
  auto points = mm1();
  std::reverse(points.begin(), points.end());  // lambda = 8 is now index 9 - 7 = 2
  const auto knee = find_knee(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 2u);
  EXPECT_DOUBLE_EQ(knee->throughput, 8);
  const auto slope = find_knee_by_slope(points);
  ASSERT_TRUE(slope.has_value());
  EXPECT_EQ(slope->index, 5u);  // lambda = 5 (MM1 below), 9 - 4
}

// ---- find_knee_by_slope -----------------------------------------------------------------------------------

TEST(FindKneeBySlope, MM1) {
  // slope between lambda a and b = a + 1: (1/(10-b) - 1/(10-a)) / 1 = 1 / ((10-a)(10-b)).
  // s0 = 1/(9*8) = 1/72 (floor .25 * (1/9) / 8.5 = .00327 is below it); 3 s0 = 1/24.
  // Segments 2-3: 1/56, 3-4: 1/42, 4-5: 1/30 (all < 1/24), 5-6: 1/20 > 1/24 -> knee lambda = 5 (index 4),
  // score (1/20) / (1/72) = 3.6.
  const auto points = mm1();
  const auto knee = find_knee_by_slope(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 4u);
  EXPECT_DOUBLE_EQ(knee->throughput, 5);
  EXPECT_DOUBLE_EQ(knee->latency_s, 0.2);
  EXPECT_NEAR(knee->score, 3.6, kTol);
  // multiple 5: 5/72 = .0694; 5-6 is 1/20 = .05, 6-7 is 1/12 = .0833 -> lambda 6 (index 5), score 72/12 = 6.
  const auto five = find_knee_by_slope(points, 5);
  ASSERT_TRUE(five.has_value());
  EXPECT_EQ(five->index, 5u);
  EXPECT_NEAR(five->score, 6, kTol);
}

TEST(FindKneeBySlope, RealisticSweepUsesTheFloor) {
  // slope_1 = (.50 - .50) / 2 = 0, floored: .25 * .50 / (42 - 2) = .003125; 3 s0 = .009375.
  // 4-8: .01 / 4 = .0025   8-14: .02 / 6 = .00333   14-26: .07 / 12 = .00583   26-38: .20 / 12 = .01667 > .009375
  // -> the point before, index 4 (thr 26), score (.2 / 12) / .003125 = (1/60) / (1/320) = 16/3.
  const auto knee = find_knee_by_slope(realistic());
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 4u);
  EXPECT_DOUBLE_EQ(knee->throughput, 26);
  EXPECT_NEAR(knee->score, 16.0 / 3, 1e-6);
}

TEST(FindKneeBySlope, ThroughputDropPastPeak) {
  // floor .25 * .1 / (40 - 10) = 1/1200; s0 = max(0 / 10, 1/1200); 3 s0 = .0025.
  // 20-30: .01 / 10 = .001   30-38: .01 / 8 = .00125   38-40: .08 / 2 = .04 > .0025 -> index 3, score 48.
  const auto knee = find_knee_by_slope(curve({10, 20, 30, 38, 40, 36}, {0.10, 0.10, 0.11, 0.12, 0.20, 10.0}));
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 3u);
  EXPECT_NEAR(knee->score, 48, 1e-6);
}

TEST(FindKneeBySlope, ThroughputNotGrowingWhileLatencyDoes) {
  // Flat to the peak (all slopes 0 <= 3 s0), then thr 40 -> 35 with latency .10 -> 1.0: the point before the
  // fold, index 3, score +inf.
  const auto flat = find_knee_by_slope(curve({10, 20, 30, 40, 35, 30}, {0.10, 0.10, 0.10, 0.10, 1.0, 3.0}));
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->index, 3u);
  EXPECT_EQ(flat->score, kInf);
  // With .13 at the peak: 30-40 is .03 / 10 = .003 > 3 * (1/1200) = .0025 -> index 2, score .003 * 1200 = 3.6.
  const auto risen = find_knee_by_slope(curve({10, 20, 30, 40, 35, 30}, {0.10, 0.10, 0.10, 0.13, 1.0, 3.0}));
  ASSERT_TRUE(risen.has_value());
  EXPECT_EQ(risen->index, 2u);
  EXPECT_NEAR(risen->score, 3.6, 1e-6);
}

TEST(FindKneeBySlope, SteepFromTheFirstSegmentHasNoKnee) {
  EXPECT_FALSE(find_knee_by_slope(curve({10, 10, 12}, {0.1, 0.5, 2.0})).has_value());
}

TEST(FindKneeBySlope, InvalidPointsAreIgnored) {
  auto points = mm1();
  points.insert(points.begin(), {.load = 5.5, .throughput = 5.5, .latency_s = 100, .valid = false});
  const auto knee = find_knee_by_slope(points);
  ASSERT_TRUE(knee.has_value());
  EXPECT_EQ(knee->index, 5u);  // lambda = 5, one place later
  EXPECT_NEAR(knee->score, 3.6, kTol);
}

// ---- Operating point, headroom, replicas --------------------------------------------------------------------

TEST(ChooseOperatingPoint, HighestThroughputInSlo) {
  std::vector<SweepPoint> points = {
      {.load = 1, .throughput = 10, .latency_s = 0.1, .in_slo = true},
      {.load = 2, .throughput = 19, .latency_s = 0.1, .in_slo = true},
      {.load = 4, .throughput = 35, .latency_s = 0.2, .in_slo = true},
      {.load = 8, .throughput = 40, .latency_s = 0.9, .in_slo = false},
  };
  EXPECT_EQ(choose_operating_point(points), 2u);
  // The in-SLO best turns out INVALID: the next one.
  points[2].valid = false;
  EXPECT_EQ(choose_operating_point(points), 1u);
}

TEST(ChooseOperatingPoint, TiesGoToTheLowerLoad) {
  const std::vector<SweepPoint> points = {
      {.load = 8, .throughput = 35, .latency_s = 0.3, .in_slo = true},
      {.load = 4, .throughput = 35, .latency_s = 0.2, .in_slo = true},
      {.load = 2, .throughput = 19, .latency_s = 0.1, .in_slo = true},
  };
  EXPECT_EQ(choose_operating_point(points), 1u);
}

TEST(ChooseOperatingPoint, NoneInSlo) {
  const std::vector<SweepPoint> points = {
      {.load = 1, .throughput = 10, .latency_s = 0.1, .in_slo = false},
      {.load = 2, .throughput = 19, .latency_s = 0.1, .in_slo = true, .valid = false},
  };
  EXPECT_FALSE(choose_operating_point(points).has_value());
  EXPECT_FALSE(choose_operating_point(std::vector<SweepPoint>{}).has_value());
}

TEST(Headroom, RatioAndErrors) {
  const auto over = headroom(40, 32);
  ASSERT_TRUE(over.ok()) << over.error().message;
  EXPECT_DOUBLE_EQ(over->ratio, 1.25);  // 40 / 32
  EXPECT_DOUBLE_EQ(headroom(30, 40)->ratio, 0.75);
  EXPECT_DOUBLE_EQ(headroom(0, 40)->ratio, 0);
  EXPECT_EQ(headroom(40, 0).error().message, "expected throughput must be a positive number, not 0");
  EXPECT_FALSE(headroom(40, -1).ok());
  EXPECT_FALSE(headroom(40, kNaN).ok());
  EXPECT_FALSE(headroom(kNaN, 40).ok());
  EXPECT_FALSE(headroom(-1, 40).ok());
}

TEST(ReplicasNeeded, CeilWithToleranceForRounding) {
  EXPECT_EQ(*replicas_needed(10, 2.5), 4);    // 10 / 2.5 = 4
  EXPECT_EQ(*replicas_needed(10.1, 2.5), 5);  // 4.04
  EXPECT_EQ(*replicas_needed(1, 3), 1);       // 0.33
  EXPECT_EQ(*replicas_needed(0.001, 1000), 1);
  // In doubles 4.2 / 0.6 is 7.000000000000001 and 3 * 0.1 / 0.1 is 3.0000000000000004; a bare ceil says 8, 4.
  EXPECT_GT(4.2 / 0.6, 7.0);
  EXPECT_EQ(*replicas_needed(4.2, 0.6), 7);
  EXPECT_GT(3 * 0.1 / 0.1, 3.0);
  EXPECT_EQ(*replicas_needed(3 * 0.1, 0.1), 3);
  // The tolerance is relative 1e-9, not more: 4 (1 + 2.5e-8) needs a fifth replica.
  EXPECT_EQ(*replicas_needed(4.0000001, 1), 5);
}

TEST(ReplicasNeeded, Errors) {
  EXPECT_EQ(replicas_needed(0, 1).error().message, "target rate must be a positive number, not 0");
  EXPECT_EQ(replicas_needed(10, -2.5).error().message, "per-replica rate must be a positive number, not -2.5");
  EXPECT_FALSE(replicas_needed(kNaN, 1).ok());
  EXPECT_FALSE(replicas_needed(kInf, 1).ok());
  EXPECT_FALSE(replicas_needed(1, 0).ok());
  EXPECT_FALSE(replicas_needed(1e300, 1e-300).ok());  // the quotient overflows
  EXPECT_FALSE(replicas_needed(1e17, 1).ok());        // past 2^53
}

// ---- --rate auto and load lists ----------------------------------------------------------------------------

TEST(PlanAutoRates, EvenlySpacedStrictlyBetween) {
  // 1 + 8 k / 4, k = 1..3.
  EXPECT_EQ(*plan_auto_rates(1, 9, 3), (std::vector<double>{3, 5, 7}));
  EXPECT_EQ(*plan_auto_rates(2, 10, 1), (std::vector<double>{6}));        // 2 + 8 / 2
  EXPECT_EQ(*plan_auto_rates(0.5, 2, 2), (std::vector<double>{1, 1.5}));  // 0.5 + 1.5 k / 3
}

TEST(PlanAutoRates, Errors) {
  EXPECT_EQ(plan_auto_rates(5, 4.5, 3).error().message,
            "--rate auto: the throughput run measured 4.5 req/s, not above the synchronous run's 5 req/s, so there "
            "are no rates between them to sweep (give the rates instead, e.g. --rate 1,2,4)");
  EXPECT_FALSE(plan_auto_rates(5, 5, 3).ok());
  EXPECT_EQ(plan_auto_rates(0, 9, 3).error().message,
            "--rate auto: the synchronous run measured 0 req/s; planning needs a positive rate (did any of its "
            "requests complete?)");
  EXPECT_EQ(plan_auto_rates(1, kNaN, 3).error().message,
            "--rate auto: the throughput run measured nan req/s; planning needs a positive rate (did any of its "
            "requests complete?)");
  EXPECT_EQ(plan_auto_rates(1, 9, 0).error().message,
            "--rate auto: 0 rates between the synchronous and throughput runs; need at least 1");
}

TEST(ParseLoadList, GoodListsKeepTheirOrder) {
  EXPECT_EQ(*parse_load_list("1,8,32,128", "--concurrency", true), (std::vector<double>{1, 8, 32, 128}));
  EXPECT_EQ(*parse_load_list(" 4 , 1,\t2 ", "--concurrency", true), (std::vector<double>{4, 1, 2}));
  EXPECT_EQ(*parse_load_list("16", "--concurrency", true), (std::vector<double>{16}));
  EXPECT_EQ(*parse_load_list("0.5, 2,1.5k", "--rate", false), (std::vector<double>{0.5, 2, 1500}));
}

TEST(ParseLoadList, BadItemsNameTheFlagAndTheItem) {
  const auto error = [](std::string_view text, std::string_view flag, bool integers) {
    const auto r = parse_load_list(text, flag, integers);
    return r.ok() ? std::string("(ok)") : r.error().message;
  };
  EXPECT_EQ(error("1,8,x", "--concurrency", true), "--concurrency: item 3 'x' is not a positive integer");
  EXPECT_EQ(error("1,0", "--concurrency", true), "--concurrency: item 2 '0' is not a positive integer");
  EXPECT_EQ(error("-2", "--concurrency", true), "--concurrency: item 1 '-2' is not a positive integer");
  EXPECT_EQ(error("1,2.5", "--concurrency", true), "--concurrency: item 2 '2.5' is not a positive integer");
  EXPECT_EQ(error("+4", "--concurrency", true), "--concurrency: item 1 '+4' is not a positive integer");
  EXPECT_EQ(error("1, 8 x", "--concurrency", true), "--concurrency: item 2 '8 x' is not a positive integer");
  EXPECT_EQ(error("10000000000000000", "--concurrency", true), "--concurrency: item 1 '10000000000000000' is too large");
  EXPECT_EQ(error("99999999999999999999", "--concurrency", true),
            "--concurrency: item 1 '99999999999999999999' is too large");
  EXPECT_EQ(error("1,,2", "--concurrency", true), "--concurrency: item 2 is empty");
  EXPECT_EQ(error("1,2,", "--concurrency", true), "--concurrency: item 3 is empty");
  EXPECT_EQ(error(" ", "--concurrency", true), "--concurrency: the list is empty");
  EXPECT_EQ(error("1,8, 8", "--concurrency", true), "--concurrency: item 3 '8' repeats item 2");
  EXPECT_EQ(error("1,abc", "--rate", false), "--rate: item 2 'abc' is not a positive number");
  EXPECT_EQ(error("1,0", "--rate", false), "--rate: item 2 '0' is not a positive number");
  EXPECT_EQ(error("inf", "--rate", false), "--rate: item 1 'inf' is not a positive number");
  EXPECT_EQ(error("nan", "--rate", false), "--rate: item 1 'nan' is not a positive number");
  EXPECT_EQ(error("2,2.0", "--rate", false), "--rate: item 2 '2.0' repeats item 1");
}

// ---- sparkline ----------------------------------------------------------------------------------------------

TEST(Sparkline, LinearScale) {
  // (v - 1) / 7 * 7 = v - 1: levels 0..7 exactly.
  const std::vector<double> ramp = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(sparkline(ramp), "▁▂▃▄▅▆▇█");
  // {0, .5, 1}: round(3.5) = 4 (halves up) -> ▅.  {0, .3, 1}: round(2.1) = 2 -> ▃.
  EXPECT_EQ(sparkline(std::vector<double>{0, 0.5, 1}), "▁▅█");
  EXPECT_EQ(sparkline(std::vector<double>{0, 0.3, 1}), "▁▃█");
  EXPECT_EQ(sparkline(std::vector<double>{}), "");
}

TEST(Sparkline, NaNIsASpaceAndEqualValuesAreTheLowestBlock) {
  EXPECT_EQ(sparkline(std::vector<double>{kNaN}), " ");
  EXPECT_EQ(sparkline(std::vector<double>{kNaN, 1, kNaN, 2}), " ▁ █");
  EXPECT_EQ(sparkline(std::vector<double>{3, 3, 3}), "▁▁▁");
  EXPECT_EQ(sparkline(std::vector<double>{3, kInf, 3}), "▁ ▁");
}

TEST(Sparkline, LogScale) {
  // log10: 0, 1, 2 -> t = 0, .5, 1 -> round(0), round(3.5) = 4, round(7) -> ▁▅█.
  EXPECT_EQ(sparkline(std::vector<double>{1, 10, 100}, true), "▁▅█");
  // 0, 3, 1 -> t = 0, 1, 1/3 -> 0, 7, round(2.33) = 2 -> ▁█▃.
  EXPECT_EQ(sparkline(std::vector<double>{1, 1000, 10}, true), "▁█▃");
  // Non-positive values are spaces on the log scale and do not stretch it; linear would have ▁ for 0.
  EXPECT_EQ(sparkline(std::vector<double>{0, 1, -5, 100}, true), " ▁ █");
  EXPECT_EQ(sparkline(std::vector<double>{0.001, 0.001}, true), "▁▁");
}

}  // namespace
}  // namespace perfhound::load
