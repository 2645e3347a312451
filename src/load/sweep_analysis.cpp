#include "load/sweep_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

#include "core/check.h"
#include "core/units.h"

namespace perfhound::load {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The slope rule's floor on the low-load slope, as a share of lat_min / (thr_max - thr_min); the header says
// why it exists and what the default multiple makes of it.
constexpr double kSlopeFloorShare = 0.25;

// Doubles hold every whole number up to 2^53 exactly; past it a quotient or a list item is not a count any more.
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

struct CurvePoint {
  std::size_t index;  // into the caller's span
  double x;           // throughput
  double y;           // latency_s
};

bool usable(const SweepPoint& p) {
  return p.valid && std::isfinite(p.load) && std::isfinite(p.throughput) && p.throughput >= 0 &&
         std::isfinite(p.latency_s) && p.latency_s > 0;
}

// Step 1 of the knee rules: the usable points, by load; stable so that equal loads keep the caller's order.
std::vector<CurvePoint> usable_by_load(std::span<const SweepPoint> points) {
  std::vector<CurvePoint> curve;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (usable(points[i])) curve.push_back({i, points[i].throughput, points[i].latency_s});
  }
  std::stable_sort(curve.begin(), curve.end(),
                   [&](const CurvePoint& a, const CurvePoint& b) { return points[a.index].load < points[b.index].load; });
  return curve;
}

Knee make_knee(const CurvePoint& p, double score) { return Knee{p.index, p.x, p.y, score}; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<Knee> find_knee(std::span<const SweepPoint> points, const KneeOptions& options) {
  PH_CHECK(std::isfinite(options.min_rise) && options.min_rise >= 1);
  PH_CHECK(options.min_score >= 0 && options.min_score <= 1);
  const std::vector<CurvePoint> all = usable_by_load(points);
  if (all.size() < 3) return std::nullopt;

  std::size_t peak = 0;
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i].x > all[peak].x) peak = i;
  }
  // Step 2: normalise over every point, those past the peak included: their latencies are the queueing that
  // shows where the capacity ends, and they set the latency scale. Only points up to the peak may be the knee.
  double y_min = all[0].y, y_max = all[0].y, x_min = all[0].x;
  for (const CurvePoint& p : all) {
    y_min = std::min(y_min, p.y);
    y_max = std::max(y_max, p.y);
  }
  for (std::size_t i = 0; i <= peak; ++i) x_min = std::min(x_min, all[i].x);  // throughput over the candidates
  const double x_max = all[peak].x;
  if (!(x_max > x_min) || !(y_max > y_min) || y_max < options.min_rise * y_min) return std::nullopt;
  // Step 3.
  std::size_t best = 0;
  double best_d = -kInf;
  for (std::size_t i = 0; i <= peak; ++i) {
    const double d = (all[i].x - x_min) / (x_max - x_min) - (all[i].y - y_min) / (y_max - y_min);
    if (d > best_d) {  // strict: the lower load wins a tie
      best_d = d;
      best = i;
    }
  }
  if (best_d > 0 && best_d >= options.min_score) return make_knee(all[best], best_d);
  return std::nullopt;
}

std::optional<Knee> find_knee_by_slope(std::span<const SweepPoint> points, double multiple, double min_rise) {
  PH_CHECK(std::isfinite(multiple) && multiple >= 1);
  PH_CHECK(std::isfinite(min_rise) && min_rise >= 1);
  const std::vector<CurvePoint> all = usable_by_load(points);
  if (all.size() < 3) return std::nullopt;

  double y_min = all[0].y;
  double x_min = all[0].x;
  double x_max = all[0].x;
  for (const CurvePoint& p : all) {
    y_min = std::min(y_min, p.y);
    x_min = std::min(x_min, p.x);
    x_max = std::max(x_max, p.x);
  }
  const double y_end = all.back().y;
  if (!(y_end > y_min && y_end >= min_rise * y_min) || !(x_max > x_min)) return std::nullopt;

  const double floor = kSlopeFloorShare * y_min / (x_max - x_min);
  const double dx0 = all[1].x - all[0].x;
  const double dy0 = all[1].y - all[0].y;
  if (dx0 <= 0 && dy0 > 0) return std::nullopt;  // steep from the first segment: no gentle part to end
  const double s0 = dx0 > 0 ? std::max(dy0 / dx0, floor) : floor;

  for (std::size_t i = 2; i < all.size(); ++i) {
    const double dx = all[i].x - all[i - 1].x;
    const double dy = all[i].y - all[i - 1].y;
    if (dx > 0) {
      const double slope = dy / dx;
      if (slope > multiple * s0) return make_knee(all[i - 1], slope / s0);
    } else if (dy > 0) {
      return make_knee(all[i - 1], kInf);
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> choose_operating_point(std::span<const SweepPoint> points) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    if (!p.valid || !p.in_slo || !std::isfinite(p.throughput)) continue;
    if (!best || p.throughput > points[*best].throughput ||
        (p.throughput == points[*best].throughput && p.load < points[*best].load)) {
      best = i;
    }
  }
  return best;
}

core::Result<Headroom> headroom(double operating_throughput, double expected) {
  if (!(std::isfinite(expected) && expected > 0)) {
    return core::Error{fmt::format("expected throughput must be a positive number, not {}", expected)};
  }
  if (!(std::isfinite(operating_throughput) && operating_throughput >= 0)) {
    return core::Error{fmt::format("operating throughput must be a number >= 0, not {}", operating_throughput)};
  }
  return Headroom{operating_throughput / expected};
}

core::Result<std::int64_t> replicas_needed(double target_rate, double per_replica_rate) {
  if (!(std::isfinite(target_rate) && target_rate > 0)) {
    return core::Error{fmt::format("target rate must be a positive number, not {}", target_rate)};
  }
  if (!(std::isfinite(per_replica_rate) && per_replica_rate > 0)) {
    return core::Error{fmt::format("per-replica rate must be a positive number, not {}", per_replica_rate)};
  }
  const double q = target_rate / per_replica_rate;
  if (!(q <= kMaxExactInteger)) {
    return core::Error{fmt::format("target rate {} is {:.3g} times the per-replica rate {}: too many replicas to count",
                                   target_rate, q, per_replica_rate)};
  }
  // The rates are measurements (or sums and products of them) carried in doubles, and each operation can land
  // an ulp off: 4.2 / 0.6 is 7.000000000000001, 3 * 0.1 / 0.1 is 3.0000000000000004, and a bare ceil would buy
  // an eighth (or fourth) replica for a rounding error. A relative 1e-9 is millions of ulps (2.2e-16 each), so
  // it absorbs any such chain, and far below the run-to-run spread of a measured rate (a percent or more), so
  // calling 4 (1 + 1e-10) "4 replicas" never hides real demand.
  constexpr double kWholeTolerance = 1e-9;
  const double nearest = std::round(q);
  if (nearest >= 1 && std::fabs(q - nearest) <= kWholeTolerance * nearest) return static_cast<std::int64_t>(nearest);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(q)));
}

core::Result<std::vector<double>> plan_auto_rates(double synchronous_rate, double max_rate, int points) {
  // guidellm's SweepProfile (src/guidellm/benchmark/profile.py) takes np.linspace(synchronous_rate,
  // throughput_rate, sweep_size - 1)[1:], whose last constant rate is the throughput rate again; ours stops
  // short of it: the throughput run already measured the server at its limit, and a constant rate equal to the
  // capacity is a queue that never settles, so its latencies depend on the run's length rather than the server.
  if (!(std::isfinite(synchronous_rate) && synchronous_rate > 0)) {
    return core::Error{fmt::format(
        "--rate auto: the synchronous run measured {:.6g} req/s; planning needs a positive rate (did any of its "
        "requests complete?)",
        synchronous_rate)};
  }
  if (!(std::isfinite(max_rate) && max_rate > 0)) {
    return core::Error{fmt::format(
        "--rate auto: the throughput run measured {:.6g} req/s; planning needs a positive rate (did any of its "
        "requests complete?)",
        max_rate)};
  }
  if (!(max_rate > synchronous_rate)) {
    return core::Error{fmt::format(
        "--rate auto: the throughput run measured {:.6g} req/s, not above the synchronous run's {:.6g} req/s, so "
        "there are no rates between them to sweep (give the rates instead, e.g. --rate 1,2,4)",
        max_rate, synchronous_rate)};
  }
  if (points < 1) {
    return core::Error{fmt::format("--rate auto: {} rates between the synchronous and throughput runs; need at least 1",
                                   points)};
  }
  std::vector<double> rates;
  rates.reserve(static_cast<std::size_t>(points));
  const double span = max_rate - synchronous_rate;
  for (int k = 1; k <= points; ++k) {
    // Multiply before dividing so that spans that divide evenly give exact rates (8 * 1 / 4 = 2).
    rates.push_back(synchronous_rate + span * static_cast<double>(k) / static_cast<double>(points + 1));
  }
  return rates;
}

core::Result<std::vector<double>> parse_load_list(std::string_view text, std::string_view flag, bool integers) {
  if (trim(text).empty()) return core::Error{fmt::format("{}: the list is empty", flag)};
  std::vector<double> values;
  std::size_t item_no = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trim(text.substr(start, comma - start));
    start = comma + 1;
    ++item_no;
    if (item.empty()) return core::Error{fmt::format("{}: item {} is empty", flag, item_no)};

    double value = 0;
    if (integers) {
      std::int64_t n = 0;
      const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
      const bool whole = ptr == item.data() + item.size();
      if ((ec == std::errc::result_out_of_range && whole) || (ec == std::errc() && whole && static_cast<double>(n) > kMaxExactInteger)) {
        return core::Error{fmt::format("{}: item {} '{}' is too large", flag, item_no, item)};
      }
      if (ec != std::errc() || !whole || n < 1) {
        return core::Error{fmt::format("{}: item {} '{}' is not a positive integer", flag, item_no, item)};
      }
      value = static_cast<double>(n);
    } else {
      const auto parsed = core::parse_si_number(item);
      if (!parsed.ok() || !std::isfinite(*parsed) || !(*parsed > 0)) {
        return core::Error{fmt::format("{}: item {} '{}' is not a positive number", flag, item_no, item)};
      }
      value = *parsed;
    }
    const auto seen = std::find(values.begin(), values.end(), value);
    if (seen != values.end()) {
      return core::Error{fmt::format("{}: item {} '{}' repeats item {}", flag, item_no, item, seen - values.begin() + 1)};
    }
    values.push_back(value);
  }
  return values;
}

std::string sparkline(std::span<const double> values, bool log_scale) {
  static constexpr std::array<std::string_view, 8> kBlocks = {
      "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",  // U+2581..U+2584 ▁▂▃▄
      "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",  // U+2585..U+2588 ▅▆▇█
  };
  const auto scaled = [&](double v) -> std::optional<double> {
    if (!std::isfinite(v)) return std::nullopt;
    if (!log_scale) return v;
    if (v <= 0) return std::nullopt;
    return std::log10(v);
  };
  std::optional<double> lo;
  std::optional<double> hi;
  for (double v : values) {
    if (const auto s = scaled(v)) {
      lo = lo ? std::min(*lo, *s) : *s;
      hi = hi ? std::max(*hi, *s) : *s;
    }
  }
  std::string out;
  out.reserve(values.size() * 3);
  for (double v : values) {
    const auto s = scaled(v);
    if (!s) {
      out += ' ';
      continue;
    }
    long level = 0;
    if (*hi > *lo) level = std::clamp(std::lround((*s - *lo) / (*hi - *lo) * 7), 0L, 7L);
    out += kBlocks[static_cast<std::size_t>(level)];
  }
  return out;
}

}  // namespace perfhound::load
