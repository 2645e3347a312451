// The arithmetic behind `perfhound probe`'s figures, free of CUDA so it is tested without a GPU: the work a
// measurement did (bytes moved, FLOP done), the rate of each timed repeat, and the median / p10 / p90 over
// the repeats (docs/probe.md).
//
// Percentiles are core::percentile_of_sorted (numpy's default linear interpolation). Edge cases: no repeats
// gives count 0 and NaN statistics; one repeat gives that value for every statistic. A repeat time of zero
// or below is a caller bug (checked): CUDA event and steady_clock times are positive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <span>
#include <vector>

#include "core/diagnostics.h"

namespace perfhound::cuda {

struct FigureSummary {
  std::size_t repeats = 0;  // timed repeats (warm-up excluded)
  double median = 0;
  double p10 = 0;
  double p90 = 0;
  double min = 0;
  double max = 0;
};

// Median, p10, p90, min and max of per-repeat values (rates or latencies), in the values' unit.
FigureSummary summarize_repeats(std::span<const double> values);

// Work per timed repeat / each repeat's time in seconds: bytes/s or FLOP/s per repeat.
std::vector<double> rates_from_times(double work_per_repeat, std::span<const double> seconds);
// Each repeat's time divided by `operations` (e.g. launches in the repeat): seconds per operation.
std::vector<double> per_operation_times(std::span<const double> seconds, std::int64_t operations);

// Bytes a copy of `buffer_bytes` moves through DRAM: read once and written once.
constexpr double copy_traffic_bytes(double buffer_bytes) { return 2 * buffer_bytes; }
// Dense GEMM C[m x n] = A[m x k] * B[k x n]: one multiply and one add per (i, j, l), 2 m n k FLOP.
constexpr double gemm_flop(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}
// An FMA counts as 2 FLOP (the convention of every vendor's fp32 peak).
constexpr double fma_flop(std::int64_t threads, std::int64_t fma_per_thread) {
  return 2.0 * static_cast<double>(threads) * static_cast<double>(fma_per_thread);
}

// The SM clock fell between the probe's start and end by more than this fraction (one 15 MHz boost step
// at ~2 GHz is 0.75%, so 1% is more than clock-step noise).
inline constexpr double kClockDropThreshold = 0.01;
// True when `after_hz` is below `before_hz` by more than kClockDropThreshold; false if either is <= 0.
bool clock_dropped(double before_hz, double after_hz);

// NVML's clock event reasons (nvmlDeviceGetCurrentClocksEventReasons, nvml.h's nvmlClocksEventReason* bits) that
// mean the clocks are held down by a limit. The software power cap (0x4) is its own case: a datacenter GPU running
// heavy kernels sits at its board power limit as a matter of course, and a ceiling measured there is the card's
// real one. The others are trouble: hardware slowdown (0x8), software thermal slowdown (0x20), hardware thermal
// slowdown (0x40), the hardware power brake (0x80). Idle (0x1), application clocks (0x2), sync boost (0x10) and
// display clocks (0x100) are settings, not throttling.
inline constexpr std::uint64_t kPowerCapReasonBit = 0x4;
inline constexpr std::uint64_t kThrottleReasonBits = 0x8 | 0x20 | 0x40 | 0x80;
// The limits in `clock_event_reasons` (the power cap and kThrottleReasonBits), named: "power cap, thermal
// (software)"; empty when none.
std::string throttle_reasons(std::uint64_t clock_event_reasons);
// What the clocks read before and after a measurement say, for probe and perfhound::bench alike: clock-dropped
// where the SM clock fell (clock_dropped), else clock-throttled where NVML named a thermal or hardware limit at
// either reading, else clock-power-capped for the power cap alone; null when none applies.
const core::DiagnosticKind* clock_diagnostic(double before_hz, double after_hz, std::uint64_t reasons_before,
                                             std::uint64_t reasons_after);

// Buffer size for the bandwidth figures: `wanted_bytes`, halved until two buffers fit in half of
// `free_bytes`, rounded down to a multiple of 16 MiB (whole 16-byte vectors, every grid stride aligned);
// at least 4x the L2 is the aim, and the caller reports the size used. 0 when even 16 MiB does not fit.
std::uint64_t bandwidth_buffer_bytes(std::uint64_t wanted_bytes, std::uint64_t free_bytes);

}  // namespace perfhound::cuda
