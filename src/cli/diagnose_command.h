#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound diagnose: the bottleneck-hunting playbook (seed section 9) walked over any mix of a trace, an ncu
// export or roofline result, an mfu result and load or sweep results; prints the path through the tree with
// the evidence of each step, the next measurement to make and when to stop (diagnose/playbook.h).
std::unique_ptr<Command> make_diagnose_command();

}  // namespace perfhound::cli
