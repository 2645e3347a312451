// Which tail percentiles a load run quotes from too few samples (few-samples-for-tail). The table's p99 of each
// latency rests on that latency's own count, not on the completed requests: a one-token reply has no TPOT, so
// 130 completed requests with half of them one token long give a TPOT p99 of 68 samples, little more than its
// maximum. An SLO gate at p99.9 needs 1000 samples, which the table's p99 check does not cover. Pure.
#pragma once

#include <cstdint>
#include <optional>

#include "core/diagnostics.h"
#include "load/load_metrics.h"
#include "load/slo.h"

namespace perfhound::load {

// few-samples-for-tail when fewer than 100 requests completed ("p99 from 42 completed requests", and the
// latencies with fewer still: "; fewer for TPOT 30"), or when a latency the table quotes has fewer than 100 samples
// ("p99 from fewer than 100 samples: TPOT 68, ITL (mean per request) 68"); nothing otherwise or when none
// completed. The latencies from `start`, as the table reads them.
std::optional<core::Diagnostic> check_tail_samples(const LoadSummary& summary, LatencyStart start);

// few-samples-for-tail for an SLO gate term at a percentile beyond p99 (p99.9 wants 1000) judged on fewer samples
// than core::samples_for_percentile asks; at p99 and below the table's check above says it.
std::optional<core::Diagnostic> check_gate_samples(const SloTerm& term, std::uint64_t samples);

}  // namespace perfhound::load
