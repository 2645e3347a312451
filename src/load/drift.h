// Drift flags for a soak test: does the server get slower, less productive or more error-prone as it runs,
// and do its own metrics (memory, KV-cache usage, queue) creep up? Pure: it judges windows and metric
// samples the caller collected (load/window_series.h; a scraped /metrics through load/prometheus_text.h).
//
// ---- The rule (docs/load.md) --------------------------------------------------------------------------------
// Drift compares the first third of the run with the last third. With n windows in time order and
// k = floor(n / 3), the first third is windows 1..k and the last third windows n-k+1..n; at least 6 windows
// are needed (k >= 2), otherwise there is no verdict (enough_windows is false and nothing is flagged). Each
// comparison uses the median over a third's windows (the mean of the middle two for an even count), skipping
// windows where the figure is undefined (NaN), so one odd window does not decide it; a comparison with a
// third that has no defined value is skipped and said so in the notes. Defaults in brackets:
//   throughput decay    median requests/s of the last third < (1 - throughput_drop [0.10]) x the first's,
//                       and the fall is beyond counting noise: with A and B the completed requests of the
//                       first and last thirds (equal-length windows), (A - B) / sqrt(A + B) > throughput_z [3]
//                       (a stationary Poisson load gives B ~ Binomial(A + B, 1/2); z 3 is one-sided p 0.0013).
//                       At 30 req/s over 1 s windows the thirds hold ~60 requests each, whose Poisson spread
//                       (~13%) alone crossed the 10% limit in 2 of 4 steady runs a review made.
//   TTFT growth         median of the per-window p95 TTFT of the last third > (1 + latency_growth [0.25]) x
//                       the first's.
//   E2E latency growth  the same for the per-window p95 E2E latency.
//   error growth        the failed fraction of the last third (its failed / (completed + failed), pooled over
//                       its windows) > the first third's + error_growth [0.01, absolute].
// Target metrics are series of (time, name, value) samples, one sample per name per scrape (sum a family's
// label sets first, e.g. with sum_samples). Each name is one series, sorted by time and split into thirds
// the same way (at least 6 samples, else a note and no verdict). Names judged, the others ignored:
//   target memory rising   process_resident_memory_bytes: the last third's median > (1 + metric_growth
//                          [0.10]) x the first's.
//   KV cache usage rising  any name containing "cache_usage" (vllm:kv_cache_usage_perc, the older
//                          vllm:gpu_cache_usage_perc; 0..1 ratios): the last third's median > the first's +
//                          ratio_growth [0.10, absolute].
//   queue growing          names ending in "num_requests_waiting": the last third's median > (1 +
//                          metric_growth [0.10]) x the first's; from a median of 0, any median above 0.
// Windows are judged as given: the caller drops windows that do not represent steady load (those overlapping
// warm-up or ramp-up, and the drain after the schedule ends, whose partial rates would read as decay).
// -----------------------------------------------------------------------------------------------------------
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "load/window_series.h"

namespace perfhound::load {

inline constexpr std::size_t kMinDriftWindows = 6;

struct DriftOptions {
  double throughput_drop = 0.10;  // relative
  double throughput_z = 3.0;      // the fall in completed requests, in standard deviations of counting noise
  double latency_growth = 0.25;   // relative
  double error_growth = 0.01;     // absolute, on the 0..1 failed fraction
  double metric_growth = 0.10;    // relative: memory and queue
  double ratio_growth = 0.10;     // absolute: 0..1 ratios (KV-cache usage)
};

// One scraped value of a target metric: t_s seconds from the schedule start.
struct MetricSample {
  double t_s = 0;
  std::string name;
  double value = 0;
};

struct DriftFinding {
  std::string what;    // "throughput decay", "TTFT growth", "E2E latency growth", "error growth",
                       // "target memory rising", "KV cache usage rising", "queue growing"
  std::string detail;  // one line with the numbers, e.g. "median 8 req/s in the last 3 windows vs 10 req/s
                       // in the first 3 (-20.0%, limit -10.0%)"
};

struct DriftReport {
  bool enough_windows = false;    // at least kMinDriftWindows windows: the window checks ran
  std::size_t third_windows = 0;  // k, windows in each compared third (0 without enough windows)
  std::vector<DriftFinding> findings;
  std::vector<std::string> notes;  // checks that could not run and why, one line each
};

DriftReport detect_drift(std::span<const WindowFigures> windows, std::span<const MetricSample> target_metrics,
                         const DriftOptions& options = {});

}  // namespace perfhound::load
