#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound trace PATH: read a GPU profiler timeline (or a folder of per-rank timelines), name the bottleneck
// with its evidence and next steps, and optionally write the trace back annotated with the findings.
std::unique_ptr<Command> make_trace_command();

}  // namespace perfhound::cli
