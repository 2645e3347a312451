// `perfhound audit --url URL` (or `--live`, against the embedded perfhound serve): three short runs against
// an endpoint, judged by the live checks of audit/live_checks.h (MLPerf's TEST04, TEST05, TEST06, TEST09).
#pragma once

#include <cstdint>

#include "cli/command.h"
#include "cli/load_session.h"
#include "cli/output.h"
#include "core/result.h"

namespace perfhound::cli {

struct LiveAuditOptions {
  std::int64_t requests = 32;        // measured requests of each run (the repeated-prompt run splits them in two)
  std::int64_t concurrency = 4;      // of the stream and seed runs (the repeated-prompt run sends one at a time)
  std::int64_t input_len = 256;      // prompt tokens of the stream and seed runs
  std::int64_t output_len = 64;      // max_tokens of the stream and seed runs
  std::int64_t cache_input_len = 1024;  // prompt tokens of the repeated-prompt run: long, so prefill shows
  std::int64_t warmup = 2;           // requests discarded before each run
};

// Runs the checks and prints them; exit 1 when any check fails or cannot be judged.
core::Result<int> run_live_audit(const LoadFlags& target, const LiveAuditOptions& options, const Context& context,
                                 const OutputOptions& output);

}  // namespace perfhound::cli
