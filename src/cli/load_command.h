#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound load: drives an OpenAI-compatible endpoint (or an embedded perfhound serve) with a workload and
// an arrival pattern, and reports TTFT, TPOT, ITL, E2E, throughput and goodput with the client's own health
// (docs/load.md).
std::unique_ptr<Command> make_load_command();

}  // namespace perfhound::cli
