// The diagnostics an input comes with: what `perfhound trace` and `perfhound roofline` attach to a trace or an ncu
// export they read, and what a command that reads their results (diagnose) carries on. A load run's
// few-samples-for-tail or a trace's records-dropped applies to every figure read from that input, so it is
// passed on with the file it came from, never dropped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostics.h"
#include "roofline/ncu_csv_reader.h"
#include "trace/timeline.h"

namespace perfhound::cli {

// The analysis of `t` (the whole trace, or a --range window) should be read with these: categories left out,
// several --capture-range windows in one span, records the recorder lost.
std::vector<core::Diagnostic> trace_diagnostics(const trace::Timeline& t);

// ncu's own warnings about how it profiled (unmodified clocks).
std::vector<core::Diagnostic> ncu_diagnostics(const roofline::NcuCsv& csv);

// The warnings and severe entries of a perfhound result document's "diagnostics" (notes of severity info are
// left out), each as written, with "source": the file. Ids this perfhound does not know (an older or newer
// writer's) are carried as they are.
nlohmann::ordered_json carried_diagnostics(const nlohmann::ordered_json& document, std::string_view source);
// The same for diagnostics computed from a raw input.
nlohmann::ordered_json carried_diagnostics(const std::vector<core::Diagnostic>& diagnostics, std::string_view source);

// "warning [few-samples-for-tail]: 'load.json': p99 from 42 samples. Remedy: ...\n", as core::format_diagnostic
// writes perfhound's own, the file named once.
std::string format_carried_diagnostic(const nlohmann::ordered_json& entry);

}  // namespace perfhound::cli
