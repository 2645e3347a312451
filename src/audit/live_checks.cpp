#include "audit/live_checks.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/percentile.h"
#include "core/rank_tests.h"
#include "core/units.h"
#include "load/request_latencies.h"

namespace perfhound::audit {
namespace {

using load::RequestRecord;

std::vector<const RequestRecord*> completed(std::span<const RequestRecord> records) {
  std::vector<const RequestRecord*> out;
  for (const auto& r : records) {
    if (!r.warmup && r.ok()) out.push_back(&r);
  }
  return out;
}

std::int64_t failed(std::span<const RequestRecord> records) {
  return std::count_if(records.begin(), records.end(), [](const RequestRecord& r) { return !r.warmup && !r.ok(); });
}

// TTFT or TPOT (seconds, from the actual send) of each completed record; NaN values (a one-token output's TPOT)
// are left out.
std::vector<double> latencies(std::span<const RequestRecord> records, double load::RequestLatencies::*field) {
  std::vector<double> out;
  for (const RequestRecord* r : completed(records)) {
    const double v = load::compute_latencies(*r, load::LatencyStart::kSent).*field;
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return core::percentile_of_sorted(v, 50.0);
}

std::string secs(double s) { return core::format_duration_ns(s * 1e9); }

// The shift y - x with its interval, relative to x's median; nullopt (and `why`) when the samples are too small.
struct RelativeShift {
  bool ok = false;
  double x_median = 0, y_median = 0, lo = 0, shift = 0, hi = 0;  // lo, shift, hi: fractions of x_median
  std::string why;
};

RelativeShift relative_shift(const std::vector<double>& x, const std::vector<double>& y) {
  RelativeShift s;
  if (x.empty() || y.empty()) {
    s.why = "no completed request on one side";
    return s;
  }
  s.x_median = median(x);
  s.y_median = median(y);
  const auto interval = core::hodges_lehmann_interval(x, y, kLiveConfidence);
  if (!interval.ok()) {
    s.why = interval.error().message;
    return s;
  }
  if (!(s.x_median > 0)) {
    s.why = "the baseline median is not positive";
    return s;
  }
  s.ok = true;
  s.lo = interval->lo / s.x_median;
  s.shift = interval->shift / s.x_median;
  s.hi = interval->hi / s.x_median;
  return s;
}

nlohmann::ordered_json shift_json(const RelativeShift& s, std::string_view x_name, std::string_view y_name) {
  nlohmann::ordered_json j;
  j[fmt::format("{}_median_s", x_name)] = s.x_median;
  j[fmt::format("{}_median_s", y_name)] = s.y_median;
  if (s.ok) {
    j["relative_shift"] = s.shift;
    j["relative_interval"] = {s.lo, s.hi};
    j["confidence"] = kLiveConfidence;
  } else {
    j["not_judged"] = s.why;
  }
  return j;
}

LiveCheck new_check(std::string_view id, std::string_view mlperf) {
  LiveCheck c;
  c.id = id;
  c.mlperf = mlperf;
  return c;
}

std::string pct(double fraction) { return fmt::format("{:+.1f}%", fraction * 100); }

}  // namespace

LiveCheck judge_repeated_prompt(std::span<const RequestRecord> same, std::span<const RequestRecord> distinct) {
  LiveCheck c = new_check("repeated-prompt", "TEST04");
  const auto x = latencies(distinct, &load::RequestLatencies::ttft_s);
  const auto y = latencies(same, &load::RequestLatencies::ttft_s);
  const RelativeShift s = relative_shift(x, y);
  c.numbers = shift_json(s, "distinct_ttft", "same_ttft");
  c.numbers["same"] = y.size();
  c.numbers["distinct"] = x.size();
  c.numbers["failed"] = failed(same) + failed(distinct);
  if (!s.ok) {
    c.what = fmt::format("not judged: {}", s.why);
    return c;
  }
  c.passed = !(s.hi < -kLiveTolerance);
  c.what = fmt::format("TTFT p50 {} for the same prompt repeated vs {} for distinct prompts: shift {} (95% interval {} "
                       "to {}); {}",
                       secs(s.y_median), secs(s.x_median), pct(s.shift), pct(s.lo), pct(s.hi),
                       c.passed ? "no speed-up beyond 10% shown" : "a cache serves repeated prompts");
  return c;
}

LiveCheck judge_stream_accounting(std::span<const RequestRecord> records) {
  LiveCheck c = new_check("stream-accounting", "TEST06");
  std::int64_t no_finish = 0, several_finishes = 0, no_usage = 0, more_chunks_than_tokens = 0, chunks = 0, tokens = 0;
  const auto done = completed(records);
  for (const RequestRecord* r : done) {
    no_finish += r->finish_events == 0;
    several_finishes += r->finish_events > 1;
    if (r->usage_completion_tokens < 0) {
      ++no_usage;
      continue;
    }
    more_chunks_than_tokens += r->content_chunks() > r->usage_completion_tokens;
    chunks += r->content_chunks();
    tokens += r->usage_completion_tokens;
  }
  c.numbers = {{"completed", done.size()},
               {"failed", failed(records)},
               {"no_finish_reason", no_finish},
               {"several_finish_reasons", several_finishes},
               {"no_usage", no_usage},
               {"more_chunks_than_usage_tokens", more_chunks_than_tokens},
               {"content_chunks", chunks},
               {"usage_completion_tokens", tokens}};
  if (done.empty()) {
    c.what = "not judged: no request completed";
    return c;
  }
  c.passed = no_finish + several_finishes + no_usage + more_chunks_than_tokens == 0;
  if (c.passed) {
    c.what = fmt::format("{} streams: one finish_reason each, usage on each, {} content chunks for {} usage tokens", done.size(),
                         chunks, tokens);
  } else {
    c.what = fmt::format("{} streams: {} without a finish_reason, {} with several, {} without usage, {} with more content "
                         "chunks than usage tokens",
                         done.size(), no_finish, several_finishes, no_usage, more_chunks_than_tokens);
  }
  return c;
}

LiveCheck judge_output_length(std::span<const RequestRecord> records, bool ignore_eos) {
  LiveCheck c = new_check("output-length", "TEST09");
  std::int64_t over = 0, under = 0, at_max = 0;
  std::vector<double> ratio;
  nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
  const auto done = completed(records);
  for (const RequestRecord* r : done) {
    const std::int64_t n = r->output_tokens();
    over += n > r->max_tokens;
    under += n < r->max_tokens;
    at_max += n == r->max_tokens;
    if (r->max_tokens > 0) ratio.push_back(static_cast<double>(n) / static_cast<double>(r->max_tokens));
    const std::string reason = r->finish_reason.empty() ? "(none)" : r->finish_reason;
    reasons[reason] = reasons.value(reason, 0) + 1;
  }
  c.numbers = {{"completed", done.size()},  {"failed", failed(records)}, {"ignore_eos", ignore_eos},
               {"over_max_tokens", over},   {"under_max_tokens", under}, {"at_max_tokens", at_max},
               {"finish_reasons", reasons}};
  if (done.empty()) {
    c.what = "not judged: no request completed";
    return c;
  }
  std::sort(ratio.begin(), ratio.end());
  c.numbers["output_over_max_tokens"] = {{"min", ratio.front()}, {"p50", core::percentile_of_sorted(ratio, 50.0)},
                                         {"max", ratio.back()}};
  c.passed = over == 0 && (!ignore_eos || under == 0);
  c.what = fmt::format("{} outputs: {} at max_tokens, {} shorter{}, {} longer (output / max_tokens from {:.2f} to {:.2f})",
                       done.size(), at_max, under, ignore_eos && under > 0 ? " though ignore_eos was asked" : "", over,
                       ratio.front(), ratio.back());
  return c;
}

LiveCheck judge_seed_stability(std::span<const RequestRecord> first, std::span<const RequestRecord> second) {
  LiveCheck c = new_check("seed-stability", "TEST05");
  const RelativeShift ttft = relative_shift(latencies(first, &load::RequestLatencies::ttft_s),
                                            latencies(second, &load::RequestLatencies::ttft_s));
  const RelativeShift tpot = relative_shift(latencies(first, &load::RequestLatencies::tpot_s),
                                            latencies(second, &load::RequestLatencies::tpot_s));
  c.numbers["ttft"] = shift_json(ttft, "seed_a", "seed_b");
  c.numbers["tpot"] = shift_json(tpot, "seed_a", "seed_b");
  c.numbers["failed"] = failed(first) + failed(second);
  if (!ttft.ok) {
    c.what = fmt::format("not judged: {}", ttft.why);
    return c;
  }
  // Materially different: the whole interval outside the +-10% band.
  const auto differs = [](const RelativeShift& s) { return s.ok && (s.lo > kLiveTolerance || s.hi < -kLiveTolerance); };
  c.passed = !differs(ttft) && !differs(tpot);
  c.what = fmt::format("another seed: TTFT p50 {} vs {} ({}, 95% interval {} to {})", secs(ttft.y_median), secs(ttft.x_median),
                       pct(ttft.shift), pct(ttft.lo), pct(ttft.hi));
  if (tpot.ok) {
    c.what += fmt::format(", TPOT p50 {} vs {} ({}, {} to {})", secs(tpot.y_median), secs(tpot.x_median), pct(tpot.shift),
                          pct(tpot.lo), pct(tpot.hi));
  }
  c.what += c.passed ? "; within 10%" : "; differs by more than 10%";
  return c;
}

nlohmann::ordered_json live_check_to_json(const LiveCheck& check) {
  return {{"check", check.id}, {"mlperf", check.mlperf}, {"passed", check.passed}, {"what", check.what}, {"numbers", check.numbers}};
}

}  // namespace perfhound::audit
