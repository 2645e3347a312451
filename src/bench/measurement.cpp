#include "bench/measurement.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "core/percentile.h"

namespace perfhound::bench {

SampleSummary summarize_samples(const std::vector<double>& samples) {
  SampleSummary s;
  s.count = static_cast<std::int64_t>(samples.size());
  if (samples.empty()) return s;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const auto at = [&](double q) { return core::percentile_of_sorted(sorted, q); };
  s.min = sorted.front();
  s.max = sorted.back();
  s.p10 = at(10);
  s.p25 = at(25);
  s.p50 = at(50);
  s.p75 = at(75);
  s.p90 = at(90);
  s.p95 = at(95);
  s.p99 = at(99);
  NoiseTracker t;
  for (double x : samples) t.add(x);
  s.mean = t.mean();
  s.stddev = t.stddev();
  return s;
}

double rate_at_median(double work_per_operation, const SampleSummary& s) {
  if (work_per_operation <= 0 || s.p50 <= 0) return 0;
  return work_per_operation / s.p50;
}

SampledRun sample_until_stable(Measurement m, const StoppingRule& rule, std::int64_t warmup,
                               const std::function<core::Result<double>()>& sample,
                               const std::function<double()>& wall_clock) {
  SampledRun out;
  for (std::int64_t i = 0; i < warmup; ++i) {
    auto s = sample();
    if (!s) {
      out.error = core::Error{fmt::format("{}: warm-up {}: {}", m.name, i + 1, s.error().message)};
      out.measurement = std::move(m);
      return out;
    }
  }
  m.warmup_discarded += warmup;
  NoiseTracker noise;
  const double t0 = wall_clock();
  StopCheck check;
  std::string failure;  // "sample 20: boom", without the name the diagnostics list adds
  while (!check.stop) {
    auto s = sample();
    if (!s) {
      failure = fmt::format("sample {}: {}", m.samples_s.size() + 1, s.error().message);
      out.error = core::Error{fmt::format("{}: {}", m.name, failure)};
      break;
    }
    m.samples_s.push_back(*s);
    noise.add(*s);
    check = check_stop(rule, noise, noise.sum() * static_cast<double>(m.operations_per_sample), wall_clock() - t0);
  }
  m.wall_time_s = wall_clock() - t0;
  // A failed sample ends the loop before check_stop said stop: the run did not converge, whatever the last check.
  m.stop = out.error ? StopReason::kError : check.reason;
  // One sample has no spread to measure: NaN (null in JSON, "n/a" in the table), not a perfect 0.
  m.noise = noise.count() >= 2 ? noise.relative_noise() : std::numeric_limits<double>::quiet_NaN();
  m.sample_time_s = noise.sum() * static_cast<double>(m.operations_per_sample);
  m.summary = summarize_samples(m.samples_s);
  if (out.error) {
    m.diagnostics.push_back({&core::kBenchFailed,
                             fmt::format("{}; the {} samples before it are kept", failure, m.samples_s.size())});
  } else if (check.stop && check.reason != StopReason::kConverged) {
    m.diagnostics.push_back({&core::kBenchNotConverged,
                             fmt::format("stopped at {} after {} samples: noise {:.2f}% (target {:.2f}%), {:.3g} s of "
                                         "samples (minimum {:.3g} s)",
                                         stop_reason_name(check.reason), m.samples_s.size(), m.noise * 100,
                                         rule.max_noise * 100, m.sample_time_s, rule.min_time_s)});
  }
  if (m.summary.count > 0 && m.summary.count < 100) {
    m.diagnostics.push_back({&core::kFewSamplesForTail,
                             fmt::format("{} samples: p99 is about the maximum", m.summary.count)});
  }
  out.measurement = std::move(m);
  return out;
}

}  // namespace perfhound::bench
