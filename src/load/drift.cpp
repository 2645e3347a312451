// First third vs last third by medians: a soak run's windows are noisy (a p95 over one window of a few
// hundred requests moves by tens of percent), so a single pair of windows, or a fitted slope that one
// outlier can tilt, would flag noise. The median of each third ignores the odd window; comparing the run's
// ends rather than testing a monotone trend is what a drift check needs (did it end worse than it began).
#include "load/drift.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/units.h"

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Median of the finite values; NaN when there are none.
double median_of(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct Thirds {
  double first = kNaN;
  double last = kNaN;
};

template <class T>
Thirds median_thirds(std::span<const T> items, std::size_t k, const std::function<double(const T&)>& field) {
  std::vector<double> first, last;
  for (std::size_t i = 0; i < k; ++i) {
    first.push_back(field(items[i]));
    last.push_back(field(items[items.size() - k + i]));
  }
  return {median_of(std::move(first)), median_of(std::move(last))};
}

std::string relative_change(double last, double first) {
  return fmt::format("{:+.1f}%", (last / first - 1) * 100);
}

std::string windows_phrase(std::size_t k) { return fmt::format("{} windows", k); }

std::string duration_s(double s) { return core::format_duration_ns(s * 1e9); }

void check_latency(std::span<const WindowFigures> windows, std::size_t k, const DriftOptions& options,
                   double WindowFigures::*field, std::string_view what, std::string_view label, DriftReport& report) {
  const Thirds t = median_thirds<WindowFigures>(windows, k, [field](const WindowFigures& w) { return w.*field; });
  if (std::isnan(t.first) || std::isnan(t.last)) {
    report.notes.push_back(fmt::format("{}: no {} samples in the first or the last third; not judged", what, label));
    return;
  }
  if (t.last > (1 + options.latency_growth) * t.first) {
    report.findings.push_back(
        {std::string(what), fmt::format("median {} {} over the last {} vs {} over the first {} ({}, limit {:+.1f}%)",
                                        label, duration_s(t.last), windows_phrase(k), duration_s(t.first), k,
                                        relative_change(t.last, t.first), options.latency_growth * 100)});
  }
}

enum class MetricKind { kMemory, kKvCache, kQueue };

std::optional<MetricKind> metric_kind(std::string_view name) {
  if (name == "process_resident_memory_bytes") return MetricKind::kMemory;
  if (name.find("cache_usage") != std::string_view::npos) return MetricKind::kKvCache;
  if (name.ends_with("num_requests_waiting")) return MetricKind::kQueue;
  return std::nullopt;
}

void check_metric(const std::string& name, MetricKind kind, std::vector<MetricSample> series,
                  const DriftOptions& options, DriftReport& report) {
  if (series.size() < kMinDriftWindows) {
    report.notes.push_back(fmt::format("metric '{}': {} samples, at least {} needed for a drift verdict", name,
                                       series.size(), kMinDriftWindows));
    return;
  }
  std::stable_sort(series.begin(), series.end(),
                   [](const MetricSample& a, const MetricSample& b) { return a.t_s < b.t_s; });
  const std::size_t k = series.size() / 3;
  const Thirds t = median_thirds<MetricSample>(series, k, [](const MetricSample& s) { return s.value; });
  if (std::isnan(t.first) || std::isnan(t.last)) {
    report.notes.push_back(fmt::format("metric '{}': no finite value in the first or the last third", name));
    return;
  }
  const std::string span = fmt::format("over the last {} samples vs", k);
  switch (kind) {
    case MetricKind::kMemory:
      if (t.last > (1 + options.metric_growth) * t.first) {
        report.findings.push_back(
            {"target memory rising",
             fmt::format("{}: median {} {} {} over the first {} ({}, limit {:+.1f}%)", name, core::format_bytes(t.last),
                         span, core::format_bytes(t.first), k, relative_change(t.last, t.first),
                         options.metric_growth * 100)});
      }
      break;
    case MetricKind::kKvCache:
      if (t.last > t.first + options.ratio_growth) {
        report.findings.push_back(
            {"KV cache usage rising",
             fmt::format("{}: median {} {} {} over the first {} ({:+.1f} points, limit {:+.1f})", name,
                         core::format_percent(t.last), span, core::format_percent(t.first), k,
                         (t.last - t.first) * 100, options.ratio_growth * 100)});
      }
      break;
    case MetricKind::kQueue:
      // From an empty queue any growth counts: (1 + g) x 0 is 0.
      if (t.last > (1 + options.metric_growth) * t.first && t.last > t.first) {
        report.findings.push_back(
            {"queue growing", fmt::format("{}: median {} waiting {} {} over the first {}{}", name,
                                          core::format_number(t.last), span, core::format_number(t.first), k,
                                          t.first > 0 ? fmt::format(" ({}, limit {:+.1f}%)",
                                                                    relative_change(t.last, t.first),
                                                                    options.metric_growth * 100)
                                                      : std::string(" (from an empty queue)"))});
      }
      break;
  }
}

}  // namespace

DriftReport detect_drift(std::span<const WindowFigures> windows, std::span<const MetricSample> target_metrics,
                         const DriftOptions& options) {
  DriftReport report;
  if (windows.size() < kMinDriftWindows) {
    report.notes.push_back(fmt::format("{} windows, at least {} needed for a drift verdict (use a shorter "
                                       "--window or a longer run)",
                                       windows.size(), kMinDriftWindows));
  } else {
    const std::size_t k = windows.size() / 3;
    report.enough_windows = true;
    report.third_windows = k;

    const Thirds rps =
        median_thirds<WindowFigures>(windows, k, [](const WindowFigures& w) { return w.requests_per_s; });
    if (std::isnan(rps.first) || std::isnan(rps.last)) {
      report.notes.push_back("throughput decay: no defined req/s in the first or the last third; not judged");
    } else if (rps.last < (1 - options.throughput_drop) * rps.first) {
      double first_count = 0, last_count = 0;
      for (std::size_t i = 0; i < k; ++i) {
        first_count += static_cast<double>(windows[i].completed);
        last_count += static_cast<double>(windows[windows.size() - k + i].completed);
      }
      const double z = first_count + last_count > 0 ? (first_count - last_count) / std::sqrt(first_count + last_count) : 0;
      const std::string fall = fmt::format("median {} req/s over the last {} vs {} req/s over the first {} ({}, limit "
                                           "{:+.1f}%)", core::format_number(rps.last), windows_phrase(k),
                                           core::format_number(rps.first), k, relative_change(rps.last, rps.first),
                                           -options.throughput_drop * 100);
      if (z > options.throughput_z) {
        report.findings.push_back({"throughput decay", fmt::format("{}; {:.0f} vs {:.0f} requests, {:.1f} standard "
                                                                   "deviations of counting noise", fall, last_count,
                                                                   first_count, z)});
      } else {
        report.notes.push_back(fmt::format("throughput decay: {}, but {:.0f} vs {:.0f} requests is within counting "
                                           "noise ({:.1f} standard deviations, {:.0f} needed); not flagged (longer "
                                           "windows or a longer run would tell)", fall, last_count, first_count, z,
                                           options.throughput_z));
      }
    }

    check_latency(windows, k, options, &WindowFigures::ttft_p95_s, "TTFT growth", "p95 TTFT", report);
    check_latency(windows, k, options, &WindowFigures::e2e_p95_s, "E2E latency growth", "p95 E2E", report);

    std::uint64_t first_failed = 0, first_total = 0, last_failed = 0, last_total = 0;
    for (std::size_t i = 0; i < k; ++i) {
      const WindowFigures& a = windows[i];
      const WindowFigures& b = windows[windows.size() - k + i];
      first_failed += a.failed;
      first_total += a.completed + a.failed;
      last_failed += b.failed;
      last_total += b.completed + b.failed;
    }
    if (first_total == 0 || last_total == 0) {
      report.notes.push_back("error growth: no requests in the first or the last third; not judged");
    } else {
      const double first = static_cast<double>(first_failed) / static_cast<double>(first_total);
      const double last = static_cast<double>(last_failed) / static_cast<double>(last_total);
      if (last > first + options.error_growth) {
        report.findings.push_back(
            {"error growth",
             fmt::format("{} failed over the last {} ({} of {}) vs {} over the first {} ({} of {}) ({:+.1f} points, "
                         "limit {:+.1f})",
                         core::format_percent(last), windows_phrase(k), last_failed, last_total,
                         core::format_percent(first), k, first_failed, first_total, (last - first) * 100,
                         options.error_growth * 100)});
      }
    }
  }

  // Series by name, in name order so the findings come out in a stable order.
  std::map<std::string, std::vector<MetricSample>> series;
  for (const MetricSample& s : target_metrics) {
    if (metric_kind(s.name)) series[s.name].push_back(s);
  }
  for (auto& [name, samples] : series) check_metric(name, *metric_kind(name), std::move(samples), options, report);
  return report;
}

}  // namespace perfhound::load
