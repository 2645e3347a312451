#include "load/tail_samples.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/percentile.h"

namespace perfhound::load {
namespace {

constexpr std::uint64_t kSamplesForP99 = 100;
constexpr std::array kTableTails = {90.0, 95.0, 99.0};  // the load table's tail columns (load_summary_text.cpp)

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
  std::uint64_t fewest = below;
  for (const auto& [name, count] : quoted_counts(summary, start)) {
    if (count > 0 && count < below) {
      fewer += fmt::format("{}{} {}", fewer.empty() ? "" : ", ", name, count);
      fewest = std::min(fewest, count);
    }
  }
  if (few_requests) {
    return core::Diagnostic{&core::kFewSamplesForTail,
                            fmt::format("{} from {} completed requests{}", core::short_tails(summary.completed, kTableTails),
                                        summary.completed, fewer.empty() ? "" : "; fewer for " + fewer)};
  }
  if (fewer.empty()) return std::nullopt;
  // The tails the fewest-sampled latency cannot carry (each one named has fewer than 100).
  return core::Diagnostic{&core::kFewSamplesForTail,
                          fmt::format("{} from fewer samples: {}", core::short_tails(fewest, kTableTails), fewer)};
}

std::optional<core::Diagnostic> check_gate_samples(const SloTerm& term, std::uint64_t samples) {
  const std::uint64_t needed = core::samples_for_percentile(term.percentile);
  if (needed <= kSamplesForP99 || samples == 0 || samples >= needed) return std::nullopt;
  return core::Diagnostic{&core::kFewSamplesForTail,
                          fmt::format("SLO p{:g} {} judged from {} samples (needs {})", term.percentile,
                                      metric_name(term.metric), samples, needed)};
}

}  // namespace perfhound::load
