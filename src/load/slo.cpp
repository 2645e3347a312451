#include "load/slo.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>

#include "core/check.h"
#include "core/units.h"

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::string_view kExample = "use e.g. ttft=500ms,tpot=50ms@p95";
constexpr std::string_view kMetricList = "ttft, tpot, itl, e2e (or e2el), ntpot";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_metric(std::string_view name, SloMetric& metric) {
  if (name == "ttft") metric = SloMetric::kTtft;
  else if (name == "tpot") metric = SloMetric::kTpot;
  else if (name == "itl") metric = SloMetric::kItl;
  else if (name == "e2e" || name == "e2el") metric = SloMetric::kE2e;  // e2el: vLLM's --goodput name
  else if (name == "ntpot") metric = SloMetric::kNtpot;
  else return false;
  return true;
}

// The whole of `text` as a finite double, or nullopt.
std::optional<double> whole_number(std::string_view text) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

core::Result<std::int64_t> parse_threshold_ns(std::string_view term, std::string_view value) {
  const auto not_positive = [&] {
    return core::Error{fmt::format("threshold in '{}' is not positive (use e.g. 500ms)", term)};
  };
  if (!value.empty() && value.front() == '-') return not_positive();
  std::int64_t ns = 0;
  if (const auto bare = whole_number(value)) {
    // A bare number is milliseconds, as vLLM's --goodput reads it (its values are divided by
    // MILLISECONDS_TO_SECONDS_CONVERSION in calculate_metrics).
    if (*bare <= 0) return not_positive();
    if (*bare * 1e6 > 9.2e18) return core::Error{fmt::format("threshold in '{}' is too long", term)};
    ns = std::llround(*bare * 1e6);
  } else {
    auto parsed = core::parse_duration_ns(value);
    if (!parsed.ok()) {
      return core::Error{fmt::format(
          "cannot parse '{}': '{}' is not a duration (use e.g. 500ms, 0.5s or 50us; a bare number is ms)", term,
          value)};
    }
    ns = *parsed;
  }
  if (ns <= 0) return core::Error{fmt::format("threshold in '{}' is not positive (it rounds to 0 ns)", term)};
  return ns;
}

core::Result<double> parse_percentile(std::string_view term, std::string_view text) {
  if (text.empty() || text.front() != 'p') {
    return core::Error{fmt::format("cannot parse '{}': write the percentile as @p99 or @p99.9, not '@{}'", term, text)};
  }
  const auto v = whole_number(text.substr(1));
  if (!v) return core::Error{fmt::format("cannot parse '{}': '@{}' is not a percentile (use e.g. @p95)", term, text)};
  if (!(*v > 0 && *v < 100)) {
    return core::Error{fmt::format("percentile in '{}' must be above 0 and below 100 (use e.g. @p99)", term)};
  }
  return *v;
}

core::Result<SloTerm> parse_term(std::string_view term) {
  const auto eq = term.find('=');
  if (eq == std::string_view::npos) {
    if (term.find(':') != std::string_view::npos) {
      return core::Error{fmt::format("cannot parse '{}': write METRIC=THRESHOLD with '=' ({})", term, kExample)};
    }
    return core::Error{fmt::format("cannot parse '{}': no '=' ({})", term, kExample)};
  }
  const std::string_view name = term.substr(0, eq);
  std::string_view value = term.substr(eq + 1);
  SloTerm t{SloMetric::kTtft, 0, kDefaultSloPercentile};
  if (!parse_metric(name, t.metric)) {
    return core::Error{fmt::format("unknown metric '{}' in '{}' (use {})", name, term, kMetricList)};
  }
  if (const auto at = value.find('@'); at != std::string_view::npos) {
    PH_ASSIGN_OR_RETURN(t.percentile, parse_percentile(term, value.substr(at + 1)));
    value = value.substr(0, at);
  }
  if (value.empty()) return core::Error{fmt::format("cannot parse '{}': no threshold ({})", term, kExample)};
  PH_ASSIGN_OR_RETURN(const std::int64_t ns, parse_threshold_ns(term, value));
  t.threshold_s = core::ns_to_seconds(ns);
  return t;
}

std::string format_threshold(double threshold_s) {
  // Thresholds are whole nanoseconds (parse_duration_ns rounds), so this is exact and parses back the same.
  const std::int64_t ns = std::llround(threshold_s * 1e9);
  constexpr std::array<std::pair<std::int64_t, std::string_view>, 3> kUnits{
      {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}}};
  for (const auto& [scale, unit] : kUnits) {
    if (ns % scale == 0) return fmt::format("{}{}", ns / scale, unit);
  }
  return fmt::format("{}ns", ns);
}

// ---- Binomial probabilities ------------------------------------------------------------------------------
//
// C. Loader, "Fast and Accurate Computation of Binomial Probabilities" (2000), as implemented in R's
// src/nmath (stirlerr.c, bd0.c, dbinom.c). The mass is
//   f(x; n, p) = exp(stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n p) - bd0(n - x, n q))
//                * sqrt(n / (2 pi x (n - x))),
// every piece small or computed without cancellation, so the relative error stays at a few ulps for any n.

constexpr double kLn2Pi = 1.837877066409345483560659472811;  // ln(2 pi)

// stirlerr(n) = ln(n!) - ln(sqrt(2 pi n) (n / e)^n), for whole n >= 0. The table for n <= 15, where the
// series below converges too slowly, from
//   python3 -c "import mpmath as mp; mp.mp.dps=30; [print(n, mp.nstr(mp.loggamma(n+1)-(n+mp.mpf('0.5'))*
//     mp.log(n)+n-mp.log(mp.sqrt(2*mp.pi)), 20)) for n in range(1,16)]"
double stirlerr(double n) {
  static constexpr std::array<double, 16> kTable{
      0.0,                     0.08106146679532725822,  0.041340695955409294094, 0.027677925684998339149,
      0.020790672103765093112, 0.016644691189821192163, 0.013876128823070747999, 0.011896709945891770095,
      0.010411265261972096497, 0.0092554621827127329177, 0.0083305634333628712565, 0.007573675487951840795,
      0.0069428401072095298657, 0.0064089941880042070684, 0.0059513701127588477356, 0.005554733551962801371};
  if (n <= 15) return kTable[static_cast<std::size_t>(n)];
  // The Stirling series 1/(12n) - 1/(360n^3) + 1/(1260n^5) - 1/(1680n^7) + 1/(1188n^9), truncated where the
  // next term is below an ulp (Loader 2000, section 2; R's stirlerr.c cut-offs).
  constexpr double kS0 = 1.0 / 12, kS1 = 1.0 / 360, kS2 = 1.0 / 1260, kS3 = 1.0 / 1680, kS4 = 1.0 / 1188;
  const double nn = n * n;
  if (n > 500) return (kS0 - kS1 / nn) / n;
  if (n > 80) return (kS0 - (kS1 - kS2 / nn) / nn) / n;
  if (n > 35) return (kS0 - (kS1 - (kS2 - kS3 / nn) / nn) / nn) / n;
  return (kS0 - (kS1 - (kS2 - (kS3 - kS4 / nn) / nn) / nn) / nn) / n;
}

// bd0(x, m) = x ln(x / m) + m - x, the deviance term, without the cancellation of that formula when x ~ m:
// with v = (x - m) / (x + m) it is (x - m) v + 2 x sum_{j>=1} v^(2j+1) / (2j + 1) (Loader 2000, section 3).
double bd0(double x, double m) {
  if (std::fabs(x - m) < 0.1 * (x + m)) {
    double v = (x - m) / (x + m);
    double s = (x - m) * v;
    double ej = 2 * x * v;
    const double v2 = v * v;
    for (int j = 1; j < 1000; ++j) {  // |v| < 0.1: each term is 100x smaller, ~10 terms to converge
      ej *= v2;
      const double s1 = s + ej / (2 * j + 1);
      if (s1 == s) return s1;
      s = s1;
    }
    return s;
  }
  return x * std::log(x / m) + m - x;
}

// f(x; n, p) for 0 <= x <= n and 0 < p < 1, q = 1 - p.
double binomial_pmf(double x, double n, double p, double q) {
  if (x == 0) return std::exp(n * std::log1p(-p));
  if (x == n) return std::exp(n * std::log1p(-q));
  const double lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q);
  const double lf = kLn2Pi + std::log(x) + std::log1p(-x / n);  // ln(2 pi x (n - x) / n)
  return std::exp(lc - 0.5 * lf);
}

// Stop summing once the remaining terms, bounded by a geometric series, are below this share of the sum.
constexpr double kTailCut = 1e-17;

}  // namespace

bool Slo::empty() const { return terms.empty(); }

bool Slo::met_by(const RequestLatencies& latencies) const {
  for (const auto& t : terms) {
    const double v = metric_value(latencies, t.metric);
    if (std::isnan(v)) {
      // No first token or no completion: the objective was not met. A too-short output only leaves the
      // per-token metrics undefined, which does not count against it (vLLM: tpot = 0 for one token).
      if (t.metric == SloMetric::kTtft || t.metric == SloMetric::kE2e) return false;
      continue;
    }
    if (v > t.threshold_s) return false;
  }
  return true;
}

std::string Slo::to_string() const {
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}={}@p{}", metric_name(t.metric), format_threshold(t.threshold_s), t.percentile);
  }
  return out;
}

nlohmann::ordered_json Slo::to_json() const {
  nlohmann::ordered_json j;
  j["spec"] = to_string();
  auto arr = nlohmann::ordered_json::array();
  for (const auto& t : terms) {
    arr.push_back({{"metric", metric_name(t.metric)}, {"threshold_s", t.threshold_s}, {"percentile", t.percentile}});
  }
  j["terms"] = arr;
  return j;
}

core::Result<Slo> parse_slo(std::string_view spec) {
  if (trim(spec).empty()) return core::Error{fmt::format("empty SLO '{}' ({})", spec, kExample)};
  Slo slo;
  std::vector<std::string_view> sources;  // each term's text, for the duplicate message
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = spec.find(',', start);
    const std::string_view raw = spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const std::string_view term = trim(raw);
    if (term.empty()) return core::Error{fmt::format("empty term in '{}' ({})", spec, kExample)};
    PH_ASSIGN_OR_RETURN(const SloTerm t, parse_term(term));
    for (std::size_t i = 0; i < slo.terms.size(); ++i) {
      if (slo.terms[i].metric == t.metric) {
        return core::Error{fmt::format("metric {} is given twice, in '{}' and '{}' (give one threshold per metric)",
                                       metric_name(t.metric), sources[i], term)};
      }
    }
    slo.terms.push_back(t);
    sources.push_back(term);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return slo;
}

double metric_value(const RequestLatencies& latencies, SloMetric metric) {
  switch (metric) {
    case SloMetric::kTtft: return latencies.ttft_s;
    case SloMetric::kTpot: return latencies.tpot_s;
    case SloMetric::kItl: return latencies.mean_itl_s;
    case SloMetric::kE2e: return latencies.e2e_s;
    case SloMetric::kNtpot: return latencies.ntpot_s;
  }
  PH_CHECK(false);
  return kNaN;
}

std::string_view metric_name(SloMetric metric) {
  switch (metric) {
    case SloMetric::kTtft: return "ttft";
    case SloMetric::kTpot: return "tpot";
    case SloMetric::kItl: return "itl";
    case SloMetric::kE2e: return "e2e";
    case SloMetric::kNtpot: return "ntpot";
  }
  PH_CHECK(false);
  return "";
}

double binomial_cdf(std::int64_t k, std::int64_t n, double q) {
  PH_CHECK(n >= 0);
  PH_CHECK(q >= 0 && q <= 1);
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (q == 0) return 1;
  if (q == 1) return 0;
  const double nd = static_cast<double>(n);
  const double kd = static_cast<double>(k);
  const double odds = q / (1 - q);
  if (kd < nd * q) {
    // Lower tail from k down: f(j - 1) / f(j) = j / ((n - j + 1) odds), below 1 for every j <= k < n q and
    // shrinking as j falls, so the terms after the current one sum to at most term * r / (1 - r).
    double term = binomial_pmf(kd, nd, q, 1 - q);
    double sum = term;
    for (double j = kd; j > 0; --j) {
      const double r = j / ((nd - j + 1) * odds);
      term *= r;
      sum += term;
      if (term * r <= kTailCut * sum * (1 - r)) break;
    }
    return sum;
  }
  // Upper tail from k + 1 up: f(j + 1) / f(j) = (n - j) odds / (j + 1), below 1 for j > (n + 1) q - 1.
  double term = binomial_pmf(kd + 1, nd, q, 1 - q);
  double sum = term;
  for (double j = kd + 1; j < nd; ++j) {
    const double r = (nd - j) * odds / (j + 1);
    term *= r;
    sum += term;
    if (term * r <= kTailCut * sum * (1 - r)) break;
  }
  return 1 - sum;
}

std::int64_t min_requests_for_bound(std::int64_t over, double percentile, double confidence) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 62;
  PH_CHECK(over >= 0 && over < kLimit);
  PH_CHECK(percentile > 0 && percentile < 100);
  PH_CHECK(confidence > 0 && confidence < 1);
  const double q = (100 - percentile) / 100;
  const double alpha = 1 - confidence;
  const auto holds = [&](std::int64_t n) { return binomial_cdf(over, n, q) <= alpha; };
  // P[Bin(n, q) <= over] is 1 for n <= over and falls as n grows (one more trial can only add an over).
  std::int64_t lo = over;  // fails
  std::int64_t hi = over + 1;
  while (!holds(hi)) {
    if (hi >= kLimit) return std::numeric_limits<std::int64_t>::max();
    lo = hi;
    hi = hi * 2;
  }
  while (hi - lo > 1) {  // holds(hi), !holds(lo)
    const std::int64_t mid = lo + (hi - lo) / 2;
    (holds(mid) ? hi : lo) = mid;
  }
  return hi;
}

SloTermVerdict evaluate_slo_term(const SloTerm& term, double observed_s, std::int64_t n, std::int64_t over,
                                 std::optional<double> confidence) {
  PH_CHECK(n >= 0 && over >= 0 && over <= n);
  SloTermVerdict v{term, observed_s, n, over, observed_s <= term.threshold_s, false, kNaN, false, 0};
  if (!confidence) return v;
  PH_CHECK(*confidence > 0 && *confidence < 1);
  v.confidence_asked = true;
  v.confidence = *confidence;
  v.holds_at_confidence = binomial_cdf(over, n, (100 - term.percentile) / 100) <= 1 - *confidence;
  if (v.holds_at_confidence) return v;
  // over / n > (100 - percentile) / 100, multiplied out so that whole percentiles compare exactly.
  if (n > 0 && static_cast<double>(over) * 100 > static_cast<double>(n) * (100 - term.percentile)) {
    v.more_requests_needed = -1;
    return v;
  }
  // The bound fails at n and min_requests_for_bound is the first n where it holds, so this is >= 1; the
  // max() only guards against the two disagreeing in the last bit at the boundary.
  v.more_requests_needed = std::max<std::int64_t>(1, min_requests_for_bound(over, term.percentile, *confidence) - n);
  return v;
}

nlohmann::ordered_json to_json(const SloTermVerdict& v) {
  nlohmann::ordered_json j;
  j["metric"] = metric_name(v.term.metric);
  j["threshold_s"] = v.term.threshold_s;
  j["percentile"] = v.term.percentile;
  j["observed_s"] = v.observed_s;  // nlohmann writes NaN as null
  j["requests"] = v.n;
  j["over_threshold"] = v.over;
  j["met"] = v.met;
  if (v.confidence_asked) {
    j["confidence"] = v.confidence;
    j["holds_at_confidence"] = v.holds_at_confidence;
    j["more_requests_needed"] = v.more_requests_needed;
  } else {
    j["confidence"] = nullptr;
    j["holds_at_confidence"] = nullptr;
    j["more_requests_needed"] = nullptr;
  }
  j["passed"] = v.passed();
  return j;
}

}  // namespace perfhound::load
