#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound sweep: perfhound load over a list of loads (or --rate auto), each point with the same workload
// and seed; the goodput curve, the knee, the operating point inside the SLO, the headroom and the replicas
// needed (docs/load.md, "Sweeps").
std::unique_ptr<Command> make_sweep_command();

}  // namespace perfhound::cli
