// Workload: the requests a `perfhound load` run sends, as a deterministic function of the request index.
//
// A workload never decides when a request is sent (schedule.h does), only what it holds: the prompt (text or
// token ids), its length, and max_tokens. Item i is a pure function of (workload, i): the runner may build
// items ahead, out of order or on several MPI ranks and always gets the same requests.
//
// Synthetic prompts. Text prompts are words drawn uniformly from synthetic_vocabulary(): 256 common English
// words, each 1..8 ASCII letters, separated by single spaces. Under our server's token approximation
// (serve::approximate_tokens: a word of <= 8 bytes is 1 token, whitespace 0) a prompt of N words is exactly N
// tokens. Each word was also checked to be exactly one token, with its leading space and without one (a
// prompt's first word), in the GPT-4 (cl100k), GPT-4o (o200k), Llama 2 and Llama 3 tokenizers, none of which
// merge across a space, so a real tokenizer also counts N (plus whatever a chat template adds): 400 generated
// prompts of 1..1500 words counted exactly N in all four. Words are drawn per request from its own
// random stream: two prompts share their first k words with probability 256^-k, so a prefix cache finds no
// shared 16-token block between them (the purpose of vLLM's random dataset) while the text stays
// tokenizer-friendly.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "load/length_distribution.h"

namespace perfhound::load {

struct WorkItem {
  std::string prompt;
  std::vector<std::int32_t> prompt_token_ids;  // sent instead of `prompt` when non-empty
  std::int64_t input_tokens = 0;  // the prompt's length: approximate_tokens(prompt) or prompt_token_ids.size()
  std::int64_t max_tokens = 0;    // requested output length, >= 1
  std::int64_t arrival_ns = -1;   // trace replay only: the recorded arrival relative to the trace's first row
};

class Workload {
 public:
  virtual ~Workload();
  // Request `index`; deterministic. When size() has a value, index must be below it (aborts otherwise: the
  // caller walks at most size() items).
  virtual WorkItem item(std::uint64_t index) const = 0;
  // The number of items of a dataset with a fixed order (trace replay, JSONL in file order); nullopt for
  // synthetic and sampled datasets, which are unbounded.
  virtual std::optional<std::uint64_t> size() const = 0;
  // True when items carry recorded arrival times (trace replay); false by default.
  virtual bool has_arrival_times() const;
  // item(index).arrival_ns without building the prompt: cheap enough for the schedule to call per request.
  // -1 for workloads without arrival times (the default).
  virtual std::int64_t arrival_ns(std::uint64_t index) const;
  // For the result's conditions: kind, source file, distributions, seed, counts (each workload documents
  // its keys).
  virtual nlohmann::ordered_json describe() const = 0;
};

// Token ids of synthetic token-id prompts are uniform in [kSyntheticTokenIdMin, kSyntheticTokenIdEnd):
// above the special and byte-fallback tokens at the bottom of every common vocabulary and below the size of
// the smallest (Llama 2's 32000).
inline constexpr std::int32_t kSyntheticTokenIdMin = 1000;
inline constexpr std::int32_t kSyntheticTokenIdEnd = 30000;

// The 256 prompt words (see the top of this file), in a fixed order that is part of the seed contract.
std::span<const std::string_view> synthetic_vocabulary();

// Replaces `out` with the prompt of `tokens` words for (seed, index) (stream kPromptStream); keeps out's
// capacity so a caller that reuses one string allocates once. tokens <= 0 gives "".
void build_synthetic_prompt(std::uint64_t seed, std::uint64_t index, std::int64_t tokens, std::string& out);
std::string synthetic_prompt(std::uint64_t seed, std::uint64_t index, std::int64_t tokens);
// `tokens` ids uniform in [kSyntheticTokenIdMin, kSyntheticTokenIdEnd) for (seed, index).
std::vector<std::int32_t> synthetic_token_ids(std::uint64_t seed, std::uint64_t index, std::int64_t tokens);

// Random prompts: input_tokens from `input` (stream kInputLengthStream), max_tokens from `output`
// (kOutputLengthStream), the prompt built for that length. token_ids = true fills prompt_token_ids instead
// and leaves prompt empty (for servers that take token ids). Unbounded (size() is nullopt).
// describe(): {"kind": "synthetic", "input_len": {...}, "output_len": {...}, "prompt": "words" | "token_ids",
// "vocabulary_words": 256, "seed": N}.
std::unique_ptr<Workload> make_synthetic_workload(LengthDistribution input, LengthDistribution output,
                                                  std::uint64_t seed, bool token_ids);

}  // namespace perfhound::load
