#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound audit FILE: checks a benchmark claim (a perfhound result, a vllm bench serve or genai-perf export,
// or a claim file) against the honest-benchmarking rules of Knowledge 06 and lists every problem; exit 1 when
// any finding is severe (docs/audit.md).
std::unique_ptr<Command> make_audit_command();

}  // namespace perfhound::cli
