#include "diagnose/evidence.h"

#include <cmath>

namespace perfhound::diagnose {
namespace {

using Json = nlohmann::ordered_json;

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }
Json number(const std::optional<double>& v) { return v ? number(*v) : Json(nullptr); }

}  // namespace

nlohmann::ordered_json to_json(const Evidence& e) {
  Json j = Json::object();
  if (e.trace) {
    const TraceEvidence& t = *e.trace;
    Json idle = Json::object();
    for (const auto& [state, share] : t.idle_by_host_state) idle[state] = number(share);
    j["trace"] = {{"source", t.source},
                  {"bottleneck", t.bottleneck},
                  {"summary", t.summary},
                  {"device", t.device},
                  {"active_span_s", number(t.active_span_s)},
                  {"busy_s", number(t.busy_s)},
                  {"active_busy_ratio", number(t.active_busy_ratio)},
                  {"idle_s", number(t.idle_s)},
                  {"gap_count", t.gap_count},
                  {"short_gap_count", t.short_gap_count},
                  {"idle_by_host_state", std::move(idle)},
                  {"copy_share_of_busy", number(t.copy_share_of_busy)},
                  {"exposed_comm_ratio", number(t.exposed_comm_ratio)},
                  {"dominant_kernel", t.dominant_kernel},
                  {"dominant_kernel_share", number(t.dominant_kernel_share)},
                  {"kernel_count", t.kernel_count},
                  {"graph_launch_count", t.graph_launch_count}};
  }
  if (e.mfu) {
    const MfuEvidence& m = *e.mfu;
    j["mfu"] = {{"source", m.source},
                {"phase", m.phase},
                {"model", m.model},
                {"hardware", m.hardware},
                {"batch", m.batch},
                {"binding_roof", m.binding_roof},
                {"roofline_time_s", number(m.roofline_time_s)},
                {"time_s", number(m.time_s)},
                {"mfu", number(m.mfu)},
                {"mbu", number(m.mbu)},
                {"roofs", m.roofs},
                {"fits", m.fits}};
  }
  if (e.roofline) {
    Json kernels = Json::array();
    for (const auto& k : e.roofline->kernels) {
      kernels.push_back({{"id", k.id},
                         {"name", k.name},
                         {"duration_s", number(k.duration_s)},
                         {"case", k.roofline_case},
                         {"fraction_of_attainable", number(k.fraction_of_attainable)},
                         {"bound_time_s", number(k.bound_time_s)},
                         {"arithmetic_intensity_flop_per_byte", number(k.arithmetic_intensity)},
                         {"binding_level", k.binding_level.empty() ? Json(nullptr) : Json(k.binding_level)}});
    }
    j["roofline"] = {
        {"source", e.roofline->source}, {"roofs", e.roofline->roofs}, {"kernels", std::move(kernels)}, {"unplaced", e.roofline->unplaced}};
  }
  if (!e.load.empty()) {
    Json points = Json::array();
    for (const auto& p : e.load) {
      points.push_back({{"source", p.source},
                        {"label", p.label},
                        {"valid", p.valid},
                        {"client_limited", p.client_limited},
                        {"invalid_reasons", p.invalid_reasons},
                        {"completed", p.completed},
                        {"failed", p.failed},
                        {"load", number(p.load)},
                        {"latency_from", p.latency_from},
                        {"ttft_p50_s", number(p.ttft_p50_s)},
                        {"ttft_p95_s", number(p.ttft_p95_s)},
                        {"tpot_p50_s", number(p.tpot_p50_s)},
                        {"tpot_p95_s", number(p.tpot_p95_s)},
                        {"requests_per_s", number(p.requests_per_s)},
                        {"output_tokens_per_s", number(p.output_tokens_per_s)},
                        {"goodput_per_s", number(p.goodput_per_s)},
                        {"goodput_ratio", number(p.goodput_ratio)},
                        {"slo_passed", p.slo_passed ? Json(*p.slo_passed) : Json(nullptr)}});
    }
    j["load"] = std::move(points);
  }
  return j;
}

}  // namespace perfhound::diagnose
