#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound serve: an OpenAI-compatible HTTP server that streams tokens at the pace a continuous-batching
// engine of the given model on the given chip would (docs/simulator.md).
std::unique_ptr<Command> make_serve_command();

}  // namespace perfhound::cli
