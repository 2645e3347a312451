#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound stats FILE: the summary statistics of a column of samples (latencies, step times, kernel
// durations), with bootstrap confidence intervals on the median and p99 and warm-up discarded on request.
std::unique_ptr<Command> make_stats_command();

}  // namespace perfhound::cli
