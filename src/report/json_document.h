// Every JSON file perfhound writes has one envelope (STYLE.md rule 16), so any reader can tell what it holds
// and where it came from:
//   {"schema_version": 1, "kind": "perfhound.<command>", "conditions": {...}, "result": {...},
//    "diagnostics": [...]}
// Units inside are SI base units (s, bytes, FLOP/s) and ratios are 0..1; field names carry the unit
// (`p99_s`, `bytes`). NaN is written as null.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/conditions.h"
#include "core/result.h"

namespace perfhound::report {

inline constexpr int kSchemaVersion = 1;

nlohmann::ordered_json make_json_document(std::string_view kind, const core::Conditions& conditions,
                                          nlohmann::ordered_json result,
                                          nlohmann::ordered_json diagnostics = nlohmann::ordered_json::array());

// Writes text to path atomically (temporary file, then rename) so a reader never sees half a result.
core::Status write_text_file(const std::string& path, std::string_view text);

}  // namespace perfhound::report
