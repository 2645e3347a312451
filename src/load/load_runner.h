// The I/O edge of `perfhound load`: an HTTP/1.1 + TLS client (Boost.Beast on one Asio thread, C++20
// coroutines) that sends the work items on the plan's schedule, times every response chunk, and hands each
// finished RequestRecord to a sink as soon as it is complete (so nothing measured is lost on an interrupt).
//
// Connections are kept alive and pooled (one in flight per connection; a new one is opened only when none is
// idle). A pooled connection the server closed while idle is reopened once and counted
// (stale_connection_retries); nothing else is retried: every failure is a record with its ErrorKind.
//
// Timing: sent_ns is taken when the client starts on the request (before taking or opening a connection), so
// a connect or TLS handshake is inside the latencies, as a real client sees it. Each chunk's time is when its
// bytes reached the client: over plain http the kernel's receive stamp of the read that delivered it
// (SO_TIMESTAMPNS, kernel_receive_time.h), so the client's own read backlog is not in the latencies; over
// https, or where the kernel gives no stamp, the time that read returned. The client's own health is
// measured alongside (ClientHealth).
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/log_histogram.h"
#include "core/result.h"
#include "load/kernel_receive_time.h"
#include "load/request_record.h"
#include "load/target.h"
#include "load/workload.h"

namespace perfhound::load {

struct ClientOptions {
  TargetUrl url;
  RequestOptions request;
  std::string api_key;  // sent as "Authorization: Bearer"; never printed or written
  std::vector<std::pair<std::string, std::string>> headers;
  std::int64_t timeout_ns = 600'000'000'000;  // per request, from sent_ns to the end of the stream
  bool verify_tls = true;                     // false: --insecure (self-signed test servers)
  std::size_t max_event_bytes = 256 * 1024;   // an SSE event beyond this is an `overlong` error
};

enum class LoadMode { kClosedLoop, kOpenLoop, kTraceReplay };

// The most requests one client keeps in flight: each is a connection with its buffers (10 million slots took
// 14.5 GB before a request left). More than this is more clients (load --shard, mpirun).
inline constexpr std::int64_t kMaxConcurrency = 100'000;

struct RunPlan {
  LoadMode mode = LoadMode::kClosedLoop;
  std::int64_t concurrency = 1;      // closed loop: requests in flight, at most kMaxConcurrency
  // Open loop: the intended send time of arrival i (ns from the start), called for i = 0, 1, 2, ... in order.
  std::function<std::int64_t(std::uint64_t)> intended_ns;
  std::int64_t max_concurrency = 0;  // open loop and replay: in flight at most (0: unbounded); waits count in
                                     // schedule lag, not dispatch lag
  double trace_speedup = 1.0;        // replay: arrival_ns / speedup
  std::int64_t ramp_up_ns = 0;       // closed loop: worker w starts at w * ramp / concurrency
  // Warm-up: requests with index < warmup_requests or intended before warmup_ns are marked warm-up.
  std::uint64_t warmup_requests = 0;
  std::int64_t warmup_ns = 0;
  // Stop issuing after this many measured (non-warm-up) requests, and/or once the intended time passes
  // warmup_ns + duration_ns. At least one must be set unless the workload has a size (replay).
  std::optional<std::uint64_t> measured_requests;
  std::int64_t duration_ns = 0;
  // After issuing ends, in-flight requests get this long to finish before they are cancelled.
  std::int64_t drain_timeout_ns = 600'000'000'000;
  // One shard of a schedule spread over several clients (load/shard.h): this client sends indices
  // index_first, index_first + index_stride, ... Open loop and replay: the whole schedule's arrivals, so
  // warm-up (by index or time) and the stop rules read as in one process; the intended_ns callback is still
  // called with each index this client sends, in order. Closed loop: the workload items it sends, its own
  // count of requests (not the index) deciding warm-up and --requests.
  std::uint64_t index_first = 0;
  std::uint64_t index_stride = 1;
  // Issue no arrival at or past this index: a shard's stand-in for measured_requests, which counts the
  // requests of one client, not of the schedule (shard_issue_limit computes it).
  std::optional<std::uint64_t> index_limit;
};

// Trace replay: when arrival `index` is meant to be sent (the workload's recorded arrival / speedup).
std::int64_t replay_intended_ns(const Workload& workload, std::uint64_t index, double speedup);

struct Progress {
  double elapsed_s = 0;
  std::uint64_t issued = 0, finished = 0, failed = 0;
  std::int64_t in_flight = 0;
};

// Receives records in completion order, on the client thread: keep it cheap (a line to a file, a tracker).
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void on_record(RequestRecord&& record) = 0;
  virtual void on_progress(const Progress& /*progress*/) {}
};

// The client's own saturation (issue: "client-limited" detection). Histograms are ns, 3 digits.
struct ClientHealth {
  double wall_s = 0;
  double cpu_s = 0;           // the client thread's user + system CPU time (getrusage RUSAGE_THREAD)
  double cpu_ratio = 0;       // (cpu_s - dispatch_spin_s) / wall_s: near 1 means the one client core was saturated
  double dispatch_spin_s = 0;  // open loop: wall time spent yielding just before intended send times
  core::LogHistogram loop_lag_ns{3'600'000'000'000, 3};      // lateness of a 10 ms ticker
  core::LogHistogram dispatch_lag_ns{3'600'000'000'000, 3};  // sent - max(intended, slot free): open loop
  core::LogHistogram emit_delay_ns{3'600'000'000'000, 3};    // receive - server emit (perfhound serve only)
  ReceiveStampStats receive;                                  // plain http: kernel receive stamps, read backlog
  std::int64_t connections_opened = 0;
  std::int64_t stale_connection_retries = 0;
  std::int64_t max_in_flight = 0;
};

struct RunOutcome {
  ClientHealth health;
  bool interrupted = false;  // SIGINT / SIGTERM: the result is partial
  std::string stop_reason;   // "requests", "duration", "workload exhausted", "interrupted (SIGINT)"
  std::uint64_t issued = 0;
  std::uint64_t records = 0;
};

// Runs the plan; returns when every issued request has a record (or was cancelled into one). Errors only
// for a plan that cannot start (nothing to stop it, no workload size for replay); per-request failures are
// records.
core::Result<RunOutcome> run_load(const ClientOptions& client, const RunPlan& plan, const Workload& workload,
                                  RecordSink& sink);

// GET /v1/models and the first model's id, for --model's default. Errors name the URL and what failed.
core::Result<std::string> fetch_first_model(const ClientOptions& client);

struct HttpGetResponse {
  unsigned status = 0;
  std::string body;
};
// One GET of `path` (with the base path already in it) on a connection of its own, with the client's
// headers and API key; for /v1/models and a soak's scrapes of the target's /metrics. Errors ("GET /metrics:
// connection refused") are transport failures; any HTTP status is a response.
core::Result<HttpGetResponse> http_get(const ClientOptions& client, const std::string& path, std::int64_t timeout_ns);

}  // namespace perfhound::load
