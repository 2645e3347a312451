// Rendering a ProbeResult: the terminal table, the JSON result block, the conditions it adds, its
// diagnostics, and the chip-catalogue file (data/hw schema 1) whose `measured` object holds the ceilings
// so `perfhound roofline --hw FILE` and `perfhound mfu --hw FILE` judge against them (hw/chip_spec.h).
// Pure functions: no CUDA, no I/O.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/conditions.h"
#include "core/diagnostics.h"
#include "core/result.h"
#include "cuda/probe_result.h"

namespace perfhound::cuda {

// gpu_name, compute_capability, sm_count, l2_cache_bytes, memory_bytes, driver and runtime versions,
// cuBLAS version, clocks before / after, warm-up and repeats, buffer sizes: into the open conditions.
void add_probe_conditions(const ProbeResult& result, core::Conditions& conditions);

// The "result" block of the perfhound.probe JSON document.
nlohmann::ordered_json probe_result_json(const ProbeResult& result);

// figure | median | p10 | p90 | repeats | unit, scaled for people (GB/s, TFLOP/s, us), then the method
// lines (warm-up, sizes, clocks).
std::string probe_table(const ProbeResult& result);

// clock-dropped (SM clock fell by more than kClockDropThreshold), nvml-unavailable, figure-unsupported.
std::vector<core::Diagnostic> probe_diagnostics(const ProbeResult& result);

// "Hopper" for 9.x, "Ada Lovelace" 8.9, "Ampere" 8.x, "Blackwell" 10.x / 12.x, ...; "unknown" otherwise.
std::string architecture_name(int cc_major, int cc_minor);

// The chip file. `base`: a data/hw JSON document (parsed) whose spec-sheet fields are kept (peaks, memory
// type and bandwidth, interconnect, TDP, notes); without one those come from the device query (peaks null,
// bandwidth from bus width x memory clock). `measured` holds every measured figure's median as
// {value, source, p10, p90, repeats}; `measured_conditions` the date and the conditions. The file's
// `name` is the base's plus "-measured", or the GPU name in kebab case plus "-measured". Error when the
// device query lacks the fields the schema requires (memory size, and bandwidth without a base).
core::Result<nlohmann::ordered_json> probe_chip_json(const ProbeResult& result, const core::Conditions& conditions,
                                                     const std::optional<nlohmann::json>& base);

// The chip-file key of a figure ("copy_kernel" -> "copy_kernel_bytes_per_s", "bf16_gemm" ->
// "bf16_flops_per_s"), and "copy_bytes_per_s" for the better of the two device-to-device copies (what
// hw::memory_roof reads).
std::string measured_key(const ProbeFigure& figure);

}  // namespace perfhound::cuda
