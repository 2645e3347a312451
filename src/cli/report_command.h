#pragma once

#include <memory>

#include "cli/command.h"

namespace perfhound::cli {

// perfhound report FILE...: result JSON files (load runs, sweeps; other kinds show their conditions) in, one
// self-contained HTML file out (conditions at the top, Vega-Lite charts inlined), or with --format svg|png
// one chart (--chart) for CI logs and papers.
std::unique_ptr<Command> make_report_command();

}  // namespace perfhound::cli
