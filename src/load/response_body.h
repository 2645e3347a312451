// What the bytes of one HTTP response body mean for its RequestRecord; the load runner does the I/O and hands
// each read here with its receive time. A 2xx body is an SSE stream of OpenAI chunks: each content chunk is timed
// when its bytes arrived, usage and finish_reason are kept, an error event or a chunk that is not OpenAI's JSON
// fails the record. Any other status keeps the start of its body for the error message. Pure (no sockets), so
// the fuzz target drives it exactly as the runner does (tests/fuzz/fuzz_http_response.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/log_histogram.h"
#include "load/openai_stream.h"
#include "load/request_record.h"
#include "load/sse_parser.h"

namespace perfhound::load {

inline constexpr std::uint32_t kResponseHeaderLimit = 16 * 1024;  // a response's status line and headers
inline constexpr std::size_t kErrorBodyLimit = 64 * 1024;         // of a non-2xx body, kept for its message

// Sets the record's error unless it has one: the first failure is the cause.
void record_failure(RequestRecord& record, ErrorKind kind, std::string message);

// An error message from a non-2xx body: OpenAI's error.message when present (or FastAPI's detail), else the
// start of the body on one line.
std::string error_message_from_body(int status, std::string_view body);

class ResponseBody {
 public:
  // `record.http_status` is already set. `emit_delay_ns`, when given, gets receive - emit for every chunk that
  // carries perfhound serve's emit time; `clock_origin_ns` puts a receive time on the emit time's clock.
  ResponseBody(RequestRecord& record, ChunkDecoder& decoder, std::size_t max_event_bytes,
               core::LogHistogram* emit_delay_ns = nullptr, std::int64_t clock_origin_ns = 0);

  // The next body bytes, received at `t_ns` (the record's clock; never earlier than the previous call's).
  // False once the record has failed: the rest of the body is not worth reading.
  bool feed(std::string_view bytes, std::int64_t t_ns);
  // The whole body was read: a non-2xx status becomes its failure, a stream without [DONE] or a finish_reason
  // a malformed one.
  void finish();

 private:
  RequestRecord& record_;
  ChunkDecoder& decoder_;
  SseParser sse_;
  core::LogHistogram* emit_delay_ns_;
  std::int64_t clock_origin_ns_;
  bool success_;
  bool done_ = false;
  bool finish_seen_ = false;
  std::string error_body_;
};

}  // namespace perfhound::load
