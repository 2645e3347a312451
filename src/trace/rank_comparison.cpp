#include "trace/rank_comparison.h"

#include <algorithm>

#include "core/percentile.h"
#include "core/units.h"

namespace perfhound::trace {

RankSummary summarize_rank(const Timeline& timeline, const TraceAnalysis& a, int fallback_rank) {
  RankSummary r;
  r.source = timeline.info.source;
  r.rank = timeline.info.rank.value_or(fallback_rank);
  r.verdict = a.verdict.kind;
  for (const auto& d : a.utilization.devices) {
    if (d.busy_ns > r.busy_ns) {
      r.busy_ns = d.busy_ns;
      r.time_ns = d.active_span_ns;
    }
  }
  // A rank without GPU activity keeps time 0 (the header's promise): its steps, if any, timed nothing.
  if (r.busy_ns > 0 && a.launches.step_source == StepSource::kProfilerStep && !a.launches.steps.empty()) {
    std::vector<double> steps;
    for (const auto& s : a.launches.steps) steps.push_back(static_cast<double>(s.end_ns - s.start_ns));
    r.time_ns = static_cast<std::int64_t>(core::summarize(steps).p50);
    r.from_steps = true;
  }
  r.comm_ns = a.communication.total.comm_busy_ns;
  r.exposed_comm_ns = a.communication.total.exposed_ns;
  return r;
}

RankComparison compare_ranks(std::vector<RankSummary> ranks) {
  RankComparison c;
  std::sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  c.ranks = std::move(ranks);
  if (c.ranks.empty()) return c;
  std::vector<double> times;
  for (const auto& r : c.ranks) times.push_back(static_cast<double>(r.time_ns));
  c.median_time_ns = static_cast<std::int64_t>(core::summarize(times).p50);
  const auto slowest = std::max_element(c.ranks.begin(), c.ranks.end(),
                                        [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; });
  c.slowest_rank = slowest->rank;
  c.slowest_time_ns = slowest->time_ns;
  c.slowest_over_median =
      c.median_time_ns > 0 ? static_cast<double>(slowest->time_ns) / static_cast<double>(c.median_time_ns) : 0;
  c.straggler = c.ranks.size() > 1 && c.slowest_over_median >= kStragglerRatio;
  const auto least = std::min_element(c.ranks.begin(), c.ranks.end(),
                                      [](const auto& a, const auto& b) { return a.comm_ns < b.comm_ns; });
  const bool any_comm = std::any_of(c.ranks.begin(), c.ranks.end(), [](const auto& r) { return r.comm_ns > 0; });
  if (any_comm) c.least_comm_rank = least->rank;
  return c;
}

nlohmann::ordered_json to_json(const RankComparison& c) {
  nlohmann::ordered_json j;
  j["median_time_s"] = core::ns_to_seconds(c.median_time_ns);
  j["slowest_rank"] = c.slowest_rank;
  j["slowest_over_median"] = c.slowest_over_median;
  j["straggler"] = c.straggler;
  j["straggler_ratio_threshold"] = kStragglerRatio;
  j["least_communication_rank"] = c.least_comm_rank;
  auto ranks = nlohmann::ordered_json::array();
  for (const auto& r : c.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"source", r.source},
                     {"time_s", core::ns_to_seconds(r.time_ns)},
                     {"time_is", r.from_steps ? "median_profiler_step" : "active_span"},
                     {"busy_s", core::ns_to_seconds(r.busy_ns)},
                     {"communication_s", core::ns_to_seconds(r.comm_ns)},
                     {"exposed_communication_s", core::ns_to_seconds(r.exposed_comm_ns)},
                     {"bottleneck", bottleneck_kind_name(r.verdict)}});
  }
  j["ranks"] = ranks;
  return j;
}

}  // namespace perfhound::trace
