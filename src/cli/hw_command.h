#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound hw list | hw show NAME: the chip catalogue, every figure with its source.
std::unique_ptr<Command> make_hw_command();

}  // namespace perfhound::cli
