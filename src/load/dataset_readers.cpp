#include "load/dataset_readers.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "core/check.h"
#include "core/json_error.h"
#include "serve/openai_protocol.h"

namespace perfhound::load {
namespace {

using Json = nlohmann::json;

// ---------------------------------------------------------------------------------------------------------
// Shared helpers

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

using core::json_error_text;

// A JSON value for an error message: short, one line.
std::string quote_json(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

const char* json_type(const Json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number_float()) return "a number with a fraction";
  return v.type_name();
}

core::Result<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::Error{fmt::format("cannot read '{}': {}", path, std::strerror(errno))};
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return core::Error{fmt::format("cannot read '{}': {}", path, std::strerror(errno))};
  return std::move(buffer).str();
}

// Lines of text in memory or of a file read as it goes (so a multi-GB trace is never held whole). Lines
// keep no '\n'; a trailing '\r' is stripped.
class LineSource {
 public:
  virtual ~LineSource() = default;
  // The next line, or false at the end. The view is valid until the next call.
  virtual bool next(std::string_view& line) = 0;
};

class TextLines final : public LineSource {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) override {
    if (pos_ >= text_.size()) return false;
    const std::size_t eol = std::min(text_.find('\n', pos_), text_.size());
    line = text_.substr(pos_, eol - pos_);
    pos_ = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

class FileLines final : public LineSource {
 public:
  explicit FileLines(std::ifstream& in) : in_(in) {}
  bool next(std::string_view& line) override {
    if (!std::getline(in_, buffer_)) return false;
    line = buffer_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }

 private:
  std::ifstream& in_;
  std::string buffer_;
};

// Reads `path` line by line through `parse`, which takes a LineSource and the source name.
template <class Parse>
auto with_file_lines(const std::string& path, Parse&& parse) -> decltype(parse(std::declval<LineSource&>(), path)) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return core::Error{fmt::format("cannot read '{}': {}", path, std::strerror(errno))};
  FileLines lines(in);
  auto result = parse(lines, path);
  if (in.bad()) return core::Error{fmt::format("cannot read '{}': {}", path, std::strerror(errno))};
  return result;
}

// Keeps many prompt texts in one buffer, so a dataset of 100k prompts is one allocation, not 100k.
class PromptArena {
 public:
  std::uint32_t add(std::string_view text) {
    PH_CHECK(offsets_.size() < std::numeric_limits<std::uint32_t>::max());
    offsets_.push_back(bytes_.size());
    bytes_.append(text);
    return static_cast<std::uint32_t>(offsets_.size() - 1);
  }
  std::string_view get(std::uint32_t id) const {
    const std::size_t begin = offsets_[id];
    const std::size_t end = id + 1 < offsets_.size() ? offsets_[id + 1] : bytes_.size();
    return std::string_view(bytes_).substr(begin, end - begin);
  }
  void shrink() {
    bytes_.shrink_to_fit();
    offsets_.shrink_to_fit();
  }

 private:
  std::string bytes_;
  std::vector<std::size_t> offsets_;
};

// A prompt with its lengths, for the sampled text datasets.
struct PromptEntry {
  std::uint32_t prompt = 0;         // PromptArena id
  std::int32_t input_tokens = 0;
  std::int32_t output_tokens = 0;   // 0 when the output length comes from a distribution
};

std::int32_t clamp_tokens(std::int64_t tokens) {
  return static_cast<std::int32_t>(std::min<std::int64_t>(tokens, kMaxLengthTokens));
}

// ---------------------------------------------------------------------------------------------------------
// Sampled / ordered text datasets (ShareGPT and JSONL share the item logic)

class TextDatasetWorkload final : public Workload {
 public:
  TextDatasetWorkload(PromptArena arena, std::vector<PromptEntry> entries, std::optional<LengthDistribution> output_len,
                      std::uint64_t seed, bool in_order, nlohmann::ordered_json description)
      : arena_(std::move(arena)),
        entries_(std::move(entries)),
        output_len_(std::move(output_len)),
        seed_(seed),
        in_order_(in_order),
        description_(std::move(description)) {
    PH_CHECK(!entries_.empty());
  }

  WorkItem item(std::uint64_t index) const override {
    std::uint64_t pick = index;
    if (in_order_) {
      PH_CHECK(index < entries_.size());
    } else {
      pick = CounterRng(seed_, index, kDatasetPickStream).below(entries_.size());
    }
    const PromptEntry& e = entries_[pick];
    WorkItem w;
    w.prompt = std::string(arena_.get(e.prompt));
    w.input_tokens = e.input_tokens;
    w.max_tokens = e.output_tokens > 0 ? e.output_tokens : output_len_->sample(seed_, index, kOutputLengthStream);
    return w;
  }
  std::optional<std::uint64_t> size() const override {
    if (in_order_) return entries_.size();
    return std::nullopt;
  }
  nlohmann::ordered_json describe() const override { return description_; }

 private:
  PromptArena arena_;
  std::vector<PromptEntry> entries_;
  std::optional<LengthDistribution> output_len_;  // set when some entry has output_tokens == 0
  std::uint64_t seed_;
  bool in_order_;
  nlohmann::ordered_json description_;
};

// ---------------------------------------------------------------------------------------------------------
// ShareGPT

std::size_t skip_ws(std::string_view text, std::size_t pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' || text[pos] == '\t')) ++pos;
  return pos;
}

// One past the end of the JSON value starting at text[begin], tracking only strings and bracket depth
// (the parser of the slice validates it); npos when the text ends first.
std::size_t scan_value_end(std::string_view text, std::size_t begin) {
  const char first = text[begin];
  if (first != '{' && first != '[') {
    std::size_t i = begin;
    if (first == '"') {
      for (++i; i < text.size(); ++i) {
        if (text[i] == '\\') ++i;
        else if (text[i] == '"') return i + 1;
      }
      return std::string_view::npos;
    }
    while (i < text.size() && text[i] != ',' && text[i] != ']' && text[i] != ' ' && text[i] != '\n' &&
           text[i] != '\r' && text[i] != '\t')
      ++i;
    return i;
  }
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = begin; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

struct ShareGptDrops {
  std::uint64_t fewer_than_2_turns = 0;
  std::uint64_t prompt_under_4_tokens = 0;
  std::uint64_t output_under_4_tokens = 0;
  std::uint64_t prompt_over_1024_tokens = 0;
  std::uint64_t total_over_2048_tokens = 0;
};

// The string "value" of conversations[turn], or an error message.
core::Result<const std::string*> turn_value(const Json& turns, std::size_t turn) {
  const Json& t = turns[turn];
  if (!t.is_object()) return core::Error{fmt::format("turn {} is {}, not an object", turn, json_type(t))};
  const auto it = t.find("value");
  if (it == t.end()) return core::Error{fmt::format("turn {} has no \"value\"", turn)};
  if (!it->is_string()) {
    return core::Error{fmt::format("turn {} \"value\" must be a string, got {} ({})", turn, json_type(*it), quote_json(*it))};
  }
  return &it->get_ref<const std::string&>();
}

}  // namespace

core::Result<std::unique_ptr<Workload>> parse_sharegpt(std::string_view text, std::string_view source_name,
                                                       const ShareGptOptions& options) {
  const auto at = [&](std::size_t byte) { return fmt::format("'{}' byte {}", source_name, byte); };
  std::size_t pos = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") pos = 3;  // a UTF-8 byte order mark
  pos = skip_ws(text, pos);
  if (pos >= text.size() || text[pos] != '[') {
    return core::Error{fmt::format("{}: expected a JSON array '[' of ShareGPT conversations, got {}", at(pos),
                                   pos >= text.size() ? std::string("the end of the file")
                                                      : fmt::format("'{}'", text[pos]))};
  }
  pos = skip_ws(text, pos + 1);

  PromptArena arena;
  std::vector<PromptEntry> entries;
  ShareGptDrops drops;
  std::uint64_t conversations = 0;
  double input_sum = 0;
  double output_sum = 0;
  const std::optional<std::int64_t> fixed_override =
      options.output_len ? options.output_len->fixed_value() : std::nullopt;

  bool closed = pos < text.size() && text[pos] == ']';
  if (closed) ++pos;
  while (!closed) {
    if (pos >= text.size()) return core::Error{fmt::format("{}: the file ends inside the array (no closing ']')", at(pos))};
    const std::size_t begin = pos;
    const std::size_t end = scan_value_end(text, begin);
    if (end == std::string_view::npos) {
      return core::Error{fmt::format("{}: conversation {} is not terminated (the file ends inside it)", at(begin), conversations)};
    }
    Json element;
    try {
      element = Json::parse(text.begin() + static_cast<std::ptrdiff_t>(begin), text.begin() + static_cast<std::ptrdiff_t>(end));
    } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number too large
      const std::size_t offset = core::json_error_byte(e).value_or(1);
      const std::size_t byte = begin + (offset > 0 ? offset - 1 : 0);
      return core::Error{fmt::format("{}: invalid JSON in conversation {}: {}", at(byte), conversations, json_error_text(e))};
    }
    const std::string where = fmt::format("{}: conversation {}", at(begin), conversations);
    if (!element.is_object()) {
      return core::Error{fmt::format("{} is {}, not an object {{\"id\", \"conversations\"}}", where, json_type(element))};
    }
    std::string id_note;
    if (const auto id = element.find("id"); id != element.end()) id_note = fmt::format(" (id {})", quote_json(*id));
    const auto turns = element.find("conversations");
    if (turns == element.end() || !turns->is_array()) {
      return core::Error{fmt::format("{}{}: expected a \"conversations\" array of {{\"from\", \"value\"}} turns{}", where,
                                     id_note, turns == element.end() ? "" : fmt::format(", got {}", json_type(*turns)))};
    }
    ++conversations;
    if (turns->size() < 2) {
      ++drops.fewer_than_2_turns;
    } else {
      auto prompt = turn_value(*turns, 0);
      if (!prompt.ok()) return core::Error{fmt::format("{}{}: {}", where, id_note, prompt.error().message)};
      auto reply = turn_value(*turns, 1);
      if (!reply.ok()) return core::Error{fmt::format("{}{}: {}", where, id_note, reply.error().message)};
      const std::int64_t prompt_tokens = serve::approximate_tokens(**prompt);
      const std::int64_t reply_tokens = serve::approximate_tokens(**reply);
      const std::int64_t total_output = fixed_override ? *fixed_override : reply_tokens;
      // vLLM's is_valid_sequence, each drop counted under the first rule it breaks.
      if (prompt_tokens < kShareGptMinTokens) {
        ++drops.prompt_under_4_tokens;
      } else if (!options.output_len && reply_tokens < kShareGptMinTokens) {
        ++drops.output_under_4_tokens;
      } else if (prompt_tokens > kShareGptMaxPromptTokens) {
        ++drops.prompt_over_1024_tokens;
      } else if (prompt_tokens + total_output > kShareGptMaxTotalTokens) {
        ++drops.total_over_2048_tokens;
      } else {
        PromptEntry e;
        e.prompt = arena.add(**prompt);
        e.input_tokens = clamp_tokens(prompt_tokens);
        // With an override the output comes from the distribution per item; 0 marks that.
        e.output_tokens = options.output_len ? 0 : clamp_tokens(reply_tokens);
        entries.push_back(e);
        input_sum += static_cast<double>(prompt_tokens);
        output_sum += static_cast<double>(reply_tokens);
      }
    }
    pos = skip_ws(text, end);
    if (pos < text.size() && text[pos] == ',') {
      pos = skip_ws(text, pos + 1);
    } else if (pos < text.size() && text[pos] == ']') {
      ++pos;
      closed = true;
    } else {
      return core::Error{fmt::format("{}: expected ',' or ']' after conversation {}, got {}", at(pos), conversations - 1,
                                     pos >= text.size() ? std::string("the end of the file")
                                                        : fmt::format("'{}'", text[pos]))};
    }
  }
  pos = skip_ws(text, pos);
  if (pos < text.size()) {
    return core::Error{fmt::format("{}: unexpected '{}' after the closing ']' of the array", at(pos), text[pos])};
  }

  nlohmann::ordered_json d;
  d["kind"] = "sharegpt";
  d["source"] = std::string(source_name);
  d["conversations"] = conversations;
  d["kept"] = entries.size();
  d["dropped"] = {{"fewer_than_2_turns", drops.fewer_than_2_turns},
                  {"prompt_under_4_tokens", drops.prompt_under_4_tokens},
                  {"output_under_4_tokens", drops.output_under_4_tokens},
                  {"prompt_over_1024_tokens", drops.prompt_over_1024_tokens},
                  {"total_over_2048_tokens", drops.total_over_2048_tokens}};
  d["output_len"] = options.output_len ? options.output_len->to_json() : nlohmann::ordered_json("recorded");
  const double kept = static_cast<double>(entries.size());
  d["mean_input_tokens"] = entries.empty() ? 0.0 : input_sum / kept;
  d["mean_output_tokens"] = entries.empty() ? 0.0 : output_sum / kept;
  d["seed"] = options.seed;
  if (entries.empty()) {
    return core::Error{fmt::format("'{}': no conversation passed the filters ({} read; dropped: {})", source_name,
                                   conversations, d["dropped"].dump())};
  }
  arena.shrink();
  entries.shrink_to_fit();
  return std::unique_ptr<Workload>(std::make_unique<TextDatasetWorkload>(std::move(arena), std::move(entries),
                                                                         options.output_len, options.seed, false,
                                                                         std::move(d)));
}

core::Result<std::unique_ptr<Workload>> read_sharegpt(const std::string& path, const ShareGptOptions& options) {
  PH_ASSIGN_OR_RETURN(const std::string text, read_whole_file(path));
  return parse_sharegpt(text, path, options);
}

// -------------------------------------------------------------------------------------------------------------
// JSONL prompts

namespace {

core::Result<std::unique_ptr<Workload>> parse_jsonl_prompt_lines(LineSource& lines, std::string_view source_name,
                                                                 const JsonlPromptOptions& options) {
  PromptArena arena;
  std::vector<PromptEntry> entries;
  std::uint64_t with_max_tokens = 0;
  double input_sum = 0;
  std::size_t line_no = 0;
  std::string_view line;
  static constexpr std::array<const char*, 3> kOutputKeys = {"max_tokens", "output_tokens", "output_len"};
  while (lines.next(line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    const std::string where = fmt::format("'{}' line {}", source_name, line_no);
    Json row;
    try {
      row = Json::parse(line.begin(), line.end());
    } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number too large
      const std::size_t offset = core::json_error_byte(e).value_or(1);
      return core::Error{fmt::format("{}: invalid JSON at byte {} of the line: {}", where, offset > 0 ? offset - 1 : 0,
                                     json_error_text(e))};
    }
    if (!row.is_object()) {
      return core::Error{fmt::format("{}: expected an object {{\"prompt\": ..., \"max_tokens\": ...}}, got {}", where,
                                     json_type(row))};
    }
    const auto prompt = row.find("prompt");
    if (prompt == row.end()) return core::Error{fmt::format("{}: no \"prompt\"", where)};
    if (!prompt->is_string() || prompt->get_ref<const std::string&>().empty()) {
      return core::Error{fmt::format("{}: \"prompt\" must be a non-empty string, got {} ({})", where, json_type(*prompt),
                                     quote_json(*prompt))};
    }
    const Json* output = nullptr;
    const char* output_key = nullptr;
    for (const char* key : kOutputKeys) {
      const auto it = row.find(key);
      if (it == row.end() || it->is_null()) continue;
      if (output != nullptr) {
        return core::Error{fmt::format("{}: both \"{}\" and \"{}\" are given (use one)", where, output_key, key)};
      }
      output = &*it;
      output_key = key;
    }
    PromptEntry e;
    if (output != nullptr) {
      const bool integer = output->is_number_integer() || output->is_number_unsigned();
      if (!integer || output->get<std::int64_t>() < 1 || output->get<std::int64_t>() > kMaxLengthTokens) {
        return core::Error{fmt::format("{}: \"{}\" must be an integer from 1 to {}, got {}", where, output_key,
                                       kMaxLengthTokens, quote_json(*output))};
      }
      e.output_tokens = static_cast<std::int32_t>(output->get<std::int64_t>());
      ++with_max_tokens;
    } else if (!options.default_output_len) {
      return core::Error{fmt::format(
          "{}: no \"max_tokens\" (or \"output_tokens\" / \"output_len\"); give one or a default output length", where)};
    }
    const std::string& text = prompt->get_ref<const std::string&>();
    const std::int64_t tokens = serve::approximate_tokens(text);
    e.prompt = arena.add(text);
    e.input_tokens = clamp_tokens(tokens);
    input_sum += static_cast<double>(tokens);
    entries.push_back(e);
  }
  if (entries.empty()) return core::Error{fmt::format("'{}': no prompts (the file has no non-blank lines)", source_name)};
  nlohmann::ordered_json d;
  d["kind"] = "jsonl";
  d["source"] = std::string(source_name);
  d["prompts"] = entries.size();
  d["order"] = options.in_order ? "file" : "sampled";
  d["default_output_len"] =
      options.default_output_len ? options.default_output_len->to_json() : nlohmann::ordered_json(nullptr);
  d["lines_with_max_tokens"] = with_max_tokens;
  d["mean_input_tokens"] = input_sum / static_cast<double>(entries.size());
  d["seed"] = options.seed;
  arena.shrink();
  entries.shrink_to_fit();
  return std::unique_ptr<Workload>(std::make_unique<TextDatasetWorkload>(std::move(arena), std::move(entries),
                                                                         options.default_output_len, options.seed,
                                                                         options.in_order, std::move(d)));
}

}  // namespace

core::Result<std::unique_ptr<Workload>> parse_jsonl_prompts(std::string_view text, std::string_view source_name,
                                                            const JsonlPromptOptions& options) {
  TextLines lines(text);
  return parse_jsonl_prompt_lines(lines, source_name, options);
}

core::Result<std::unique_ptr<Workload>> read_jsonl_prompts(const std::string& path, const JsonlPromptOptions& options) {
  return with_file_lines(path, [&](LineSource& lines, std::string_view name) {
    return parse_jsonl_prompt_lines(lines, name, options);
  });
}

// -------------------------------------------------------------------------------------------------------------
// Arrival traces

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil,
// http://howardhinnant.github.io/date_algorithms.html).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Fixed-width digits at text[pos, pos + n); false unless all are digits.
bool digits(std::string_view text, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_datetime_ns(std::string_view text) {
  text = trim(text);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, 0, 4, year) || text.size() < 19 || text[4] != '-' || !digits(text, 5, 2, month) ||
      text[7] != '-' || !digits(text, 8, 2, day) || (text[10] != ' ' && text[10] != 'T') ||
      !digits(text, 11, 2, hour) || text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' ||
      !digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  static constexpr std::array<int, 12> kDaysInMonth = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 1970 || year > 2261 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  if (day > kDaysInMonth[static_cast<std::size_t>(month - 1)] + (month == 2 && is_leap(year) ? 1 : 0)) return std::nullopt;
  std::size_t pos = 19;
  std::int64_t fraction_ns = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::int64_t scale = 100'000'000;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (scale > 0) fraction_ns += (text[pos] - '0') * scale;  // digits past the 9th (below 1 ns) are dropped
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  std::int64_t offset_s = 0;
  if (pos < text.size()) {
    const char c = text[pos];
    if (c == 'Z' && pos + 1 == text.size()) {
      ++pos;
    } else if (c == '+' || c == '-') {
      int oh = 0, om = 0;
      if (!digits(text, pos + 1, 2, oh)) return std::nullopt;
      std::size_t mpos = pos + 3;
      if (mpos < text.size() && text[mpos] == ':') ++mpos;
      if (!digits(text, mpos, 2, om) || mpos + 2 != text.size() || oh > 23 || om > 59) return std::nullopt;
      offset_s = (c == '+' ? 1 : -1) * (oh * 3600 + om * 60);
      pos = text.size();
    } else {
      return std::nullopt;
    }
  }
  if (pos != text.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  // The local time minus its UTC offset is UTC.
  const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  if (seconds < 0 || seconds > std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1) return std::nullopt;
  return seconds * 1'000'000'000 + fraction_ns;
}

namespace {

enum class TimeUnit { kDatetime, kSeconds, kMilliseconds };

std::int64_t unit_ns(TimeUnit unit) { return unit == TimeUnit::kMilliseconds ? 1'000'000 : 1'000'000'000; }

// Decimal text ("12", "-3.25", "1.5e3") in `unit` to integer nanoseconds. Plain decimals are converted
// exactly (epoch seconds with 9 digits keep every nanosecond); exponent forms go through a double.
std::optional<std::int64_t> decimal_to_ns(std::string_view text, std::int64_t scale) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.find_first_of("eE") != std::string_view::npos) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
    const double ns = v * static_cast<double>(scale);
    if (std::fabs(ns) > 9.2e18) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(ns));
  }
  std::size_t pos = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    ++pos;
  }
  __extension__ typedef __int128 Wide;  // whole part * scale can pass int64 before the range check
  Wide whole = 0;
  std::size_t whole_digits = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    whole = whole * 10 + (text[pos] - '0');
    if (whole > Wide(1) << 80) return std::nullopt;
    ++pos;
    ++whole_digits;
  }
  Wide frac = 0;
  std::size_t frac_digits = 0;
  Wide frac_scale = scale;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      frac_scale /= 10;
      frac += (text[pos] - '0') * frac_scale;  // digits below 1 ns are dropped
      ++pos;
      ++frac_digits;
    }
  }
  if (pos != text.size() || whole_digits + frac_digits == 0) return std::nullopt;
  const Wide ns = whole * scale + frac;
  if (ns > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return static_cast<std::int64_t>(negative ? -ns : ns);
}

struct TraceRow {
  std::int64_t arrival_ns;
  std::int32_t input_tokens;
  std::int32_t output_tokens;
};

class TraceWorkload final : public Workload {
 public:
  TraceWorkload(std::vector<TraceRow> rows, TraceOptions options, nlohmann::ordered_json description)
      : rows_(std::move(rows)), options_(options), description_(std::move(description)) {}

  WorkItem item(std::uint64_t index) const override {
    PH_CHECK(index < rows_.size());
    const TraceRow& r = rows_[index];
    WorkItem w;
    w.input_tokens = r.input_tokens;
    w.max_tokens = r.output_tokens;
    w.arrival_ns = r.arrival_ns;
    if (options_.token_ids) {
      w.prompt_token_ids = synthetic_token_ids(options_.seed, index, r.input_tokens);
    } else {
      build_synthetic_prompt(options_.seed, index, r.input_tokens, w.prompt);
    }
    return w;
  }
  std::optional<std::uint64_t> size() const override { return rows_.size(); }
  bool has_arrival_times() const override { return true; }
  std::int64_t arrival_ns(std::uint64_t index) const override {
    PH_CHECK(index < rows_.size());
    return rows_[index].arrival_ns;
  }
  nlohmann::ordered_json describe() const override { return description_; }

 private:
  std::vector<TraceRow> rows_;
  TraceOptions options_;
  nlohmann::ordered_json description_;
};

// Recognised names, lower-case, in order of preference.
constexpr std::array<std::string_view, 3> kTimeNames = {"timestamp", "timestamp_s", "timestamp_ms"};
constexpr std::array<std::string_view, 3> kInputNames = {"contexttokens", "input_length", "input_tokens"};
constexpr std::array<std::string_view, 3> kOutputNames = {"generatedtokens", "output_length", "output_tokens"};

// How one trace's columns are named and read: chosen from the header (CSV) or the first row (JSONL).
struct TraceColumns {
  std::string time;    // as spelled in the file
  std::string input;
  std::string output;
  TimeUnit number_unit = TimeUnit::kSeconds;  // for numeric timestamps
  std::string format;                         // azure, mooncake, generic
};

// Picks the columns from the names a file has; an error message when one is missing.
template <class Names>
core::Result<TraceColumns> choose_columns(const Names& names, std::string_view where, std::string_view shown) {
  TraceColumns c;
  std::size_t time_rank = kTimeNames.size(), input_rank = kInputNames.size(), output_rank = kOutputNames.size();
  // The best-ranked spelling of each role wins, wherever it stands in the file.
  const auto pick = [](std::string_view lowered, std::string_view spelled, const auto& known, std::size_t& rank,
                       std::string& chosen) {
    for (std::size_t i = 0; i < known.size() && i < rank; ++i) {
      if (lowered == known[i]) {
        rank = i;
        chosen = std::string(spelled);
      }
    }
  };
  for (const auto& name : names) {
    const std::string_view spelled = trim(name);
    const std::string l = lower(spelled);
    pick(l, spelled, kTimeNames, time_rank, c.time);
    pick(l, spelled, kInputNames, input_rank, c.input);
    pick(l, spelled, kOutputNames, output_rank, c.output);
  }
  const auto missing = [&](std::string_view what, std::string_view known) {
    return core::Error{fmt::format("{}: no {} column in {} (use one of {})", where, what, shown, known)};
  };
  if (c.time.empty()) return missing("timestamp", "TIMESTAMP, timestamp, timestamp_s, timestamp_ms");
  if (c.input.empty()) return missing("input length", "ContextTokens, input_length, input_tokens");
  if (c.output.empty()) return missing("output length", "GeneratedTokens, output_length, output_tokens");
  c.format = input_rank == 0 ? "azure" : input_rank == 1 ? "mooncake" : "generic";
  if (time_rank == 2) c.number_unit = TimeUnit::kMilliseconds;
  else if (time_rank == 0 && input_rank == 1) c.number_unit = TimeUnit::kMilliseconds;  // Mooncake's convention
  return c;
}

// Accumulates rows, checking the order and counting the zero lengths.
class TraceBuilder {
 public:
  TraceBuilder(std::string_view source_name, TraceOptions options) : source_(source_name), options_(options) {}

  // `time_ns` absolute (any origin); lengths as read (>= 0).
  core::Status add(std::size_t line_no, std::int64_t time_ns, std::string_view time_text, std::int64_t input,
                   std::int64_t output, const TraceColumns& columns) {
    const auto where = [&] { return fmt::format("'{}' line {}", source_, line_no); };
    if (input < 0 || input > kMaxLengthTokens) {
      return core::Error{fmt::format("{}: {} {} must be an integer from 0 to {}", where(), columns.input, input, kMaxLengthTokens)};
    }
    if (output < 0 || output > kMaxLengthTokens) {
      return core::Error{fmt::format("{}: {} {} must be an integer from 0 to {}", where(), columns.output, output, kMaxLengthTokens)};
    }
    if (rows_.empty()) {
      first_ns_ = time_ns;
    } else if (time_ns < last_ns_) {
      return core::Error{fmt::format("{}: {} '{}' is earlier than the previous row's (line {}); trace rows must be in "
                                     "time order (sort the file by time)",
                                     where(), columns.time, time_text, last_line_)};
    }
    if (time_ns - first_ns_ < 0) {  // int64 wrap: only for absurd spans
      return core::Error{fmt::format("{}: {} '{}' is too far from the first row's", where(), columns.time, time_text)};
    }
    last_ns_ = time_ns;
    last_line_ = line_no;
    if (input == 0) ++zero_input_, input = 1;
    if (output == 0) ++zero_output_, output = 1;
    input_sum_ += static_cast<double>(input);
    output_sum_ += static_cast<double>(output);
    rows_.push_back({time_ns - first_ns_, static_cast<std::int32_t>(input), static_cast<std::int32_t>(output)});
    return core::Status::success();
  }

  core::Result<std::unique_ptr<Workload>> finish(const TraceColumns& columns, TimeUnit unit_seen) {
    if (rows_.empty()) return core::Error{fmt::format("'{}': the trace has no rows", source_)};
    nlohmann::ordered_json d;
    d["kind"] = "trace";
    d["format"] = columns.format;
    d["source"] = source_;
    d["rows"] = rows_.size();
    d["duration_s"] = static_cast<double>(rows_.back().arrival_ns) / 1e9;
    d["columns"] = {{"timestamp", columns.time}, {"input", columns.input}, {"output", columns.output}};
    d["timestamp_unit"] = unit_seen == TimeUnit::kDatetime ? "datetime" : unit_seen == TimeUnit::kSeconds ? "s" : "ms";
    d["zero_input_rows_raised_to_1"] = zero_input_;
    d["zero_output_rows_raised_to_1"] = zero_output_;
    d["mean_input_tokens"] = input_sum_ / static_cast<double>(rows_.size());
    d["mean_output_tokens"] = output_sum_ / static_cast<double>(rows_.size());
    d["prompt"] = options_.token_ids ? "token_ids" : "words";
    d["seed"] = options_.seed;
    rows_.shrink_to_fit();
    return std::unique_ptr<Workload>(std::make_unique<TraceWorkload>(std::move(rows_), options_, std::move(d)));
  }

 private:
  std::string source_;
  TraceOptions options_;
  std::vector<TraceRow> rows_;
  std::int64_t first_ns_ = 0;
  std::int64_t last_ns_ = 0;
  std::size_t last_line_ = 0;
  std::uint64_t zero_input_ = 0;
  std::uint64_t zero_output_ = 0;
  double input_sum_ = 0;
  double output_sum_ = 0;
};

// Splits a CSV line on commas; a field in double quotes may hold commas (its "" escapes are left doubled:
// the columns read here are numbers and datetimes). Fields are trimmed.
void split_csv(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t pos = 0;
  for (;;) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (pos < line.size() && line[pos] == '"') {
      std::size_t close = pos + 1;
      while (close < line.size()) {
        if (line[close] == '"') {
          if (close + 1 < line.size() && line[close + 1] == '"') {
            close += 2;
            continue;
          }
          break;
        }
        ++close;
      }
      fields.push_back(line.substr(pos + 1, std::min(close, line.size()) - pos - 1));
      pos = std::min(line.find(',', close), line.size());
    } else {
      const std::size_t end = std::min(line.find(',', pos), line.size());
      fields.push_back(trim(line.substr(pos, end - pos)));
      pos = end;
    }
    if (pos >= line.size()) break;
    ++pos;  // the comma
  }
}

// A timestamp field: datetime text, or a number in the column's unit.
std::optional<std::int64_t> time_field_ns(std::string_view text, TimeUnit number_unit, TimeUnit& seen) {
  if (const auto dt = parse_datetime_ns(text)) {
    seen = TimeUnit::kDatetime;
    return dt;
  }
  seen = number_unit;
  return decimal_to_ns(text, unit_ns(number_unit));
}

std::optional<std::int64_t> integer_field(std::string_view text) {
  text = trim(text);
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

core::Result<std::unique_ptr<Workload>> parse_csv_trace(LineSource& lines, std::string_view first_line,
                                                        std::size_t header_line, std::string_view source_name,
                                                        const TraceOptions& options) {
  std::vector<std::string_view> fields;
  split_csv(first_line, fields);
  const std::string header(first_line);
  PH_ASSIGN_OR_RETURN(TraceColumns columns,
                      choose_columns(fields, fmt::format("'{}' line {}", source_name, header_line),
                                     fmt::format("the header '{}'", header)));
  // Column positions, by the spelling chosen.
  std::size_t time_col = 0, input_col = 0, output_col = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (trim(fields[i]) == columns.time) time_col = i;
    if (trim(fields[i]) == columns.input) input_col = i;
    if (trim(fields[i]) == columns.output) output_col = i;
  }
  const std::size_t width = fields.size();
  TraceBuilder builder(source_name, options);
  TimeUnit seen = columns.number_unit;
  std::size_t line_no = header_line;
  std::string_view line;
  while (lines.next(line)) {
    ++line_no;
    if (trim(line).empty() || line.front() == '#') continue;
    split_csv(line, fields);
    const auto where = [&] { return fmt::format("'{}' line {}", source_name, line_no); };
    if (fields.size() < width) {
      return core::Error{fmt::format("{}: {} field{}, the header has {} ('{}')", where(), fields.size(),
                                     fields.size() == 1 ? "" : "s", width, header)};
    }
    const auto t = time_field_ns(fields[time_col], columns.number_unit, seen);
    if (!t) {
      return core::Error{fmt::format("{}: cannot parse {} '{}' (use datetime text like 2023-11-16 18:15:46.6805900 or "
                                     "a number of {})",
                                     where(), columns.time, fields[time_col],
                                     columns.number_unit == TimeUnit::kMilliseconds ? "milliseconds" : "seconds")};
    }
    const auto in = integer_field(fields[input_col]);
    if (!in) return core::Error{fmt::format("{}: {} '{}' must be an integer >= 0", where(), columns.input, fields[input_col])};
    const auto out = integer_field(fields[output_col]);
    if (!out) {
      return core::Error{fmt::format("{}: {} '{}' must be an integer >= 0", where(), columns.output, fields[output_col])};
    }
    PH_TRY(builder.add(line_no, *t, fields[time_col], *in, *out, columns));
  }
  return builder.finish(columns, seen);
}

// A JSON number or numeric string as an integer length; nullopt otherwise.
std::optional<std::int64_t> json_length(const Json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    return u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? std::nullopt
                                                                                     : std::optional<std::int64_t>(u);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

core::Result<std::unique_ptr<Workload>> parse_jsonl_trace(LineSource& lines, std::string_view first_line,
                                                          std::size_t first_line_no, std::string_view source_name,
                                                          const TraceOptions& options) {
  std::optional<TraceColumns> columns;
  TraceBuilder builder(source_name, options);
  TimeUnit seen = TimeUnit::kSeconds;
  std::size_t line_no = first_line_no;
  std::string_view line = first_line;
  bool have_line = true;
  while (have_line) {
    if (!trim(line).empty()) {
      const std::string where = fmt::format("'{}' line {}", source_name, line_no);
      Json row;
      try {
        row = Json::parse(line.begin(), line.end());
      } catch (const Json::exception& e) {  // parse_error, or out_of_range for a number too large
        const std::size_t offset = core::json_error_byte(e).value_or(1);
        return core::Error{fmt::format("{}: invalid JSON at byte {} of the line: {}", where, offset > 0 ? offset - 1 : 0,
                                       json_error_text(e))};
      }
      if (!row.is_object()) return core::Error{fmt::format("{}: expected a JSON object, got {}", where, json_type(row))};
      if (!columns) {
        std::vector<std::string> keys;
        for (const auto& [key, value] : row.items()) keys.push_back(key);
        PH_ASSIGN_OR_RETURN(columns, choose_columns(keys, where, "the first row's keys"));
      }
      const auto field = [&](const std::string& key) -> core::Result<const Json*> {
        const auto it = row.find(key);
        if (it == row.end() || it->is_null()) {
          return core::Error{fmt::format("{}: no \"{}\" (the first row has it)", where, key)};
        }
        return &*it;
      };
      PH_ASSIGN_OR_RETURN(const Json* t, field(columns->time));
      PH_ASSIGN_OR_RETURN(const Json* in, field(columns->input));
      PH_ASSIGN_OR_RETURN(const Json* out, field(columns->output));
      std::optional<std::int64_t> time_ns;
      const std::int64_t scale = unit_ns(columns->number_unit);
      if (t->is_string()) {
        time_ns = time_field_ns(t->get_ref<const std::string&>(), columns->number_unit, seen);
      } else if (t->is_number_integer() || t->is_number_unsigned()) {
        seen = columns->number_unit;
        const auto v = json_length(*t);
        const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / scale;
        if (v && *v > -limit && *v < limit) time_ns = *v * scale;
      } else if (t->is_number_float()) {
        seen = columns->number_unit;
        const double ns = t->get<double>() * static_cast<double>(scale);
        if (std::isfinite(ns) && std::fabs(ns) < 9.2e18) time_ns = std::llround(ns);
      }
      if (!time_ns) {
        return core::Error{fmt::format("{}: cannot parse \"{}\" {} as a time (use a number of {} or datetime text)",
                                       where, columns->time, quote_json(*t),
                                       columns->number_unit == TimeUnit::kMilliseconds ? "milliseconds" : "seconds")};
      }
      const auto input = json_length(*in);
      if (!input) {
        return core::Error{fmt::format("{}: \"{}\" must be an integer >= 0, got {}", where, columns->input, quote_json(*in))};
      }
      const auto output = json_length(*out);
      if (!output) {
        return core::Error{fmt::format("{}: \"{}\" must be an integer >= 0, got {}", where, columns->output, quote_json(*out))};
      }
      PH_TRY(builder.add(line_no, *time_ns, t->dump(), *input, *output, *columns));
    }
    have_line = lines.next(line);
    ++line_no;
  }
  return builder.finish(*columns, seen);
}

core::Result<std::unique_ptr<Workload>> parse_trace_lines(LineSource& lines, std::string_view source_name,
                                                          const TraceOptions& options) {
  std::string_view line;
  std::size_t line_no = 0;
  while (lines.next(line)) {
    ++line_no;
    if (line_no == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // a UTF-8 byte order mark
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    // The first line's view dies at the next read; keep a copy for the parsers that start from it.
    const std::string first(t);
    if (t.front() == '{') return parse_jsonl_trace(lines, first, line_no, source_name, options);
    return parse_csv_trace(lines, first, line_no, source_name, options);
  }
  return core::Error{fmt::format("'{}': the trace is empty (expected a CSV header or JSONL rows)", source_name)};
}

}  // namespace

core::Result<std::unique_ptr<Workload>> parse_arrival_trace(std::string_view text, std::string_view source_name,
                                                            const TraceOptions& options) {
  TextLines lines(text);
  return parse_trace_lines(lines, source_name, options);
}

core::Result<std::unique_ptr<Workload>> read_arrival_trace(const std::string& path, const TraceOptions& options) {
  return with_file_lines(path, [&](LineSource& lines, std::string_view name) {
    return parse_trace_lines(lines, name, options);
  });
}

}  // namespace perfhound::load
