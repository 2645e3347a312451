// Cost of the core statistics on the sizes perfhound meets: exact summaries of a load run's records,
// histogram recording on the hot path (must not allocate), and a bootstrap CI as `stats` runs it.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/bootstrap.h"
#include "core/log_histogram.h"
#include "core/percentile.h"

namespace {

std::vector<double> lognormal_latencies(std::size_t n) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(13.0, 0.5);  // median ~0.44 ms in ns
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

void BM_Summarize(benchmark::State& state) {
  const auto samples = lognormal_latencies(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(perfhound::core::summarize(samples));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Summarize)->Arg(1000)->Arg(100000)->Arg(1000000);

void BM_HistogramRecord(benchmark::State& state) {
  const auto samples = lognormal_latencies(1 << 16);
  std::vector<std::int64_t> values(samples.begin(), samples.end());
  auto hist = perfhound::core::LogHistogram::create(3'600'000'000'000LL, 3).value();
  std::size_t i = 0;
  for (auto _ : state) {
    hist.record(values[i++ & (values.size() - 1)]);
  }
  benchmark::DoNotOptimize(hist.total_count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_BootstrapP99(benchmark::State& state) {
  const auto samples = lognormal_latencies(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(perfhound::core::bootstrap_percentile_ci(samples, 99, 0.95, 2000, 1));
  }
}
BENCHMARK(BM_BootstrapP99)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
