// perfhound::bench's output: the terminal table and the perfhound.bench JSON document that
// `perfhound compare` reads (benchmarks pair by name; docs/bench.md gives the fields).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/measurement.h"
#include "core/conditions.h"

namespace perfhound::bench {

// One benchmark as JSON: name, mode, the summary as p50_s ... (SI units), stop reason and noise, the work
// and the rates at the median, clocks, details, diagnostics and every sample (samples_s).
nlohmann::ordered_json measurement_json(const Measurement& m);

// The envelope of report::make_json_document, kind perfhound.bench: result {suite, benchmarks: [...]}, the
// diagnostics of every benchmark (prefixed with its name) in the envelope's list.
nlohmann::ordered_json bench_document(const std::string& suite, const core::Conditions& conditions,
                                      const std::vector<Measurement>& measurements);

// Every benchmark's diagnostics, each message prefixed with its benchmark's name.
std::vector<core::Diagnostic> named_diagnostics(const std::vector<Measurement>& measurements);

// The noise at the stop as the table and the per-benchmark line print it: "0.27%", or "n/a" from one sample.
std::string noise_text(const Measurement& m);

// One row a benchmark: name, mode, samples (x operations), warm-up, p50, p10-p90, p99, noise, stop, rate.
std::string render_table(const std::vector<Measurement>& measurements);

}  // namespace perfhound::bench
