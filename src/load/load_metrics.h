// LoadMetricsTracker: the streaming aggregation of a load run's RequestRecords into a LoadSummary. Fed one
// record at a time, in any order (completion order in practice); records are not kept. Pure: no I/O.
// Every figure is defined in docs/metrics.md, "The load metric dictionary"; the serving section there is
// binding, and this header restates the parts a caller needs.
//
// Which records count where:
//   - requests_total counts every record. A record with `warmup` set counts in warmup_discarded and in
//     nothing else (no latency, window, throughput, concurrency, error or status count).
//   - The rest are "measured": completed (record.ok()) + failed. Failures are counted per ErrorKind with
//     the first message seen for each kind; HTTP statuses are counted over measured requests (0 = no
//     status line arrived).
//   - Latency trackers take completed requests only; a completed request whose latency is undefined (no
//     first token, a one-token TPOT) counts in that tracker's undefined_count.
//
// Latencies are tracked from both starts (LatencyStart::kIntended and kSent; in a closed loop they
// coincide by construction). Besides RequestLatencies' fields, each start tracks what the peer tools
// report under the same names but define differently (they all end a request at its last content chunk,
// not at [DONE]): ttlt (time to last token = last chunk - start), ntpot_to_last_token (ttlt / output
// tokens: guidellm's TPOT), output_tokens_per_s (output tokens / e2e per request) and
// output_tokens_per_s_to_last_token (output tokens / ttlt: genai-perf's output_token_throughput_per_request).
// Start-independent: pooled ITL (every gap between consecutive content chunks of a completed request:
// vLLM's ITL), ttst (second chunk - first chunk), tpot_to_last_token ((last chunk - first token) /
// (output tokens - 1): vLLM's TPOT, genai-perf's and AIPerf's inter_token_latency, guidellm's ITL),
// decode_tokens_per_s (1 / tpot_to_last_token: AIPerf's output_token_throughput_per_user), tokens per chunk,
// output and input tokens per request, and schedule lag (sent - intended, every measured request that was
// sent, failed ones included).
//
// Window and throughput: the window runs from the earliest start of a measured request (its intended time;
// in a closed loop that is its send time) to the latest end of one, failed requests included (they occupy
// the run). requests_per_s = completed / window; output and total token rates sum the completed requests'
// tokens. Output tokens are the server's usage when reported, else counted content chunks; input tokens
// the usage's prompt_tokens when reported, else the workload's prompt length; the summary says which.
//
// Goodput: completed requests whose RequestLatencies from the intended start satisfy the predicate, per
// second of window, and as a fraction of completed. An empty predicate means no SLO (goodput undefined).
//
// Concurrency: a measured request is in flight over [sent, end). Bins of bin_ns from t = 0 (the schedule
// start) report the time-averaged number in flight; the last bin is averaged over its part up to the
// latest end. max_in_flight is exact (a sweep over every send and end, ends first on ties, as vLLM does);
// it keeps two int64 per measured request, the one structure that grows with the run.
//
// Edge cases: no measured requests -> window 0 s, every rate and ratio NaN except goodput_ratio (0 of 0 = 0,
// with completed beside it), empty bins, max_in_flight 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "load/request_latencies.h"
#include "load/request_record.h"
#include "load/sample_tracker.h"

namespace perfhound::load {

// SLO predicate for goodput; receives the latencies from the intended start.
using GoodputPredicate = std::function<bool(const RequestLatencies&)>;

inline constexpr std::int64_t kDefaultConcurrencyBinNs = 1'000'000'000;
// Bins are capped so one corrupt end time cannot allocate without bound (2^22 one-second bins are 48 days);
// in-flight time past the cap is dropped from the bins and the requests it belongs to are counted.
inline constexpr std::size_t kMaxConcurrencyBins = std::size_t{1} << 22;

// Where token counts came from, over the requests that contributed one.
enum class TokenSource { kNone, kUsage, kCounted, kMixed };
// "none", "usage", "counted", "mixed". For input tokens "counted" means the workload's prompt length.
std::string_view token_source_name(TokenSource source);

struct ErrorKindCount {
  ErrorKind kind = ErrorKind::kNone;
  std::uint64_t count = 0;
  std::string first_message;  // the first error_message seen for this kind
};

struct HttpStatusCount {
  int status = 0;  // 0: no status line arrived
  std::uint64_t count = 0;
};

struct ConcurrencyBin {
  double start_s = 0;         // bin start, seconds from the schedule start
  double mean_in_flight = 0;  // time-averaged requests in flight over the bin
};

// The latencies counted from one start (seconds, or tokens/s for the rates).
struct StartLatencies {
  SampleSummary ttft_s;
  SampleSummary e2e_s;
  SampleSummary tpot_s;
  SampleSummary ntpot_s;
  SampleSummary mean_itl_s;
  SampleSummary ttlt_s;                             // last content chunk - start
  SampleSummary ntpot_to_last_token_s;              // ttlt / output tokens
  SampleSummary output_tokens_per_s;                // output tokens / e2e, per request
  SampleSummary output_tokens_per_s_to_last_token;  // output tokens / ttlt, per request
};

struct LoadSummary {
  std::uint64_t requests_total = 0;    // every record, warm-up included
  std::uint64_t warmup_discarded = 0;  // records with warmup set: in nothing below
  std::uint64_t measured = 0;          // requests_total - warmup_discarded = completed + failed
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  std::vector<ErrorKindCount> errors;        // kinds with a failure, in ErrorKind order
  std::vector<HttpStatusCount> http_status;  // ascending status

  StartLatencies from_intended;
  StartLatencies from_sent;
  const StartLatencies& latencies(LatencyStart start) const {
    return start == LatencyStart::kIntended ? from_intended : from_sent;
  }

  SampleSummary itl_s;                 // pooled gaps between consecutive content chunks
  std::uint64_t itl_zero_gaps = 0;     // of them, gaps of 0: the two chunks arrived in one read
  SampleSummary ttst_s;                // second content chunk - first
  SampleSummary tpot_to_last_token_s;  // (last chunk - first token) / (output tokens - 1)
  SampleSummary decode_tokens_per_s;   // 1 / tpot_to_last_token, per request
  SampleSummary tokens_per_chunk;      // output tokens / content chunks, per request
  SampleSummary output_tokens;         // per completed request
  SampleSummary input_tokens;          // per completed request
  SampleSummary schedule_lag_s;        // sent - intended, every measured request that was sent

  std::int64_t window_start_ns = -1;  // -1 when no measured request has a start
  std::int64_t window_end_ns = -1;
  double window_s = 0;
  std::uint64_t total_input_tokens = 0;   // completed requests
  std::uint64_t total_output_tokens = 0;  // completed requests
  double requests_per_s = 0;              // completed / window_s; NaN for an empty window
  double output_tokens_per_s = 0;
  double total_tokens_per_s = 0;          // (input + output) / window_s
  TokenSource output_token_source = TokenSource::kNone;
  std::uint64_t output_tokens_from_usage = 0;  // completed requests whose output count is the usage's
  std::uint64_t output_tokens_counted = 0;     // ... or counted content chunks
  TokenSource input_token_source = TokenSource::kNone;
  std::uint64_t input_tokens_from_usage = 0;
  std::uint64_t input_tokens_from_workload = 0;

  bool goodput_defined = false;   // an SLO predicate was given
  std::uint64_t good_completed = 0;
  double goodput_per_s = 0;       // good_completed / window_s; NaN without an SLO or window
  double goodput_ratio = 0;       // good_completed / completed, 0..1 (0 when nothing completed)

  std::int64_t bin_ns = kDefaultConcurrencyBinNs;
  std::vector<ConcurrencyBin> concurrency;
  double mean_in_flight = 0;           // total in-flight time / window; NaN for an empty window
  std::uint64_t max_in_flight = 0;
  std::uint64_t concurrency_clipped = 0;  // requests with in-flight time past kMaxConcurrencyBins
};

class LoadMetricsTracker {
 public:
  // slo: empty for no goodput. bin_ns > 0 (checked). raw_limit: passed to every SampleTracker.
  explicit LoadMetricsTracker(GoodputPredicate slo = {}, std::int64_t bin_ns = kDefaultConcurrencyBinNs,
                              std::size_t raw_limit = SampleTracker::kDefaultRawLimit);

  void add(const RequestRecord& record);
  LoadSummary summary() const;

 private:
  struct StartTrackers {
    explicit StartTrackers(std::size_t raw_limit);
    SampleTracker ttft, e2e, tpot, ntpot, mean_itl, ttlt, ntpot_to_last_token, output_rate,
        output_rate_to_last_token;
  };
  void add_completed(const RequestRecord& record);
  void add_latencies(const RequestRecord& record, LatencyStart start, StartTrackers& trackers);
  void add_in_flight(std::int64_t sent_ns, std::int64_t end_ns);

  GoodputPredicate slo_;
  std::int64_t bin_ns_;

  std::uint64_t requests_total_ = 0;
  std::uint64_t warmup_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t failed_ = 0;
  std::vector<ErrorKindCount> errors_;  // indexed by ErrorKind
  std::map<int, std::uint64_t> http_status_;

  StartTrackers intended_;
  StartTrackers sent_;
  SampleTracker itl_, ttst_, tpot_to_last_token_, decode_rate_, tokens_per_chunk_, output_tokens_, input_tokens_,
      schedule_lag_;

  std::int64_t window_start_ns_ = -1;
  std::int64_t window_end_ns_ = -1;
  std::uint64_t total_input_tokens_ = 0;
  std::uint64_t total_output_tokens_ = 0;
  std::uint64_t output_from_usage_ = 0;
  std::uint64_t output_counted_ = 0;
  std::uint64_t input_from_usage_ = 0;
  std::uint64_t input_from_workload_ = 0;
  std::uint64_t good_ = 0;
  std::uint64_t itl_zero_gaps_ = 0;

  std::vector<std::int64_t> in_flight_ns_;  // per bin: summed in-flight time
  std::int64_t in_flight_total_ns_ = 0;
  std::int64_t in_flight_last_end_ns_ = -1;
  std::uint64_t concurrency_clipped_ = 0;
  std::vector<std::int64_t> send_times_ns_;  // for the exact max_in_flight sweep
  std::vector<std::int64_t> end_times_ns_;
};

// SI units per docs/metrics.md: every field name says its unit (_s, _per_s, _tokens); NaN as null.
nlohmann::ordered_json to_json(const LoadSummary& summary);
// One SampleSummary: count, undefined_count, method, exact, out_of_range_count, then mean, stddev, min,
// p1 .. p99_9, max, each named with `suffix` appended ("_s", "_per_s", "_tokens").
nlohmann::ordered_json to_json(const SampleSummary& summary, std::string_view suffix);

}  // namespace perfhound::load
