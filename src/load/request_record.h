// RequestRecord: everything the load generator observed about one request (DESIGN.md data flow: the model
// between the HTTP/SSE client and the latency analyses). Times are int64 nanoseconds on the client's steady
// clock, relative to the run's start (t = 0 when the schedule starts); -1 means "did not happen".
//
// Which time a latency starts from (docs/metrics.md): open loop from intended_ns (no coordinated omission),
// closed loop from sent_ns (there intended_ns == sent_ns by construction).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfhound::load {

// Why a request did not complete. Stable kebab-case names (error_kind_name) appear in records and results.
enum class ErrorKind {
  kNone,           // completed: the stream ended with [DONE] (or a complete non-streamed body)
  kConnect,        // connection refused or unreachable
  kDns,            // the host name did not resolve
  kTls,            // TLS handshake or certificate failure
  kTimeout,        // --timeout passed before the response ended
  kHttpStatus,     // the server answered a non-2xx status (http_status says which)
  kReset,          // the connection closed or reset before the stream ended
  kMalformed,      // a chunk that is not the JSON an OpenAI stream sends
  kOverlong,       // an SSE line or event larger than the client's limit
  kStreamError,    // the stream carried an error event ({"error": ...})
  kCancelled,      // the run was interrupted (Ctrl-C, --duration) while the request was in flight
  kClient,         // the client could not send it (e.g. out of file descriptors)
};
inline constexpr int kErrorKindCount = 12;

std::string_view error_kind_name(ErrorKind kind);
// The inverse of error_kind_name; false when `name` is none of them.
bool parse_error_kind(std::string_view name, ErrorKind& kind);

struct RequestRecord {
  std::uint64_t index = 0;          // position in the schedule, from 0
  bool warmup = false;              // discarded from the aggregates (and reported as discarded)
  std::int64_t intended_ns = -1;    // when the schedule meant to send it
  std::int64_t sent_ns = -1;        // when the client started writing it
  std::int64_t first_byte_ns = -1;  // first byte of the response (status line)
  std::int64_t first_token_ns = -1; // first content-carrying chunk
  std::int64_t end_ns = -1;         // [DONE], end of stream, or the error
  std::vector<std::int64_t> chunk_ns;  // arrival of every content-carrying chunk, ascending
  int http_status = 0;              // 0 when no status line arrived
  ErrorKind error = ErrorKind::kNone;
  std::string error_message;        // empty when error == kNone
  std::int64_t input_tokens = 0;    // what the workload asked for (its prompt length)
  std::int64_t max_tokens = 0;      // what the request asked for
  std::int64_t usage_prompt_tokens = -1;      // the server's usage block, -1 when it sent none
  std::int64_t usage_completion_tokens = -1;
  std::int64_t bytes_received = 0;  // response body bytes (after chunked decoding)
  // Chunks with a non-null finish_reason (an OpenAI stream has one), and the last one's value. In memory only:
  // perfhound audit's live checks read them; the records file does not carry them.
  int finish_events = 0;
  std::string finish_reason;

  bool ok() const { return error == ErrorKind::kNone; }
  std::int64_t content_chunks() const { return static_cast<std::int64_t>(chunk_ns.size()); }
  // Output tokens per docs/metrics.md: the server's usage when it reported it, else counted content chunks.
  std::int64_t output_tokens() const { return usage_completion_tokens >= 0 ? usage_completion_tokens : content_chunks(); }
  bool output_tokens_from_usage() const { return usage_completion_tokens >= 0; }
};

}  // namespace perfhound::load
