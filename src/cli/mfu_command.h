#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound mfu: MFU and MBU of a prefill or decode step of a model on a chip, from a measured time (or, with
// no time, the roofline bound any implementation would meet), with the verdict in the seed's words.
std::unique_ptr<Command> make_mfu_command();

}  // namespace perfhound::cli
