// libFuzzer target: the load client's handling of one HTTP response from raw bytes. Beast's response parser with
// the limits the runner sets, fed the input in pieces (the first byte picks their size, as socket reads would
// split it), then each piece of body through ResponseBody as load_runner.cpp feeds it. Besides the sanitizers,
// it checks what a record promises: chunk times in order, the first token at the first chunk, a failed record
// names its cause.
#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "load/openai_stream.h"
#include "load/response_body.h"

namespace http = boost::beast::http;
using namespace perfhound::load;

namespace {

void check(const RequestRecord& r) {
  for (std::size_t i = 1; i < r.chunk_ns.size(); ++i) {
    if (r.chunk_ns[i] < r.chunk_ns[i - 1]) std::abort();
  }
  if (!r.chunk_ns.empty() && r.first_token_ns != r.chunk_ns.front()) std::abort();
  if (r.error != ErrorKind::kNone && r.error_message.empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t piece = 1 + data[0] % 97;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  const std::size_t n = size - 1;

  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);
  parser.header_limit(kResponseHeaderLimit);
  parser.eager(true);
  RequestRecord record;
  ChunkDecoder decoder;
  std::optional<ResponseBody> body;
  std::array<char, 512> buffer{};
  std::int64_t t = 0;
  std::size_t pos = 0, offered = piece;
  boost::beast::error_code ec;
  bool failed = false;
  while (!parser.is_done() && !failed) {
    if (parser.is_header_done()) {
      if (!body) {
        record.http_status = parser.get().result_int();
        body.emplace(record, decoder, 4096);
      }
      parser.get().body().data = buffer.data();
      parser.get().body().size = buffer.size();
    }
    const std::size_t left = n - pos;
    if (left == 0) {
      // The connection closed: a body without a length ends here. Beast's async_read calls put_eof only
      // after some bytes (its precondition), and so does this.
      if (parser.got_some()) parser.put_eof(ec);
      break;
    }
    const std::size_t available = std::min(offered, left);
    pos += parser.put(boost::asio::buffer(bytes + pos, available), ec);
    if (body) {
      const std::size_t got = buffer.size() - parser.get().body().size;
      if (got > 0 && !body->feed(std::string_view(buffer.data(), got), ++t)) failed = true;
    }
    if (ec == http::error::need_more) {
      if (available == left) {  // the input ended inside a header or a chunk line
        if (parser.got_some()) parser.put_eof(ec);
        break;
      }
      offered += piece;  // a line split across reads: offer more of it, as the runner's buffer grows
      ec = {};
      continue;
    }
    if (ec == http::error::need_buffer) ec = {};
    if (ec) break;
    offered = piece;
  }
  if (body && parser.is_done() && !failed) body->finish();
  check(record);
  return 0;
}
