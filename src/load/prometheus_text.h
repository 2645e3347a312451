// A parser of the Prometheus text exposition format (version 0.0.4), for reading a target's /metrics
// (vLLM, SGLang, `perfhound serve`) during a load or soak run. Pure: text in, samples out.
// Format: https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
//
// Accepted: lines end in "\n" or "\r\n" (the last may lack its newline); blank lines and lines whose first
// non-blank character is '#' (# HELP, # TYPE, any other comment, OpenMetrics' # EOF) are skipped. A sample
// line is, with blanks (spaces, tabs) allowed before and after every token:
//   metric_name [ "{" label_name "=" "value" { "," label_name "=" "value" } [ "," ] "}" ] value [ timestamp ]
// metric_name is [a-zA-Z_:][a-zA-Z0-9_:]*, label_name [a-zA-Z_][a-zA-Z0-9_]*; a label value is double-quoted
// and may hold any character, with backslash, double quote and newline escaped as \\, \" and \n (any other
// escape is an error, as in the Go parser Prometheus uses). The sample value is a decimal floating-point
// number with optional sign and exponent, or +Inf, -Inf, Inf, NaN (any case). The timestamp, if present, is
// an integer (milliseconds since the epoch) and is checked but not kept.
//
// PrometheusSample::labels is the raw text between the braces, escapes and blanks kept as written ("" when
// there are no braces or nothing between them); samples come in input order. The type and help lines are
// not checked against the samples (a scrape is read, not validated).
//
// Errors name the 1-based line and what is wrong, quoting the input: "line 7: expected a value after
// 'vllm:num_requests_waiting{...}'", "line 3: cannot parse '12x' as a sample value (use a number, +Inf,
// -Inf or NaN)". The caller adds where the text came from with with_context().
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::load {

struct PrometheusSample {
  std::string name;
  std::string labels;  // raw, between the braces; empty if none
  double value = 0;
};

core::Result<std::vector<PrometheusSample>> parse_prometheus_text(std::string_view text);

// The sum of the values of every sample named exactly `name`, over all label sets (a counter or gauge
// family's total, e.g. vllm:num_requests_waiting over engines); nullopt when no sample has that name. A NaN
// value makes the sum NaN. For a histogram, name the series: "x_count", "x_sum".
std::optional<double> sum_samples(std::span<const PrometheusSample> samples, std::string_view name);

}  // namespace perfhound::load
