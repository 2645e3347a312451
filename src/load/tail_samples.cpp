#include "load/tail_samples.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/percentile.h"

namespace perfhound::load {
namespace {

constexpr std::uint64_t kSamplesForP99 = 100;

// The latencies the load table quotes a p99 of (cli/load_summary_text.cpp), with their sample counts.
std::vector<std::pair<std::string_view, std::uint64_t>> quoted_counts(const LoadSummary& s, LatencyStart start) {
  const StartLatencies& l = s.latencies(start);
  return {{"TTFT", l.ttft_s.count},   {"TPOT", l.tpot_s.count},     {"ITL (per chunk, pooled)", s.itl_s.count},
          {"ITL (mean per request)", l.mean_itl_s.count}, {"NTPOT", l.ntpot_s.count}, {"E2E", l.e2e_s.count}};
}

}  // namespace

std::optional<core::Diagnostic> check_tail_samples(const LoadSummary& summary, LatencyStart start) {
  if (summary.completed == 0) return std::nullopt;
  const bool few_requests = summary.completed < kSamplesForP99;
  // Under 100 completed, each per-request latency is under 100 too (the pooled ITL counts gaps, and may not be):
  // those with fewer samples than the requests are named.
  const std::uint64_t below = few_requests ? summary.completed : kSamplesForP99;
  std::string fewer;
  for (const auto& [name, count] : quoted_counts(summary, start)) {
    if (count > 0 && count < below) fewer += fmt::format("{}{} {}", fewer.empty() ? "" : ", ", name, count);
  }
  if (few_requests) {
    return core::Diagnostic{&core::kFewSamplesForTail,
                            fmt::format("p99 from {} completed requests{}", summary.completed,
                                        fewer.empty() ? "" : "; fewer for " + fewer)};
  }
  if (fewer.empty()) return std::nullopt;
  return core::Diagnostic{&core::kFewSamplesForTail, fmt::format("p99 from fewer than {} samples: {}", kSamplesForP99, fewer)};
}

std::optional<core::Diagnostic> check_gate_samples(const SloTerm& term, std::uint64_t samples) {
  const std::uint64_t needed = core::samples_for_percentile(term.percentile);
  if (needed <= kSamplesForP99 || samples == 0 || samples >= needed) return std::nullopt;
  return core::Diagnostic{&core::kFewSamplesForTail,
                          fmt::format("SLO p{:g} {} judged from {} samples (want >= {})", term.percentile,
                                      metric_name(term.metric), samples, needed)};
}

}  // namespace perfhound::load
