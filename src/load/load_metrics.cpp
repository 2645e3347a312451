#include "load/load_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/check.h"
#include "core/units.h"

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TokenSource token_source(std::uint64_t first, std::uint64_t second) {
  if (first == 0 && second == 0) return TokenSource::kNone;
  if (second == 0) return TokenSource::kUsage;
  if (first == 0) return TokenSource::kCounted;
  return TokenSource::kMixed;
}

double per_window(double amount, double window_s) { return window_s > 0 ? amount / window_s : kNaN; }

nlohmann::ordered_json number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

nlohmann::ordered_json start_json(const StartLatencies& l) {
  nlohmann::ordered_json j;
  j["ttft"] = to_json(l.ttft_s, "_s");
  j["e2e"] = to_json(l.e2e_s, "_s");
  j["tpot"] = to_json(l.tpot_s, "_s");
  j["ntpot"] = to_json(l.ntpot_s, "_s");
  j["mean_itl"] = to_json(l.mean_itl_s, "_s");
  j["ttlt"] = to_json(l.ttlt_s, "_s");
  j["ntpot_to_last_token"] = to_json(l.ntpot_to_last_token_s, "_s");
  j["output_tokens_rate"] = to_json(l.output_tokens_per_s, "_per_s");
  j["output_tokens_rate_to_last_token"] = to_json(l.output_tokens_per_s_to_last_token, "_per_s");
  return j;
}

}  // namespace

std::string_view token_source_name(TokenSource source) {
  switch (source) {
    case TokenSource::kNone: return "none";
    case TokenSource::kUsage: return "usage";
    case TokenSource::kCounted: return "counted";
    case TokenSource::kMixed: return "mixed";
  }
  return "none";
}

LoadMetricsTracker::StartTrackers::StartTrackers(std::size_t raw_limit)
    : ttft(raw_limit, kSecondsScale),
      e2e(raw_limit, kSecondsScale),
      tpot(raw_limit, kSecondsScale),
      ntpot(raw_limit, kSecondsScale),
      mean_itl(raw_limit, kSecondsScale),
      ttlt(raw_limit, kSecondsScale),
      ntpot_to_last_token(raw_limit, kSecondsScale),
      output_rate(raw_limit, kRateScale),
      output_rate_to_last_token(raw_limit, kRateScale) {}

LoadMetricsTracker::LoadMetricsTracker(GoodputPredicate slo, std::int64_t bin_ns, std::size_t raw_limit)
    : slo_(std::move(slo)),
      bin_ns_(bin_ns),
      intended_(raw_limit),
      sent_(raw_limit),
      itl_(raw_limit, kSecondsScale),
      ttst_(raw_limit, kSecondsScale),
      tpot_to_last_token_(raw_limit, kSecondsScale),
      decode_rate_(raw_limit, kRateScale),
      tokens_per_chunk_(raw_limit, kRateScale),
      output_tokens_(raw_limit, kCountScale),
      input_tokens_(raw_limit, kCountScale),
      schedule_lag_(raw_limit, kSecondsScale) {
  PH_CHECK(bin_ns > 0);
  errors_.resize(kErrorKindCount);
  for (int i = 0; i < kErrorKindCount; ++i) errors_[static_cast<std::size_t>(i)].kind = static_cast<ErrorKind>(i);
}

void LoadMetricsTracker::add(const RequestRecord& record) {
  ++requests_total_;
  if (record.warmup) {
    ++warmup_;
    return;
  }
  ++http_status_[record.http_status];

  const std::int64_t start_ns = record.intended_ns >= 0 ? record.intended_ns : record.sent_ns;
  if (start_ns >= 0) window_start_ns_ = window_start_ns_ < 0 ? start_ns : std::min(window_start_ns_, start_ns);
  if (record.end_ns >= 0) window_end_ns_ = std::max(window_end_ns_, record.end_ns);

  if (record.sent_ns >= 0 && record.intended_ns >= 0) {
    schedule_lag_.add(core::ns_to_seconds(record.sent_ns - record.intended_ns));
  }
  if (record.sent_ns >= 0 && record.end_ns >= record.sent_ns) add_in_flight(record.sent_ns, record.end_ns);

  if (record.ok()) {
    ++completed_;
    add_completed(record);
  } else {
    ++failed_;
    ErrorKindCount& e = errors_[static_cast<std::size_t>(record.error)];
    if (e.count++ == 0) e.first_message = record.error_message;
  }
}

void LoadMetricsTracker::add_completed(const RequestRecord& record) {
  const std::int64_t output = record.output_tokens();
  ++(record.output_tokens_from_usage() ? output_from_usage_ : output_counted_);
  const bool input_from_usage = record.usage_prompt_tokens >= 0;
  const std::int64_t input = input_from_usage ? record.usage_prompt_tokens : record.input_tokens;
  ++(input_from_usage ? input_from_usage_ : input_from_workload_);
  total_output_tokens_ += static_cast<std::uint64_t>(std::max<std::int64_t>(output, 0));
  total_input_tokens_ += static_cast<std::uint64_t>(std::max<std::int64_t>(input, 0));
  output_tokens_.add(static_cast<double>(output));
  input_tokens_.add(static_cast<double>(input));

  add_latencies(record, LatencyStart::kIntended, intended_);
  add_latencies(record, LatencyStart::kSent, sent_);

  const auto& chunks = record.chunk_ns;
  for (std::size_t i = 1; i < chunks.size(); ++i) {
    itl_.add(core::ns_to_seconds(chunks[i] - chunks[i - 1]));
    if (chunks[i] == chunks[i - 1]) ++itl_zero_gaps_;
  }
  ttst_.add(chunks.size() >= 2 ? core::ns_to_seconds(chunks[1] - chunks[0]) : kNaN);

  const bool have_first = record.first_token_ns >= 0 && !chunks.empty();
  const double tpot_last = have_first && output >= 2 ? core::ns_to_seconds(chunks.back() - record.first_token_ns) /
                                                           static_cast<double>(output - 1)
                                                     : kNaN;
  tpot_to_last_token_.add(tpot_last);
  decode_rate_.add(1.0 / tpot_last);  // NaN stays NaN; 1 / 0 is infinite: both undefined
  tokens_per_chunk_.add(chunks.empty() ? kNaN : static_cast<double>(output) / static_cast<double>(chunks.size()));

  if (slo_ && slo_(compute_latencies(record, LatencyStart::kIntended))) ++good_;
}

void LoadMetricsTracker::add_latencies(const RequestRecord& record, LatencyStart start, StartTrackers& t) {
  const std::int64_t from = start == LatencyStart::kIntended ? record.intended_ns : record.sent_ns;
  RequestLatencies l{kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  if (from >= 0) l = compute_latencies(record, start);
  double ttlt = kNaN;
  if (from >= 0 && record.first_token_ns >= 0 && !record.chunk_ns.empty()) {
    ttlt = core::ns_to_seconds(record.chunk_ns.back() - from);
  }
  const double tokens = l.output_tokens;
  t.ttft.add(l.ttft_s);
  t.e2e.add(l.e2e_s);
  t.tpot.add(l.tpot_s);
  t.ntpot.add(l.ntpot_s);
  t.mean_itl.add(l.mean_itl_s);
  t.ttlt.add(ttlt);
  t.ntpot_to_last_token.add(tokens >= 1 ? ttlt / tokens : kNaN);
  // A zero duration gives an infinite rate and 0 / 0 a NaN: SampleTracker counts both as undefined.
  t.output_rate.add(tokens / l.e2e_s);
  t.output_rate_to_last_token.add(tokens / ttlt);
}

void LoadMetricsTracker::add_in_flight(std::int64_t sent_ns, std::int64_t end_ns) {
  send_times_ns_.push_back(sent_ns);
  end_times_ns_.push_back(end_ns);
  in_flight_total_ns_ += end_ns - sent_ns;
  constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  const auto max_bins = static_cast<std::int64_t>(kMaxConcurrencyBins);
  const std::int64_t bins_end_ns = bin_ns_ > kInt64Max / max_bins ? kInt64Max : bin_ns_ * max_bins;
  if (end_ns > bins_end_ns) {
    ++concurrency_clipped_;
    end_ns = bins_end_ns;
    if (sent_ns >= end_ns) return;
  }
  if (end_ns == sent_ns) return;
  in_flight_last_end_ns_ = std::max(in_flight_last_end_ns_, end_ns);
  const auto first = static_cast<std::size_t>(sent_ns / bin_ns_);
  const auto last = static_cast<std::size_t>((end_ns - 1) / bin_ns_);  // end is exclusive
  if (in_flight_ns_.size() <= last) in_flight_ns_.resize(last + 1, 0);
  for (std::size_t k = first; k <= last; ++k) {
    const std::int64_t bin_start = static_cast<std::int64_t>(k) * bin_ns_;
    const std::int64_t lo = std::max(sent_ns, bin_start);
    const std::int64_t hi = end_ns - bin_start > bin_ns_ ? bin_start + bin_ns_ : end_ns;
    in_flight_ns_[k] += hi - lo;
  }
}

LoadSummary LoadMetricsTracker::summary() const {
  LoadSummary s;
  s.requests_total = requests_total_;
  s.warmup_discarded = warmup_;
  s.measured = completed_ + failed_;
  s.completed = completed_;
  s.failed = failed_;
  for (const auto& e : errors_) {
    if (e.count > 0) s.errors.push_back(e);
  }
  for (const auto& [status, count] : http_status_) s.http_status.push_back({status, count});

  const auto fill = [](const StartTrackers& t, StartLatencies& l) {
    l.ttft_s = t.ttft.summary();
    l.e2e_s = t.e2e.summary();
    l.tpot_s = t.tpot.summary();
    l.ntpot_s = t.ntpot.summary();
    l.mean_itl_s = t.mean_itl.summary();
    l.ttlt_s = t.ttlt.summary();
    l.ntpot_to_last_token_s = t.ntpot_to_last_token.summary();
    l.output_tokens_per_s = t.output_rate.summary();
    l.output_tokens_per_s_to_last_token = t.output_rate_to_last_token.summary();
  };
  fill(intended_, s.from_intended);
  fill(sent_, s.from_sent);
  s.itl_s = itl_.summary();
  s.itl_zero_gaps = itl_zero_gaps_;
  s.ttst_s = ttst_.summary();
  s.tpot_to_last_token_s = tpot_to_last_token_.summary();
  s.decode_tokens_per_s = decode_rate_.summary();
  s.tokens_per_chunk = tokens_per_chunk_.summary();
  s.output_tokens = output_tokens_.summary();
  s.input_tokens = input_tokens_.summary();
  s.schedule_lag_s = schedule_lag_.summary();

  s.window_start_ns = window_start_ns_;
  s.window_end_ns = window_end_ns_;
  s.window_s = window_start_ns_ >= 0 && window_end_ns_ > window_start_ns_
                   ? core::ns_to_seconds(window_end_ns_ - window_start_ns_)
                   : 0.0;
  s.total_input_tokens = total_input_tokens_;
  s.total_output_tokens = total_output_tokens_;
  s.requests_per_s = per_window(static_cast<double>(completed_), s.window_s);
  s.output_tokens_per_s = per_window(static_cast<double>(total_output_tokens_), s.window_s);
  s.total_tokens_per_s = per_window(static_cast<double>(total_input_tokens_ + total_output_tokens_), s.window_s);
  s.output_token_source = token_source(output_from_usage_, output_counted_);
  s.output_tokens_from_usage = output_from_usage_;
  s.output_tokens_counted = output_counted_;
  s.input_token_source = token_source(input_from_usage_, input_from_workload_);
  s.input_tokens_from_usage = input_from_usage_;
  s.input_tokens_from_workload = input_from_workload_;

  s.goodput_defined = static_cast<bool>(slo_);
  s.good_completed = good_;
  s.goodput_per_s = s.goodput_defined ? per_window(static_cast<double>(good_), s.window_s) : kNaN;
  s.goodput_ratio = core::ratio_or_zero(static_cast<std::int64_t>(good_), static_cast<std::int64_t>(completed_));

  s.bin_ns = bin_ns_;
  s.concurrency.reserve(in_flight_ns_.size());
  for (std::size_t k = 0; k < in_flight_ns_.size(); ++k) {
    const std::int64_t bin_start = static_cast<std::int64_t>(k) * bin_ns_;
    // The last bin ends with the latest end, not a whole bin later, so a run's tail is not diluted.
    const std::int64_t width = std::min(bin_ns_, in_flight_last_end_ns_ - bin_start);
    s.concurrency.push_back({core::ns_to_seconds(bin_start),
                             static_cast<double>(in_flight_ns_[k]) / static_cast<double>(width)});
  }
  s.mean_in_flight = per_window(core::ns_to_seconds(in_flight_total_ns_), s.window_s);
  s.concurrency_clipped = concurrency_clipped_;

  // Exact peak over half-open [sent, end): at equal times the end is taken first (vLLM's sweep-line).
  std::vector<std::int64_t> sends(send_times_ns_), ends(end_times_ns_);
  std::sort(sends.begin(), sends.end());
  std::sort(ends.begin(), ends.end());
  std::uint64_t in_flight = 0;
  std::size_t j = 0;
  for (std::int64_t sent : sends) {
    while (j < ends.size() && ends[j] <= sent) {
      --in_flight;
      ++j;
    }
    ++in_flight;
    s.max_in_flight = std::max(s.max_in_flight, in_flight);
  }
  return s;
}

nlohmann::ordered_json to_json(const SampleSummary& s, std::string_view suffix) {
  const std::string sfx(suffix);
  nlohmann::ordered_json j;
  j["count"] = s.count;
  j["undefined_count"] = s.undefined_count;
  j["method"] = s.method;
  j["exact"] = s.exact;
  j["out_of_range_count"] = s.out_of_range_count;
  const std::pair<const char*, double> fields[] = {
      {"mean", s.mean}, {"stddev", s.stddev}, {"min", s.min}, {"p1", s.p1},   {"p5", s.p5},
      {"p10", s.p10},   {"p25", s.p25},       {"p50", s.p50}, {"p75", s.p75}, {"p90", s.p90},
      {"p95", s.p95},   {"p99", s.p99},       {"p99_9", s.p999}, {"max", s.max}};
  for (const auto& [name, value] : fields) j[std::string(name) + sfx] = number(value);
  return j;
}

nlohmann::ordered_json to_json(const LoadSummary& s) {
  nlohmann::ordered_json j;
  j["requests"] = {{"total", s.requests_total},
                   {"warmup_discarded", s.warmup_discarded},
                   {"measured", s.measured},
                   {"completed", s.completed},
                   {"failed", s.failed}};
  auto errors = nlohmann::ordered_json::array();
  for (const auto& e : s.errors) {
    errors.push_back({{"kind", error_kind_name(e.kind)}, {"count", e.count}, {"first_message", e.first_message}});
  }
  j["errors"] = std::move(errors);
  auto statuses = nlohmann::ordered_json::array();
  for (const auto& h : s.http_status) statuses.push_back({{"status", h.status}, {"count", h.count}});
  j["http_status"] = std::move(statuses);

  j["window"] = {{"start_s", s.window_start_ns >= 0 ? number(core::ns_to_seconds(s.window_start_ns)) : nullptr},
                 {"end_s", s.window_end_ns >= 0 ? number(core::ns_to_seconds(s.window_end_ns)) : nullptr},
                 {"duration_s", s.window_s}};
  j["throughput"] = {{"requests_per_s", number(s.requests_per_s)},
                     {"output_tokens_per_s", number(s.output_tokens_per_s)},
                     {"total_tokens_per_s", number(s.total_tokens_per_s)},
                     {"total_input_tokens", s.total_input_tokens},
                     {"total_output_tokens", s.total_output_tokens},
                     {"output_token_source", token_source_name(s.output_token_source)},
                     {"output_tokens_from_usage", s.output_tokens_from_usage},
                     {"output_tokens_counted", s.output_tokens_counted},
                     {"input_token_source", token_source_name(s.input_token_source)},
                     {"input_tokens_from_usage", s.input_tokens_from_usage},
                     {"input_tokens_from_workload", s.input_tokens_from_workload}};
  if (s.goodput_defined) {
    j["goodput"] = {{"requests_per_s", number(s.goodput_per_s)},
                    {"good_completed", s.good_completed},
                    {"ratio", s.goodput_ratio}};
  } else {
    j["goodput"] = nullptr;
  }
  j["latency"] = {{"from_intended", start_json(s.from_intended)}, {"from_sent", start_json(s.from_sent)}};
  j["itl"] = to_json(s.itl_s, "_s");
  j["itl_zero_gaps"] = s.itl_zero_gaps;
  j["ttst"] = to_json(s.ttst_s, "_s");
  j["tpot_to_last_token"] = to_json(s.tpot_to_last_token_s, "_s");
  j["decode_tokens_rate"] = to_json(s.decode_tokens_per_s, "_per_s");
  j["tokens_per_chunk"] = to_json(s.tokens_per_chunk, "_tokens");
  j["output_tokens"] = to_json(s.output_tokens, "_tokens");
  j["input_tokens"] = to_json(s.input_tokens, "_tokens");
  j["schedule_lag"] = to_json(s.schedule_lag_s, "_s");

  auto bins = nlohmann::ordered_json::array();
  for (const auto& b : s.concurrency) bins.push_back({{"start_s", b.start_s}, {"mean_in_flight", b.mean_in_flight}});
  j["concurrency"] = {{"bin_s", core::ns_to_seconds(s.bin_ns)},
                      {"mean_in_flight", number(s.mean_in_flight)},
                      {"max_in_flight", s.max_in_flight},
                      {"clipped_requests", s.concurrency_clipped},
                      {"bins", std::move(bins)}};
  return j;
}

}  // namespace perfhound::load
