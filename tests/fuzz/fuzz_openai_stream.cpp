// libFuzzer target: the client's decoding of a streamed chunk (OpenAI chat and completions JSON, error
// events, [DONE]). The first byte picks the event type.
#include <cstdint>
#include <string_view>

#include "load/openai_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static perfhound::load::ChunkDecoder decoder;  // reused, as a connection reuses it
  const std::string_view type = data[0] % 2 == 0 ? "message" : "error";
  decoder.decode(type, std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  return 0;
}
