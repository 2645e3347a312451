// `perfhound trace --annotate OUT.json`: the input trace with perfhound's findings added as events, so the
// Perfetto UI (ui.perfetto.dev) or chrome://tracing shows them on the timeline next to the kernels:
//   - a row "perfhound: idle gaps" on each GPU with one slice per idle gap, named by what the host was
//     doing ("idle: launch", "idle: sync", ...), its split in the args;
//   - a row "perfhound: verdict" with one slice over the judged GPU's active span, the summary as its
//     name and the evidence and next steps in its args.
// A Kineto JSON input is copied byte for byte with the new events inserted at the start of its event
// array; any other input (nsys SQLite) is written as a new Chrome trace of the Timeline plus the markers.
// The output is gzip-compressed when OUT ends in ".gz". Written to OUT.tmp and renamed, so a reader never
// sees half a file.
#pragma once

#include <string>

#include "core/result.h"
#include "trace/timeline.h"
#include "trace/trace_analysis.h"

namespace perfhound::trace {

// Thread ids of the added rows (Chrome trace rows are (pid, tid); the GPU's pid is its device number).
// Far above any real stream id so they never merge with one.
inline constexpr std::int64_t kGapRowTid = 900'000'001;
inline constexpr std::int64_t kVerdictRowTid = 900'000'002;

core::Status write_annotated_trace(const Timeline& timeline, const TraceAnalysis& analysis,
                                   const std::string& out_path);

}  // namespace perfhound::trace
