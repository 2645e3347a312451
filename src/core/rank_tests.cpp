// Mann-Whitney U: Mann & Whitney (1947), Ann. Math. Statist. 18(1):50-60. The tie-corrected variance
//   sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))),  t = size of each group of tied values,
// the continuity correction and the two-sided p = 2 * sf((max(U1, U2) - n1 n2 / 2 - 0.5) / sigma), clipped
// to 1, are those of scipy/stats/_mannwhitneyu.py (scipy 1.10), so results can be checked against it.
//
// Hodges-Lehmann: Hodges & Lehmann (1963), Ann. Math. Statist. 34(2):598-611. Interval: Moses (1965),
// Technometrics 7(2):257-260, as presented in Hollander & Wolfe (1999), Nonparametric Statistical Methods,
// 2nd ed., section 4.3. The k-th smallest of the n1 n2 differences is found by selection over the
// implicit sorted matrix D[i][j] = y_j - x_i (rows ascending in j, columns descending in i), pivoting on
// the weighted median of row medians as in Johnson & Mizoguchi (1978), SIAM J. Comput. 7(2):147-153: each
// round discards at least a quarter of the remaining candidates, so O(log(n1 n2)) rounds of
// O(n1 log n1 + n2) each, with no n1 n2 array.
#include "core/rank_tests.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace perfhound::core {

namespace {

// A caller's number as they would have written it, for quoting in messages ("0.95", not "0.950000").
std::string input_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

Status check_sample(std::span<const double> s, const char* name, bool allow_infinite) {
  if (s.empty()) return Error{std::string("sample ") + name + " is empty (need at least one value)"};
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (std::isnan(s[i])) return Error{std::string("sample ") + name + "[" + std::to_string(i) + "] is NaN"};
    if (!allow_infinite && std::isinf(s[i])) {
      return Error{std::string("sample ") + name + "[" + std::to_string(i) + "] is " + input_text(s[i]) +
                   " (differences of infinities are undefined)"};
    }
  }
  return Status::success();
}

// Standard normal quantile for p in (0, 1). Initial value from P. J. Acklam's rational approximation
// (relative error 1.15e-9; https://web.archive.org/web/20151030215612/http://home.online.no/~pjacklam/
// notes/invnorm/), then one Halley step on erfc, which brings it to within a few ulps of scipy's ndtri.
// The upper half is mirrored from the lower because 1 - p is exact there (Sterbenz) while erfc(x) - p
// near p = 1 would cancel.
double normal_quantile(double p) {
  if (p > 0.5) return -normal_quantile(1 - p);
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double kLow = 0.02425;  // Acklam's break between the tail and central approximations
  double x;
  if (p < kLow) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    const double q = p - 0.5;
    const double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  const double u = e * std::sqrt(2 * 3.14159265358979323846) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

// k-th smallest (0-based) of {y[j] - x[i]} for ascending x and y. Differences are always evaluated as
// y[j] - x[i], never rearranged (y[j] <= t + x[i] rounds differently), so the answer is one of them and
// equals what numpy gets from np.subtract.outer(y, x). Rounding is monotone, so the matrix stays sorted.
double select_difference(std::span<const double> x, std::span<const double> y, std::int64_t k) {
  const std::size_t rows = x.size(), cols = y.size();
  std::vector<std::size_t> lo(rows, 0), hi(rows, cols);  // live columns of each row: [lo, hi)
  std::vector<std::size_t> below_pivot(rows), at_or_below_pivot(rows);
  std::vector<std::pair<double, std::size_t>> medians;
  std::vector<double> gathered;
  // Once few candidates remain, materializing them is cheaper than another round; the bound keeps
  // memory O(n1 + n2).
  const std::size_t brute_force_limit = 4 * (rows + cols);
  std::int64_t discarded_below = 0;  // candidates removed because they are smaller than the answer

  for (;;) {
    std::size_t live = 0;
    for (std::size_t i = 0; i < rows; ++i) live += hi[i] - lo[i];
    const std::int64_t want = k - discarded_below;  // rank of the answer among the live candidates
    PH_CHECK(want >= 0 && static_cast<std::size_t>(want) < live);

    if (live <= brute_force_limit) {
      gathered.clear();
      for (std::size_t i = 0; i < rows; ++i) {
        for (std::size_t j = lo[i]; j < hi[i]; ++j) gathered.push_back(y[j] - x[i]);
      }
      auto nth = gathered.begin() + want;
      std::nth_element(gathered.begin(), nth, gathered.end());
      return *nth;
    }

    // Weighted median of the rows' lower medians: at least a quarter of the live candidates are <= it and
    // at least a quarter >= it, whichever side the answer turns out to be on.
    medians.clear();
    for (std::size_t i = 0; i < rows; ++i) {
      if (hi[i] > lo[i]) medians.emplace_back(y[lo[i] + (hi[i] - lo[i] - 1) / 2] - x[i], hi[i] - lo[i]);
    }
    std::sort(medians.begin(), medians.end());
    double pivot = medians.back().first;
    std::size_t weight = 0;
    for (const auto& [value, w] : medians) {
      weight += w;
      if (2 * weight >= live) {
        pivot = value;
        break;
      }
    }

    // Per row, how many columns are < pivot and <= pivot. Both counts only grow with i (larger x_i, smaller
    // differences), so one forward pointer each covers all rows in O(rows + cols).
    std::size_t lt = 0, le = 0;
    std::int64_t live_lt = 0, live_eq = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      while (lt < cols && y[lt] - x[i] < pivot) ++lt;
      while (le < cols && y[le] - x[i] <= pivot) ++le;
      below_pivot[i] = std::clamp(lt, lo[i], hi[i]);
      at_or_below_pivot[i] = std::clamp(le, lo[i], hi[i]);
      live_lt += static_cast<std::int64_t>(below_pivot[i] - lo[i]);
      live_eq += static_cast<std::int64_t>(at_or_below_pivot[i] - below_pivot[i]);
    }
    if (want < live_lt) {
      hi = below_pivot;
    } else if (want < live_lt + live_eq) {
      return pivot;
    } else {
      discarded_below += live_lt + live_eq;
      lo = at_or_below_pivot;
    }
  }
}

std::vector<double> sorted_copy(std::span<const double> s) {
  std::vector<double> out(s.begin(), s.end());
  std::sort(out.begin(), out.end());
  return out;
}

double median_difference(std::span<const double> xs, std::span<const double> ys) {
  const auto total = static_cast<std::int64_t>(xs.size()) * static_cast<std::int64_t>(ys.size());
  if (total % 2 == 1) return select_difference(xs, ys, total / 2);
  return (select_difference(xs, ys, total / 2 - 1) + select_difference(xs, ys, total / 2)) / 2;
}

}  // namespace

Result<MannWhitneyResult> mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  PH_TRY(check_sample(x, "x", true).with_context("mann-whitney u"));
  PH_TRY(check_sample(y, "y", true).with_context("mann-whitney u"));
  const std::size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;

  // (value, from x) sorted by value; each run of equal values shares the mean of its ranks.
  std::vector<std::pair<double, bool>> pooled;
  pooled.reserve(n);
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start + 1;
    while (end < n && pooled[end].first == pooled[start].first) ++end;
    const double mean_rank = (static_cast<double>(start + 1) + static_cast<double>(end)) / 2;
    std::size_t from_x = 0;
    for (std::size_t i = start; i < end; ++i) from_x += pooled[i].second ? 1 : 0;
    rank_sum_x += mean_rank * static_cast<double>(from_x);
    const auto t = static_cast<double>(end - start);
    tie_term += t * t * t - t;
    start = end;
  }

  const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2), dn = static_cast<double>(n);
  MannWhitneyResult r;
  r.u1 = rank_sum_x - d1 * (d1 + 1) / 2;
  r.u2 = d1 * d2 - r.u1;
  const double mu = d1 * d2 / 2;
  // max(0, .): with every value tied the bracket is exactly 0, but keep rounding from making it negative.
  const double sigma = std::sqrt(std::max(0.0, d1 * d2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)))));
  const double numerator = std::max(r.u1, r.u2) - mu - 0.5;  // continuity correction: always toward 0
  r.z = sigma > 0 ? numerator / sigma : -std::numeric_limits<double>::infinity();
  // 2 * sf(z) = erfc(z / sqrt(2)); erfc keeps relative precision far into the tail, 1 - cdf would not.
  r.p_value = std::clamp(std::erfc(r.z / std::sqrt(2.0)), 0.0, 1.0);
  return r;
}

Result<double> hodges_lehmann_shift(std::span<const double> x, std::span<const double> y) {
  PH_TRY(check_sample(x, "x", false).with_context("hodges-lehmann"));
  PH_TRY(check_sample(y, "y", false).with_context("hodges-lehmann"));
  const std::vector<double> xs = sorted_copy(x), ys = sorted_copy(y);
  return median_difference(xs, ys);
}

Result<ShiftInterval> hodges_lehmann_interval(std::span<const double> x, std::span<const double> y,
                                              double confidence) {
  PH_TRY(check_sample(x, "x", false).with_context("hodges-lehmann"));
  PH_TRY(check_sample(y, "y", false).with_context("hodges-lehmann"));
  if (!(confidence > 0.0 && confidence < 1.0)) {  // written so NaN fails too
    return Error{"hodges-lehmann: confidence " + input_text(confidence) +
                 " is not strictly between 0 and 1 (use e.g. 0.95)"};
  }
  const auto n1 = static_cast<std::int64_t>(x.size()), n2 = static_cast<std::int64_t>(y.size());
  const std::int64_t total = n1 * n2;
  const double z = normal_quantile((1 + confidence) / 2);
  const double sigma = std::sqrt(static_cast<double>(total) * static_cast<double>(n1 + n2 + 1) / 12);
  const double k_real = std::floor(static_cast<double>(total) / 2 + 0.5 - z * sigma);
  if (k_real < 1) {
    return Error{"hodges-lehmann: samples of " + std::to_string(n1) + " and " + std::to_string(n2) +
                 " values are too small for a " + input_text(confidence * 100) +
                 "% interval (collect more samples or lower the confidence)"};
  }
  const auto k = static_cast<std::int64_t>(k_real);
  const std::vector<double> xs = sorted_copy(x), ys = sorted_copy(y);
  ShiftInterval out;
  out.shift = median_difference(xs, ys);
  out.rank_lo = k;
  out.rank_hi = total + 1 - k;
  out.lo = select_difference(xs, ys, out.rank_lo - 1);
  out.hi = select_difference(xs, ys, out.rank_hi - 1);
  return out;
}

}  // namespace perfhound::core
