// Percentile bootstrap interval: Efron, B. & Tibshirani, R. J. (1993), An Introduction to the Bootstrap,
// Chapman & Hall, ch. 13.3 ("the percentile interval"). Replicate endpoints use numpy-linear percentiles at
// alpha * 100 and (1 - alpha) * 100 with alpha = (1 - confidence) / 2, the same expressions as
// scipy.stats.bootstrap (scipy/stats/_resampling.py, 1.10), so results are comparable with it.
#include "core/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/percentile.h"

namespace perfhound::core {

namespace {

__extension__ typedef unsigned __int128 Uint128;  // NOLINT: GCC/Clang extension, hence __extension__

// Uniform integer in [0, n). std::uniform_int_distribution is not used because its algorithm, and so its
// output for a given seed, is implementation-defined: libstdc++ and libc++ would give different intervals.
// This is Lemire's multiply-and-reject method (D. Lemire, "Fast Random Integer Generation in an Interval",
// ACM TOMACS 29(1), 2019): exact uniformity, and a division only on the rare rejection path.
std::uint64_t uniform_index(std::mt19937_64& rng, std::uint64_t n) {
  Uint128 product = Uint128{rng()} * n;
  auto low = static_cast<std::uint64_t>(product);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n: the size of the biased low region
    while (low < threshold) {
      product = Uint128{rng()} * n;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

// A caller's number as they would have written it, for quoting in messages ("0.95", not "0.950000").
std::string input_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

Status check_arguments(std::span<const double> samples, const char* name, double confidence, int resamples) {
  if (samples.size() < 2) {
    return Error{"bootstrap: need at least 2 samples" + std::string(name) + ", got " + std::to_string(samples.size())};
  }
  if (!(confidence > 0.0 && confidence < 1.0)) {  // written so NaN fails too
    return Error{"bootstrap: confidence " + input_text(confidence) +
                 " is not strictly between 0 and 1 (use e.g. 0.95)"};
  }
  if (resamples < kMinBootstrapResamples) {
    return Error{"bootstrap: " + std::to_string(resamples) + " resamples is below the minimum of " +
                 std::to_string(kMinBootstrapResamples) + " (use 2000 or more for a 95% interval)"};
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (std::isnan(samples[i])) return Error{"bootstrap: sample " + std::to_string(i) + std::string(name) + " is NaN"};
  }
  return {};
}

// One resample of `sorted` with replacement, itself sorted: drawing indices into the sorted sample and
// counting them yields the resample in order, in O(n) instead of an O(n log n) sort; a statistic of a sample
// depends on the multiset only, not the draw order.
void draw_sorted_resample(std::mt19937_64& rng, std::span<const double> sorted, std::vector<std::uint32_t>& multiplicity,
                          std::vector<double>& resample) {
  const std::size_t n = sorted.size();
  std::fill(multiplicity.begin(), multiplicity.end(), 0u);
  for (std::size_t i = 0; i < n; ++i) ++multiplicity[uniform_index(rng, n)];
  auto out_it = resample.begin();
  for (std::size_t i = 0; i < n; ++i) out_it = std::fill_n(out_it, multiplicity[i], sorted[i]);
}

// Uniform in (0, 1), never 0 (its log is taken): the top 53 bits, centred in their interval.
double open_uniform(std::mt19937_64& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53; }

// Standard normal by Box-Muller (one of the pair; std::normal_distribution's algorithm is unspecified).
double standard_normal(std::mt19937_64& rng) {
  const double u1 = open_uniform(rng), u2 = open_uniform(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
}

// Gamma(shape, 1) for shape >= 1: Marsaglia & Tsang (2000), without the squeeze (the log test alone).
double gamma_variate(std::mt19937_64& rng, double shape) {
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  while (true) {
    const double z = standard_normal(rng);
    const double t = 1.0 + c * z;
    if (t <= 0) continue;
    const double v = t * t * t;
    if (std::log(open_uniform(rng)) < 0.5 * z * z + d - d * v + d * std::log(v)) return d * v;
  }
}

// Beta(a, b), a and b >= 1, as G_a / (G_a + G_b).
double beta_variate(std::mt19937_64& rng, double a, double b) {
  const double ga = gamma_variate(rng, a);
  const double gb = gamma_variate(rng, b);
  return ga / (ga + gb);
}

// The 1-based index into the sorted sample of n values that a uniform u in (0, 1) draws: ceil(n u) in [1, n].
std::size_t drawn_index(double u, std::size_t n) {
  const double i = std::ceil(static_cast<double>(n) * u);
  return static_cast<std::size_t>(std::clamp(i, 1.0, static_cast<double>(n)));
}

// The q-th percentile (numpy linear) of one resample of `sorted`, from two of the resample's order statistics.
double resampled_percentile(std::mt19937_64& rng, std::span<const double> sorted, double q) {
  const std::size_t n = sorted.size();
  const double h = static_cast<double>(n - 1) * q / 100.0;
  const auto j = static_cast<std::size_t>(std::floor(h));  // 0-based: order statistics j + 1 and j + 2
  const double frac = h - static_cast<double>(j);
  const std::size_t k = j + 1;
  const double u = beta_variate(rng, static_cast<double>(k), static_cast<double>(n + 1 - k));
  const double lower = sorted[drawn_index(u, n) - 1];
  if (frac == 0 || k >= n) return lower;
  // The smallest of the n - k uniforms above u: u + (1 - u) (1 - W^(1 / (n - k))).
  const double step = -std::expm1(std::log(open_uniform(rng)) / static_cast<double>(n - k));
  const double upper = sorted[drawn_index(u + (1 - u) * step, n) - 1];
  return lower + frac * (upper - lower);
}

}  // namespace

Result<Interval> bootstrap_ci(std::span<const double> samples, const SortedStatistic& statistic,
                              double confidence, int resamples, std::uint64_t seed) {
  PH_TRY(check_arguments(samples, "", confidence, resamples));

  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  Interval out;
  out.estimate = statistic(sorted);
  if (std::isnan(out.estimate)) return Error{"bootstrap: statistic of the whole sample is NaN"};

  const std::size_t n = sorted.size();
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> multiplicity(n);
  std::vector<double> resample(n);
  std::vector<double> replicates(static_cast<std::size_t>(resamples));
  for (int b = 0; b < resamples; ++b) {
    draw_sorted_resample(rng, sorted, multiplicity, resample);
    const double theta = statistic(resample);
    if (std::isnan(theta)) {
      return Error{"bootstrap: statistic is NaN on resample " + std::to_string(b) + " (seed " +
                   std::to_string(seed) + ")"};
    }
    replicates[static_cast<std::size_t>(b)] = theta;
  }
  std::sort(replicates.begin(), replicates.end());
  const double alpha = (1.0 - confidence) / 2.0;
  out.lo = percentile_of_sorted(replicates, alpha * 100.0);
  out.hi = percentile_of_sorted(replicates, (1.0 - alpha) * 100.0);
  return out;
}

Result<Interval> bootstrap_percentile_ci(std::span<const double> samples, double q, double confidence,
                                         int resamples, std::uint64_t seed) {
  if (!(q >= 0.0 && q <= 100.0)) {
    return Error{"bootstrap: percentile " + input_text(q) + " is outside [0, 100]"};
  }
  return bootstrap_ci(
      samples, [q](std::span<const double> sorted) { return percentile_of_sorted(sorted, q); }, confidence,
      resamples, seed);
}

namespace {
// The percentile interval of the sorted-to-be replicates of B - A, and the two-sided Monte Carlo p-value of
// "no difference" with the +1 correction (Davison & Hinkley 1997, ch. 4): never 0 from finitely many
// replicates.
void finish_difference(std::vector<double>& replicates, double confidence, std::int64_t at_or_below_zero,
                       std::int64_t at_or_above_zero, DifferenceInterval& out) {
  std::sort(replicates.begin(), replicates.end());
  const double alpha = (1.0 - confidence) / 2.0;
  out.lo = percentile_of_sorted(replicates, alpha * 100.0);
  out.hi = percentile_of_sorted(replicates, (1.0 - alpha) * 100.0);
  const auto tail = static_cast<double>(std::min(at_or_below_zero, at_or_above_zero));
  out.p_value = std::min(1.0, 2.0 * (1.0 + tail) / (static_cast<double>(replicates.size()) + 1.0));
}
}  // namespace

Result<DifferenceInterval> bootstrap_difference_ci(std::span<const double> x, std::span<const double> y,
                                                   const SortedStatistic& statistic, double confidence, int resamples,
                                                   std::uint64_t seed) {
  PH_TRY(check_arguments(x, " of x", confidence, resamples));
  PH_TRY(check_arguments(y, " of y", confidence, resamples));
  std::vector<double> xs(x.begin(), x.end()), ys(y.begin(), y.end());
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  DifferenceInterval out;
  out.estimate = statistic(ys) - statistic(xs);
  if (std::isnan(out.estimate)) return Error{"bootstrap: statistic of the whole samples is NaN"};

  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> multiplicity(std::max(xs.size(), ys.size()));
  std::vector<double> resample_x(xs.size()), resample_y(ys.size());
  std::vector<double> replicates(static_cast<std::size_t>(resamples));
  std::int64_t at_or_below_zero = 0, at_or_above_zero = 0;
  for (int b = 0; b < resamples; ++b) {
    multiplicity.resize(xs.size());
    draw_sorted_resample(rng, xs, multiplicity, resample_x);
    multiplicity.resize(ys.size());
    draw_sorted_resample(rng, ys, multiplicity, resample_y);
    const double d = statistic(resample_y) - statistic(resample_x);
    if (std::isnan(d)) {
      return Error{"bootstrap: statistic is NaN on resample " + std::to_string(b) + " (seed " + std::to_string(seed) +
                   ")"};
    }
    at_or_below_zero += d <= 0 ? 1 : 0;
    at_or_above_zero += d >= 0 ? 1 : 0;
    replicates[static_cast<std::size_t>(b)] = d;
  }
  finish_difference(replicates, confidence, at_or_below_zero, at_or_above_zero, out);
  return out;
}

Result<DifferenceInterval> bootstrap_percentile_difference_ci(std::span<const double> x, std::span<const double> y,
                                                              double q, double confidence, int resamples,
                                                              std::uint64_t seed) {
  if (!(q >= 0.0 && q <= 100.0)) {
    return Error{"bootstrap: percentile " + input_text(q) + " is outside [0, 100]"};
  }
  PH_TRY(check_arguments(x, " of x", confidence, resamples));
  PH_TRY(check_arguments(y, " of y", confidence, resamples));
  std::vector<double> xs(x.begin(), x.end()), ys(y.begin(), y.end());
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  DifferenceInterval out;
  out.estimate = percentile_of_sorted(ys, q) - percentile_of_sorted(xs, q);
  if (std::isnan(out.estimate)) return Error{"bootstrap: the percentile of the whole samples is NaN"};

  std::mt19937_64 rng(seed);
  std::vector<double> replicates(static_cast<std::size_t>(resamples));
  std::int64_t at_or_below_zero = 0, at_or_above_zero = 0;
  for (int b = 0; b < resamples; ++b) {
    const double qx = resampled_percentile(rng, xs, q);
    const double d = resampled_percentile(rng, ys, q) - qx;
    if (std::isnan(d)) {
      return Error{"bootstrap: percentile is NaN on resample " + std::to_string(b) + " (seed " + std::to_string(seed) +
                   ")"};
    }
    at_or_below_zero += d <= 0 ? 1 : 0;
    at_or_above_zero += d >= 0 ? 1 : 0;
    replicates[static_cast<std::size_t>(b)] = d;
  }
  finish_difference(replicates, confidence, at_or_below_zero, at_or_above_zero, out);
  return out;
}

}  // namespace perfhound::core
