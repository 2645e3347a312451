// The OpenAI-compatible wire format of `perfhound serve`, as pure functions: request bodies in, parsed
// requests or OpenAI-style errors out; chunks and responses formatted into caller-owned buffers (so the
// server allocates nothing per token). Shapes follow the OpenAI API reference for /v1/completions and
// /v1/chat/completions (streaming and not), including stream_options.include_usage.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "core/result.h"

namespace perfhound::serve {

enum class Endpoint { kCompletions, kChatCompletions };

inline constexpr std::int64_t kDefaultCompletionsMaxTokens = 16;  // OpenAI's documented default
inline constexpr std::int64_t kDefaultChatMaxTokens = 256;        // chat has no fixed default upstream
inline constexpr std::int64_t kChatTokensPerMessage = 4;           // see parse_request
inline constexpr std::size_t kMaxBodyBytes = 8u << 20;             // bodies above this are refused (413)
inline constexpr std::uint32_t kMaxHeaderBytes = 16u << 10;        // request line + headers above this: 431

struct ParsedRequest {
  Endpoint endpoint = Endpoint::kCompletions;
  std::string model;
  std::int64_t prompt_tokens = 0;     // counted (approximate_tokens) or the length of an explicit token-id list
  std::int64_t max_tokens = kDefaultCompletionsMaxTokens;  // chat defaults to kDefaultChatMaxTokens
  bool stream = false;
  bool include_usage = false;         // stream_options.include_usage
  bool ignore_eos = false;            // vLLM's extension; the simulator always generates max_tokens
  bool emit_timestamps = false;       // perfhound extension: "perfhound_emit_ts" field in each chunk
};

// An error the server answers with HTTP `status` and the OpenAI error body (error_body below).
struct ApiError {
  int status = 400;
  std::string message;
  std::string param;  // the offending field ("max_tokens", "messages[1].content"), or empty (body-level)
};

// Parses a request body; never throws. "model" is required (as OpenAI requires it). Unknown fields
// (temperature, top_p, ...) are accepted and ignored, as vLLM does. null counts as absent for optional fields.
//
// Prompt length, in order of precedence:
//   "prompt_token_ids": [int, ...]        (vLLM style, either endpoint) -> its length
//   completions "prompt": "text"          -> approximate_tokens(text)
//                         ["a", "b"]      -> the sum over the strings (a batch is simulated as one request)
//                         [1, 2, 3]       -> 3 (token ids, each an integer >= 0)
//                         [[1, 2], [3]]   -> the sum of the lengths
//   chat "messages": [{role, content}]    -> sum of approximate_tokens(content) + kChatTokensPerMessage per
//        message; content is a string, null (0 tokens) or an array of {"type":"text","text":...} parts.
// max_tokens (or, for chat, max_completion_tokens, which wins when both are given) is an integer >= 1;
// n must be 1 if present; stream, ignore_eos, perfhound_emit_ts and stream_options.include_usage are bools;
// stream_options is only allowed with stream: true (as OpenAI and vLLM require).
//
// Errors name the field in `param`, status 400: invalid JSON (with the byte offset), a body that is not an
// object, missing or empty model, missing prompt / messages, max_tokens < 1, n != 1, wrong types, non-text
// content parts. A body over kMaxBodyBytes is a 413.
struct ParseResult {
  bool ok = false;
  ParsedRequest request;
  ApiError error;
};
[[nodiscard]] ParseResult parse_request(std::string_view body, Endpoint endpoint);

// Token-count approximation for prompt text (a documented stand-in for a BPE tokenizer):
//   - a word is a maximal run of ASCII letters and digits and non-ASCII bytes (UTF-8 text stays in words);
//     it counts 1 + ceil((bytes - 8) / 4) tokens when longer than 8 bytes, else 1 (long words split into
//     several BPE tokens);
//   - every other non-whitespace byte (punctuation, symbols) counts 1;
//   - ASCII whitespace counts 0. The empty string is 0 tokens.
// "Hello, world!" -> 4 (tiktoken cl100k also gives 4).
std::int64_t approximate_tokens(std::string_view text);

// {"error": {"message": ..., "type": ..., "param": ... or null, "code": ...}}. type is
// "invalid_request_error" with code null for 4xx; 429 is type "requests", code "rate_limit_exceeded"; 5xx is
// type "server_error", code null (the shapes OpenAI returns for those statuses).
std::string error_body(const ApiError& error);

// Identity shared by every chunk of one response.
struct ResponseIdentity {
  std::string id;      // "cmpl-<n>" or "chatcmpl-<n>"
  std::int64_t created = 0;  // Unix seconds
  std::string model;
  Endpoint endpoint = Endpoint::kCompletions;
  // The request asked for stream_options.include_usage: every chunk but the usage chunk then carries
  // "usage": null, as the OpenAI reference specifies.
  bool include_usage = false;
};

// The streaming functions append whole SSE events "data: {...}\n\n" to `out` and allocate nothing beyond
// the buffer growing. Strings (id, model, token text) are JSON-escaped.
//
// One token chunk: chat {"choices":[{"index":0,"delta":{"content":text},"logprobs":null,"finish_reason":null}]},
// completions {"choices":[{"text":text,"index":0,"logprobs":null,"finish_reason":null}]}, object
// "chat.completion.chunk" / "text_completion". For chat, `first` prepends the role event whose delta is
// {"role":"assistant","content":""} (OpenAI's first chunk); for completions it changes nothing.
// `emit_ts_ns` >= 0 adds "perfhound_emit_ts": the server clock at formatting time, integer nanoseconds, to
// each event written by the call; pass -1 when the request did not ask for it.
void append_token_chunk(fmt::memory_buffer& out, const ResponseIdentity& id, std::string_view token_text,
                        bool first, std::int64_t emit_ts_ns);
// The chunk with finish_reason ("length" or "stop") and no text (chat delta {}, completions text "").
void append_finish_chunk(fmt::memory_buffer& out, const ResponseIdentity& id, std::string_view finish_reason);
// The usage chunk for stream_options.include_usage: "choices": [] and
// "usage": {"prompt_tokens", "completion_tokens", "total_tokens"}. Sent after the finish chunk, before [DONE].
void append_usage_chunk(fmt::memory_buffer& out, const ResponseIdentity& id, std::int64_t prompt_tokens,
                        std::int64_t completion_tokens);
void append_done(fmt::memory_buffer& out);  // "data: [DONE]\n\n"

// The non-streaming response body with the whole text and usage: object "chat.completion" with
// choices[0].message {"role":"assistant","content":text}, or "text_completion" with choices[0].text.
std::string full_response(const ResponseIdentity& id, std::string_view text, std::int64_t prompt_tokens,
                          std::int64_t completion_tokens, std::string_view finish_reason);

// GET /v1/models body listing one model:
// {"object":"list","data":[{"id":model,"object":"model","created":created,"owned_by":"perfhound"}]}.
std::string models_body(std::string_view model, std::int64_t created);

}  // namespace perfhound::serve
