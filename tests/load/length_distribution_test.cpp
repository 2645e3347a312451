#include "load/length_distribution.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#ifndef PERFHOUND_TEST_DATA
#define PERFHOUND_TEST_DATA "data"
#endif

namespace perfhound::load {
namespace {

// Statistical checks use 100k draws and a band of kZ standard errors around the exact value. The seeds are
// fixed, so a pass is reproducible; kZ = 5 leaves a false-failure chance near 6e-7 per check for any other
// seed, so the bands are not tuned to these seeds.
constexpr int kDraws = 100'000;
constexpr double kZ = 5.0;

struct Moments {
  double mean = 0;
  double sd = 0;
};

Moments moments(const std::vector<double>& xs) {
  Moments m;
  m.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / static_cast<double>(xs.size());
  double ss = 0;
  for (double x : xs) ss += (x - m.mean) * (x - m.mean);
  m.sd = std::sqrt(ss / static_cast<double>(xs.size() - 1));
  return m;
}

std::vector<double> draws(const LengthDistribution& d, std::uint64_t seed, int n = kDraws) {
  std::vector<double> xs;
  xs.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) xs.push_back(static_cast<double>(d.sample(seed, static_cast<std::uint64_t>(i), kInputLengthStream)));
  return xs;
}

LengthDistribution parse_ok(std::string_view spec) {
  auto r = parse_length_distribution(spec);
  EXPECT_TRUE(r.ok()) << spec << ": " << (r.ok() ? "" : r.error().message);
  return std::move(r).value();
}

// ---- the random primitives

TEST(SplitMix64, MatchesTheReferenceImplementation) {
  // Vigna's splitmix64.c with x = 1234567: next() adds the golden gamma, then mixes.
  std::uint64_t x = 1234567;
  const std::uint64_t golden = 0x9E3779B97F4A7C15ull;
  const std::uint64_t expected[] = {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                                    4593380528125082431ull, 16408922859458223821ull};
  for (std::uint64_t e : expected) {
    x += golden;
    EXPECT_EQ(splitmix64_mix(x), e);
  }
}

TEST(CounterRng, IsAPureFunctionOfSeedIndexAndStream) {
  CounterRng a(42, 7, kInputLengthStream);
  CounterRng b(42, 7, kInputLengthStream);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.next_u64(), b.next_u64());
  // Any coordinate changed gives another sequence.
  const std::uint64_t base = CounterRng(42, 7, kInputLengthStream).next_u64();
  EXPECT_NE(base, CounterRng(43, 7, kInputLengthStream).next_u64());
  EXPECT_NE(base, CounterRng(42, 8, kInputLengthStream).next_u64());
  EXPECT_NE(base, CounterRng(42, 7, kOutputLengthStream).next_u64());
}

TEST(CounterRng, UniformStaysInItsIntervals) {
  CounterRng rng(1, 2, 3);
  for (int i = 0; i < 100'000; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const double v = rng.uniform_open();
    ASSERT_GT(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
}

TEST(CounterRng, BelowIsUniformByChiSquare) {
  // 10 bins, 100k draws: chi-square with 9 degrees of freedom has mean 9 and sd sqrt(18) = 4.24; 9 + 5 sd = 30.
  CounterRng rng(5, 0, 9);
  std::vector<int> counts(10, 0);
  for (int i = 0; i < kDraws; ++i) {
    const auto v = rng.below(10);
    ASSERT_LT(v, 10u);
    ++counts[v];
  }
  double chi2 = 0;
  for (int c : counts) chi2 += (c - kDraws / 10.0) * (c - kDraws / 10.0) / (kDraws / 10.0);
  EXPECT_LT(chi2, 9 + kZ * std::sqrt(18.0));
  EXPECT_EQ(CounterRng(1, 1, 1).below(1), 0u);
}

TEST(CounterRng, NormalExponentialAndGammaHaveTheirMoments) {
  // Each draw from its own (seed, i) generator, as the load modules use them.
  std::vector<double> normal, expo;
  for (int i = 0; i < kDraws; ++i) {
    normal.push_back(CounterRng(11, static_cast<std::uint64_t>(i), 1).normal());
    expo.push_back(CounterRng(12, static_cast<std::uint64_t>(i), 1).exponential());
  }
  const double se = 1.0 / std::sqrt(kDraws);
  const Moments n = moments(normal);
  EXPECT_NEAR(n.mean, 0.0, kZ * se);
  EXPECT_NEAR(n.sd, 1.0, kZ * se / std::sqrt(2.0));  // se of a normal sd: sigma / sqrt(2N)
  const Moments e = moments(expo);
  EXPECT_NEAR(e.mean, 1.0, kZ * se);                 // exponential(1): sd 1
  EXPECT_NEAR(e.sd, 1.0, kZ * se * std::sqrt(2.0));  // se of sd: sigma sqrt((kurtosis 9 - 1) / 4N) = sqrt(2/N)
  for (double shape : {0.3, 1.0, 4.5}) {
    std::vector<double> g;
    for (int i = 0; i < kDraws; ++i) g.push_back(CounterRng(13, static_cast<std::uint64_t>(i), 1).gamma(shape));
    const Moments m = moments(g);
    // gamma(k, 1): mean k, variance k, kurtosis 3 + 6/k.
    EXPECT_NEAR(m.mean, shape, kZ * std::sqrt(shape / kDraws)) << shape;
    const double se_sd = std::sqrt(shape) * std::sqrt((2 + 6 / shape) / (4.0 * kDraws));
    EXPECT_NEAR(m.sd, std::sqrt(shape), kZ * se_sd) << shape;
    EXPECT_GE(*std::min_element(g.begin(), g.end()), 0.0);
  }
}

// ---- parsing and sampling

TEST(LengthDistribution, FixedIsAlwaysTheValue) {
  const auto d = parse_ok("512");
  EXPECT_EQ(d.kind(), LengthDistribution::Kind::kFixed);
  for (std::uint64_t i = 0; i < 100; ++i) EXPECT_EQ(d.sample(1, i, kInputLengthStream), 512);
  EXPECT_EQ(d.fixed_value(), 512);
  EXPECT_EQ(d.describe(), "512");
  EXPECT_EQ(d.to_json().dump(), R"({"kind":"fixed","tokens":512,"spec":"512"})");
  EXPECT_EQ(parse_ok("2k").fixed_value(), 2000);  // SI suffixes
  EXPECT_EQ(LengthDistribution::fixed(7).sample(0, 0, 0), 7);
  EXPECT_EQ(LengthDistribution::fixed(7).spec(), "7");
}

TEST(LengthDistribution, UniformCoversLoToHiWithTheDiscreteUniformMoments) {
  const auto d = parse_ok("uniform:100,300");
  const auto xs = draws(d, 7);
  // Discrete uniform on LO..HI: mean (LO + HI) / 2, variance ((HI - LO + 1)^2 - 1) / 12.
  const double var = (201.0 * 201.0 - 1) / 12;
  const Moments m = moments(xs);
  EXPECT_NEAR(m.mean, 200.0, kZ * std::sqrt(var / kDraws));
  // Uniform kurtosis is 1.8: se of sd = sigma sqrt(0.8 / 4N).
  EXPECT_NEAR(m.sd, std::sqrt(var), kZ * std::sqrt(var) * std::sqrt(0.8 / (4.0 * kDraws)));
  EXPECT_EQ(*std::min_element(xs.begin(), xs.end()), 100);  // both ends are reachable (P(miss) ~ e^-497)
  EXPECT_EQ(*std::max_element(xs.begin(), xs.end()), 300);
  EXPECT_EQ(d.describe(), "uniform 100..300");
  EXPECT_DOUBLE_EQ(d.nominal_mean(), 200);
  EXPECT_EQ(parse_ok("uniform:5,5").sample(3, 3, 3), 5);
}

TEST(LengthDistribution, NormalHasItsMeanAndStddev) {
  const auto d = parse_ok("normal:512,64");
  const Moments m = moments(draws(d, 8));
  // Rounding to integers adds variance 1/12 (Sheppard's correction); 8 sd above 1 the clamp never acts.
  const double sd = std::sqrt(64.0 * 64.0 + 1.0 / 12);
  EXPECT_NEAR(m.mean, 512.0, kZ * sd / std::sqrt(kDraws));
  EXPECT_NEAR(m.sd, sd, kZ * sd / std::sqrt(2.0 * kDraws));
  EXPECT_EQ(d.describe(), "normal mean 512 stddev 64");
  EXPECT_EQ(d.to_json().dump(), R"({"kind":"normal","mean":512.0,"stddev":64.0,"spec":"normal:512,64"})");
}

TEST(LengthDistribution, LognormalHasTheMedianAndTheMeanOfItsFormula) {
  const double median = 256, sigma = 0.5;
  const auto d = parse_ok("lognormal:256,0.5");
  auto xs = draws(d, 9);
  // Lognormal(mu = ln median, sigma): mean = median e^(sigma^2/2), variance = (e^(sigma^2) - 1) e^(2 mu + sigma^2).
  const double mean = median * std::exp(sigma * sigma / 2);
  const double var = (std::exp(sigma * sigma) - 1) * median * median * std::exp(sigma * sigma);
  const Moments m = moments(xs);
  EXPECT_NEAR(m.mean, mean, kZ * std::sqrt(var / kDraws));
  EXPECT_NEAR(d.nominal_mean(), mean, 1e-9);
  // The sample median: se = 1 / (2 f(median) sqrt(N)) with f(median) = 1 / (median sigma sqrt(2 pi)); +0.5
  // for rounding to integers.
  std::nth_element(xs.begin(), xs.begin() + kDraws / 2, xs.end());
  const double median_se = median * sigma * std::sqrt(2 * M_PI) / (2 * std::sqrt(kDraws));
  EXPECT_NEAR(xs[kDraws / 2], median, kZ * median_se + 0.5);
  EXPECT_EQ(d.describe(), "lognormal median 256 sigma 0.5 (mean 290)");
}

TEST(LengthDistribution, SamplesAreClampedToAtLeastOne) {
  // normal:2,10 puts P(X < 1.5) = Phi(-0.05) = 0.48006 of its draws at the clamp.
  const auto d = parse_ok("normal:2,10");
  const auto xs = draws(d, 10);
  EXPECT_GE(*std::min_element(xs.begin(), xs.end()), 1.0);
  const double ones = static_cast<double>(std::count(xs.begin(), xs.end(), 1.0)) / kDraws;
  const double p = 0.5 * std::erfc(0.05 / std::sqrt(2.0));
  EXPECT_NEAR(ones, p, kZ * std::sqrt(p * (1 - p) / kDraws));
  // A huge lognormal tail is clamped to kMaxLengthTokens instead of overflowing.
  const auto wide = parse_ok("lognormal:1e7,10");
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const auto v = wide.sample(1, i, kInputLengthStream);
    ASSERT_GE(v, 1);
    ASSERT_LE(v, kMaxLengthTokens);
  }
}

TEST(LengthDistribution, SampleDependsOnlyOnSeedIndexAndStream) {
  const auto d = parse_ok("lognormal:512,1");
  std::vector<std::int64_t> forward, backward(1000);
  for (std::uint64_t i = 0; i < 1000; ++i) forward.push_back(d.sample(3, i, kInputLengthStream));
  for (std::uint64_t i = 1000; i-- > 0;) backward[i] = d.sample(3, i, kInputLengthStream);
  EXPECT_EQ(forward, backward);
  int same_stream = 0, same_seed = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    same_stream += d.sample(3, i, kOutputLengthStream) == forward[i];
    same_seed += d.sample(4, i, kInputLengthStream) == forward[i];
  }
  EXPECT_LT(same_stream, 20);  // collisions of a wide continuous distribution rounded to integers
  EXPECT_LT(same_seed, 20);
}

TEST(LengthDistribution, PinnedSamplesKeepTheSeedContract) {
  // Values this implementation produced when written. They must not change: a seed in a published result
  // has to give the same requests in every later version and on every platform.
  EXPECT_EQ(parse_ok("uniform:1,1000").sample(0, 0, kInputLengthStream), 604);
  EXPECT_EQ(parse_ok("normal:512,64").sample(1, 2, kInputLengthStream), 564);
  EXPECT_EQ(parse_ok("lognormal:512,0.5").sample(2, 3, kOutputLengthStream), 573);
}

TEST(LengthDistribution, HistogramIsSampledByWeight) {
  const std::string text =
      "# prompt lengths from a production sample\n"
      "length,count\n"
      "128,1\n"
      "256, 2\n"
      "\n"
      "512\t3   # tab-separated works too\n"
      "1024 0\n"  // zero weight: never drawn
      "2048 4\n";
  auto r = parse_length_histogram(text, "lens.csv", "hist:lens.csv");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const LengthDistribution& d = *r;
  std::map<std::int64_t, int> counts;
  for (int i = 0; i < kDraws; ++i) ++counts[d.sample(21, static_cast<std::uint64_t>(i), kInputLengthStream)];
  const std::map<std::int64_t, double> p = {{128, 0.1}, {256, 0.2}, {512, 0.3}, {2048, 0.4}};
  EXPECT_EQ(counts.size(), 4u);
  EXPECT_EQ(counts.count(1024), 0u);
  for (const auto& [len, prob] : p) {
    EXPECT_NEAR(counts[len] / static_cast<double>(kDraws), prob, kZ * std::sqrt(prob * (1 - prob) / kDraws)) << len;
  }
  EXPECT_DOUBLE_EQ(d.nominal_mean(), 0.1 * 128 + 0.2 * 256 + 0.3 * 512 + 0.4 * 2048);
  EXPECT_EQ(d.describe(), "histogram 'lens.csv' (5 lengths 128..2048, mean 1037)");
  EXPECT_EQ(d.to_json()["kind"], "histogram");
  EXPECT_EQ(d.spec(), "hist:lens.csv");
}

TEST(LengthDistribution, HistogramFileFromTheFixture) {
  const std::string path = std::string(PERFHOUND_TEST_DATA) + "/load/input_len_hist.csv";
  const auto d = parse_ok("hist:" + path);
  EXPECT_EQ(d.kind(), LengthDistribution::Kind::kHistogram);
  EXPECT_EQ(d.to_json()["lengths"], 6);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const auto v = d.sample(1, i, kInputLengthStream);
    EXPECT_TRUE(v == 64 || v == 128 || v == 256 || v == 512 || v == 1024 || v == 2048) << v;
  }
}

struct BadSpec {
  const char* spec;
  const char* message;  // a substring the error must contain
};

TEST(LengthDistribution, EveryBadSpecSaysWhatIsWrong) {
  const BadSpec cases[] = {
      {"", "empty length distribution (use a token count like 512"},
      {"abc", "cannot parse 'abc' as a length distribution"},
      {"0", "'0': a token count must be an integer from 1 to 100000000"},
      {"-5", "'-5': a token count must be an integer"},
      {"12.5", "'12.5': a token count must be an integer"},
      {"1e9", "'1e9': a token count must be an integer from 1 to 100000000"},
      {"poisson:3", "cannot parse 'poisson:3': unknown distribution 'poisson'"},
      {"uniform:5", "cannot parse 'uniform:5' (use uniform:LO,HI"},
      {"uniform:1,2,3", "cannot parse 'uniform:1,2,3' (use uniform:LO,HI"},
      {"uniform:a,5", "cannot parse 'uniform:a,5'"},
      {"uniform:10,5", "'uniform:10,5': LO 10 is above HI 5"},
      {"uniform:0,5", "'uniform:0,5': LO 0 must be an integer from 1"},
      {"uniform:1,2.5", "'uniform:1,2.5': HI 2.5 must be an integer"},
      {"normal:5", "cannot parse 'normal:5' (use normal:MEAN,STDDEV"},
      {"normal:5,-1", "'normal:5,-1': STDDEV -1 must be from 0"},
      {"normal:0.5,1", "'normal:0.5,1': MEAN 0.5 must be from 1"},
      {"lognormal:512", "cannot parse 'lognormal:512' (use lognormal:MEDIAN,SIGMA"},
      {"lognormal:0,1", "'lognormal:0,1': MEDIAN 0 must be > 0"},
      {"lognormal:100,-0.5", "'lognormal:100,-0.5': SIGMA -0.5 must be from 0 to 10"},
      {"hist:", "cannot parse 'hist:' (use hist:FILE)"},
      {"hist:/nonexistent/lens.csv", "'hist:/nonexistent/lens.csv': cannot read '/nonexistent/lens.csv'"},
  };
  for (const auto& c : cases) {
    const auto r = parse_length_distribution(c.spec);
    ASSERT_FALSE(r.ok()) << "'" << c.spec << "' parsed";
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << "spec '" << c.spec << "' gave: " << r.error().message;
  }
}

TEST(LengthDistribution, BadHistogramLinesNameTheLine) {
  const BadSpec cases[] = {
      {"128,1\n256\n", "'h.csv' line 2: expected 'LENGTH,WEIGHT' or 'LENGTH WEIGHT', got '256'"},
      {"128,1\n0,2\n", "'h.csv' line 2: length '0' must be an integer from 1"},
      {"128,1\n# c\n12.5,2\n", "'h.csv' line 3: length '12.5' must be an integer"},
      {"128,-1\n", "'h.csv' line 1: weight '-1' must be a number >= 0"},
      {"128,x\n", "'h.csv' line 1: weight 'x' must be a number >= 0"},
      {"length,count\nfoo,1\n", "'h.csv' line 2: length 'foo' must be an integer"},
      {"# only comments\n\n", "'h.csv': no 'LENGTH,WEIGHT' lines"},
      {"128,0\n256,0\n", "'h.csv': the weights sum to 0"},
      {"1,2,3\n", "'h.csv' line 1: expected 'LENGTH,WEIGHT'"},
  };
  for (const auto& c : cases) {
    const auto r = parse_length_histogram(c.spec, "h.csv", "hist:h.csv");
    ASSERT_FALSE(r.ok()) << "'" << c.spec << "' parsed";
    EXPECT_NE(r.error().message.find(c.message), std::string::npos) << "text '" << c.spec << "' gave: " << r.error().message;
  }
}

}  // namespace
}  // namespace perfhound::load
