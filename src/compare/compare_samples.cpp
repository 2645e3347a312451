// The statistics are those of core/rank_tests.h (Mann 1947 and Whitney; Hodges & Lehmann 1963; Moses 1965,
// Hollander & Wolfe 1999 section 4.3) and core/bootstrap.h (Efron & Tibshirani 1993). The verdict rule and
// the geometric mean over benchmarks follow benchstat (golang.org/x/perf/cmd/benchstat): a change is reported
// only when p < alpha, and a metric over several benchmarks is summarised by the geomean of its ratios.
#include "compare/compare_samples.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <fmt/format.h>
#include <vector>

#include "core/percentile.h"
#include "core/rank_tests.h"

namespace perfhound::compare {
namespace {

core::Status check_finite(std::span<const double> values, const char* side) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return core::Error{fmt::format("{} value {} is {}: every value must be a finite number", side, i, values[i])};
    }
  }
  return {};
}

core::Status check_alpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) {
    return core::Error{fmt::format("alpha {} is not strictly between 0 and 1 (use e.g. 0.05)", alpha)};
  }
  return {};
}

double median(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return core::percentile_of_sorted(sorted, 50);
}

// Fills the relative fields from the absolute ones and a.
void relate(MetricComparison& c) {
  if (c.a != 0 && std::isfinite(c.a)) {
    c.ratio = c.b / c.a;
    c.change = c.shift / c.a;
    c.change_lo = c.shift_lo / c.a;
    c.change_hi = c.shift_hi / c.a;
    // Relative to a negative center the bounds swap order.
    if (c.a < 0) std::swap(c.change_lo, c.change_hi);
  }
}

int sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

std::string side_note(std::size_t n_a, std::size_t n_b, std::size_t want) {
  if (n_a < want && n_b < want) return want == 1 ? "no values in A or B" : "fewer than 2 values in A and in B";
  if (n_a < want) return want == 1 ? "no values in A" : fmt::format("{} value in A, nothing to resample", n_a);
  return want == 1 ? "no values in B" : fmt::format("{} value in B, nothing to resample", n_b);
}

}  // namespace

std::string_view direction_name(Direction d) {
  return d == Direction::kLowerIsBetter ? "lower is better" : "higher is better";
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kBetter: return "better";
    case Verdict::kWorse: return "worse";
    case Verdict::kNoDifference: return "no significant difference";
    case Verdict::kNoTest: return "no test";
  }
  return "no test";
}

std::string_view test_name(TestMethod m) {
  switch (m) {
    case TestMethod::kNone: return "none";
    case TestMethod::kMannWhitney: return "mann-whitney u";
    case TestMethod::kBootstrap: return "percentile bootstrap";
  }
  return "none";
}

Verdict judge(double p_value, double alpha, int b_direction, Direction direction) {
  if (std::isnan(p_value)) return Verdict::kNoTest;
  if (!(p_value < alpha) || b_direction == 0) return Verdict::kNoDifference;
  const bool b_up = b_direction > 0;
  const bool up_is_better = direction == Direction::kHigherIsBetter;
  return b_up == up_is_better ? Verdict::kBetter : Verdict::kWorse;
}

double mann_whitney_min_p_value(std::size_t n_a, std::size_t n_b) {
  if (n_a == 0 || n_b == 0) return 1;
  // U = n_a n_b (every b above every a), no ties: z = (n_a n_b / 2 - 0.5) / sqrt(n_a n_b (n + 1) / 12).
  const double n1 = static_cast<double>(n_a), n2 = static_cast<double>(n_b);
  const double sigma = std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
  const double z = (n1 * n2 / 2 - 0.5) / sigma;
  return std::clamp(std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);
}

core::Result<MetricComparison> compare_distributions(std::span<const double> a, std::span<const double> b,
                                                     Direction direction, const CompareOptions& options) {
  PH_TRY(check_alpha(options.alpha));
  PH_TRY(check_finite(a, "A"));
  PH_TRY(check_finite(b, "B"));
  MetricComparison c;
  c.n_a = a.size();
  c.n_b = b.size();
  if (a.empty() || b.empty()) {
    if (!a.empty()) c.a = median(a);
    if (!b.empty()) c.b = median(b);
    c.note = side_note(c.n_a, c.n_b, 1);
    return c;
  }
  c.a = median(a);
  c.b = median(b);
  c.method = TestMethod::kMannWhitney;
  PH_ASSIGN_OR_RETURN(const core::MannWhitneyResult mw, core::mann_whitney_u(a, b));
  c.p_value = mw.p_value;
  c.min_p_value = mann_whitney_min_p_value(c.n_a, c.n_b);
  // u2 counts the pairs where B's value is the larger: above half of all pairs, B tends to be larger.
  const double half = static_cast<double>(c.n_a) * static_cast<double>(c.n_b) / 2;
  c.verdict = judge(c.p_value, options.alpha, sign(mw.u2 - half), direction);

  auto interval = core::hodges_lehmann_interval(a, b, 1 - options.alpha);
  if (interval.ok()) {
    c.shift = interval->shift;
    c.shift_lo = interval->lo;
    c.shift_hi = interval->hi;
  } else {
    PH_ASSIGN_OR_RETURN(c.shift, core::hodges_lehmann_shift(a, b));
    c.note = fmt::format("no {:g}% interval: {} and {} values are too few", (1 - options.alpha) * 100, c.n_a, c.n_b);
  }
  if (c.shift == 0 && (c.verdict == Verdict::kBetter || c.verdict == Verdict::kWorse)) {
    // Many equal values (ITL gaps of chunks that arrived together are 0): the middle did not move, the rest did.
    c.note = "the shift is 0 (many equal values) but the ranks differ: the distributions differ away from the middle";
  }
  if (!(c.min_p_value < options.alpha)) {
    if (!c.note.empty()) c.note += "; ";
    c.note += fmt::format("{} and {} values cannot reach p < {:g} (the smallest p possible is {:.3f})", c.n_a, c.n_b,
                          options.alpha, c.min_p_value);
  }
  relate(c);
  return c;
}

core::Result<MetricComparison> compare_percentiles(std::span<const double> a, std::span<const double> b, double q,
                                                   Direction direction, const CompareOptions& options) {
  PH_TRY(check_alpha(options.alpha));
  if (!(q >= 0 && q <= 100)) return core::Error{fmt::format("percentile {} is outside [0, 100]", q)};
  PH_TRY(check_finite(a, "A"));
  PH_TRY(check_finite(b, "B"));
  MetricComparison c;
  c.n_a = a.size();
  c.n_b = b.size();
  const auto pq = [q](std::span<const double> values) {
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return core::percentile_of_sorted(sorted, q);
  };
  if (!a.empty()) c.a = pq(a);
  if (!b.empty()) c.b = pq(b);
  if (a.size() < 2 || b.size() < 2) {
    c.shift = c.b - c.a;
    c.note = side_note(c.n_a, c.n_b, 2);
    relate(c);
    return c;
  }
  // Until the top (100 - q)% of a side holds a value, its pq is an interpolation between its largest values
  // (p99 of 10 samples is 0.09 of the way from the 9th to the 10th): resampling it tests the maximum, and the
  // bootstrap of an extreme is known to be unreliable. So no test, as benchstat leaves the tail alone.
  const std::size_t least = samples_for_percentile(q);
  if (a.size() < least || b.size() < least) {
    c.shift = c.b - c.a;
    c.note = fmt::format("p{:g} of {} and {} values is about the largest: at least {} a side are needed to test it", q,
                         c.n_a, c.n_b, least);
    relate(c);
    return c;
  }
  c.method = TestMethod::kBootstrap;
  // The order-statistic form: O(1) a replicate, so 2000 replicates of 100,000 ITL gaps stay instant.
  PH_ASSIGN_OR_RETURN(const core::DifferenceInterval d,
                      core::bootstrap_percentile_difference_ci(a, b, q, 1 - options.alpha, options.resamples,
                                                               options.seed));
  c.shift = d.estimate;
  c.shift_lo = d.lo;
  c.shift_hi = d.hi;
  c.p_value = d.p_value;
  c.verdict = judge(c.p_value, options.alpha, sign(d.estimate), direction);
  relate(c);
  return c;
}

std::size_t samples_for_percentile(double q) {
  if (q >= 100) return std::numeric_limits<std::size_t>::max();
  // n (1 - q / 100) >= 1, with a tolerance so that p99 asks for 100, not 101, in floating point.
  return std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(100 / (100 - q) - 1e-9)));
}

MetricComparison compare_values(double a, double b, std::string note) {
  MetricComparison c;
  c.n_a = 1;
  c.n_b = 1;
  c.a = a;
  c.b = b;
  c.shift = b - a;
  c.note = std::move(note);
  relate(c);
  return c;
}

core::Result<double> geomean(std::span<const double> ratios) {
  if (ratios.empty()) return core::Error{"geomean: no ratios"};
  double sum_log = 0;
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    if (!(std::isfinite(ratios[i]) && ratios[i] > 0)) {
      return core::Error{fmt::format("geomean: ratio {} is {}: every ratio must be finite and positive", i, ratios[i])};
    }
    sum_log += std::log(ratios[i]);
  }
  return std::exp(sum_log / static_cast<double>(ratios.size()));
}

}  // namespace perfhound::compare
