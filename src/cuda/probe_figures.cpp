#include "cuda/probe_figures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/check.h"
#include "core/percentile.h"

namespace perfhound::cuda {

FigureSummary summarize_repeats(std::span<const double> values) {
  FigureSummary s;
  s.repeats = values.size();
  if (values.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.median = s.p10 = s.p90 = s.min = s.max = nan;
    return s;
  }
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.median = core::percentile_of_sorted(sorted, 50);
  s.p10 = core::percentile_of_sorted(sorted, 10);
  s.p90 = core::percentile_of_sorted(sorted, 90);
  s.min = sorted.front();
  s.max = sorted.back();
  return s;
}

std::vector<double> rates_from_times(double work_per_repeat, std::span<const double> seconds) {
  std::vector<double> rates;
  rates.reserve(seconds.size());
  for (const double t : seconds) {
    PH_CHECK(t > 0);
    rates.push_back(work_per_repeat / t);
  }
  return rates;
}

std::vector<double> per_operation_times(std::span<const double> seconds, std::int64_t operations) {
  PH_CHECK(operations > 0);
  std::vector<double> out;
  out.reserve(seconds.size());
  for (const double t : seconds) {
    PH_CHECK(t > 0);
    out.push_back(t / static_cast<double>(operations));
  }
  return out;
}

bool clock_dropped(double before_hz, double after_hz) {
  if (!(before_hz > 0) || !(after_hz > 0)) return false;
  return after_hz < before_hz * (1 - kClockDropThreshold);
}

std::string throttle_reasons(std::uint64_t clock_event_reasons) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {0x4, "power cap"}, {0x8, "hardware slowdown"}, {0x20, "thermal (software)"}, {0x40, "thermal (hardware)"},
      {0x80, "power brake"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((clock_event_reasons & bit) != 0) out += (out.empty() ? "" : ", ") + std::string(name);
  }
  return out;
}

const core::DiagnosticKind* clock_diagnostic(double before_hz, double after_hz, std::uint64_t reasons_before,
                                             std::uint64_t reasons_after) {
  const std::uint64_t seen = reasons_before | reasons_after;
  if (clock_dropped(before_hz, after_hz)) return &core::kClockDropped;
  if ((seen & kThrottleReasonBits) != 0) return &core::kClockThrottled;
  if ((seen & kPowerCapReasonBit) != 0) return &core::kClockPowerCapped;
  return nullptr;
}

std::uint64_t bandwidth_buffer_bytes(std::uint64_t wanted_bytes, std::uint64_t free_bytes) {
  constexpr std::uint64_t kGranule = std::uint64_t{16} << 20;
  std::uint64_t bytes = wanted_bytes;
  while (bytes >= kGranule && 2 * bytes > free_bytes / 2) bytes /= 2;
  bytes -= bytes % kGranule;
  return bytes >= kGranule ? bytes : 0;
}

}  // namespace perfhound::cuda
