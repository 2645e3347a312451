// Workloads read from files: ShareGPT conversations, JSONL prompt lists, and arrival traces to replay.
//
// Each reader has a file form (read_*: opens `path`, names it in errors) and a text form (parse_*: the same
// from text already in memory, `source_name` standing in for the file). Errors are one line,
// "'<file>' line N: <what>" ("byte N" for the ShareGPT JSON array), and mean exit 2: a dataset is read whole
// before a run starts, so bad input never surfaces mid-run.
//
// Token counts come from serve::approximate_tokens (a word of up to 8 bytes is 1 token, longer words 1 per
// 4 further bytes, punctuation 1 per byte, whitespace 0): the same count `perfhound serve` reports as
// prompt_tokens. Against a real server this is an approximation of its tokenizer (close for English prose).
//
// ShareGPT JSON (read_sharegpt), as vLLM's benchmark_serving reads it (the file is the usual
// ShareGPT_V3_unfiltered_cleaned_split.json): a top-level array of
//   {"id": ..., "conversations": [{"from": "human", "value": TEXT}, {"from": "gpt", "value": TEXT}, ...]}
// The first turn's value is the prompt and approximate_tokens of the second turn's value the output length;
// later turns are ignored, and, as in vLLM, the "from" roles are not checked. Conversations are dropped, and
// each drop counted under the first rule it breaks (describe() reports the counts):
//   fewer_than_2_turns        "conversations" has fewer than two turns
//   prompt_under_4_tokens     prompt < 4 tokens
//   output_under_4_tokens     output < 4 tokens (not checked when output_len overrides the lengths, as vLLM
//                             skips it for --sharegpt-output-len)
//   prompt_over_1024_tokens   prompt > 1024 tokens
//   total_over_2048_tokens    prompt + output > 2048 tokens (with an override: its value when it is a fixed
//                             length, as vLLM does; the recorded reply length otherwise)
// Item i is a kept pair picked uniformly at random per index (stream kDatasetPickStream), so the workload is
// unbounded and sampling is with replacement; max_tokens is the pair's output length, or a sample of
// output_len (stream kOutputLengthStream) when given. Errors: not a JSON array, an element that is not an
// object or has no "conversations" array, a first or second turn that is not an object with a string
// "value", invalid JSON (at the byte nlohmann reports), and no conversation left after the filters.
//
// JSONL prompts (read_jsonl_prompts): one JSON object per line, blank lines skipped:
//   {"prompt": "TEXT", "max_tokens": 128}
// "output_tokens" or "output_len" may name max_tokens instead (one of the three at most). max_tokens is an
// integer >= 1 and may be omitted when default_output_len is given (which then supplies it, stream
// kOutputLengthStream, per item index). Items are sampled per index like ShareGPT, or in file order with
// in_order (size() is then the number of prompts).
//
// Arrival traces (read_arrival_trace): one request per row, with a timestamp, an input length and an output
// length, as CSV with a header row or as JSONL (a file whose first non-blank line starts with '{').
// Recognised names (CSV headers and JSON keys alike; other columns and keys are ignored):
//   Azure LLM inference traces 2023/2024 (CSV)   TIMESTAMP, ContextTokens, GeneratedTokens
//        TIMESTAMP is datetime text "2023-11-16 18:15:46.6805900" (up to 9 fractional digits; a 'T' instead of
//        the space, and a trailing "Z" or "+HH:MM" UTC offset, are accepted)
//   Mooncake / Kimi (JSONL)   timestamp (milliseconds), input_length, output_length (hash_ids is ignored)
//   generic (CSV or JSONL)    timestamp_s or timestamp (seconds) or timestamp_ms, input_tokens, output_tokens
// A bare "timestamp" number is milliseconds when the lengths are named input_length / output_length (the
// Mooncake convention) and seconds otherwise; datetime text is accepted in any timestamp column. Column
// names match case-insensitively. Rows must be in non-decreasing time (an earlier row is an error naming its
// line); arrival_ns is the row's time minus the first row's. Lengths are integers >= 0; a 0 (public traces
// have a few) is raised to 1, since a request needs a token, and counted in describe(). Prompts are
// synthesized to the row's input length as in the synthetic workload (workload.h), or as token ids with
// token_ids. size() is the number of rows; has_arrival_times() is true.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "load/length_distribution.h"
#include "load/workload.h"

namespace perfhound::load {

// vLLM's ShareGPT filter bounds (benchmarks/benchmark_dataset.py, is_valid_sequence).
inline constexpr std::int64_t kShareGptMinTokens = 4;
inline constexpr std::int64_t kShareGptMaxPromptTokens = 1024;
inline constexpr std::int64_t kShareGptMaxTotalTokens = 2048;

struct ShareGptOptions {
  std::uint64_t seed = 0;
  std::optional<LengthDistribution> output_len;  // overrides the recorded reply lengths (--output-len)
};

// describe(): {"kind": "sharegpt", "source", "conversations", "kept", "dropped": {"fewer_than_2_turns", ...
// (the five rules above, in that order)}, "output_len": "recorded" or the override's to_json(),
// "mean_input_tokens", "mean_output_tokens" (over the kept pairs, recorded lengths), "seed"}.
core::Result<std::unique_ptr<Workload>> read_sharegpt(const std::string& path, const ShareGptOptions& options);
core::Result<std::unique_ptr<Workload>> parse_sharegpt(std::string_view text, std::string_view source_name,
                                                       const ShareGptOptions& options);

struct JsonlPromptOptions {
  std::uint64_t seed = 0;
  std::optional<LengthDistribution> default_output_len;  // for lines without max_tokens
  bool in_order = false;                                 // file order, bounded, instead of sampling
};

// describe(): {"kind": "jsonl", "source", "prompts", "order": "file" | "sampled",
// "default_output_len": null or to_json(), "lines_with_max_tokens", "mean_input_tokens", "seed"}.
core::Result<std::unique_ptr<Workload>> read_jsonl_prompts(const std::string& path, const JsonlPromptOptions& options);
core::Result<std::unique_ptr<Workload>> parse_jsonl_prompts(std::string_view text, std::string_view source_name,
                                                            const JsonlPromptOptions& options);

struct TraceOptions {
  std::uint64_t seed = 0;   // for the synthesized prompts
  bool token_ids = false;   // prompt_token_ids instead of prompt text
};

// describe(): {"kind": "trace", "format": "azure" | "mooncake" | "generic", "source", "rows", "duration_s",
// "columns": {"timestamp", "input", "output"} (as spelled in the file), "timestamp_unit": "datetime" | "s" |
// "ms", "zero_input_rows_raised_to_1", "zero_output_rows_raised_to_1", "mean_input_tokens",
// "mean_output_tokens", "prompt": "words" | "token_ids", "seed"}.
core::Result<std::unique_ptr<Workload>> read_arrival_trace(const std::string& path, const TraceOptions& options);
core::Result<std::unique_ptr<Workload>> parse_arrival_trace(std::string_view text, std::string_view source_name,
                                                            const TraceOptions& options);

// Datetime text to nanoseconds since the Unix epoch (UTC): "YYYY-MM-DD HH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]",
// 'T' allowed for the space, up to 9 fractional digits, years 1970..2261 (the int64 ns range). nullopt when the
// text is not such a datetime or a field is out of range.
std::optional<std::int64_t> parse_datetime_ns(std::string_view text);

}  // namespace perfhound::load
