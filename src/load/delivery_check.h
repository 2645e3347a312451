// Whether the chunk times can stand for the engine's token steps. A chunk's time is when its bytes arrived (the
// kernel's receive stamp of the read that returned it), so chunks written together, or read together by a
// late client, share one time and their gap is 0. A few such gaps are normal (a read now and then a little
// late); many mean the ITL percentiles describe how tokens were delivered, not how fast they were made,
// which is how a server that sent tokens in pairs went unnoticed (bench/RESULTS.md, 2026-12-07). Pure.
#pragma once

#include <optional>

#include "core/diagnostics.h"
#include "load/load_metrics.h"

namespace perfhound::load {

// Above this share of zero gaps, chunks-together is raised.
inline constexpr double kZeroGapShareLimit = 0.05;

// chunks-together when more than kZeroGapShareLimit of the summary's ITL gaps are zero; nothing otherwise.
std::optional<core::Diagnostic> check_chunk_delivery(const LoadSummary& summary);

}  // namespace perfhound::load
