// The pure side of `perfhound sweep`: the knee of the latency-throughput curve, the operating point under an
// SLO, headroom and replica counts, the `--rate auto` plan, the load-list flags, and a one-line sparkline.
// No I/O: the sweep command runs the loads and hands each run's summary here as a SweepPoint.
//
// ---- The knee (docs/load.md) --------------------------------------------------------------------------------
// The knee is the last load before latency starts to climb steeply with throughput: past it, each extra req/s
// costs much latency. find_knee finds it with the Kneedle rule (Satopaa, Albrecht, Irwin and Raghavan,
// "Finding a 'Kneedle' in a Haystack: Detecting Knee Points in System Behavior", ICDCSW 2011):
//   1. The usable points are the valid ones with a finite load, a finite throughput >= 0 and a finite latency
//      > 0, sorted by load (equal loads keep their input order). With fewer than 3 there is no knee.
//   2. The peak is the first of them, by load, with the highest throughput. Only points up to and including
//      the peak may be the knee: past it throughput stalls or falls while latency climbs (the curve folds
//      back), which is overload, not the knee. But their latencies count in the scale of step 3: queueing
//      past the peak is what shows where the capacity ends, so latency exploding past the peak makes the
//      peak itself the knee.
//   3. Normalise throughput over the candidates (x = (thr - min) / (max - min), max the peak's) and latency
//      over every usable point (y likewise), and take d = x - y. A latency-vs-throughput curve that rises
//      steeply at saturation is convex and increasing; Kneedle's knee of such a curve is the point that
//      maximises d (the normalised point farthest below the diagonal y = x). The knee is the candidate with
//      the largest d (the lower load on ties) and its score is that d, provided the highest latency is at
//      least min_rise (default 1.5) times the lowest (a flat curve has no knee), the candidates span some
//      throughput (a peak at the lowest load: nothing gentle was measured), and d >= min_score (default
//      0.1: a straight line has d = 0 everywhere, a concave curve d <= 0).
//   Otherwise there is no knee. A score is always above 0, even with min_score = 0.
//
// find_knee_by_slope is the alternative "slope" rule. Over the usable points sorted by load (step 1; nothing
// is cut at the peak, the second test below catches the fold), the marginal latency of segment i is
// slope_i = (lat_i - lat_{i-1}) / (thr_i - thr_{i-1}) (seconds per unit of throughput). The low-load slope s0
// is slope_1, between the first two points, floored at 0.25 * lat_min / (thr_max - thr_min): the slope that
// would add a quarter of the lowest latency across the whole throughput range. The floor is there because at
// low load the p95 is flat, so slope_1 is often 0 or, by noise, negative, and every later rise would then be
// infinitely steeper; with the default multiple 3 a segment must add latency at 0.75 * lat_min per throughput
// range (7.5% of the unloaded latency over a tenth of the range), above the few-percent run-to-run noise of a
// p95. The knee is point i-1, the last point still on the gentle part, for the first i >= 2 where either
// slope_i > multiple * s0 (score slope_i / s0), or throughput does not grow (thr_i <= thr_{i-1}) while latency
// does (score +inf). Guards as for find_knee: at least 3 usable points, the latency at the highest load at
// least min_rise times the lowest, some spread in throughput, and a first segment that is not already steep
// (throughput not growing while latency grows there: no gentle part was measured); otherwise no knee.
// -----------------------------------------------------------------------------------------------------------
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::load {

// One run of a sweep, in whatever units the caller plots; the analyses only compare values of one field.
struct SweepPoint {
  double load = 0;        // the offered load: concurrency or requests/s
  double throughput = 0;  // achieved, req/s or tok/s, whichever the caller plots
  double latency_s = std::numeric_limits<double>::quiet_NaN();  // the plotted latency percentile (p95)
  bool in_slo = false;    // every SLO term met at this point
  bool valid = true;      // false: not to be used (the caller decides: the sweep drops partial or empty
                          // runs from the knee, and INVALID ones as well from the operating point)
};

inline constexpr double kDefaultKneeMinRise = 1.5;
inline constexpr double kDefaultKneeMinScore = 0.1;
inline constexpr double kDefaultSlopeMultiple = 3.0;

struct KneeOptions {
  double min_rise = kDefaultKneeMinRise;    // >= 1 (checked)
  double min_score = kDefaultKneeMinScore;  // in [0, 1] (checked)
};

struct Knee {
  std::size_t index;  // into the points as given (not the load-sorted order)
  double throughput;  // of that point
  double latency_s;   // of that point
  double score;       // find_knee: the Kneedle d in (0, 1]; find_knee_by_slope: slope / s0, +inf for a fold
};

// The Kneedle knee (rule above). Empty input, or no knee by the guards: nullopt.
std::optional<Knee> find_knee(std::span<const SweepPoint> points, const KneeOptions& options = {});
// The slope-rule knee (rule above). multiple >= 1 and min_rise >= 1 (checked).
std::optional<Knee> find_knee_by_slope(std::span<const SweepPoint> points, double multiple = kDefaultSlopeMultiple,
                                       double min_rise = kDefaultKneeMinRise);

// The point to run at: the valid point with in_slo and the highest (finite) throughput; on equal throughput
// the lower load, then the earlier point. nullopt when no valid point meets the SLO.
std::optional<std::size_t> choose_operating_point(std::span<const SweepPoint> points);

struct Headroom {
  double ratio;  // operating / expected: 1.25 is 25% more throughput than expected, 0.8 a 20% shortfall
};
// Errors: expected not a positive finite number, operating_throughput not a finite number >= 0.
core::Result<Headroom> headroom(double operating_throughput, double expected);

// ceil(target_rate / per_replica_rate), at least 1. A quotient within a relative 1e-9 of a whole number n is n:
// 10 / 2.5 is 4, and 4.2 / 0.6, which is 7.000000000000001 in doubles, is 7 (see the source). Errors: either
// rate not positive and finite, or a quotient past 2^53 (not a whole number of replicas any more).
core::Result<std::int64_t> replicas_needed(double target_rate, double per_replica_rate);

// `--rate auto`, like guidellm's sweep profile: a synchronous run (one request at a time) and a throughput run
// (all requests at once) measure the lowest and highest useful rates in requests/s; the sweep then runs
// `points` constant rates evenly spaced strictly between them,
//     synchronous_rate + (max_rate - synchronous_rate) * k / (points + 1),  k = 1 .. points,
// in ascending order; both ends were measured already. Errors (naming `--rate auto` and the measured rates):
// either rate not positive and finite, max_rate <= synchronous_rate, points < 1.
core::Result<std::vector<double>> plan_auto_rates(double synchronous_rate, double max_rate, int points);

// A load-list flag: "1,8,32,128", items separated by ',', spaces and tabs around an item ignored. integers:
// each item a positive whole number written in digits (concurrency, at most 2^53); otherwise a positive finite
// number with an optional SI suffix as core::parse_si_number reads it ("0.5", "2", "1.5k"; rates). The user's
// order is kept. Errors, one line naming the flag and the item (1-based), e.g.
//   --concurrency: item 3 'x' is not a positive integer       --rate: item 2 'abc' is not a positive number
//   --concurrency: item 2 is empty                           --concurrency: item 3 '8' repeats item 2
//   --concurrency: the list is empty              --concurrency: item 1 '10000000000000000' is too large
// Items repeat when their values are equal ("2" and "2.0" as rates).
core::Result<std::vector<double>> parse_load_list(std::string_view text, std::string_view flag, bool integers);

// One character per value from the eight blocks U+2581..U+2588 (▁▂▃▄▅▆▇█), scaled between the smallest and the
// largest value: the level is the nearest of the eight evenly spaced heights, t = (v - min) / (max - min)
// giving round(7 t), halves rounded up (so {0, 0.5, 1} is "▁▅█"). log_scale: t is taken on log10 of the
// values, for latencies that span decades ({1, 10, 100} is "▁▅█"). NaN and infinities (and, on the log scale,
// values <= 0) are a space and take no part in the scale; when all the others are equal they are all ▁.
// Empty input gives "". UTF-8: each block is 3 bytes.
std::string sparkline(std::span<const double> values, bool log_scale = false);

}  // namespace perfhound::load
