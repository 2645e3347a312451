#include "serve/server_metrics.h"

#include <algorithm>

#include "serve/prometheus_writer.h"

namespace perfhound::serve {

namespace vm = vllm_metrics;

FixedHistogram::FixedHistogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)), counts_(upper_bounds_.size() + 1, 0) {}

void FixedHistogram::record(double value) {
  // Prometheus buckets are upper-inclusive: value v falls in the first bucket with v <= bound.
  const auto it = std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value);
  ++counts_[static_cast<std::size_t>(it - upper_bounds_.begin())];
  sum_ += value;
  ++count_;
}

ServerMetrics::ServerMetrics()
    : ttft_({vm::kTimeToFirstTokenBuckets.begin(), vm::kTimeToFirstTokenBuckets.end()}),
      itl_({vm::kInterTokenLatencyBuckets.begin(), vm::kInterTokenLatencyBuckets.end()}),
      e2e_({vm::kRequestLatencyBuckets.begin(), vm::kRequestLatencyBuckets.end()}) {}

void ServerMetrics::record_request(std::int64_t prompt_tokens) {
  ++requests_;
  prompt_tokens_ += prompt_tokens;
}

void ServerMetrics::record_tokens(std::int64_t tokens, double ttft_s, double itl_s, std::int64_t itl_count) {
  generation_tokens_ += tokens;
  if (ttft_s >= 0) ttft_.record(ttft_s);
  if (itl_s >= 0) {
    for (std::int64_t i = 0; i < itl_count; ++i) itl_.record(itl_s);
  }
}

void ServerMetrics::record_finished(double e2e_s) {
  ++finished_;
  e2e_.record(e2e_s);
}

std::string ServerMetrics::render(const std::string& model, const EngineGauges& g) const {
  PrometheusWriter w;
  const PrometheusLabels labels{{vm::kModelNameLabel, model}};
  w.gauge(vm::kNumRequestsRunning, vm::kNumRequestsRunningHelp, labels, static_cast<double>(g.running));
  w.gauge(vm::kNumRequestsWaiting, vm::kNumRequestsWaitingHelp, labels, static_cast<double>(g.waiting));
  w.gauge(vm::kKvCacheUsagePerc, vm::kKvCacheUsagePercHelp, labels, g.kv_cache_usage);
  w.counter(vm::kPromptTokensTotal, vm::kPromptTokensTotalHelp, labels, static_cast<double>(prompt_tokens_));
  w.counter(vm::kGenerationTokensTotal, vm::kGenerationTokensTotalHelp, labels, static_cast<double>(generation_tokens_));
  w.counter(vm::kNumPreemptionsTotal, vm::kNumPreemptionsTotalHelp, labels, static_cast<double>(std::max(preemptions_, g.preemptions)));
  PrometheusLabels finished = labels;
  finished.push_back({vm::kFinishedReasonLabel, "length"});
  w.counter(vm::kRequestSuccessTotal, vm::kRequestSuccessTotalHelp, finished, static_cast<double>(finished_));
  auto histogram = [&](std::string_view name, std::string_view help, const FixedHistogram& h) {
    // FixedHistogram keeps an overflow bucket; the writer derives +Inf from the count, so pass the finite ones.
    const std::span<const std::uint64_t> finite(h.counts().data(), h.upper_bounds().size());
    w.histogram(name, help, labels, h.upper_bounds(), finite, h.sum(), h.count());
  };
  histogram(vm::kTimeToFirstTokenSeconds, vm::kTimeToFirstTokenSecondsHelp, ttft_);
  histogram(vm::kInterTokenLatencySeconds, vm::kInterTokenLatencySecondsHelp, itl_);
  histogram(vm::kE2eRequestLatencySeconds, vm::kE2eRequestLatencySecondsHelp, e2e_);
  // Not a vLLM metric: how many requests the --fault-* flags hit, so a client test can reconcile its counts.
  w.counter("perfhound:injected_faults_total", "Requests given a simulated fault (perfhound serve --fault-*).", labels,
            static_cast<double>(faults_));
  for (const auto& [kind, count] : faults_by_kind_) {
    PrometheusLabels by_kind = labels;
    by_kind.push_back({"fault", kind});
    w.counter("perfhound:injected_faults_by_kind_total", "The same, by --fault-* kind.", by_kind, static_cast<double>(count));
  }
  return w.str();
}

}  // namespace perfhound::serve
