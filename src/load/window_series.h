// WindowSeries: a load run's figures per time window, for "latency over time" charts and the soak test's
// drift check (load/drift.h). Fed one finished RequestRecord at a time, in any order; records are not kept.
// Pure: no I/O.
//
// Windows: window k covers [k * window_ns, (k + 1) * window_ns) of the schedule's clock (t = 0 when the
// schedule starts, as RequestRecord stores times). A request belongs to the window of its END time
// (end_ns), failed ones included. Records with `warmup` set are ignored (counted in warmup_ignored() only);
// a record without an end time (end_ns < 0) cannot be placed and is counted in without_end_count().
//
// Per window: completed (record.ok()) and failed requests; output tokens of the completed ones
// (RequestRecord::output_tokens(): the server's usage when reported, else counted content chunks, as
// LoadMetricsTracker counts them); and TTFT, TPOT and E2E of the completed ones from the constructor's
// LatencyStart (load::compute_latencies; an undefined latency, such as the TPOT of a one-token output, is
// no sample) in core::LogHistograms of 2 significant digits over [0, 1 h] in ns. Their p50/p95/p99 are
// nearest-rank values reported as the bucket's highest value: the reported r and the true order statistic
// x satisfy x <= r <= x * 1.01, clamped to the window's exact min and max (so one sample is exact). A
// latency outside [0, 1 h] is counted in the window's latency_out_of_range and in no percentile.
//
// Memory is bounded. Adaptive (fixed = false, the default): when a record lands in window max_windows or
// later, the window length doubles, merging windows 2k and 2k + 1 into the new window k (counts add,
// histograms merge exactly: their buckets line up), as often as needed to bring it in; so at most
// max_windows windows are held and window_ns() may grow. Fixed (fixed = true; a soak run's --window, which
// the user wants kept): the length never changes; a record ending in window max_windows or later is counted
// in past_last_window_count() and placed nowhere. The caller sizes max_windows (soak: the run's duration
// plus the request timeout, over the window, so requests finishing after the schedule's end still fit).
// Histograms are allocated only for windows that hold a completed request: sketch_bytes_per_window() each.
//
// Output (windows()): from the first window holding a measured record to the one holding the latest end
// time; empty windows between them are reported (0 requests, rates 0, percentiles NaN) because a stall is
// data. The last window ends at the latest end time seen, not a whole window later, so the tail is not
// diluted; rates divide by each window's own duration. Edge cases: no placed record -> no windows; a last
// window of zero duration (the latest end falls exactly on a window boundary) -> its rates are NaN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/log_histogram.h"
#include "load/request_latencies.h"
#include "load/request_record.h"

namespace perfhound::load {

inline constexpr std::size_t kDefaultMaxWindows = 240;
// Latency sketches: 2 significant digits (1% relative error), ns up to one hour.
inline constexpr int kWindowSignificantDigits = 2;
inline constexpr std::int64_t kWindowLatencyHighestNs = 3'600'000'000'000;

struct WindowFigures {
  double start_s = 0;  // seconds from the schedule start
  double end_s = 0;    // start_s + window, or the latest end time for the last window
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  std::uint64_t output_tokens = 0;   // completed requests
  // completed / (end_s - start_s); NaN for a last window cut to under half the window length (a rate over a
  // sliver of the drain reads as a spike)
  double requests_per_s = 0;
  double output_tokens_per_s = 0;    // output_tokens / (end_s - start_s); NaN likewise
  double ttft_p50_s = 0, ttft_p95_s = 0, ttft_p99_s = 0;  // NaN when the window has no sample
  double tpot_p50_s = 0, tpot_p95_s = 0, tpot_p99_s = 0;
  double e2e_p50_s = 0, e2e_p95_s = 0, e2e_p99_s = 0;
  std::uint64_t latency_out_of_range = 0;  // TTFT, TPOT and E2E samples outside [0, 1 h], in no percentile
};

class WindowSeries {
 public:
  // window_ns > 0 and max_windows >= 2 (checked).
  WindowSeries(LatencyStart start, std::int64_t window_ns, std::size_t max_windows = kDefaultMaxWindows,
               bool fixed = false);

  void add(const RequestRecord& record);
  std::vector<WindowFigures> windows() const;

  // The current window length: the constructor's, doubled once per merge().
  std::int64_t window_ns() const { return window_ns_; }
  std::size_t merges() const { return merges_; }
  std::uint64_t warmup_ignored() const { return warmup_; }
  std::uint64_t without_end_count() const { return without_end_; }
  std::uint64_t past_last_window_count() const { return past_last_window_; }  // fixed mode only
  // Memory of one window's three latency histograms, allocated when it gets its first completed request.
  static std::size_t sketch_bytes_per_window();

 private:
  struct Sketches {
    Sketches();
    core::LogHistogram ttft, tpot, e2e;
  };
  struct Window {
    std::uint64_t completed = 0;
    std::uint64_t failed = 0;
    std::uint64_t output_tokens = 0;
    std::optional<Sketches> sketches;
  };
  void double_window();

  LatencyStart start_;
  std::int64_t window_ns_;
  std::size_t max_windows_;
  bool fixed_;
  std::vector<Window> windows_;  // index k covers [k * window_ns_, (k + 1) * window_ns_)
  std::int64_t last_end_ns_ = -1;
  std::size_t merges_ = 0;
  std::uint64_t warmup_ = 0;
  std::uint64_t without_end_ = 0;
  std::uint64_t past_last_window_ = 0;
};

// One object per window, fields in SI units named for them: start_s, end_s, completed, failed,
// output_tokens, requests_per_s, output_tokens_per_s, ttft_p50_s .. e2e_p99_s, latency_out_of_range.
// NaN is written as null.
nlohmann::ordered_json to_json(const std::vector<WindowFigures>& windows);

}  // namespace perfhound::load
