// Small pieces the claim importers share: reading "N requests" / "5 s" warm-up text, and the latency
// statistic keys the peer tools write. Internal to src/audit.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "audit/claim.h"
#include "audit/source_document.h"
#include "core/result.h"

namespace perfhound::audit {

// A string condition: trimmed; absent, null or blank is not stated.
core::Result<std::optional<std::string>> condition_text(const SourceDocument& doc, std::string_view pointer);

// Whether a warm-up description discards anything: "10 requests", "5 s", "5s", "20 iterations" -> true;
// "0 requests", "0", "none", "no" -> false; text with no leading number and none of those words -> nullopt.
std::optional<bool> warmup_discards(std::string_view text);

// Seconds per unit for a latency unit a tool writes ("ms", "s", "sec", "us", "ns"), or nullopt.
std::optional<double> seconds_per_unit(std::string_view unit);

// The first number in text ("closed loop, concurrency 4" after "concurrency " -> 4), or nullopt.
std::optional<double> number_after(std::string_view text, std::string_view marker);

}  // namespace perfhound::audit
