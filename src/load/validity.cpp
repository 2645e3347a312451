#include "load/validity.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/units.h"

namespace perfhound::load {
namespace {

constexpr std::string_view kClientRemedy =
    "lower the load per client process, give the client an idle core, or spread it over MPI ranks";

std::string duration(double s) { return core::format_duration_ns(s * 1e9); }

}  // namespace

Validity evaluate_validity(const ValidityInputs& in) {
  Validity v;
  const auto client_limited = [&](std::string what) {
    v.valid = false;
    v.client_limited = true;
    v.reasons.push_back({std::move(what), std::string(kClientRemedy)});
  };
  const double share = std::isfinite(in.ttft_p50_s) ? kMaxClientDelayShareOfTtft * in.ttft_p50_s : 0.0;
  const auto limit = [&](double floor) { return std::max(floor, share); };
  // From too few samples a lag's p99 is their largest: one such sample over the limit is said, not disqualifying;
  // two or more (the second largest over too) are a limited client.
  const auto over = [&](std::string_view what, double p99_s, std::uint64_t samples, double second_s, double floor) {
    const std::string text = fmt::format("{} p99 {} > {}", what, duration(p99_s), duration(limit(floor)));
    if (samples >= kMinLagSamples) return client_limited("client-limited: " + text);
    if (second_s > limit(floor)) {
      return client_limited(fmt::format("client-limited: {} (from {} samples, the second largest {})", text, samples,
                                        duration(second_s)));
    }
    v.few_sample_warnings.push_back({fmt::format("{}, but from {} samples only the largest is over: too few to call "
                                                 "the client limited", text, samples),
                                     "run longer to judge the client's tail"});
  };
  if (in.open_loop && in.dispatch_lag_p99_s > limit(kMaxDispatchLagP99S)) {
    over("dispatch lag", in.dispatch_lag_p99_s, in.dispatch_lag_samples, in.dispatch_lag_second_s, kMaxDispatchLagP99S);
  }
  if (in.loop_lag_p99_s > limit(kMaxLoopLagP99S) && in.loop_lag_samples < kMinLagSamples) {
    over("event-loop lag", in.loop_lag_p99_s, in.loop_lag_samples, in.loop_lag_second_s, kMaxLoopLagP99S);
  } else if (in.loop_lag_p99_s > limit(kMaxLoopLagP99S)) {
    if (in.stamped_read_share >= kMinStampedReadShare) {
      v.warnings.push_back({fmt::format("event-loop lag p99 {} > {}, with {} of the reads stamped by the kernel",
                                        duration(in.loop_lag_p99_s), duration(limit(kMaxLoopLagP99S)),
                                        core::format_percent(in.stamped_read_share)),
                            std::string(kClientRemedy)});
    } else {
      client_limited(fmt::format("client-limited: event-loop lag p99 {} > {}", duration(in.loop_lag_p99_s),
                                 duration(limit(kMaxLoopLagP99S))));
    }
  }
  if (in.client_cpu_ratio > kMaxClientCpuRatio) {
    client_limited(fmt::format("client-limited: the client used {} of its core (> {})",
                               core::format_percent(in.client_cpu_ratio), core::format_percent(kMaxClientCpuRatio)));
  }
  if (in.emit_delay_measured && in.emit_delay_p99_s > limit(kMaxEmitDelayP99S)) {
    over("server emit -> client receive", in.emit_delay_p99_s, in.emit_delay_samples, in.emit_delay_second_s,
         kMaxEmitDelayP99S);
  }
  if (in.completed == 0) {
    v.valid = false;
    v.reasons.push_back({"no measured request completed", "check the errors by kind and the target URL"});
  }
  return v;
}

}  // namespace perfhound::load
