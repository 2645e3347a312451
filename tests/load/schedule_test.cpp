#include "load/schedule.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <vector>

#include "load/dataset_readers.h"

namespace perfhound::load {
namespace {

constexpr double kZ = 5.0;  // bands of 5 standard errors (see length_distribution_test.cpp)

ArrivalSchedule make(OpenLoopConfig config) {
  auto r = ArrivalSchedule::create(config);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return std::move(r).value();
}

OpenLoopConfig config(double rate, ArrivalProcess process = ArrivalProcess::kPoisson, double burstiness = 1.0,
                      std::uint64_t seed = 1) {
  OpenLoopConfig c;
  c.rate_per_s = rate;
  c.process = process;
  c.burstiness = burstiness;
  c.seed = seed;
  return c;
}

std::vector<std::int64_t> times(const ArrivalSchedule& s, std::size_t n) {
  auto cursor = make_open_loop_cursor(s);
  std::vector<std::int64_t> t;
  t.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto a = cursor->next();
    EXPECT_TRUE(a.has_value());
    EXPECT_EQ(a->index, i);
    t.push_back(a->intended_ns);
  }
  return t;
}

// Gaps in seconds between consecutive arrivals.
std::vector<double> gaps_s(const std::vector<std::int64_t>& t) {
  std::vector<double> g;
  for (std::size_t i = 1; i < t.size(); ++i) g.push_back(static_cast<double>(t[i] - t[i - 1]) / 1e9);
  return g;
}

struct MeanCv {
  double mean;
  double cv;
};

MeanCv mean_cv(const std::vector<double>& xs) {
  const double n = static_cast<double>(xs.size());
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return {mean, std::sqrt(ss / (n - 1)) / mean};
}

std::size_t arrivals_up_to(const std::vector<std::int64_t>& t, std::int64_t end_ns) {
  return static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), end_ns) - t.begin());
}

TEST(ArrivalProcess, ParsesTheThreeNames) {
  EXPECT_EQ(parse_arrival_process("poisson").value(), ArrivalProcess::kPoisson);
  EXPECT_EQ(parse_arrival_process("gamma").value(), ArrivalProcess::kGamma);
  EXPECT_EQ(parse_arrival_process("constant").value(), ArrivalProcess::kConstant);
  const auto bad = parse_arrival_process("bursty");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "unknown arrival process 'bursty' (use poisson, gamma or constant)");
  EXPECT_EQ(arrival_process_name(ArrivalProcess::kGamma), "gamma");
}

TEST(ArrivalSchedule, RejectsBadConfigsNamingTheFlag) {
  struct Case {
    OpenLoopConfig config;
    const char* message;
  };
  auto with = [](auto edit) {
    OpenLoopConfig c = config(10);
    edit(c);
    return c;
  };
  const Case cases[] = {
      {config(0), "--rate: 0 requests/s must be a finite number > 0"},
      {config(-5), "--rate: -5 requests/s must be a finite number > 0"},
      {config(std::nan("")), "--rate: nan requests/s"},
      {config(INFINITY), "--rate: inf requests/s"},
      {config(10, ArrivalProcess::kGamma, 0), "--burstiness: 0 must be a finite number > 0"},
      {config(10, ArrivalProcess::kGamma, -1), "--burstiness: -1 must be a finite number > 0"},
      {config(10, ArrivalProcess::kPoisson, 0.5), "--burstiness 0.5 applies only to --arrival gamma"},
      {config(10, ArrivalProcess::kConstant, 2), "--burstiness 2 applies only to --arrival gamma (the constant process"},
      {with([](OpenLoopConfig& c) { c.ramp_up_ns = -1; }), "--ramp-up: -1 ns is negative"},
      {with([](OpenLoopConfig& c) { c.ramp_up_ns = 1'000'000'000; c.ramp_start_rate_per_s = -2; }),
       "--ramp-start-rate: -2 requests/s must be a finite number >= 0"},
      {with([](OpenLoopConfig& c) { c.ramp_start_rate_per_s = 5; }), "--ramp-start-rate 5 needs --ramp-up"},
  };
  for (const auto& c : cases) {
    const auto r = ArrivalSchedule::create(c.config);
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos) << r.error().message;
  }
}

TEST(ArrivalSchedule, ConstantIsExactlyOneOverTheRate) {
  const auto s = make(config(3, ArrivalProcess::kConstant));
  const auto t = times(s, 10'000);
  for (std::size_t i = 0; i < t.size(); ++i) {
    ASSERT_EQ(t[i], std::llround(static_cast<double>(i) * 1e9 / 3)) << i;  // no drift from summing rounded gaps
  }
  EXPECT_EQ(t[3], 1'000'000'000);
  EXPECT_EQ(t[9999], 3'333'000'000'000);  // 9999 / 3 s
  const auto k = times(make(config(1000, ArrivalProcess::kConstant)), 100);
  for (std::size_t i = 0; i < k.size(); ++i) EXPECT_EQ(k[i], static_cast<std::int64_t>(i) * 1'000'000);
}

TEST(ArrivalSchedule, PoissonGapsAreExponentialWithMeanOneOverTheRate) {
  constexpr std::size_t kN = 100'000;
  const double rate = 50;
  const auto g = gaps_s(times(make(config(rate, ArrivalProcess::kPoisson, 1, 7)), kN + 1));
  const MeanCv m = mean_cv(g);
  // CLT: the mean of N exponential gaps has standard error (1/rate)/sqrt(N).
  EXPECT_NEAR(m.mean, 1 / rate, kZ * (1 / rate) / std::sqrt(kN));
  // Delta method: the sample CV of an exponential has standard error sqrt(1/N).
  EXPECT_NEAR(m.cv, 1.0, kZ / std::sqrt(kN));
  // Kolmogorov-Smirnov against F(x) = 1 - exp(-rate x): D_N < 1.95 / sqrt(N) is the 0.1% critical value
  // (sqrt(ln(2/0.001) / 2) = 1.949).
  auto sorted = g;
  std::sort(sorted.begin(), sorted.end());
  double d = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    const double f = 1 - std::exp(-rate * sorted[i]);
    d = std::max({d, std::fabs(f - static_cast<double>(i) / kN), std::fabs(static_cast<double>(i + 1) / kN - f)});
  }
  EXPECT_LT(d, 1.949 / std::sqrt(kN)) << "KS statistic " << d;
}

TEST(ArrivalSchedule, GammaHasTheCoefficientOfVariationOfItsBurstiness) {
  constexpr std::size_t kN = 200'000;
  const double rate = 20;
  for (double k : {0.25, 0.5, 2.0, 4.0}) {
    const auto g = gaps_s(times(make(config(rate, ArrivalProcess::kGamma, k, 3)), kN + 1));
    const MeanCv m = mean_cv(g);
    // gamma(k, 1/(rate k)): mean 1/rate, CV 1/sqrt(k). Delta method for the sample CV, using skewness 2/sqrt(k)
    // and kurtosis 3 + 6/k: Var = (c^2/N)((kurt - 1)/4 - c skew + c^2) = (1/(kN))(1/2 + 1/(2k)).
    const double cv = 1 / std::sqrt(k);
    const double cv_se = std::sqrt((0.5 + 0.5 / k) / (k * kN));
    EXPECT_NEAR(m.mean, 1 / rate, kZ * cv * (1 / rate) / std::sqrt(kN)) << "burstiness " << k;
    EXPECT_NEAR(m.cv, cv, kZ * cv_se) << "burstiness " << k;
  }
}

TEST(ArrivalSchedule, BurstinessOneIsPoisson) {
  // gamma(1, 1) is exponential(1); the schedules differ in the draws (Marsaglia-Tsang vs inverse CDF), not
  // in distribution.
  constexpr std::size_t kN = 100'000;
  const auto g = gaps_s(times(make(config(10, ArrivalProcess::kGamma, 1.0, 4)), kN + 1));
  EXPECT_NEAR(mean_cv(g).cv, 1.0, kZ / std::sqrt(kN));
}

TEST(ArrivalSchedule, RampArrivalsFollowTheIntegralOfTheRate) {
  // Poisson from 0 to 1000/s over 10 s: L(t) = 1000 t^2 / 20 on the ramp, so L(5 s) = 1250, L(10 s) = 5000,
  // then 1000/s. A count over intensity L is Poisson(L): sd sqrt(L). Arrival 0 at t = 0 adds one.
  OpenLoopConfig c = config(1000, ArrivalProcess::kPoisson, 1, 11);
  c.ramp_up_ns = 10'000'000'000;
  const auto s = make(c);
  const auto t = times(s, 12'000);
  const auto within = [](double count, double intensity) { return std::fabs(count - intensity) <= kZ * std::sqrt(intensity); };
  EXPECT_TRUE(within(static_cast<double>(arrivals_up_to(t, 5'000'000'000)) - 1, 1250)) << arrivals_up_to(t, 5'000'000'000);
  EXPECT_TRUE(within(static_cast<double>(arrivals_up_to(t, 10'000'000'000)) - 1, 5000)) << arrivals_up_to(t, 10'000'000'000);
  const double after = static_cast<double>(arrivals_up_to(t, 15'000'000'000) - arrivals_up_to(t, 10'000'000'000));
  EXPECT_TRUE(within(after, 5000)) << after;
  EXPECT_DOUBLE_EQ(s.cumulative_intensity(5'000'000'000), 1250);
  EXPECT_DOUBLE_EQ(s.cumulative_intensity(10'000'000'000), 5000);
  EXPECT_DOUBLE_EQ(s.cumulative_intensity(12'000'000'000), 7000);

  // From a nonzero start: 200 -> 1000/s over 10 s, L(10 s) = (200 + 1000) * 10 / 2 = 6000.
  c.ramp_start_rate_per_s = 200;
  const auto t2 = times(make(c), 8000);
  EXPECT_TRUE(within(static_cast<double>(arrivals_up_to(t2, 10'000'000'000)) - 1, 6000)) << arrivals_up_to(t2, 10'000'000'000);
}

TEST(ArrivalSchedule, ConstantRampMatchesTheClosedForm) {
  // Constant gaps put arrival i at L^-1(i); from r0 = 0, L(t) = r1 t^2 / (2T) gives t_i = sqrt(2 i T / r1).
  OpenLoopConfig c = config(100, ArrivalProcess::kConstant);
  c.ramp_up_ns = 4'000'000'000;
  const auto s = make(c);
  const auto t = times(s, 600);
  for (std::size_t i = 0; i <= 200; ++i) {  // L(T) = 100 * 4 / 2 = 200: arrivals 0..200 are on the ramp
    EXPECT_NEAR(static_cast<double>(t[i]), std::sqrt(2.0 * static_cast<double>(i) * 4 / 100) * 1e9, 1.0) << i;
  }
  for (std::size_t i = 201; i < t.size(); ++i) {  // then every 10 ms
    EXPECT_NEAR(static_cast<double>(t[i]), 4e9 + static_cast<double>(i - 200) * 1e7, 1.0) << i;
  }
  // A ramp down, 1000 -> 100/s over 5 s: L(5 s) = 2750, so arrivals 0..2750 fall within the ramp.
  OpenLoopConfig down = config(100, ArrivalProcess::kConstant);
  down.ramp_up_ns = 5'000'000'000;
  down.ramp_start_rate_per_s = 1000;
  const auto td = times(make(down), 3000);
  EXPECT_EQ(arrivals_up_to(td, 5'000'000'000), 2751u);
  for (std::size_t i = 1; i < td.size(); ++i) ASSERT_GE(td[i], td[i - 1]);
  // The two maps invert each other.
  for (double x : {0.5, 10.0, 199.9, 200.0, 250.0}) {
    EXPECT_NEAR(s.cumulative_intensity(s.time_for_intensity(x)), x, 1e-6) << x;
  }
}

TEST(ArrivalSchedule, IsReproducibleForASeedAndDifferentForAnother) {
  const auto a = times(make(config(100, ArrivalProcess::kGamma, 0.5, 42)), 1000);
  const auto b = times(make(config(100, ArrivalProcess::kGamma, 0.5, 42)), 1000);
  const auto c = times(make(config(100, ArrivalProcess::kGamma, 0.5, 43)), 1000);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a[0], 0);
  for (std::size_t i = 1; i < a.size(); ++i) ASSERT_GE(a[i], a[i - 1]);
}

TEST(ArrivalSchedule, RanksWithAStrideSeeTheSameProcess) {
  OpenLoopConfig c = config(500, ArrivalProcess::kPoisson, 1, 9);
  c.ramp_up_ns = 1'000'000'000;
  const auto s = make(c);
  const auto all = times(s, 4000);
  constexpr std::uint64_t kRanks = 4;
  std::vector<bool> covered(all.size(), false);
  for (std::uint64_t rank = 0; rank < kRanks; ++rank) {
    auto cursor = make_open_loop_cursor(s, rank, kRanks);
    for (std::uint64_t k = 0; k < all.size() / kRanks; ++k) {
      const auto a = cursor->next();
      ASSERT_TRUE(a.has_value());
      ASSERT_EQ(a->index, rank + k * kRanks);
      ASSERT_EQ(a->intended_ns, all[a->index]);  // bitwise the same sums
      covered[a->index] = true;
    }
    EXPECT_EQ(cursor->describe()["stride"], kRanks);
    EXPECT_EQ(cursor->describe()["first"], rank);
  }
  EXPECT_TRUE(std::all_of(covered.begin(), covered.end(), [](bool b) { return b; }));
  // Random access from scratch agrees with the walk.
  for (std::uint64_t i : {0u, 1u, 17u, 3999u}) EXPECT_EQ(s.intended_ns(i), all[i]);
}

TEST(ArrivalSchedule, DescribeCarriesTheParameters) {
  OpenLoopConfig c = config(12.5, ArrivalProcess::kGamma, 0.5, 77);
  c.ramp_up_ns = 30'000'000'000;
  c.ramp_start_rate_per_s = 1;
  EXPECT_EQ(make(c).describe().dump(),
            R"({"process":"gamma","rate_per_s":12.5,"burstiness":0.5,"ramp_up_s":30.0,"ramp_start_rate_per_s":1.0,"seed":77})");
}

TEST(TraceReplay, DividesRecordedTimesByTheSpeedup) {
  const std::string trace = "timestamp_s,input_tokens,output_tokens\n10,5,5\n10.5,5,5\n12,5,5\n13.000000001,5,5\n";
  auto w = parse_arrival_trace(trace, "t.csv", {});
  ASSERT_TRUE(w.ok()) << w.error().message;
  auto cursor = make_trace_replay_cursor(**w, 2.0);
  ASSERT_TRUE(cursor.ok()) << cursor.error().message;
  // 3.000000001 s / 2 = 1500000000.5 ns, rounded half away from zero.
  const std::vector<std::int64_t> expected = {0, 250'000'000, 1'000'000'000, 1'500'000'001};
  for (std::uint64_t i = 0; i < 4; ++i) {
    const auto a = (*cursor)->next();
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->index, i);
    EXPECT_EQ(a->intended_ns, expected[i]);
  }
  EXPECT_FALSE((*cursor)->next().has_value());
  EXPECT_EQ((*cursor)->describe()["process"], "trace_replay");
  EXPECT_EQ((*cursor)->describe()["rows"], 4);

  auto odd = make_trace_replay_cursor(**w, 1.0, 1, 2);  // rank 1 of 2
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ((*odd)->next()->index, 1u);
  EXPECT_EQ((*odd)->next()->intended_ns, 3'000'000'001);
  EXPECT_FALSE((*odd)->next().has_value());
}

TEST(TraceReplay, RejectsABadSpeedupAndWorkloadsWithoutTimes) {
  auto w = parse_arrival_trace("timestamp_s,input_tokens,output_tokens\n0,1,1\n", "t.csv", {});
  ASSERT_TRUE(w.ok());
  for (double bad : {0.0, -1.0, std::nan(""), static_cast<double>(INFINITY)}) {
    const auto r = make_trace_replay_cursor(**w, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("--trace-speedup: "), std::string::npos) << r.error().message;
  }
  const auto synthetic = make_synthetic_workload(LengthDistribution::fixed(8), LengthDistribution::fixed(8), 0, false);
  const auto r = make_trace_replay_cursor(*synthetic, 1.0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "trace replay needs a workload with arrival times (a trace file); this one is 'synthetic'");
}

}  // namespace
}  // namespace perfhound::load
