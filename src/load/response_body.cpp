#include "load/response_body.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace perfhound::load {

void record_failure(RequestRecord& record, ErrorKind kind, std::string message) {
  if (record.error != ErrorKind::kNone) return;
  record.error = kind;
  record.error_message = std::move(message);
}

std::string error_message_from_body(int status, std::string_view body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_object() && json.contains("error")) {
    const auto& e = json["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      return fmt::format("HTTP {}: {}", status, e["message"].get<std::string>());
    }
    if (e.is_string()) return fmt::format("HTTP {}: {}", status, e.get<std::string>());
  }
  if (json.is_object() && json.contains("detail") && json["detail"].is_string()) {  // FastAPI's shape
    return fmt::format("HTTP {}: {}", status, json["detail"].get<std::string>());
  }
  std::string snippet(body.substr(0, 200));
  for (char& c : snippet) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return snippet.empty() ? fmt::format("HTTP {}", status) : fmt::format("HTTP {}: {}", status, snippet);
}

ResponseBody::ResponseBody(RequestRecord& record, ChunkDecoder& decoder, std::size_t max_event_bytes,
                           core::LogHistogram* emit_delay_ns, std::int64_t clock_origin_ns)
    : record_(record),
      decoder_(decoder),
      sse_(max_event_bytes),
      emit_delay_ns_(emit_delay_ns),
      clock_origin_ns_(clock_origin_ns),
      success_(record.http_status >= 200 && record.http_status < 300) {}

bool ResponseBody::feed(std::string_view bytes, std::int64_t t_ns) {
  if (!success_) {
    if (error_body_.size() < kErrorBodyLimit) error_body_.append(bytes.substr(0, kErrorBodyLimit - error_body_.size()));
    return true;
  }
  if (record_.error != ErrorKind::kNone) return false;
  const SseStatus status = sse_.feed(bytes, [&](const SseEvent& event) {
    if (record_.error != ErrorKind::kNone || done_) return;
    const ChunkInfo info = decoder_.decode(event.type, event.data);
    if (info.malformed) {
      record_failure(record_, ErrorKind::kMalformed,
                     fmt::format("chunk {}: {}", record_.content_chunks() + 1, info.malformed_reason));
      return;
    }
    if (info.error) {
      record_failure(record_, ErrorKind::kStreamError, std::string(info.error_message));
      return;
    }
    if (info.emit_ts_ns >= 0 && emit_delay_ns_ != nullptr) emit_delay_ns_->record(clock_origin_ns_ + t_ns - info.emit_ts_ns);
    if (info.content) {
      if (record_.first_token_ns < 0) record_.first_token_ns = t_ns;
      record_.chunk_ns.push_back(t_ns);
    }
    if (info.usage) {
      record_.usage_prompt_tokens = info.prompt_tokens;
      record_.usage_completion_tokens = info.completion_tokens;
    }
    if (info.finish) {
      ++record_.finish_events;
      record_.finish_reason.assign(info.finish_reason);
    }
    finish_seen_ = finish_seen_ || info.finish;
    done_ = done_ || info.done;
  });
  if (status == SseStatus::kOverlong) {
    record_failure(record_, ErrorKind::kOverlong, fmt::format("an SSE event over {} bytes", sse_.max_event_bytes()));
  }
  return record_.error == ErrorKind::kNone;
}

void ResponseBody::finish() {
  if (!success_) {
    record_failure(record_, ErrorKind::kHttpStatus, error_message_from_body(record_.http_status, error_body_));
  } else if (!done_ && !finish_seen_) {
    record_failure(record_, ErrorKind::kMalformed, "the stream ended without [DONE] or a finish_reason");
  }
}

}  // namespace perfhound::load
