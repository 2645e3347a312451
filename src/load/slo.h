// Service-level objectives for `perfhound load`: the --slo spec, the per-request goodput test, and the
// percentile gate with the binomial confidence bound of MLPerf Inference LoadGen's early stopping. Pure.
//
// ---- For users (the --slo help and docs/metrics.md) ------------------------------------------------------
//   --slo ttft=500ms,tpot=50ms,e2e=10s          terms separated by ',', each METRIC=THRESHOLD[@pPERCENTILE]
//   --slo ttft=500ms@p95,tpot=50ms              the TTFT gate at the 95th percentile, TPOT at the default p99
// Metrics (docs/metrics.md): ttft, tpot, itl (the request's mean inter-chunk gap), e2e (alias e2el, vLLM's
// name), ntpot (e2e / output tokens). Thresholds are durations: 500ms, 0.5s, 50us, 800ns, 2m; a bare number
// means milliseconds, as in vLLM's --goodput (ttft=500 is 500 ms). The percentile is written after '@' with a
// 'p' (@p99, @p99.9), strictly between 0 and 100; it defaults to 99.
// A request is good (counts toward goodput) when every term's value is at or below its threshold, the
// percentiles aside. A gate term holds when the given percentile of the metric is at or below its threshold.
// With a confidence c (e.g. 0.99) a term holds at confidence c only when the run has enough requests: if the
// true share of requests over the threshold were 1 - p or more, a run with as few over-threshold requests as
// this one would happen with probability at most 1 - c. This is the test MLPerf Inference LoadGen applies
// before it reports a Server run VALID ("Early Stopping Criterion", MLPerf Inference rules appendix); with no
// request over 500 ms, a p99 gate at 99% confidence needs 459 requests.
// -----------------------------------------------------------------------------------------------------------
//
// Syntax decisions. vLLM's `--goodput ttft:500 tpot:50` takes ttft, tpot and e2el in milliseconds
// (vllm/benchmarks/serve.py, check_goodput_args); we keep its names and its bare-number unit, and use '=' and
// ',' like our other list flags. The percentile is one suffix syntax, `@pNN`, so every term starts with its
// metric. Spaces around a term are ignored; letters are lowercase only. Errors (each one line, quoting the
// term, without the flag name: the CLI adds "--slo: " with with_context): an empty spec or empty term, a term
// without '=', an unknown metric, a metric given twice (e2e and e2el are the same metric), a threshold that
// is not a duration, is not positive, or rounds to 0 ns, and a percentile not written @pNN or not in (0, 100).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "load/request_latencies.h"

namespace perfhound::load {

enum class SloMetric { kTtft, kTpot, kItl, kE2e, kNtpot };

inline constexpr double kDefaultSloPercentile = 99;

struct SloTerm {
  SloMetric metric;
  double threshold_s;  // > 0; a whole number of nanoseconds over 1e9 (parse_duration_ns rounds to 1 ns)
  double percentile;   // in percent, strictly inside (0, 100): 99 is p99; used by the gate, not by met_by
};

struct Slo {
  std::vector<SloTerm> terms;  // in the order the spec gave them; at most one per metric

  bool empty() const;
  // Goodput: true when every term's value for this request is at or below its threshold (vLLM's test,
  // `s >= r` for every SLO s and request metric r). The request must have completed; the caller only asks
  // for completed requests (failed ones are never good). Undefined values: a NaN tpot (fewer than 2 output
  // tokens), itl (fewer than 2 content chunks) or ntpot (0 tokens) does not violate its term; vLLM likewise
  // counts a one-token output's TPOT as 0 ("if output_len <= 1, we regard tpot as 0 for goodput"). A NaN
  // ttft or e2e means the request produced no first token or did not complete, so it does violate.
  bool met_by(const RequestLatencies& latencies) const;
  // The canonical spec, which parse_slo reads back to the same Slo: "ttft=500ms@p99,tpot=50ms@p99". Each
  // threshold in the largest of s, ms, us, ns that divides it exactly ("1500ms", "10s", "50us"). "" if empty.
  std::string to_string() const;
  // {"spec": to_string(), "terms": [{"metric": "ttft", "threshold_s": 0.5, "percentile": 99}, ...]};
  // the percentile is in percent, like the pNN labels it names.
  nlohmann::ordered_json to_json() const;
};

// Parses the --slo value (syntax above). Never returns an empty Slo.
core::Result<Slo> parse_slo(std::string_view spec);

// The request's value of the metric in seconds (RequestLatencies: ttft_s, tpot_s, mean_itl_s, e2e_s,
// ntpot_s); NaN where it is undefined.
double metric_value(const RequestLatencies& latencies, SloMetric metric);
// "ttft", "tpot", "itl", "e2e", "ntpot" (the JSON and spec names; "e2el" is only accepted as input).
std::string_view metric_name(SloMetric metric);

// ---- The gate and its confidence bound --------------------------------------------------------------------
//
// For one term over a run: n requests judged, `over` of them over the threshold. Failed requests count in n
// and in `over`: a request that failed delivered no answer within the threshold, and leaving it out would let
// a server pass by failing its slow requests. A completed request whose value is undefined (NaN, see met_by)
// counts in n and not in `over`. With p = percentile / 100 and confidence c, the claim "the p-th percentile
// is at or below the threshold" holds at confidence c when
//     P[Binomial(n, 1 - p) <= over] <= 1 - c,
// i.e. if the true over-threshold rate were 1 - p (or more: the probability only falls as the rate rises),
// seeing `over` or fewer in n requests would be that unlikely.
//
// How this is MLPerf's test (inference_policies, inference_rules.adoc, appendix "Early Stopping Criterion";
// mlcommons/inference loadgen/early_stopping.cc and results.cc): with tail latency percentile p, tolerance d,
// confidence c and t overlatency queries, LoadGen finds the smallest number of underlatency queries h with
//     F(t; h + t, 1 - (p - d)) <= 1 - c       (the rules; F the binomial CDF of the overlatency count)
// computed as BetaRegularized[p - d, h, 1 + t] and found by binary search, and a Server run passes when
// queries_issued >= h + t. LoadGen uses d = 0 and c = 0.99 (results.cc: `double confidence = 0.99; double
// tolerance = 0.0;`). Ours is that test with d = 0, n = h + t and over = t; min_requests_for_bound() is h + t.
// Two differences: the confidence is a parameter, and we compare with <= as the rules write it, where
// find_min_passing() in early_stopping.cc tests `prob < 1 - c` (they differ only when the probability equals
// 1 - c exactly, e.g. p = 50, c = 0.5, n = 1).

struct SloTermVerdict {
  SloTerm term;
  double observed_s;  // the observed percentile value (as the caller computed it; NaN when there is none)
  std::int64_t n;     // requests judged, failed ones included
  std::int64_t over;  // of those, over the threshold, failed ones included
  bool met;           // observed_s <= term.threshold_s (false for NaN)
  bool confidence_asked;
  double confidence;         // c in (0, 1) when asked, else NaN
  bool holds_at_confidence;  // the bound above holds; false when confidence was not asked
  // How many more requests would make the bound hold, assuming (as LoadGen does: "Would need to run at least
  // N more queries, with the run being successful if every additional query were under latency") that every
  // further request is within the threshold: min_requests_for_bound(over, p, c) - n. 0 when it holds or when
  // no confidence was asked. -1 when the observed over-threshold rate over / n is above 1 - p: then more
  // requests at that rate never make it hold (the rules: "In cases where the system percentile latency is
  // worse than the target, the run will never terminate successfully"). At exactly 1 - p it is the count.
  std::int64_t more_requests_needed;

  // The gate's answer: holds_at_confidence when a confidence was asked, else met.
  bool passed() const { return confidence_asked ? holds_at_confidence : met; }
};

// Requires 0 <= over <= n and, when given, confidence in (0, 1) (checked: the CLI validates its flags).
// n = 0 gives met = false (observed_s is NaN), holds_at_confidence = false and more_requests_needed =
// min_requests_for_bound(0, p, c).
SloTermVerdict evaluate_slo_term(const SloTerm& term, double observed_s, std::int64_t n, std::int64_t over,
                                 std::optional<double> confidence);

// {"metric", "threshold_s", "percentile", "observed_s", "requests", "over_threshold", "met", "confidence",
//  "holds_at_confidence", "more_requests_needed", "passed"}; the three confidence fields are null when no
// confidence was asked, and NaN is null.
nlohmann::ordered_json to_json(const SloTermVerdict& verdict);

// P[X <= k] for X ~ Binomial(n, q). k < 0 gives 0, k >= n gives 1; requires n >= 0 and q in [0, 1] (checked).
// Method: each probability mass from Loader's saddle-point expansion (C. Loader, "Fast and Accurate
// Computation of Binomial Probabilities", 2000; the algorithm of R's dbinom), which keeps full relative
// precision for n in the billions where differences of lgamma lose ~log10(n lgamma(n)) digits; then the
// tail on the short side of the mean, summed from k away from the mean with the exact ratio of neighbouring
// masses and stopped once a geometric bound on the remaining terms is below 1e-17 of the sum. For k below
// the mean that tail is the answer; for k at or above it the answer is 1 minus the upper tail.
// Accuracy (tests/load/slo_test.cpp, against exact rational sums and 50-digit sums up to n = 10^7): relative
// error below 1e-12 for k below the mean, however small the probability (the largest seen in 300 random
// exact cases with n <= 10^4 was 6e-13, at P = 3e-197, most of it from rounding q to a double; ~2e-14 near
// the mean at n = 10^7), and absolute error below 1e-14 at or above it. Results below ~1e-308 underflow to 0. Cost: O(min(k + 1, n - k, 9 sd + 10))
// terms, sd = sqrt(n q (1 - q)): each tail is summed only until its remaining terms are negligible.
double binomial_cdf(std::int64_t k, std::int64_t n, double q);

// The smallest n with P[Binomial(n, 1 - p) <= over] <= 1 - confidence, p = percentile / 100: LoadGen's
// h + t (above). percentile in (0, 100) and confidence in (0, 1), over >= 0 (checked). Exact in the sense of
// binomial_cdf's accuracy; found by doubling and bisection (the probability falls as n grows). Saturates at
// INT64_MAX when the answer would pass 2^62. E.g. over = 0, p99, c = 0.99: 459 (0.99^459 <= 0.01 < 0.99^458).
std::int64_t min_requests_for_bound(std::int64_t over, double percentile, double confidence);

}  // namespace perfhound::load
