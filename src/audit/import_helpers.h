// Small pieces the claim importers share: reading "N requests" / "5 s" warm-up text, and the latency
// statistic keys the peer tools write. Internal to src/audit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "audit/claim.h"
#include "audit/source_document.h"
#include "core/result.h"

namespace perfhound::audit {

// A string condition: trimmed; absent, null or blank is not stated.
core::Result<std::optional<std::string>> condition_text(const SourceDocument& doc, std::string_view pointer);

// What a numeric field may hold. Every number an importer reads is checked against one of these, so that a
// negative batch, a zero concurrency or a fractional request count is an error naming the field, never a
// condition or a figure the rules then judge as if it were real.
enum class Range {
  kFinite,            // any finite number (a headline, which may be a ratio or a change)
  kNonNegative,       // >= 0: a latency statistic, a throughput, a token total
  kPositive,          // > 0: a duration, a mean input length, a roof
  kPositiveOrInf,     // > 0, or inf: a request rate (inf: every request at once)
  kWholePositive,     // 1, 2, 3, ...: a batch, a concurrency cap
  kWholeNonNegative,  // 0, 1, 2, ...: a warm-up count
};

// Who wrote the file, which decides whether a string holding a number is read as one. By hand (a claim
// file, vLLM's --metadata strings): "12" and "inf" are numbers, as YAML quoting and JSON's lack of inf need.
// By a tool (vllm bench serve's own fields, genai-perf): a tool writes numbers, so a string where one belongs
// means the file was edited or is not that tool's, and is an error rather than a value coerced.
enum class Writer { kHand, kTool };

// A number in `range`: absent or null -> nullopt; the wrong type, NaN or out of range -> an error naming the
// field and what it expected ("conditions.batch: expected a whole number >= 1, got -1").
core::Result<std::optional<double>> number_in(const SourceDocument& doc, std::string_view pointer, Range range,
                                              Writer writer = Writer::kHand);

// A whole count >= 0 (requests, samples), as SourceDocument::count reads it, refusing a string from a tool.
core::Result<std::optional<std::int64_t>> count_in(const SourceDocument& doc, std::string_view pointer, Writer writer);

// A distribution's percentiles as the file states them, each with its field, in the file's own unit.
struct PercentileField {
  double q = 0;  // 50 for a median; 0 and 100 for a minimum and a maximum, which bound the rest
  double value = 0;
  std::string pointer;
};
// A higher percentile below a lower one is an inconsistent file (the p99 of a sample is never under its
// median): the error names both fields. Equal values are fine (a narrow distribution, rounding).
core::Status check_percentile_order(const SourceDocument& doc, std::vector<PercentileField> fields);

// Whether a warm-up description discards anything: "10 requests", "5 s", "5s", "20 iterations" -> true;
// "0 requests", "0", "none", "no" -> false; text with no leading number and none of those words -> nullopt.
std::optional<bool> warmup_discards(std::string_view text);

// The percentile a key's digits name ("99", "99.9" -> 99, 99.9), or nullopt unless the whole text is a number from
// 0 to 100 ("", ".", a 400-digit run): keys a writer did not mean as percentiles are passed over, not thrown on.
std::optional<double> percentile_number(std::string_view digits);

// Seconds per unit for a latency unit a tool writes ("ms", "s", "sec", "us", "ns"), or nullopt.
std::optional<double> seconds_per_unit(std::string_view unit);

// The first number in text ("closed loop, concurrency 4" after "concurrency " -> 4), or nullopt.
std::optional<double> number_after(std::string_view text, std::string_view marker);

}  // namespace perfhound::audit
