// Chunk shapes: OpenAI API reference (chat.completion.chunk, text_completion, stream_options.include_usage);
// vLLM / SGLang reasoning output in delta.reasoning_content (vLLM >= 0.10 also delta.reasoning); vLLM's
// streaming error {"error": {...}} (vllm/entrypoints/openai/serving_engine.py create_streaming_error_response);
// TGI's {"error": "...", "error_type": "..."} and its object-valued delta.tool_calls
// (huggingface/text-generation-inference issue #2051).
#include "load/openai_stream.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace perfhound::load {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

constexpr std::size_t kNoChoice = static_cast<std::size_t>(-1);
constexpr std::size_t kQuoteBytes = 60;  // how much of a bad chunk a reason quotes
// An error event whose data is empty still fails its record with something to read (found by fuzz_http_response).
constexpr std::string_view kNoErrorMessage = "an error event with no message";

// Where a field sits, formatted only when it is reported: choices[2].delta.content, usage.prompt_tokens.
struct Path {
  std::string_view top = {};
  std::size_t choice = kNoChoice;
  std::string_view sub = {};
  std::string_view key = {};
};

// Why reading stopped: a JSON error, or a field (path non-empty) of the wrong type.
struct Failure {
  error_code json = simdjson::SUCCESS;
  Path path;
  std::string_view expected;
  od::json_type got = od::json_type::null;
};

bool json_fail(Failure& f, error_code e) {
  f.json = e;
  return false;
}

bool type_fail(Failure& f, const Path& path, std::string_view expected, od::json_type got) {
  f.path = path;
  f.expected = expected;
  f.got = got;
  return false;
}

std::string_view type_name(od::json_type t) {
  switch (t) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
  }
  return "an unknown value";
}

// The value's type; a null is verified as the literal null, since type() only looks at the first byte.
bool value_type(od::value& v, od::json_type& t, Failure& f) {
  if (auto e = v.type().get(t)) return json_fail(f, e);
  if (t == od::json_type::null) {
    bool is_null = false;
    if (auto e = v.is_null().get(is_null)) return json_fail(f, e);
    if (!is_null) return json_fail(f, simdjson::N_ATOM_ERROR);
  }
  return true;
}

// A string or null; `nonempty` is set for a non-empty string.
bool read_text(od::value& v, const Path& path, bool& nonempty, Failure& f) {
  od::json_type t;
  if (!value_type(v, t, f)) return false;
  if (t == od::json_type::null) return true;
  if (t != od::json_type::string) return type_fail(f, path, "a string or null", t);
  std::string_view s;
  if (auto e = v.get_string().get(s)) return json_fail(f, e);
  if (!s.empty()) nonempty = true;
  return true;
}

// An integer or null (which leaves `out` alone).
bool read_int(od::value& v, const Path& path, std::int64_t& out, Failure& f) {
  od::json_type t;
  if (!value_type(v, t, f)) return false;
  if (t == od::json_type::null) return true;
  if (t != od::json_type::number) return type_fail(f, path, "an integer or null", t);
  if (v.get_int64().get(out) != simdjson::SUCCESS) return type_fail(f, path, "an integer or null", t);
  return true;
}

// delta.tool_calls: an array (OpenAI), one object (TGI 2.x) or null; non-empty counts as content.
bool read_tool_calls(od::value& v, const Path& path, bool& content, Failure& f) {
  od::json_type t;
  if (!value_type(v, t, f)) return false;
  bool empty = true;
  if (t == od::json_type::array) {
    od::array a;
    if (auto e = v.get_array().get(a)) return json_fail(f, e);
    if (auto e = a.is_empty().get(empty)) return json_fail(f, e);
  } else if (t == od::json_type::object) {
    od::object o;
    if (auto e = v.get_object().get(o)) return json_fail(f, e);
    if (auto e = o.is_empty().get(empty)) return json_fail(f, e);
  } else if (t != od::json_type::null) {
    return type_fail(f, path, "an array, an object or null", t);
  }
  if (!empty) content = true;
  return true;
}

bool read_delta(od::value& v, Path path, ChunkInfo& info, Failure& f) {
  od::json_type t;
  if (!value_type(v, t, f)) return false;
  if (t == od::json_type::null) return true;
  if (t != od::json_type::object) return type_fail(f, path, "an object or null", t);
  od::object delta;
  if (auto e = v.get_object().get(delta)) return json_fail(f, e);
  for (auto field_r : delta) {
    od::field field;
    if (auto e = std::move(field_r).get(field)) return json_fail(f, e);
    if (auto e = field.unescaped_key().get(path.key)) return json_fail(f, e);
    od::value& value = field.value();
    if (path.key == "content" || path.key == "reasoning_content" || path.key == "reasoning") {
      if (!read_text(value, path, info.content, f)) return false;
    } else if (path.key == "tool_calls") {
      if (!read_tool_calls(value, path, info.content, f)) return false;
    }
  }
  return true;
}

bool read_choices(od::value& v, ChunkInfo& info, Failure& f) {
  Path path{"choices"};
  od::json_type t;
  if (!value_type(v, t, f)) return false;
  if (t == od::json_type::null) return true;
  if (t != od::json_type::array) return type_fail(f, path, "an array or null", t);
  od::array choices;
  if (auto e = v.get_array().get(choices)) return json_fail(f, e);
  path.choice = 0;
  for (auto choice_r : choices) {
    od::value choice_v;
    if (auto e = std::move(choice_r).get(choice_v)) return json_fail(f, e);
    if (!value_type(choice_v, t, f)) return false;
    if (t != od::json_type::object) return type_fail(f, path, "an object", t);
    od::object choice;
    if (auto e = choice_v.get_object().get(choice)) return json_fail(f, e);
    for (auto field_r : choice) {
      od::field field;
      if (auto e = std::move(field_r).get(field)) return json_fail(f, e);
      if (auto e = field.unescaped_key().get(path.sub)) return json_fail(f, e);
      od::value& value = field.value();
      if (path.sub == "delta") {
        if (!read_delta(value, path, info, f)) return false;
      } else if (path.sub == "text") {
        if (!read_text(value, path, info.content, f)) return false;
      } else if (path.sub == "finish_reason") {
        if (!value_type(value, t, f)) return false;
        if (t != od::json_type::null) info.finish = true;
        if (t == od::json_type::string) {
          if (auto e = value.get_string().get(info.finish_reason)) return json_fail(f, e);
        }
      }
    }
    path.sub = {};
    ++path.choice;
  }
  return true;
}

bool read_usage(od::value& v, ChunkInfo& info, Failure& f) {
  Path path{"usage"};
  od::json_type t;
  if (!value_type(v, t, f)) return false;
  if (t == od::json_type::null) return true;
  if (t != od::json_type::object) return type_fail(f, path, "an object or null", t);
  od::object usage;
  if (auto e = v.get_object().get(usage)) return json_fail(f, e);
  info.usage = true;
  for (auto field_r : usage) {
    od::field field;
    if (auto e = std::move(field_r).get(field)) return json_fail(f, e);
    if (auto e = field.unescaped_key().get(path.key)) return json_fail(f, e);
    if (path.key == "prompt_tokens") {
      if (!read_int(field.value(), path, info.prompt_tokens, f)) return false;
    } else if (path.key == "completion_tokens") {
      if (!read_int(field.value(), path, info.completion_tokens, f)) return false;
    }
  }
  return true;
}

// "error": an object with a "message" string, a string (TGI), or null (no error).
bool read_error(od::value& v, ChunkInfo& info, Failure& f) {
  od::json_type t;
  if (!value_type(v, t, f)) return false;
  if (t == od::json_type::null) return true;
  info.error = true;
  if (t == od::json_type::string) {
    if (auto e = v.get_string().get(info.error_message)) return json_fail(f, e);
  } else if (t == od::json_type::object) {
    od::object error;
    if (auto e = v.get_object().get(error)) return json_fail(f, e);
    for (auto field_r : error) {
      od::field field;
      if (auto e = std::move(field_r).get(field)) return json_fail(f, e);
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return json_fail(f, e);
      if (key != "message") continue;
      if (!value_type(field.value(), t, f)) return false;
      if (t == od::json_type::string) {
        if (auto e = field.value().get_string().get(info.error_message)) return json_fail(f, e);
      }
    }
  }
  return true;
}

// Reads the top-level object. `object_is_error` and `top_message` carry vLLM's {"object":"error",...} body,
// whose fields may come in any order.
bool read_chunk(od::document& doc, ChunkInfo& info, Failure& f, bool& object_is_error,
                std::string_view& top_message) {
  od::object chunk;
  if (auto e = doc.get_object().get(chunk)) return json_fail(f, e);
  for (auto field_r : chunk) {
    od::field field;
    if (auto e = std::move(field_r).get(field)) return json_fail(f, e);
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return json_fail(f, e);
    od::value& value = field.value();
    if (key == "choices") {
      if (!read_choices(value, info, f)) return false;
    } else if (key == "usage") {
      if (!read_usage(value, info, f)) return false;
    } else if (key == "perfhound_emit_ts") {
      if (!read_int(value, Path{"perfhound_emit_ts"}, info.emit_ts_ns, f)) return false;
    } else if (key == "error") {
      if (!read_error(value, info, f)) return false;
    } else if (key == "object" || key == "message") {
      od::json_type t;
      if (!value_type(value, t, f)) return false;
      if (t != od::json_type::string) continue;
      std::string_view s;
      if (auto e = value.get_string().get(s)) return json_fail(f, e);
      if (key == "object") {
        object_is_error = s == "error";
      } else {
        top_message = s;
      }
    }
  }
  // The root check only matches the first and last brackets, so "{...}{...}" (two chunks with no blank line
  // between them) would pass as the first alone; past the end current_location() is OUT_OF_BOUNDS.
  if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) return json_fail(f, simdjson::TRAILING_CONTENT);
  return true;
}

// Reads a root value that is not an object, so "not JSON" (e.g. `nonsense`, which type() takes for null from
// its first byte) is told apart from valid JSON of the wrong shape.
error_code check_root_value(od::document& doc, od::json_type t) {
  switch (t) {
    case od::json_type::null: {
      bool is_null = false;
      if (auto e = doc.is_null().get(is_null)) return e;
      return is_null ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
    }
    case od::json_type::boolean: return doc.get_bool().error();
    case od::json_type::number: return doc.get_double().error();
    case od::json_type::string: return doc.get_string().error();
    case od::json_type::array: return doc.get_array().error();
    case od::json_type::object: break;
  }
  return simdjson::SUCCESS;
}

}  // namespace

struct ChunkDecoder::State {
  od::parser parser;
  std::unique_ptr<char[]> buf;  // data, then SIMDJSON_PADDING bytes
  std::size_t capacity = 0;     // data bytes buf can hold
  std::string reason;           // malformed_reason's storage

  std::string_view copy_padded(std::string_view data) {
    if (data.size() > capacity) {
      capacity = std::max({data.size(), 2 * capacity, std::size_t{4096}});
      buf = std::make_unique<char[]>(capacity + simdjson::SIMDJSON_PADDING);  // zeroed, padding included
    }
    if (!data.empty()) std::memcpy(buf.get(), data.data(), data.size());
    return {buf.get(), data.size()};
  }
};

ChunkDecoder::ChunkDecoder() : state_(std::make_unique<State>()) {}
ChunkDecoder::~ChunkDecoder() = default;
ChunkDecoder::ChunkDecoder(ChunkDecoder&&) noexcept = default;
ChunkDecoder& ChunkDecoder::operator=(ChunkDecoder&&) noexcept = default;

ChunkInfo ChunkDecoder::decode(std::string_view event_type, std::string_view data) {
  ChunkInfo info;
  if (data == "[DONE]") {
    info.done = true;
    return info;
  }
  State& s = *state_;
  const std::string_view raw = s.copy_padded(data);
  Failure f;
  bool object_is_error = false;
  std::string_view top_message;
  bool ok = false;
  od::document doc;
  if (auto e = s.parser.iterate(raw.data(), raw.size(), s.capacity + simdjson::SIMDJSON_PADDING).get(doc)) {
    f.json = e;
  } else {
    od::json_type t;
    if (auto e = doc.type().get(t)) {
      f.json = e;
    } else if (t != od::json_type::object) {
      if (auto e = check_root_value(doc, t)) {
        f.json = e;
      } else {
        f.got = t;
      }
    } else {
      ok = read_chunk(doc, info, f, object_is_error, top_message);
    }
  }
  const bool error_event = event_type == "error";
  if (!ok && error_event) {
    // An error event need not carry JSON; its data is then the message.
    info = ChunkInfo{};
    info.error = true;
    info.error_message = raw.empty() ? kNoErrorMessage : raw;
    return info;
  }
  if (!ok) {
    info = ChunkInfo{};
    info.malformed = true;
    const std::string_view quoted = raw.substr(0, kQuoteBytes);
    const std::string_view more = raw.size() > kQuoteBytes ? "..." : "";
    s.reason.clear();
    auto out = std::back_inserter(s.reason);
    if (f.json != simdjson::SUCCESS) {
      fmt::format_to(out, "not JSON ({}): {:?}{}", simdjson::error_message(f.json), quoted, more);
    } else if (f.path.top.empty()) {
      fmt::format_to(out, "not a JSON object but {}: {:?}{}", type_name(f.got), quoted, more);
    } else {
      fmt::format_to(out, "'{}", f.path.top);
      if (f.path.choice != kNoChoice) fmt::format_to(out, "[{}]", f.path.choice);
      if (!f.path.sub.empty()) fmt::format_to(out, ".{}", f.path.sub);
      if (!f.path.key.empty()) fmt::format_to(out, ".{}", f.path.key);
      fmt::format_to(out, "' is {}, expected {}: {:?}{}", type_name(f.got), f.expected, quoted, more);
    }
    info.malformed_reason = s.reason;
    return info;
  }
  if (object_is_error) {
    info.error = true;
    if (info.error_message.empty()) info.error_message = top_message;
  }
  if (error_event) info.error = true;
  if (info.error && info.error_message.empty()) info.error_message = raw.empty() ? kNoErrorMessage : raw;
  return info;
}

}  // namespace perfhound::load
