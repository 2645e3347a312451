#include "load/schedule.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

#include "core/check.h"
#include "load/length_distribution.h"

namespace perfhound::load {
namespace {

constexpr double kNsPerS = 1e9;
constexpr double kMaxNs = 9.2e18;  // just below INT64_MAX (9.22e18): the saturation point

std::int64_t seconds_to_ns(double t_s) {
  const double ns = t_s * kNsPerS;
  if (!(ns < kMaxNs)) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::llround(ns));
}

class OpenLoopCursor final : public ArrivalCursor {
 public:
  OpenLoopCursor(const ArrivalSchedule& schedule, std::uint64_t first, std::uint64_t stride)
      : schedule_(schedule), next_index_(first), first_(first), stride_(stride) {}

  std::optional<Arrival> next() override {
    if (done_) return std::nullopt;
    const std::uint64_t target = next_index_;
    // The same additions in the same order as ArrivalSchedule::intended_ns, so every cursor and every rank
    // gets bitwise the same sums.
    while (walked_ < target) {
      ++walked_;
      sum_ += schedule_.unit_gap(walked_);
    }
    if (next_index_ > std::numeric_limits<std::uint64_t>::max() - stride_) done_ = true;
    else next_index_ += stride_;
    return Arrival{target, schedule_.time_for_intensity(sum_)};
  }

  nlohmann::ordered_json describe() const override {
    auto j = schedule_.describe();
    j["first"] = first_;
    j["stride"] = stride_;
    return j;
  }

 private:
  ArrivalSchedule schedule_;
  std::uint64_t next_index_;
  std::uint64_t first_;
  std::uint64_t stride_;
  std::uint64_t walked_ = 0;  // sum_ is G_1 + ... + G_walked_
  double sum_ = 0;
  bool done_ = false;
};

class TraceReplayCursor final : public ArrivalCursor {
 public:
  TraceReplayCursor(const Workload& workload, double speedup, std::uint64_t first, std::uint64_t stride)
      : workload_(workload), size_(*workload.size()), speedup_(speedup), next_index_(first), first_(first), stride_(stride) {}

  std::optional<Arrival> next() override {
    if (next_index_ >= size_) return std::nullopt;
    const std::uint64_t index = next_index_;
    next_index_ = index > std::numeric_limits<std::uint64_t>::max() - stride_ ? size_ : index + stride_;
    const double t = static_cast<double>(workload_.arrival_ns(index)) / speedup_;
    const std::int64_t ns = t < kMaxNs ? static_cast<std::int64_t>(std::llround(t)) : std::numeric_limits<std::int64_t>::max();
    return Arrival{index, ns};
  }

  nlohmann::ordered_json describe() const override {
    nlohmann::ordered_json j;
    j["process"] = "trace_replay";
    j["speedup"] = speedup_;
    j["rows"] = size_;
    j["duration_s"] = size_ > 0 ? static_cast<double>(workload_.arrival_ns(size_ - 1)) / speedup_ / kNsPerS : 0.0;
    j["first"] = first_;
    j["stride"] = stride_;
    return j;
  }

 private:
  const Workload& workload_;
  std::uint64_t size_;
  double speedup_;
  std::uint64_t next_index_;
  std::uint64_t first_;
  std::uint64_t stride_;
};

}  // namespace

core::Result<ArrivalProcess> parse_arrival_process(std::string_view text) {
  if (text == "poisson") return ArrivalProcess::kPoisson;
  if (text == "gamma") return ArrivalProcess::kGamma;
  if (text == "constant") return ArrivalProcess::kConstant;
  return core::Error{fmt::format("unknown arrival process '{}' (use poisson, gamma or constant)", text)};
}

std::string_view arrival_process_name(ArrivalProcess process) {
  switch (process) {
    case ArrivalProcess::kPoisson: return "poisson";
    case ArrivalProcess::kGamma: return "gamma";
    case ArrivalProcess::kConstant: return "constant";
  }
  return "?";
}

core::Result<ArrivalSchedule> ArrivalSchedule::create(const OpenLoopConfig& config) {
  if (!std::isfinite(config.rate_per_s) || config.rate_per_s <= 0) {
    return core::Error{fmt::format("--rate: {} requests/s must be a finite number > 0 (e.g. 10 or 1.5k)", config.rate_per_s)};
  }
  if (!std::isfinite(config.burstiness) || config.burstiness <= 0) {
    return core::Error{fmt::format("--burstiness: {} must be a finite number > 0 (1 = Poisson, < 1 burstier, > 1 more "
                                   "regular)",
                                   config.burstiness)};
  }
  if (config.burstiness != 1.0 && config.process != ArrivalProcess::kGamma) {
    return core::Error{fmt::format("--burstiness {} applies only to --arrival gamma (the {} process has no shape "
                                   "parameter; poisson is gamma with burstiness 1)",
                                   config.burstiness, arrival_process_name(config.process))};
  }
  if (config.ramp_up_ns < 0) {
    return core::Error{fmt::format("--ramp-up: {} ns is negative (use e.g. 30s, or 0 for no ramp)", config.ramp_up_ns)};
  }
  if (!std::isfinite(config.ramp_start_rate_per_s) || config.ramp_start_rate_per_s < 0) {
    return core::Error{fmt::format("--ramp-start-rate: {} requests/s must be a finite number >= 0",
                                   config.ramp_start_rate_per_s)};
  }
  if (config.ramp_start_rate_per_s > 0 && config.ramp_up_ns == 0) {
    return core::Error{fmt::format("--ramp-start-rate {} needs --ramp-up (the ramp's duration)", config.ramp_start_rate_per_s)};
  }
  return ArrivalSchedule(config);
}

double ArrivalSchedule::unit_gap(std::uint64_t index) const {
  switch (config_.process) {
    case ArrivalProcess::kConstant: return 1.0;
    case ArrivalProcess::kPoisson: return CounterRng(config_.seed, index, kArrivalGapStream).exponential();
    case ArrivalProcess::kGamma: {
      // gamma(k, scale 1/k) has mean 1; the rate is applied by the time change.
      const double k = config_.burstiness;
      return CounterRng(config_.seed, index, kArrivalGapStream).gamma(k) / k;
    }
  }
  return 1.0;
}

double ArrivalSchedule::cumulative_intensity(std::int64_t t_ns) const {
  if (t_ns <= 0) return 0;
  const double t = static_cast<double>(t_ns) / kNsPerS;
  const double r1 = config_.rate_per_s;
  if (config_.ramp_up_ns == 0) return r1 * t;
  const double ramp = static_cast<double>(config_.ramp_up_ns) / kNsPerS;
  const double r0 = config_.ramp_start_rate_per_s;
  if (t <= ramp) return r0 * t + (r1 - r0) * t * t / (2 * ramp);
  return (r0 + r1) * ramp / 2 + r1 * (t - ramp);
}

std::int64_t ArrivalSchedule::time_for_intensity(double s) const {
  if (!(s > 0)) return 0;
  const double r1 = config_.rate_per_s;
  if (config_.ramp_up_ns == 0) {
    // s * 1e9 / r: for constant gaps s is an exact integer, so t_i is i * 1e9 / r correctly rounded.
    const double ns = s * kNsPerS / r1;
    return ns < kMaxNs ? static_cast<std::int64_t>(std::llround(ns)) : std::numeric_limits<std::int64_t>::max();
  }
  const double ramp = static_cast<double>(config_.ramp_up_ns) / kNsPerS;
  const double r0 = config_.ramp_start_rate_per_s;
  const double ramp_intensity = (r0 + r1) * ramp / 2;
  if (s <= ramp_intensity) {
    // The positive root of (r1 - r0) / (2T) t^2 + r0 t - s = 0, in the form without cancellation (stable
    // for r1 == r0 and for r0 == 0).
    const double disc = std::max(0.0, r0 * r0 + 2 * (r1 - r0) * s / ramp);
    return seconds_to_ns(2 * s / (r0 + std::sqrt(disc)));
  }
  return seconds_to_ns(ramp + (s - ramp_intensity) / r1);
}

std::int64_t ArrivalSchedule::intended_ns(std::uint64_t index) const {
  double sum = 0;
  for (std::uint64_t j = 1; j <= index; ++j) sum += unit_gap(j);
  return time_for_intensity(sum);
}

nlohmann::ordered_json ArrivalSchedule::describe() const {
  nlohmann::ordered_json j;
  j["process"] = arrival_process_name(config_.process);
  j["rate_per_s"] = config_.rate_per_s;
  j["burstiness"] = config_.burstiness;
  j["ramp_up_s"] = static_cast<double>(config_.ramp_up_ns) / kNsPerS;
  j["ramp_start_rate_per_s"] = config_.ramp_start_rate_per_s;
  j["seed"] = config_.seed;
  return j;
}

ArrivalCursor::~ArrivalCursor() = default;

std::unique_ptr<ArrivalCursor> make_open_loop_cursor(const ArrivalSchedule& schedule, std::uint64_t first,
                                                     std::uint64_t stride) {
  PH_CHECK(stride >= 1);
  return std::make_unique<OpenLoopCursor>(schedule, first, stride);
}

core::Result<std::unique_ptr<ArrivalCursor>> make_trace_replay_cursor(const Workload& workload, double speedup,
                                                                      std::uint64_t first, std::uint64_t stride) {
  PH_CHECK(stride >= 1);
  if (!std::isfinite(speedup) || speedup <= 0) {
    return core::Error{fmt::format("--trace-speedup: {} must be a finite number > 0 (2 replays the trace twice as fast)", speedup)};
  }
  if (!workload.has_arrival_times() || !workload.size()) {
    return core::Error{fmt::format("trace replay needs a workload with arrival times (a trace file); this one is '{}'",
                                   workload.describe().value("kind", std::string("?")))};
  }
  return std::unique_ptr<ArrivalCursor>(std::make_unique<TraceReplayCursor>(workload, speedup, first, stride));
}

}  // namespace perfhound::load
