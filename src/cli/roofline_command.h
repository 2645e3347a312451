#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound roofline: where a kernel sits against a chip's compute and memory roofs (memory slope, compute
// roof, or below both), from FLOPs / bytes / time given by hand or from an Nsight Compute CSV export.
std::unique_ptr<Command> make_roofline_command();

}  // namespace perfhound::cli
