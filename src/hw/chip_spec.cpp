#include "hw/chip_spec.h"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <set>
#include <sstream>

#include "hw/chip_catalogue_data.h"

namespace perfhound::hw {
namespace {

using Json = nlohmann::json;

std::string text(const Json& j, std::string_view key) {
  const auto it = j.find(std::string(key));
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// An integer field, or an error naming it when it is present with another type.
core::Result<std::int64_t> integer(const Json& j, std::string_view key, std::string_view source) {
  const auto it = j.find(std::string(key));
  if (it == j.end() || it->is_null()) return std::int64_t{0};
  if (!it->is_number_integer()) {
    return core::Error{fmt::format("chip '{}': '{}' must be an integer, got {}", source, key, it->dump())};
  }
  return it->get<std::int64_t>();
}

core::Result<SourcedValue> sourced(const Json& j, std::string_view field, std::string_view source) {
  if (!j.is_object() || !j.contains("value") || !j["value"].is_number()) {
    return core::Error{fmt::format("chip '{}': '{}' needs a numeric 'value'", source, field)};
  }
  SourcedValue v;
  v.value = j["value"].get<double>();
  if (!(v.value > 0)) return core::Error{fmt::format("chip '{}': '{}' must be positive", source, field)};
  v.source = text(j, "source");
  return v;
}

// A measured key the roofs read is "<precision>_flops_per_s" or "copy_bytes_per_s"; the others perfhound probe
// writes end in _bytes_per_s or _s (latencies). A misspelt one ("bf16_flop_per_s") was ignored, and the roofs fell
// back to the spec sheet with no word but the label.
core::Status check_measured_key(const std::string& key, std::string_view source) {
  static const std::set<std::string> kPrecisions = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"};
  const bool ok = key.ends_with("_flops_per_s") ? kPrecisions.contains(key.substr(0, key.size() - 12))
                                                : key.ends_with("_bytes_per_s") || (key.ends_with("_s") && !key.ends_with("_per_s"));
  if (ok) return {};
  return core::Error{fmt::format("chip '{}': 'measured.{}' is not a figure perfhound knows (PRECISION_flops_per_s with "
                                 "PRECISION one of fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4; NAME_bytes_per_s; "
                                 "NAME_s)", source, key)};
}

}  // namespace

core::Result<ChipSpec> chip_spec_from_json(const Json& j, std::string_view source) {
  if (!j.is_object()) return core::Error{fmt::format("chip '{}': expected a JSON object", source)};
  PH_ASSIGN_OR_RETURN(const std::int64_t schema, integer(j, "schema_version", source));
  if (schema != 1) return core::Error{fmt::format("chip '{}': schema_version must be 1", source)};
  ChipSpec c;
  if (j.contains("name") && !j["name"].is_string()) return core::Error{fmt::format("chip '{}': 'name' must be a string", source)};
  c.name = text(j, "name");
  if (c.name.empty()) return core::Error{fmt::format("chip '{}': missing field 'name'", source)};
  c.display_name = text(j, "display_name");
  c.vendor = text(j, "vendor");
  c.architecture = text(j, "architecture");
  c.compute_capability = text(j, "compute_capability");
  PH_ASSIGN_OR_RETURN(const std::int64_t sms, integer(j, "sm_count", source));
  if (sms < 1 || sms > 1000000) return core::Error{fmt::format("chip '{}': 'sm_count' must be 1 to 1000000, got {}", source, sms)};
  c.sm_count = static_cast<int>(sms);
  if (!j.contains("peak_flops") || !j["peak_flops"].is_object()) {
    return core::Error{fmt::format("chip '{}': missing object 'peak_flops'", source)};
  }
  for (const auto& [key, value] : j["peak_flops"].items()) {
    if (value.is_null()) continue;
    PH_ASSIGN_OR_RETURN(c.peak_flops[key], sourced(value, "peak_flops." + key, source));
  }
  if (!j.contains("memory") || !j["memory"].is_object()) {
    return core::Error{fmt::format("chip '{}': missing object 'memory'", source)};
  }
  const Json& m = j["memory"];
  c.memory_type = text(m, "type");
  if (!m.contains("capacity_bytes") || !m["capacity_bytes"].is_number() || !(m["capacity_bytes"].get<double>() > 0)) {
    return core::Error{fmt::format("chip '{}': 'memory.capacity_bytes' must be a positive number", source)};
  }
  c.memory_capacity_bytes = m["capacity_bytes"].get<double>();
  if (!m.contains("bandwidth_bytes_per_s")) {
    return core::Error{fmt::format("chip '{}': missing field 'memory.bandwidth_bytes_per_s'", source)};
  }
  PH_ASSIGN_OR_RETURN(c.memory_bandwidth, sourced(m["bandwidth_bytes_per_s"], "memory.bandwidth_bytes_per_s", source));
  if (j.contains("l2_cache_bytes") && !j["l2_cache_bytes"].is_null()) {
    PH_ASSIGN_OR_RETURN(c.l2_cache_bytes, sourced(j["l2_cache_bytes"], "l2_cache_bytes", source));
  }
  if (j.contains("interconnect") && j["interconnect"].is_object()) {
    const Json& ic = j["interconnect"];
    c.interconnect_name = text(ic, "name");
    if (ic.contains("bandwidth_bytes_per_s") && !ic["bandwidth_bytes_per_s"].is_null()) {
      PH_ASSIGN_OR_RETURN(c.interconnect_bandwidth,
                          sourced(ic["bandwidth_bytes_per_s"], "interconnect.bandwidth_bytes_per_s", source));
    }
  }
  if (j.contains("notes") && j["notes"].is_array()) {
    for (const auto& n : j["notes"]) {
      if (n.is_string()) c.notes.push_back(n.get<std::string>());
    }
  }
  if (j.contains("measured") && j["measured"].is_object()) {
    for (const auto& [key, value] : j["measured"].items()) {
      if (value.is_null()) continue;
      PH_TRY(check_measured_key(key, source));
      PH_ASSIGN_OR_RETURN(c.measured[key], sourced(value, "measured." + key, source));
      if (value.contains("p10") && value["p10"].is_number() && value.contains("p90") && value["p90"].is_number()) {
        const double p10 = value["p10"].get<double>(), p90 = value["p90"].get<double>(), median = c.measured[key].value;
        if (!(p10 <= median && median <= p90)) {
          return core::Error{fmt::format("chip '{}': 'measured.{}': p10 {:g} <= value {:g} <= p90 {:g} does not hold",
                                         source, key, p10, median, p90)};
        }
        c.measured_spread[key] = {p10, p90};
      }
    }
  }
  return c;
}

std::string_view peak_rate_unit(std::string_view precision_key) {
  return precision_key.starts_with("int") ? "OP/s" : "FLOP/s";
}

core::Result<Roof> compute_roof(const ChipSpec& chip, std::string_view precision_key) {
  const std::string measured_key = fmt::format("{}_flops_per_s", precision_key);
  if (const auto it = chip.measured.find(measured_key); it != chip.measured.end()) {
    return Roof{it->second.value, "measured: " + it->second.source, true};
  }
  if (const auto it = chip.peak_flops.find(std::string(precision_key)); it != chip.peak_flops.end()) {
    return Roof{it->second.value, "spec sheet, dense: " + it->second.source, false};
  }
  std::string have;
  for (const auto& [key, value] : chip.peak_flops) have += (have.empty() ? "" : ", ") + key;
  return core::Error{fmt::format("chip '{}' has no {} peak (it has: {})", chip.name, precision_key, have)};
}

Roof memory_roof(const ChipSpec& chip) {
  if (const auto it = chip.measured.find("copy_bytes_per_s"); it != chip.measured.end()) {
    return Roof{it->second.value, "measured: " + it->second.source, true};
  }
  return Roof{chip.memory_bandwidth.value, "spec sheet: " + chip.memory_bandwidth.source, false};
}

const std::vector<ChipSpec>& chip_catalogue() {
  static const std::vector<ChipSpec> catalogue = [] {
    std::vector<ChipSpec> chips;
    for (const auto& [file, text] : builtin_chip_files()) {
      auto chip = chip_spec_from_json(Json::parse(text), file);
      PH_CHECK(chip.ok());  // data/hw is validated by tests/hw/chip_spec_test.cpp
      chips.push_back(std::move(chip).value());
    }
    std::sort(chips.begin(), chips.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return chips;
  }();
  return catalogue;
}

core::Result<ChipSpec> find_chip(std::string_view name_or_path) {
  for (const auto& chip : chip_catalogue()) {
    if (chip.name == name_or_path) return chip;
  }
  if (name_or_path.find('/') != std::string_view::npos || name_or_path.ends_with(".json")) {
    std::ifstream in{std::string(name_or_path)};
    if (!in) return core::Error{fmt::format("cannot open chip file '{}'", name_or_path)};
    std::stringstream buffer;
    buffer << in.rdbuf();
    const Json j = Json::parse(buffer.str(), nullptr, false);
    if (j.is_discarded()) return core::Error{fmt::format("chip file '{}' is not valid JSON", name_or_path)};
    return chip_spec_from_json(j, name_or_path);
  }
  std::string names;
  for (const auto& chip : chip_catalogue()) names += (names.empty() ? "" : ", ") + chip.name;
  return core::Error{fmt::format("unknown chip '{}' (catalogue: {}; or give a chip JSON file)", name_or_path, names)};
}

}  // namespace perfhound::hw
