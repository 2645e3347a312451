// The per-request latencies of docs/metrics.md, computed from one RequestRecord. Pure.
//
// `start` is the time a latency counts from: the intended send time (open loop; no coordinated omission) or
// the actual send time (closed loop, and the "from actual send" column of an open-loop report).
//   ttft_s    = first_token - start
//   e2e_s     = end - start
//   tpot_s    = (e2e - ttft) / (output_tokens - 1)      NaN for fewer than 2 output tokens (undefined)
//   ntpot_s   = e2e / output_tokens                      NaN for 0 output tokens
//   mean_itl_s = (last chunk - first chunk) / (chunks - 1)   NaN for fewer than 2 content chunks
//   tokens_per_chunk = output_tokens / chunks            NaN for 0 chunks
// Every field is NaN when the request did not complete (record.ok() false) or has no first token.
#pragma once

#include "load/request_record.h"

namespace perfhound::load {

enum class LatencyStart { kIntended, kSent };

struct RequestLatencies {
  double ttft_s;
  double e2e_s;
  double tpot_s;
  double ntpot_s;
  double mean_itl_s;
  double tokens_per_chunk;
  double output_tokens;
};

RequestLatencies compute_latencies(const RequestRecord& record, LatencyStart start);

}  // namespace perfhound::load
