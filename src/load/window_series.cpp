#include "load/window_series.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/check.h"
#include "core/units.h"

namespace perfhound::load {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::ordered_json number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

// Seconds to the histogram's integer ns; NaN (undefined) is no sample. Values beyond int64 are recorded as
// the nearest int64 so the histogram counts them out of range instead of the cast being undefined.
void record_seconds(core::LogHistogram& h, double seconds) {
  if (std::isnan(seconds)) return;
  const double ns = std::round(seconds * 1e9);
  constexpr double kLimit = 9.2e18;  // below 2^63
  h.record(ns >= kLimit ? std::numeric_limits<std::int64_t>::max()
                        : ns <= -kLimit ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(ns));
}

double percentile_s(const core::LogHistogram& h, double q) {
  if (h.total_count() == 0) return kNaN;
  return core::ns_to_seconds(h.value_at_percentile(q));
}

double rate(std::uint64_t amount, double duration_s) {
  return duration_s > 0 ? static_cast<double>(amount) / duration_s : kNaN;
}

}  // namespace

WindowSeries::Sketches::Sketches()
    : ttft(kWindowLatencyHighestNs, kWindowSignificantDigits),
      tpot(kWindowLatencyHighestNs, kWindowSignificantDigits),
      e2e(kWindowLatencyHighestNs, kWindowSignificantDigits) {}

WindowSeries::WindowSeries(LatencyStart start, std::int64_t window_ns, std::size_t max_windows, bool fixed)
    : start_(start), window_ns_(window_ns), max_windows_(max_windows), fixed_(fixed) {
  PH_CHECK(window_ns > 0);
  PH_CHECK(max_windows >= 2);
}

std::size_t WindowSeries::sketch_bytes_per_window() {
  const core::LogHistogram h(kWindowLatencyHighestNs, kWindowSignificantDigits);
  return 3 * h.bucket_count() * sizeof(std::int64_t);
}

void WindowSeries::double_window() {
  // Window k of the doubled length is [2k w, 2k w + 2w) = old windows 2k and 2k + 1. Done in place: new
  // slot k is written only after old slot k was read (as 2 * (k / 2) or its neighbour, k / 2 < k).
  const std::size_t n = windows_.size();
  for (std::size_t k = 0; 2 * k < n; ++k) {
    if (k != 0) windows_[k] = std::move(windows_[2 * k]);
    if (2 * k + 1 >= n) continue;
    Window& into = windows_[k];
    Window& from = windows_[2 * k + 1];
    into.completed += from.completed;
    into.failed += from.failed;
    into.output_tokens += from.output_tokens;
    if (from.sketches) {
      if (!into.sketches) {
        into.sketches = std::move(from.sketches);
      } else {
        // Same config by construction, so merge cannot fail.
        PH_CHECK(into.sketches->ttft.merge(from.sketches->ttft).ok());
        PH_CHECK(into.sketches->tpot.merge(from.sketches->tpot).ok());
        PH_CHECK(into.sketches->e2e.merge(from.sketches->e2e).ok());
      }
    }
  }
  windows_.erase(windows_.begin() + static_cast<std::ptrdiff_t>((n + 1) / 2), windows_.end());
  window_ns_ *= 2;
  ++merges_;
}

void WindowSeries::add(const RequestRecord& record) {
  if (record.warmup) {
    ++warmup_;
    return;
  }
  if (record.end_ns < 0) {
    ++without_end_;
    return;
  }
  // max_windows >= 2 keeps this loop from overflowing: once window_ns_ >= 2^62 every int64 end is in
  // window 0 or 1.
  while (static_cast<std::uint64_t>(record.end_ns / window_ns_) >= max_windows_) {
    if (fixed_) {
      ++past_last_window_;
      return;
    }
    double_window();
  }
  const auto index = static_cast<std::size_t>(record.end_ns / window_ns_);
  while (windows_.size() <= index) windows_.emplace_back();
  Window& w = windows_[index];
  last_end_ns_ = std::max(last_end_ns_, record.end_ns);
  if (!record.ok()) {
    ++w.failed;
    return;
  }
  ++w.completed;
  w.output_tokens += static_cast<std::uint64_t>(std::max<std::int64_t>(record.output_tokens(), 0));
  if (!w.sketches) w.sketches.emplace();
  const RequestLatencies l = compute_latencies(record, start_);
  record_seconds(w.sketches->ttft, l.ttft_s);
  record_seconds(w.sketches->tpot, l.tpot_s);
  record_seconds(w.sketches->e2e, l.e2e_s);
}

std::vector<WindowFigures> WindowSeries::windows() const {
  std::vector<WindowFigures> out;
  std::size_t first = 0;
  while (first < windows_.size() && windows_[first].completed + windows_[first].failed == 0) ++first;
  if (first == windows_.size()) return out;
  out.reserve(windows_.size() - first);
  for (std::size_t k = first; k < windows_.size(); ++k) {
    const Window& w = windows_[k];
    const std::int64_t start_ns = static_cast<std::int64_t>(k) * window_ns_;
    // windows_ ends with the window holding last_end_ns_, so only the last one is cut short.
    const std::int64_t end_ns = k + 1 == windows_.size() ? last_end_ns_ : start_ns + window_ns_;
    WindowFigures f;
    f.start_s = core::ns_to_seconds(start_ns);
    f.end_s = core::ns_to_seconds(end_ns);
    f.completed = w.completed;
    f.failed = w.failed;
    f.output_tokens = w.output_tokens;
    // A last window cut to under half its length holds the drain's last few requests over a sliver of time:
    // as a rate (one request in 0.4 ms: 2,364 req/s) it would read as a spike in the table and the chart.
    const bool sliver = 2 * (end_ns - start_ns) < window_ns_;
    const double duration_s = sliver ? 0.0 : core::ns_to_seconds(end_ns - start_ns);
    f.requests_per_s = rate(w.completed, duration_s);
    f.output_tokens_per_s = rate(w.output_tokens, duration_s);
    if (w.sketches) {
      const Sketches& s = *w.sketches;
      f.ttft_p50_s = percentile_s(s.ttft, 50);
      f.ttft_p95_s = percentile_s(s.ttft, 95);
      f.ttft_p99_s = percentile_s(s.ttft, 99);
      f.tpot_p50_s = percentile_s(s.tpot, 50);
      f.tpot_p95_s = percentile_s(s.tpot, 95);
      f.tpot_p99_s = percentile_s(s.tpot, 99);
      f.e2e_p50_s = percentile_s(s.e2e, 50);
      f.e2e_p95_s = percentile_s(s.e2e, 95);
      f.e2e_p99_s = percentile_s(s.e2e, 99);
      for (const core::LogHistogram* h : {&s.ttft, &s.tpot, &s.e2e}) {
        f.latency_out_of_range += static_cast<std::uint64_t>(h->overflow_count() + h->underflow_count());
      }
    } else {
      f.ttft_p50_s = f.ttft_p95_s = f.ttft_p99_s = kNaN;
      f.tpot_p50_s = f.tpot_p95_s = f.tpot_p99_s = kNaN;
      f.e2e_p50_s = f.e2e_p95_s = f.e2e_p99_s = kNaN;
    }
    out.push_back(f);
  }
  return out;
}

nlohmann::ordered_json to_json(const std::vector<WindowFigures>& windows) {
  auto out = nlohmann::ordered_json::array();
  for (const WindowFigures& f : windows) {
    nlohmann::ordered_json j;
    j["start_s"] = f.start_s;
    j["end_s"] = f.end_s;
    j["completed"] = f.completed;
    j["failed"] = f.failed;
    j["output_tokens"] = f.output_tokens;
    j["requests_per_s"] = number(f.requests_per_s);
    j["output_tokens_per_s"] = number(f.output_tokens_per_s);
    j["ttft_p50_s"] = number(f.ttft_p50_s);
    j["ttft_p95_s"] = number(f.ttft_p95_s);
    j["ttft_p99_s"] = number(f.ttft_p99_s);
    j["tpot_p50_s"] = number(f.tpot_p50_s);
    j["tpot_p95_s"] = number(f.tpot_p95_s);
    j["tpot_p99_s"] = number(f.tpot_p99_s);
    j["e2e_p50_s"] = number(f.e2e_p50_s);
    j["e2e_p95_s"] = number(f.e2e_p95_s);
    j["e2e_p99_s"] = number(f.e2e_p99_s);
    j["latency_out_of_range"] = f.latency_out_of_range;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace perfhound::load
