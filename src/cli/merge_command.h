// perfhound merge: the records of clients that shared one load (perfhound load --shard K/N on N machines, a
// Kubernetes Indexed Job, or the per-rank files of an mpirun run) as one result, with every percentile
// computed over all their records, exactly as one client's run would have been.
#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

std::unique_ptr<Command> make_merge_command();

}  // namespace perfhound::cli
