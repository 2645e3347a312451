// Field names and shapes: OpenAI API reference, "Create chat completion", "The chat completion chunk object",
// "Create completion" (https://platform.openai.com/docs/api-reference/chat/streaming,
// https://platform.openai.com/docs/api-reference/completions/object); stream_options.include_usage: "an
// additional chunk will be streamed before the data: [DONE] message. The usage field on this chunk shows the
// token usage statistics for the entire request, and the choices field will always be an empty array. All
// other chunks will also include a usage field, but with a null value." vLLM extensions (ignore_eos,
// prompt_token_ids): https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
#include "core/json_error.h"
#include "serve/openai_protocol.h"
#include "core/json_type_name.h"

#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

namespace perfhound::serve {
namespace {

using nlohmann::json;

// ---- JSON string escaping (RFC 8259 section 7): quote, backslash and U+0000..U+001F must be escaped; the
// rest, UTF-8 included, goes through as is. Runs of plain bytes are appended in one piece.
void append_escaped(fmt::memory_buffer& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const char* run = s.data();
  const char* const end = s.data() + s.size();
  for (const char* p = run; p != end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(run, p);
    run = p + 1;
    switch (c) {
      case '"': out.append(std::string_view("\\\"")); break;
      case '\\': out.append(std::string_view("\\\\")); break;
      case '\n': out.append(std::string_view("\\n")); break;
      case '\r': out.append(std::string_view("\\r")); break;
      case '\t': out.append(std::string_view("\\t")); break;
      case '\b': out.append(std::string_view("\\b")); break;
      case '\f': out.append(std::string_view("\\f")); break;
      default: {
        const char u[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out.append(u, u + 6);
      }
    }
  }
  out.append(run, end);
}

void append_quoted(fmt::memory_buffer& out, std::string_view s) {
  out.push_back('"');
  append_escaped(out, s);
  out.push_back('"');
}

bool is_chat(const ResponseIdentity& id) { return id.endpoint == Endpoint::kChatCompletions; }

// `data: {"id":...,"object":...,"created":...,"model":...,` -- everything up to "choices".
void append_chunk_head(fmt::memory_buffer& out, const ResponseIdentity& id) {
  out.append(std::string_view("data: {\"id\":"));
  append_quoted(out, id.id);
  out.append(is_chat(id) ? std::string_view(",\"object\":\"chat.completion.chunk\",\"created\":")
                         : std::string_view(",\"object\":\"text_completion\",\"created\":"));
  fmt::format_to(std::back_inserter(out), "{}", id.created);
  out.append(std::string_view(",\"model\":"));
  append_quoted(out, id.model);
  out.push_back(',');
}

// Closes a chunk whose choices array has just been written: optional usage null and emit timestamp.
void append_chunk_tail(fmt::memory_buffer& out, const ResponseIdentity& id, std::int64_t emit_ts_ns) {
  if (id.include_usage) out.append(std::string_view(",\"usage\":null"));
  if (emit_ts_ns >= 0) fmt::format_to(std::back_inserter(out), ",\"perfhound_emit_ts\":{}", emit_ts_ns);
  out.append(std::string_view("}\n\n"));
}

void append_usage_object(fmt::memory_buffer& out, std::int64_t prompt_tokens, std::int64_t completion_tokens) {
  fmt::format_to(std::back_inserter(out),
                 "\"usage\":{{\"prompt_tokens\":{},\"completion_tokens\":{},\"total_tokens\":{}}}", prompt_tokens,
                 completion_tokens, prompt_tokens + completion_tokens);
}

// ---- Request parsing.

struct FieldError {
  std::string message;
  std::string param;
};

ParseResult fail(int status, std::string param, std::string message) {
  ParseResult r;
  r.ok = false;
  r.error.status = status;
  r.error.param = std::move(param);
  r.error.message = std::move(message);
  return r;
}

// The offending value as the client wrote it, shortened so one bad field cannot flood a log line.
std::string quote_value(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}


std::string wrong_type(std::string_view param, std::string_view expected, const json& v) {
  return fmt::format("'{}' must be {}, got {} ({})", param, expected, core::json_type_name(v), quote_value(v));
}

// The field if present and not null, else nullptr.
const json* find_field(const json& obj, const char* name) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

bool read_bool(const json& obj, const char* name, bool& out, FieldError& err) {
  const json* v = find_field(obj, name);
  if (v == nullptr) return true;
  if (!v->is_boolean()) {
    err = {wrong_type(name, "true or false", *v), name};
    return false;
  }
  out = v->get<bool>();
  return true;
}

bool is_integer(const json& v) { return v.is_number_integer() || v.is_number_unsigned(); }

// Integer >= 1 (max_tokens, max_completion_tokens).
bool read_positive_int(const json& obj, const char* name, std::int64_t& out, bool& present, FieldError& err) {
  present = false;
  const json* v = find_field(obj, name);
  if (v == nullptr) return true;
  if (!is_integer(*v)) {
    err = {wrong_type(name, "an integer >= 1", *v), name};
    return false;
  }
  if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
    err = {fmt::format("'{}' is too large: {}", name, quote_value(*v)), name};
    return false;
  }
  const auto n = v->get<std::int64_t>();
  if (n < 1) {
    err = {fmt::format("'{}' must be an integer >= 1, got {}", name, n), name};
    return false;
  }
  out = n;
  present = true;
  return true;
}

// A list of token ids: every element an integer >= 0. Returns its length through `count`.
bool count_token_ids(const json& arr, const std::string& param, std::int64_t& count, FieldError& err) {
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const json& t = arr[i];
    if (!is_integer(t) || (t.is_number_integer() && t.get<std::int64_t>() < 0)) {
      err = {fmt::format("'{}[{}]' must be a token id (an integer >= 0), got {}", param, i, quote_value(t)),
             fmt::format("{}[{}]", param, i)};
      return false;
    }
  }
  count += static_cast<std::int64_t>(arr.size());
  return true;
}

constexpr const char* kPromptForms =
    "a string, an array of strings, an array of token ids or an array of token-id arrays";

bool count_prompt(const json& prompt, std::int64_t& tokens, FieldError& err) {
  if (prompt.is_string()) {
    tokens = approximate_tokens(prompt.get_ref<const std::string&>());
    return true;
  }
  if (!prompt.is_array()) {
    err = {wrong_type("prompt", kPromptForms, prompt), "prompt"};
    return false;
  }
  if (prompt.empty()) {
    err = {"'prompt' must not be an empty array (send \"prompt\": \"...\" or a list of token ids)", "prompt"};
    return false;
  }
  tokens = 0;
  const json& head = prompt.front();
  if (head.is_string()) {
    for (std::size_t i = 0; i < prompt.size(); ++i) {
      if (!prompt[i].is_string()) {
        err = {fmt::format("'prompt[{}]' must be a string like the first element, got {} ({})", i,
                           core::json_type_name(prompt[i]), quote_value(prompt[i])),
               fmt::format("prompt[{}]", i)};
        return false;
      }
      tokens += approximate_tokens(prompt[i].get_ref<const std::string&>());
    }
    return true;
  }
  if (head.is_array()) {
    for (std::size_t i = 0; i < prompt.size(); ++i) {
      const std::string param = fmt::format("prompt[{}]", i);
      if (!prompt[i].is_array()) {
        err = {wrong_type(param, "an array of token ids like the first element", prompt[i]), param};
        return false;
      }
      if (!count_token_ids(prompt[i], param, tokens, err)) return false;
    }
    return true;
  }
  if (is_integer(head)) return count_token_ids(prompt, "prompt", tokens, err);
  err = {fmt::format("'prompt[0]' must be a string, a token id or an array of token ids ('prompt' is {}), got {} "
                     "({})",
                     kPromptForms, core::json_type_name(head), quote_value(head)),
         "prompt[0]"};
  return false;
}

bool count_messages(const json& messages, std::int64_t& tokens, FieldError& err) {
  if (!messages.is_array()) {
    err = {wrong_type("messages", "an array of {\"role\": ..., \"content\": ...} objects", messages), "messages"};
    return false;
  }
  if (messages.empty()) {
    err = {"'messages' must not be empty (send at least one {\"role\": \"user\", \"content\": \"...\"})",
           "messages"};
    return false;
  }
  tokens = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string param = fmt::format("messages[{}]", i);
    if (!m.is_object()) {
      err = {wrong_type(param, "an object {\"role\": ..., \"content\": ...}", m), param};
      return false;
    }
    const json* role = find_field(m, "role");
    if (role == nullptr) {
      err = {fmt::format("'{}.role' is required (e.g. \"role\": \"user\")", param), param + ".role"};
      return false;
    }
    if (!role->is_string()) {
      err = {wrong_type(param + ".role", "a string", *role), param + ".role"};
      return false;
    }
    // The OpenAI cookbook's per-message overhead ("How to count tokens with tiktoken",
    // num_tokens_from_messages: tokens_per_message = 4, "every message follows
    // <|start|>{role/name}\n{content}<|end|>\n"), which also covers the role.
    tokens += kChatTokensPerMessage;
    const json* content = find_field(m, "content");
    if (content == nullptr) continue;  // assistant messages with tool_calls carry content null
    const std::string content_param = param + ".content";
    if (content->is_string()) {
      tokens += approximate_tokens(content->get_ref<const std::string&>());
      continue;
    }
    if (!content->is_array()) {
      err = {wrong_type(content_param, "a string or an array of {\"type\": \"text\", \"text\": ...} parts", *content),
             content_param};
      return false;
    }
    for (std::size_t j = 0; j < content->size(); ++j) {
      const json& part = (*content)[j];
      const std::string part_param = fmt::format("{}[{}]", content_param, j);
      if (!part.is_object()) {
        err = {wrong_type(part_param, "an object {\"type\": \"text\", \"text\": ...}", part), part_param};
        return false;
      }
      const json* type = find_field(part, "type");
      if (type == nullptr || !type->is_string()) {
        err = {fmt::format("'{}.type' must be a string such as \"text\"", part_param), part_param + ".type"};
        return false;
      }
      if (type->get_ref<const std::string&>() != "text") {
        err = {fmt::format("'{}.type' {} is not supported: the simulator counts text parts only (use "
                           "{{\"type\": \"text\", \"text\": ...}})",
                           part_param, quote_value(*type)),
               part_param + ".type"};
        return false;
      }
      const json* text = find_field(part, "text");
      if (text == nullptr || !text->is_string()) {
        err = {fmt::format("'{}.text' must be a string", part_param), part_param + ".text"};
        return false;
      }
      tokens += approximate_tokens(text->get_ref<const std::string&>());
    }
  }
  return true;
}

bool is_word_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view error_type(int status) {
  if (status == 429) return "requests";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

}  // namespace

std::int64_t approximate_tokens(std::string_view text) {
  std::int64_t tokens = 0;
  std::size_t word_bytes = 0;
  auto end_word = [&] {
    if (word_bytes == 0) return;
    // Long words split into several BPE tokens: one more per started 4 bytes beyond the first 8.
    tokens += 1 + (word_bytes > 8 ? static_cast<std::int64_t>((word_bytes - 8 + 3) / 4) : 0);
    word_bytes = 0;
  };
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_word_byte(c)) {
      ++word_bytes;
      continue;
    }
    end_word();
    if (!is_space(c)) ++tokens;  // punctuation and symbols: one token each
  }
  end_word();
  return tokens;
}

ParseResult parse_request(std::string_view body, Endpoint endpoint) {
  if (body.size() > kMaxBodyBytes) {
    return fail(413, "",
                fmt::format("request body is {} bytes, above the limit of {} bytes", body.size(), kMaxBodyBytes));
  }
  json doc;
  try {
    doc = json::parse(body.begin(), body.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number too large (core/json_error.h)
    const auto byte = core::json_error_byte(e);
    return fail(400, "", fmt::format("request body is not valid JSON{}: {}",
                                     byte ? fmt::format(" (byte {})", *byte) : "", core::json_error_text(e)));
  }
  if (!doc.is_object()) {
    return fail(400, "", fmt::format("request body must be a JSON object, got {}", core::json_type_name(doc)));
  }

  ParseResult r;
  ParsedRequest& req = r.request;
  req.endpoint = endpoint;
  const bool chat = endpoint == Endpoint::kChatCompletions;
  FieldError err;

  const json* model = find_field(doc, "model");
  if (model == nullptr) {
    return fail(400, "model", "'model' is required (e.g. \"model\": \"perfhound-sim\"; GET /v1/models lists it)");
  }
  if (!model->is_string()) return fail(400, "model", wrong_type("model", "a string", *model));
  if (model->get_ref<const std::string&>().empty()) return fail(400, "model", "'model' must not be empty");
  req.model = model->get<std::string>();

  // Prompt length. Every form given is validated, even when prompt_token_ids decides the length.
  const json* token_ids = find_field(doc, "prompt_token_ids");
  const json* prompt = chat ? nullptr : find_field(doc, "prompt");
  const json* messages = chat ? find_field(doc, "messages") : nullptr;
  if (prompt != nullptr && !count_prompt(*prompt, req.prompt_tokens, err)) return fail(400, err.param, err.message);
  if (messages != nullptr && !count_messages(*messages, req.prompt_tokens, err)) {
    return fail(400, err.param, err.message);
  }
  if (token_ids != nullptr) {
    if (!token_ids->is_array()) {
      return fail(400, "prompt_token_ids", wrong_type("prompt_token_ids", "an array of token ids", *token_ids));
    }
    std::int64_t n = 0;
    if (!count_token_ids(*token_ids, "prompt_token_ids", n, err)) return fail(400, err.param, err.message);
    req.prompt_tokens = n;
  } else if (prompt == nullptr && messages == nullptr) {
    return chat ? fail(400, "messages",
                       "'messages' is required (e.g. \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}])")
                : fail(400, "prompt", "'prompt' is required (e.g. \"prompt\": \"Once upon a time\")");
  }

  // Output length.
  req.max_tokens = chat ? kDefaultChatMaxTokens : kDefaultCompletionsMaxTokens;
  bool present = false;
  if (!read_positive_int(doc, "max_tokens", req.max_tokens, present, err)) return fail(400, err.param, err.message);
  if (chat && !read_positive_int(doc, "max_completion_tokens", req.max_tokens, present, err)) {
    return fail(400, err.param, err.message);
  }

  if (const json* n = find_field(doc, "n"); n != nullptr) {
    if (!is_integer(*n)) return fail(400, "n", wrong_type("n", "the integer 1", *n));
    if (!(n->is_number_unsigned() ? n->get<std::uint64_t>() == 1 : n->get<std::int64_t>() == 1)) {
      return fail(400, "n",
                  fmt::format("'n' must be 1, got {}: the simulator returns one choice per request (send n "
                              "separate requests instead)",
                              quote_value(*n)));
    }
  }

  if (!read_bool(doc, "stream", req.stream, err)) return fail(400, err.param, err.message);
  if (!read_bool(doc, "ignore_eos", req.ignore_eos, err)) return fail(400, err.param, err.message);
  if (!read_bool(doc, "perfhound_emit_ts", req.emit_timestamps, err)) return fail(400, err.param, err.message);

  if (const json* opts = find_field(doc, "stream_options"); opts != nullptr) {
    if (!opts->is_object()) {
      return fail(400, "stream_options",
                  wrong_type("stream_options", "an object such as {\"include_usage\": true}", *opts));
    }
    if (!req.stream) {
      return fail(400, "stream_options", "'stream_options' is only allowed when 'stream' is true");
    }
    if (const json* iu = find_field(*opts, "include_usage"); iu != nullptr) {
      if (!iu->is_boolean()) {
        return fail(400, "stream_options.include_usage",
                    wrong_type("stream_options.include_usage", "true or false", *iu));
      }
      req.include_usage = iu->get<bool>();
    }
  }

  r.ok = true;
  return r;
}

std::string error_body(const ApiError& error) {
  // ordered_json keeps OpenAI's field order (message, type, param, code); clients do not depend on it.
  nlohmann::ordered_json body = {{"error",
                {{"message", error.message},
                 {"type", error_type(error.status)},
                 {"param", error.param.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(error.param)},
                 {"code", error.status == 429 ? nlohmann::ordered_json("rate_limit_exceeded")
                                              : nlohmann::ordered_json(nullptr)}}}};
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void append_token_chunk(fmt::memory_buffer& out, const ResponseIdentity& id, std::string_view token_text,
                        bool first, std::int64_t emit_ts_ns) {
  if (is_chat(id)) {
    if (first) {
      append_chunk_head(out, id);
      out.append(std::string_view(
          "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
          "\"finish_reason\":null}]"));
      append_chunk_tail(out, id, emit_ts_ns);
    }
    append_chunk_head(out, id);
    out.append(std::string_view("\"choices\":[{\"index\":0,\"delta\":{\"content\":"));
    append_quoted(out, token_text);
    out.append(std::string_view("},\"logprobs\":null,\"finish_reason\":null}]"));
  } else {
    append_chunk_head(out, id);
    out.append(std::string_view("\"choices\":[{\"text\":"));
    append_quoted(out, token_text);
    out.append(std::string_view(",\"index\":0,\"logprobs\":null,\"finish_reason\":null}]"));
  }
  append_chunk_tail(out, id, emit_ts_ns);
}

void append_finish_chunk(fmt::memory_buffer& out, const ResponseIdentity& id, std::string_view finish_reason) {
  append_chunk_head(out, id);
  out.append(is_chat(id)
                 ? std::string_view("\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":")
                 : std::string_view("\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,\"finish_reason\":"));
  append_quoted(out, finish_reason);
  out.append(std::string_view("}]"));
  append_chunk_tail(out, id, -1);
}

void append_usage_chunk(fmt::memory_buffer& out, const ResponseIdentity& id, std::int64_t prompt_tokens,
                        std::int64_t completion_tokens) {
  append_chunk_head(out, id);
  out.append(std::string_view("\"choices\":[],"));
  append_usage_object(out, prompt_tokens, completion_tokens);
  out.append(std::string_view("}\n\n"));
}

void append_done(fmt::memory_buffer& out) { out.append(std::string_view("data: [DONE]\n\n")); }

std::string full_response(const ResponseIdentity& id, std::string_view text, std::int64_t prompt_tokens,
                          std::int64_t completion_tokens, std::string_view finish_reason) {
  fmt::memory_buffer out;
  out.append(std::string_view("{\"id\":"));
  append_quoted(out, id.id);
  out.append(is_chat(id) ? std::string_view(",\"object\":\"chat.completion\",\"created\":")
                         : std::string_view(",\"object\":\"text_completion\",\"created\":"));
  fmt::format_to(std::back_inserter(out), "{}", id.created);
  out.append(std::string_view(",\"model\":"));
  append_quoted(out, id.model);
  if (is_chat(id)) {
    out.append(std::string_view(",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"));
    append_quoted(out, text);
    out.append(std::string_view("},\"logprobs\":null,\"finish_reason\":"));
  } else {
    out.append(std::string_view(",\"choices\":[{\"text\":"));
    append_quoted(out, text);
    out.append(std::string_view(",\"index\":0,\"logprobs\":null,\"finish_reason\":"));
  }
  append_quoted(out, finish_reason);
  out.append(std::string_view("}],"));
  append_usage_object(out, prompt_tokens, completion_tokens);
  out.push_back('}');
  return fmt::to_string(out);
}

std::string models_body(std::string_view model, std::int64_t created) {
  fmt::memory_buffer out;
  out.append(std::string_view("{\"object\":\"list\",\"data\":[{\"id\":"));
  append_quoted(out, model);
  fmt::format_to(std::back_inserter(out), ",\"object\":\"model\",\"created\":{},\"owned_by\":\"perfhound\"}}]}}",
                 created);
  return fmt::to_string(out);
}

}  // namespace perfhound::serve
