// libFuzzer target: the simulator's request parser (a POST body to /v1/chat/completions or /v1/completions).
#include <cstdint>
#include <string_view>

#include "serve/openai_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto endpoint = data[0] % 2 == 0 ? perfhound::serve::Endpoint::kChatCompletions : perfhound::serve::Endpoint::kCompletions;
  const auto r = perfhound::serve::parse_request(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), endpoint);
  static_cast<void>(r);
  return 0;
}
