// A chip's limits: spec-sheet peaks (dense FLOP/s per precision, memory capacity and bandwidth, L2, SMs,
// interconnect), each with its source, and optionally ceilings measured on a real device by
// `perfhound probe`. Commands judge against the measured ceiling when there is one, because the achievable
// roof, not the spec sheet, is the honest one (Knowledge 06 section 10), and they say which they used.
//
// Files: data/hw/<name>.json (schema_version 1, data/hw/README.md), built into the binary; any other file
// of the same schema can be given by path (a probe result, a chip not in the catalogue).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::hw {

struct SourcedValue {
  double value = 0;
  std::string source;  // datasheet or whitepaper and version, or "measured by perfhound probe ..."
};

// A measured ceiling's spread over its repeats (perfhound probe writes "p10" and "p90" beside "value").
struct Spread {
  double p10 = 0, p90 = 0;
};

struct ChipSpec {
  std::string name;          // catalogue key, e.g. "h200-sxm"
  std::string display_name;  // "NVIDIA H200 SXM 141GB"
  std::string vendor, architecture, compute_capability;
  int sm_count = 0;
  std::map<std::string, SourcedValue> peak_flops;  // "bf16" -> dense FLOP/s; absent where the chip has none
  std::string memory_type;
  double memory_capacity_bytes = 0;
  SourcedValue memory_bandwidth;                    // bytes/s
  std::optional<SourcedValue> l2_cache_bytes;
  std::optional<SourcedValue> interconnect_bandwidth;  // bytes/s
  std::string interconnect_name;
  std::vector<std::string> notes;
  // Measured ceilings (perfhound probe): "copy_bytes_per_s", "bf16_flops_per_s", ...
  std::map<std::string, SourcedValue> measured;
  std::map<std::string, Spread> measured_spread;  // the measured keys whose entries carry p10 and p90
};

core::Result<ChipSpec> chip_spec_from_json(const nlohmann::json& json, std::string_view source);

// The roof a command judges against, and where it came from.
struct Roof {
  double value = 0;
  std::string source;
  bool measured = false;
};
// Peak FLOP/s for `precision_key` ("bf16", ...): the measured ceiling "<key>_flops_per_s" if the file has
// one, else the spec sheet's dense peak. Error naming the chip and the precisions it has.
core::Result<Roof> compute_roof(const ChipSpec& chip, std::string_view precision_key);
// The unit of a precision's peak rate: integer math is operations, not floating-point ones ("INT8 ... TOPS" on
// the datasheets), so "OP/s" for int8 and int4, "FLOP/s" for the rest.
std::string_view peak_rate_unit(std::string_view precision_key);
// Memory bandwidth: measured "copy_bytes_per_s" (device-to-device copy, bytes read + written) if present,
// else the spec sheet.
Roof memory_roof(const ChipSpec& chip);

// The built-in catalogue (data/hw/*.json at build time), sorted by name.
const std::vector<ChipSpec>& chip_catalogue();
// A catalogue name ("h200-sxm") or a path to a chip JSON file. Errors list the catalogue names.
core::Result<ChipSpec> find_chip(std::string_view name_or_path);

}  // namespace perfhound::hw
