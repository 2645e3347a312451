// The terminal table of a load summary's latencies, its throughput and goodput lines: shared by `perfhound
// load` (one run) and `perfhound merge` (the records of several clients together).
#pragma once

#include <string>

#include "load/load_metrics.h"

namespace perfhound::cli {

// Open loop: latencies from the intended send time, with the from-actual-send rows and the schedule lag
// beside them; closed loop: from the send time.
std::string render_summary_table(const load::LoadSummary& s, bool open_loop);

}  // namespace perfhound::cli
