// libFuzzer target: the SSE parser, and its promise that input split at any byte parses the same. The first
// input byte picks the split; the rest is the stream. Any difference between whole and split is a crash.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "load/sse_parser.h"

namespace {

std::vector<std::string> parse(const std::vector<std::string_view>& pieces, bool* overlong) {
  perfhound::load::SseParser parser(4096);
  std::vector<std::string> events;
  for (std::string_view p : pieces) {
    const auto status = parser.feed(p, [&](const perfhound::load::SseEvent& e) {
      events.push_back(std::string(e.type) + '\0' + std::string(e.data));
    });
    *overlong = status == perfhound::load::SseStatus::kOverlong;
  }
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t split = stream.empty() ? 0 : data[0] % (stream.size() + 1);
  bool whole_overlong = false, split_overlong = false;
  const auto whole = parse({stream}, &whole_overlong);
  const auto halves = parse({stream.substr(0, split), stream.substr(split)}, &split_overlong);
  // Overlong is judged per event, so a split can only matter for where it stops: compare when neither hit it.
  if (!whole_overlong && !split_overlong && whole != halves) std::abort();
  return 0;
}
