// ChunkDecoder: what one SSE event of an OpenAI-compatible streaming response means to the load generator.
//
// Covers /v1/completions and /v1/chat/completions streams as OpenAI, vLLM, SGLang, TGI, llama.cpp and
// `perfhound serve` send them (OpenAI API reference, "The chat completion chunk object" and "The completion
// object"). Only the fields below are read; every other field is skipped, whatever its type.
//
//   done     the data is exactly "[DONE]" (nothing else is set).
//   content  some choice carries generated output: a non-empty string in delta.content (chat), text
//            (completions), delta.reasoning_content or delta.reasoning (reasoning models: vLLM, SGLang,
//            DeepSeek), or a non-empty delta.tool_calls (an array; TGI 2.x sends one object). Role-only
//            chunks ({"role":"assistant","content":""}), empty or null content, finish-only chunks and the
//            usage chunk ("choices": []) are not content.
//   finish   some choice has a non-null finish_reason.
//   usage    a non-null "usage" object; prompt_tokens / completion_tokens are its integers, -1 when absent
//            or null. "usage": null (every chunk but the last under include_usage) leaves usage false.
//   emit_ts_ns   the integer "perfhound_emit_ts" field of `perfhound serve`, -1 when absent.
//   error    the SSE event type is "error", or the body is {"error": {"message": ...}} (OpenAI, vLLM,
//            SGLang), {"error": "text"} (TGI) or {"object": "error", "message": ...} (vLLM's error body).
//            error_message is the message, or the raw data when there is none (an "error" event whose data
//            is not JSON is an error, not malformed), or "an error event with no message" when that is empty.
//   malformed    the data is not JSON, not a JSON object, or a field above has the wrong type
//            (e.g. "choices" not an array, delta.content a number). malformed_reason says which, quoting
//            the start of the data.
//
// Values that are skipped are not validated (simdjson On-Demand only checks what it visits), so "malformed"
// means "we could not read what we need", not "invalid JSON somewhere".
//
// The views in ChunkInfo stay valid until the next decode() on the same decoder. decode() copies the data
// into a padded buffer the decoder owns and reuses, as simdjson On-Demand needs SIMDJSON_PADDING readable
// bytes past the end; neither that buffer nor the parser allocate once they have grown to the largest chunk.
// simdjson stays out of this header (the state is behind a pointer, allocated once by the constructor).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace perfhound::load {

struct ChunkInfo {
  bool done = false;
  bool content = false;
  bool finish = false;
  std::string_view finish_reason;  // its value when a string ("stop", "length"); valid until the next decode
  bool usage = false;
  std::int64_t prompt_tokens = -1;
  std::int64_t completion_tokens = -1;
  std::int64_t emit_ts_ns = -1;
  bool error = false;
  std::string_view error_message;
  bool malformed = false;
  std::string_view malformed_reason;
};

// One per connection (or per thread): not thread-safe. Movable; a moved-from decoder may only be destroyed
// or assigned to.
class ChunkDecoder {
 public:
  ChunkDecoder();
  ~ChunkDecoder();
  ChunkDecoder(ChunkDecoder&&) noexcept;
  ChunkDecoder& operator=(ChunkDecoder&&) noexcept;

  // event_type is SseEvent::type ("message" for plain data events), data is SseEvent::data.
  ChunkInfo decode(std::string_view event_type, std::string_view data);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace perfhound::load
