// What `perfhound serve` counts for GET /metrics, in simulated seconds, rendered with vLLM's metric names
// so a dashboard or a load generator reading vLLM's /metrics reads ours. Histogram buckets are vLLM's.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "serve/token_engine.h"

namespace perfhound::serve {

class FixedHistogram {
 public:
  explicit FixedHistogram(std::vector<double> upper_bounds);
  void record(double value);
  const std::vector<double>& upper_bounds() const { return upper_bounds_; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }  // per bucket, last is +Inf
  double sum() const { return sum_; }
  std::uint64_t count() const { return count_; }

 private:
  std::vector<double> upper_bounds_;
  std::vector<std::uint64_t> counts_;
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

class ServerMetrics {
 public:
  ServerMetrics();
  void record_request(std::int64_t prompt_tokens);
  // `ttft_s` >= 0 for a request's first tokens, `itl_s` >= 0 for later ones (per token of the step).
  void record_tokens(std::int64_t tokens, double ttft_s, double itl_s, std::int64_t itl_count);
  void record_finished(double e2e_s);
  // `kind` as the --fault-* flag names it ("429", "reset", "stall", ...).
  void record_fault(std::string_view kind) {
    ++faults_;
    ++faults_by_kind_[std::string(kind)];
  }
  void record_step(const EngineGauges& gauges) { preemptions_ = gauges.preemptions; }

  std::string render(const std::string& model, const EngineGauges& gauges) const;

  std::uint64_t requests() const { return requests_; }
  std::uint64_t finished() const { return finished_; }
  std::uint64_t faults() const { return faults_; }

 private:
  std::uint64_t requests_ = 0, finished_ = 0, faults_ = 0;
  std::map<std::string, std::uint64_t> faults_by_kind_;
  std::int64_t prompt_tokens_ = 0, generation_tokens_ = 0, preemptions_ = 0;
  FixedHistogram ttft_, itl_, e2e_;
};

}  // namespace perfhound::serve
