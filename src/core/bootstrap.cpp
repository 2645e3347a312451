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

}  // namespace

Result<Interval> bootstrap_ci(std::span<const double> samples, const SortedStatistic& statistic,
                              double confidence, int resamples, std::uint64_t seed) {
  if (samples.size() < 2) {
    return Error{"bootstrap: need at least 2 samples, got " + std::to_string(samples.size())};
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
    if (std::isnan(samples[i])) return Error{"bootstrap: sample " + std::to_string(i) + " is NaN"};
  }

  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  Interval out;
  out.estimate = statistic(sorted);
  if (std::isnan(out.estimate)) return Error{"bootstrap: statistic of the whole sample is NaN"};

  // Drawing indices into the sorted sample and counting them yields each resample already sorted, in
  // O(n) instead of an O(n log n) sort; the statistic only depends on the multiset, not the draw order.
  const std::size_t n = sorted.size();
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> multiplicity(n);
  std::vector<double> resample(n);
  std::vector<double> replicates(static_cast<std::size_t>(resamples));
  for (int b = 0; b < resamples; ++b) {
    std::fill(multiplicity.begin(), multiplicity.end(), 0u);
    for (std::size_t i = 0; i < n; ++i) ++multiplicity[uniform_index(rng, n)];
    auto out_it = resample.begin();
    for (std::size_t i = 0; i < n; ++i) out_it = std::fill_n(out_it, multiplicity[i], sorted[i]);
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

}  // namespace perfhound::core
