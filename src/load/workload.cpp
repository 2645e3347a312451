#include "load/workload.h"

#include <array>
#include <cstring>

#include "core/check.h"

namespace perfhound::load {
namespace {

// Common English words, roughly most frequent first, each 1..8 letters and exactly one token both with a
// leading space and without one (as the first word of a prompt) in cl100k, o200k, Llama 2 and Llama 3
// (checked with the npm packages js-tiktoken, llama-tokenizer-js and llama3-tokenizer-js; "united", "john"
// and "important" split in Llama 2, and "several", "become", "began" split without a space, so they are
// not here). Exactly 256, so one random byte picks one word without bias. Changing this list changes every
// seeded prompt.
constexpr std::array<std::string_view, 256> kVocabulary{{
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with",
    "be", "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which",
    "but", "have", "an", "had", "they", "you", "were", "their", "one", "all", "we", "can",
    "her", "has", "there", "been", "if", "more", "when", "will", "would", "who", "so", "no",
    "she", "other", "its", "may", "these", "about", "than", "into", "only", "some", "could", "them",
    "time", "two", "new", "also", "first", "any", "like", "our", "then", "out", "made", "up",
    "over", "well", "most", "years", "what", "after", "such", "many", "much", "those", "how", "work",
    "must", "now", "do", "where", "your", "see", "even", "same", "way", "before", "through", "back",
    "use", "each", "good", "between", "part", "very", "just", "because", "own", "world", "under", "life",
    "both", "still", "while", "last", "take", "state", "long", "might", "place", "great", "used", "here",
    "should", "three", "people", "known", "day", "without", "year", "come", "system", "being", "said", "number",
    "another", "high", "since", "found", "small", "point", "however", "form", "city", "right", "during", "end",
    "school", "power", "water", "down", "never", "large", "often", "group", "make", "around", "off", "country",
    "within", "side", "public", "case", "less", "later", "again", "left", "among", "name", "line", "head",
    "early", "home", "rather", "though", "came", "family", "order", "set", "given", "best", "full", "until",
    "find", "hard", "next", "four", "local", "away", "based", "having", "land", "held", "body", "game",
    "second", "far", "thus", "called", "late", "whole", "free", "open", "few", "give", "main", "young",
    "almost", "hand", "story", "play", "real", "little", "human", "light", "music", "area", "party", "days",
    "course", "today", "along", "others", "fact", "seen", "room", "above", "house", "class", "mean", "war",
    "film", "river", "series", "big", "top", "done", "town", "love", "old", "help", "start", "money",
    "face", "air", "close", "eyes", "road", "look", "night", "black", "women", "white", "door", "true",
    "north", "south", "east", "west"
}};

// Each word with a leading space, padded into 16 bytes, so the prompt loop appends from a flat table.
struct SpacedWord {
  char text[16];
  std::uint8_t size;  // including the leading space
};

constexpr std::array<SpacedWord, 256> make_spaced_words() {
  std::array<SpacedWord, 256> out{};
  for (std::size_t i = 0; i < kVocabulary.size(); ++i) {
    out[i].text[0] = ' ';
    for (std::size_t j = 0; j < kVocabulary[i].size(); ++j) out[i].text[j + 1] = kVocabulary[i][j];
    out[i].size = static_cast<std::uint8_t>(kVocabulary[i].size() + 1);
  }
  return out;
}
constexpr std::array<SpacedWord, 256> kSpacedWords = make_spaced_words();

constexpr bool vocabulary_is_valid() {
  for (auto w : kVocabulary) {
    if (w.empty() || w.size() > 8) return false;
    for (char c : w) {
      if (c < 'a' || c > 'z') return false;
    }
  }
  return true;
}
static_assert(vocabulary_is_valid(), "every prompt word must be 1..8 lowercase ASCII letters (1 approximate token)");

class SyntheticWorkload final : public Workload {
 public:
  SyntheticWorkload(LengthDistribution input, LengthDistribution output, std::uint64_t seed, bool token_ids)
      : input_(std::move(input)), output_(std::move(output)), seed_(seed), token_ids_(token_ids) {}

  WorkItem item(std::uint64_t index) const override {
    WorkItem w;
    w.input_tokens = input_.sample(seed_, index, kInputLengthStream);
    w.max_tokens = output_.sample(seed_, index, kOutputLengthStream);
    if (token_ids_) {
      w.prompt_token_ids = synthetic_token_ids(seed_, index, w.input_tokens);
    } else {
      build_synthetic_prompt(seed_, index, w.input_tokens, w.prompt);
    }
    return w;
  }
  std::optional<std::uint64_t> size() const override { return std::nullopt; }
  nlohmann::ordered_json describe() const override {
    nlohmann::ordered_json j;
    j["kind"] = "synthetic";
    j["input_len"] = input_.to_json();
    j["output_len"] = output_.to_json();
    j["prompt"] = token_ids_ ? "token_ids" : "words";
    j["vocabulary_words"] = kVocabulary.size();
    j["seed"] = seed_;
    return j;
  }

 private:
  LengthDistribution input_;
  LengthDistribution output_;
  std::uint64_t seed_;
  bool token_ids_;
};

}  // namespace

Workload::~Workload() = default;
bool Workload::has_arrival_times() const { return false; }
std::int64_t Workload::arrival_ns(std::uint64_t) const { return -1; }

std::span<const std::string_view> synthetic_vocabulary() { return kVocabulary; }

void build_synthetic_prompt(std::uint64_t seed, std::uint64_t index, std::int64_t tokens, std::string& out) {
  out.clear();
  if (tokens <= 0) return;
  const auto n = static_cast<std::size_t>(tokens);
  // Write into a buffer sized for the longest words (9 bytes each with the space) plus 16 bytes of slack,
  // then trim: one allocation at most, and each word is a fixed 16-byte copy with no capacity check.
  out.resize(n * 9 + 16);
  char* const begin = out.data();
  char* p = begin;
  CounterRng rng(seed, index, kPromptStream);
  std::uint64_t bits = rng.next_u64();  // eight words per 64-bit draw
  {
    const SpacedWord& first = kSpacedWords[bits & 0xFF];  // the first word has no leading space
    std::memcpy(p, first.text + 1, 15);
    p += first.size - 1;
    bits >>= 8;
  }
  for (std::size_t i = 1; i < n; ++i) {
    if (i % 8 == 0) bits = rng.next_u64();
    const SpacedWord& w = kSpacedWords[bits & 0xFF];
    bits >>= 8;
    std::memcpy(p, w.text, 16);
    p += w.size;
  }
  out.resize(static_cast<std::size_t>(p - begin));
}

std::string synthetic_prompt(std::uint64_t seed, std::uint64_t index, std::int64_t tokens) {
  std::string s;
  build_synthetic_prompt(seed, index, tokens, s);
  return s;
}

std::vector<std::int32_t> synthetic_token_ids(std::uint64_t seed, std::uint64_t index, std::int64_t tokens) {
  std::vector<std::int32_t> ids;
  if (tokens <= 0) return ids;
  ids.resize(static_cast<std::size_t>(tokens));
  CounterRng rng(seed, index, kPromptStream);
  constexpr auto kSpan = static_cast<std::uint64_t>(kSyntheticTokenIdEnd - kSyntheticTokenIdMin);
  for (auto& id : ids) id = kSyntheticTokenIdMin + static_cast<std::int32_t>(rng.below(kSpan));
  return ids;
}

std::unique_ptr<Workload> make_synthetic_workload(LengthDistribution input, LengthDistribution output,
                                                  std::uint64_t seed, bool token_ids) {
  return std::make_unique<SyntheticWorkload>(std::move(input), std::move(output), seed, token_ids);
}

}  // namespace perfhound::load
