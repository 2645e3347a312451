#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound record [-o FILE] -- COMMAND [ARGS...]: a GPU timeline of any CUDA program through the CUPTI
// injection library (src/record), without Nsight Systems.
std::unique_ptr<Command> make_record_command();

}  // namespace perfhound::cli
