#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound probe: this GPU's measured ceilings (bandwidth, GEMM and FMA rates, host copies, launch
// latencies), and optionally a chip file (data/hw schema) carrying them for roofline / mfu --hw FILE.
std::unique_ptr<Command> make_probe_command();

}  // namespace perfhound::cli
