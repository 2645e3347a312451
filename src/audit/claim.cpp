#include "audit/claim.h"

#include <cmath>
#include <fmt/format.h>

namespace perfhound::audit {
namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json optional_json(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isinf(*v)) return *v > 0 ? Json("inf") : Json("-inf");
    if (std::isnan(*v)) return nullptr;
  }
  return *v;
}

Json conditions_json(const ClaimConditions& c) {
  Json j;
  j["model"] = optional_json(c.model);
  j["precision"] = optional_json(c.precision);
  j["hardware"] = optional_json(c.hardware);
  j["framework"] = optional_json(c.framework);
  j["framework_version"] = optional_json(c.framework_version);
  j["batch"] = optional_json(c.batch);
  j["concurrency"] = optional_json(c.concurrency);
  j["request_rate_per_s"] = optional_json(c.request_rate_per_s);
  j["load"] = c.load.empty() ? Json(nullptr) : Json(c.load);
  j["input_len"] = optional_json(c.input_len);
  j["output_len"] = optional_json(c.output_len);
  return j;
}

}  // namespace

std::optional<double> LatencyFigure::highest_tail_percentile() const {
  if (percentiles_s.empty() || percentiles_s.rbegin()->first < 90) return std::nullopt;
  return percentiles_s.rbegin()->first;
}

bool Claim::states_throughput() const {
  return requests_per_s.has_value() || output_tokens_per_s.has_value() || total_tokens_per_s.has_value();
}

bool Claim::states_latency() const {
  for (const auto& l : latencies) {
    if (l.mean_s || l.stddev_s || !l.percentiles_s.empty()) return true;
  }
  return false;
}

bool Claim::states_a_measurement() const {
  return value.has_value() || mfu.has_value() || mbu.has_value() || states_throughput() || states_latency();
}

std::string_view subject_name(Subject subject) {
  switch (subject) {
    case Subject::kServing: return "serving";
    case Subject::kModelStep: return "model step";
    case Subject::kMicrobenchmark: return "micro-benchmark";
  }
  return "serving";
}

nlohmann::ordered_json claim_to_json(const Claim& claim) {
  Json j;
  j["format"] = claim.format;
  j["statement"] = claim.statement.empty() ? Json(nullptr) : Json(claim.statement);
  j["metric"] = claim.metric.empty() ? Json(nullptr) : Json(claim.metric);
  j["value"] = optional_json(claim.value);
  j["phase"] = claim.phase.empty() ? Json(nullptr) : Json(claim.phase);
  j["subject"] = subject_name(claim.subject);
  j["conditions"] = conditions_json(claim.conditions);
  j["throughput"] = {{"requests_per_s", optional_json(claim.requests_per_s)},
                     {"output_tokens_per_s", optional_json(claim.output_tokens_per_s)},
                     {"total_tokens_per_s", optional_json(claim.total_tokens_per_s)}};
  Json latencies = Json::array();
  for (const auto& l : claim.latencies) {
    Json lj;
    lj["metric"] = l.metric;
    lj["mean_s"] = optional_json(l.mean_s);
    lj["stddev_s"] = optional_json(l.stddev_s);
    Json p = Json::object();
    for (const auto& [q, v] : l.percentiles_s) p[fmt::format("p{:g}_s", q)] = v;
    lj["percentiles"] = p;
    lj["samples"] = optional_json(l.samples);
    latencies.push_back(lj);
  }
  j["latency"] = latencies;
  j["method"] = {{"warmup_discarded", optional_json(claim.warmup_discarded)},
                 {"warmup", claim.warmup.empty() ? Json(nullptr) : Json(claim.warmup)},
                 {"runs", optional_json(claim.runs)},
                 {"spread_stated", claim.spread_stated},
                 {"synchronized", optional_json(claim.synchronized)},
                 {"completed", optional_json(claim.completed)},
                 {"failed", optional_json(claim.failed)}};
  Json roofs = Json::array();
  for (const auto& r : claim.roofs) {
    const bool compute = r.resource == RoofFigure::Resource::kCompute;
    roofs.push_back({{"resource", compute ? "compute" : "memory"},
                     {compute ? "peak_flops_per_s" : "peak_bytes_per_s", optional_json(r.peak)},
                     {"precision", r.precision.empty() ? Json(nullptr) : Json(r.precision)},
                     {"measured", optional_json(r.measured)},
                     {"source", r.source.empty() ? Json(nullptr) : Json(r.source)}});
  }
  j["efficiency"] = {{"mfu", optional_json(claim.mfu)}, {"mbu", optional_json(claim.mbu)}, {"roofs", roofs}};
  if (claim.baseline) {
    j["baseline"] = {{"label", claim.baseline->label.empty() ? Json(nullptr) : Json(claim.baseline->label)},
                     {"value", optional_json(claim.baseline->value)},
                     {"conditions", conditions_json(claim.baseline->conditions)}};
  } else {
    j["baseline"] = nullptr;
  }
  j["variable"] = claim.variable.empty() ? Json(nullptr) : Json(claim.variable);
  j["target_workload"] = {{"input_len", optional_json(claim.target_input_len)},
                          {"output_len", optional_json(claim.target_output_len)}};
  j["source_flags"] = claim.source_flags;
  j["notes"] = claim.notes;
  return j;
}

}  // namespace perfhound::audit
