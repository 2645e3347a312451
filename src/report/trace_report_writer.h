// The terminal report of `perfhound trace`: the verdict first (what a reader needs), then the tables that
// back it. Pure: analysis in, text out. Column values carry their units; ratios print as percentages.
#pragma once

#include <string>

#include "trace/timeline.h"
#include "trace/trace_analysis.h"

namespace perfhound::report {

struct TraceReportOptions {
  std::size_t longest_gaps = 5;  // rows of the longest idle gaps per device
};

std::string render_trace_report(const trace::Timeline& timeline, const trace::TraceAnalysis& analysis,
                                const TraceReportOptions& options = {});

}  // namespace perfhound::report
