#include "load/request_latencies.h"

#include <limits>

namespace perfhound::load {

RequestLatencies compute_latencies(const RequestRecord& record, LatencyStart start) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  RequestLatencies l{kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN};
  if (!record.ok() || record.first_token_ns < 0 || record.end_ns < 0) return l;
  const std::int64_t from = start == LatencyStart::kIntended ? record.intended_ns : record.sent_ns;
  const double tokens = static_cast<double>(record.output_tokens());
  const double chunks = static_cast<double>(record.content_chunks());
  l.output_tokens = tokens;
  l.ttft_s = static_cast<double>(record.first_token_ns - from) / 1e9;
  l.e2e_s = static_cast<double>(record.end_ns - from) / 1e9;
  if (tokens >= 2) l.tpot_s = static_cast<double>(record.end_ns - record.first_token_ns) / 1e9 / (tokens - 1);
  if (tokens >= 1) l.ntpot_s = l.e2e_s / tokens;
  if (chunks >= 2) {
    l.mean_itl_s = static_cast<double>(record.chunk_ns.back() - record.chunk_ns.front()) / 1e9 / (chunks - 1);
  }
  if (chunks >= 1) l.tokens_per_chunk = tokens / chunks;
  return l;
}

}  // namespace perfhound::load
