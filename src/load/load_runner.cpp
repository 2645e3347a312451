#include "load/load_runner.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <sys/resource.h>

#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <unordered_set>
#include <variant>

#include "core/signal_name.h"
#include "core/units.h"
#include "load/openai_stream.h"
#include "load/response_body.h"
#include "load/stamped_tcp_stream.h"

namespace perfhound::load {
namespace {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using net::awaitable;
using Clock = std::chrono::steady_clock;
using ErrorCode = boost::system::error_code;

constexpr auto kTick = std::chrono::milliseconds(10);
constexpr int kTicksPerProgress = 100;            // progress once a second
constexpr std::size_t kBodyBufferBytes = 8 * 1024;  // per connection: one read's worth of SSE
constexpr std::size_t kReadBufferLimit = 16 * 1024; // per connection: headers plus one socket read
// Open loop: the dispatch timer fires this long before the intended send time, and the rest is a yield loop
// (the open_dispatcher comment says why). Above the wake-up p99 measured on the VMs we run on (150 us).
constexpr std::int64_t kSpinMarginNs = 250'000;

std::int64_t steady_ns(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

double thread_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// 10,000 streams need 10,000 sockets: lift the soft descriptor limit to the hard one.
void raise_descriptor_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// The client TLS context of an https URL (nullptr for http): the system's CA store and host-name
// verification, or no verification with --insecure.
std::unique_ptr<ssl::context> make_tls_context(const ClientOptions& client) {
  if (!client.url.tls) return nullptr;
  auto tls = std::make_unique<ssl::context>(ssl::context::tls_client);
  if (client.verify_tls) {
    tls->set_default_verify_paths();
    tls->set_verify_mode(ssl::verify_peer);
    tls->set_verify_callback(ssl::host_name_verification(client.url.host));
  } else {
    tls->set_verify_mode(ssl::verify_none);
  }
  return tls;
}

using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

struct Connection {
  Connection(net::io_context& ioc, ssl::context* tls)
      : stream(make(ioc, tls)), buffer(kReadBufferLimit), deadline(ioc.get_executor()) {}
  static std::variant<PlainStream, TlsStream> make(net::io_context& ioc, ssl::context* tls) {
    if (tls != nullptr) return std::variant<PlainStream, TlsStream>(std::in_place_index<1>, ioc, *tls);
    return std::variant<PlainStream, TlsStream>(std::in_place_index<0>, ioc);
  }
  beast::tcp_stream& lowest() {
    return std::visit([](auto& s) -> beast::tcp_stream& { return beast::get_lowest_layer(s); }, stream);
  }
  std::variant<PlainStream, TlsStream> stream;
  beast::flat_buffer buffer;
  std::array<char, kBodyBufferBytes> body{};
  std::int64_t uses = 0;
  RequestDeadline deadline;  // bounds the stamped reads, which bypass the tcp_stream's timer
  bool stamped = false;      // plain TCP with kernel receive timestamps on: reads go through StampedTcpStream
};

// Failure classification: the phase tells connect from stream errors when the code alone does not.
ErrorKind classify(const ErrorCode& ec) {
  if (ec == beast::error::timeout) return ErrorKind::kTimeout;
  if (ec == net::error::connection_refused || ec == net::error::host_unreachable ||
      ec == net::error::network_unreachable) {
    return ErrorKind::kConnect;
  }
  if (ec == net::error::host_not_found || ec == net::error::host_not_found_try_again ||
      ec.category() == net::error::get_netdb_category() || ec.category() == net::error::get_addrinfo_category()) {
    return ErrorKind::kDns;
  }
  if (ec.category() == net::error::get_ssl_category() || ec.category() == ssl::error::get_stream_category()) {
    return ErrorKind::kTls;
  }
  if (ec == http::error::header_limit || ec == http::error::buffer_overflow) return ErrorKind::kOverlong;
  if (ec.category() == ErrorCode(http::error::bad_method).category() && ec != http::error::end_of_stream &&
      ec != http::error::partial_message) {
    return ErrorKind::kMalformed;  // a response that is not HTTP
  }
  if (ec == boost::system::errc::too_many_files_open || ec == net::error::no_buffer_space || ec == net::error::no_memory) {
    return ErrorKind::kClient;
  }
  return ErrorKind::kReset;  // eof, connection reset, broken pipe, partial message, end of stream
}

class Runner {
 public:
  Runner(const ClientOptions& client, const RunPlan& plan, const Workload& workload, RecordSink& sink)
      : client_(client), plan_(plan), workload_(workload), sink_(sink), resolver_(ioc_), dispatch_timer_(ioc_),
        slot_timer_(ioc_), drain_timer_(ioc_), signals_(ioc_, SIGINT, SIGTERM), decoder_() {
    slot_timer_.expires_at(Clock::time_point::max());
    tls_ = make_tls_context(client_);
  }

  RunOutcome run() {
    raise_descriptor_limit();
    start_ = Clock::now();
    const double cpu_start = thread_cpu_seconds();
    // SIGHUP too (the terminal closed, an ssh session dropped), unless it was ignored when perfhound started: under
    // nohup the run goes on, as nohup asks.
    struct sigaction hangup {};
    if (::sigaction(SIGHUP, nullptr, &hangup) == 0 && hangup.sa_handler != SIG_IGN) signals_.add(SIGHUP);
    signals_.async_wait([this](const ErrorCode& ec, int signal) {
      if (!ec) {
        stop(fmt::format("interrupted ({})", core::signal_name(signal)), true);
      }
    });
    net::co_spawn(ioc_, ticker(), net::detached);
    if (plan_.mode == LoadMode::kClosedLoop) {
      workers_left_ = plan_.concurrency;
      for (std::int64_t w = 0; w < plan_.concurrency; ++w) net::co_spawn(ioc_, closed_worker(w), net::detached);
    } else {
      workers_left_ = 1;
      net::co_spawn(ioc_, open_dispatcher(), net::detached);
    }
    ioc_.run();
    outcome_.health.wall_s = std::chrono::duration<double>(Clock::now() - start_).count();
    outcome_.health.cpu_s = thread_cpu_seconds() - cpu_start;
    // The pre-dispatch spin is CPU spent on being punctual, not on keeping up: it is left out of the ratio the
    // client-limited check reads (an upper bound on the spin's share, since other handlers ran inside it).
    const double busy_s = std::max(0.0, outcome_.health.cpu_s - outcome_.health.dispatch_spin_s);
    outcome_.health.cpu_ratio = outcome_.health.wall_s > 0 ? busy_s / outcome_.health.wall_s : 0;
    outcome_.issued = issued_;
    if (outcome_.stop_reason.empty()) outcome_.stop_reason = "requests";
    return std::move(outcome_);
  }

 private:
  std::int64_t now_ns() const { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count(); }
  Clock::time_point at(std::int64_t ns) const { return start_ + std::chrono::nanoseconds(ns); }

  // Whether request `index`, intended at `intended_ns`, may be issued, and whether it is warm-up.
  // `ordinal` is the count that warm-up by requests reads: the schedule's index in open loop and replay,
  // this client's own count in closed loop (the same number in one process; not in a shard).
  bool may_issue(std::uint64_t index, std::uint64_t ordinal, std::int64_t intended_ns, bool& warmup) {
    if (stopping_) return false;
    warmup = ordinal < plan_.warmup_requests || intended_ns < plan_.warmup_ns;
    if (const auto size = workload_.size(); size && index >= *size) return finish_issuing("workload exhausted");
    if (plan_.index_limit && index >= *plan_.index_limit) return finish_issuing("requests");
    // --duration counts from the end of the warm-up: a time warm-up's end, or the first measured request after a
    // warm-up by count (whose end no clock knows in advance).
    if (plan_.duration_ns > 0 && !warmup) {
      if (!measured_start_ns_) measured_start_ns_ = plan_.warmup_ns > 0 ? plan_.warmup_ns : intended_ns;
      if (intended_ns >= *measured_start_ns_ + plan_.duration_ns) return finish_issuing("duration");
    }
    if (!warmup && plan_.measured_requests && measured_issued_ >= *plan_.measured_requests) {
      return finish_issuing("requests");
    }
    return true;
  }
  bool finish_issuing(std::string_view reason) {
    if (outcome_.stop_reason.empty()) outcome_.stop_reason = std::string(reason);
    issuing_done_ = true;
    return false;
  }

  http::request<http::string_body> make_request(const WorkItem& item) const {
    http::request<http::string_body> req{http::verb::post, endpoint_path(client_.url, client_.request.endpoint), 11};
    req.set(http::field::host, client_.url.host);
    req.set(http::field::user_agent, "perfhound-load");
    req.set(http::field::content_type, "application/json");
    req.set(http::field::accept, "text/event-stream");
    if (!client_.api_key.empty()) req.set(http::field::authorization, "Bearer " + client_.api_key);
    for (const auto& [name, value] : client_.headers) req.set(name, value);
    req.keep_alive(true);
    req.body() = build_request_body(client_.request, item.prompt, item.prompt_token_ids, item.max_tokens);
    req.prepare_payload();
    return req;
  }

  awaitable<void> closed_worker(std::int64_t w) {
    if (plan_.ramp_up_ns > 0 && plan_.concurrency > 1) {
      net::steady_timer t(ioc_);
      t.expires_at(at(plan_.ramp_up_ns * w / plan_.concurrency));
      ErrorCode ec;
      co_await t.async_wait(net::redirect_error(net::use_awaitable, ec));
    }
    while (true) {
      const std::uint64_t ordinal = issued_;
      const std::uint64_t index = plan_.index_first + ordinal * plan_.index_stride;
      bool warmup = false;
      if (!may_issue(index, ordinal, now_ns(), warmup)) break;
      ++issued_;
      if (!warmup) ++measured_issued_;
      const WorkItem item = workload_.item(index);
      auto req = make_request(item);
      const std::int64_t t = now_ns();
      co_await run_request(index, warmup, t, t, item, std::move(req));
    }
    worker_done();
  }

  awaitable<void> open_dispatcher() {
    for (std::uint64_t index = plan_.index_first;; index += plan_.index_stride) {
      WorkItem item;
      std::int64_t intended = 0;
      if (plan_.mode == LoadMode::kTraceReplay) {
        if (const auto size = workload_.size(); size && index >= *size) {
          finish_issuing("workload exhausted");
          break;
        }
        intended = replay_intended_ns(workload_, index, plan_.trace_speedup);
      } else {
        intended = plan_.intended_ns(index);
      }
      bool warmup = false;
      if (!may_issue(index, index, intended, warmup)) break;
      item = workload_.item(index);
      auto req = make_request(item);  // built before the wait, so it costs the timed path nothing
      ErrorCode ec;
      // A timer wakes the sleeping thread late: the scheduler's wake-up took 75 us at p50 and 150 us at p99 on
      // the H200 host's 16-core VM (bench/RESULTS.md), more than the dispatch lag we promise. So the timer is
      // set kSpinMarginNs early and the last stretch is spent yielding to the event loop, which keeps serving
      // I/O between yields, until the intended time. A client that is really saturated reaches the intended
      // time late and spins not at all, so the spin hides no overload; its wall time is reported.
      dispatch_timer_.expires_at(at(intended - kSpinMarginNs));
      co_await dispatch_timer_.async_wait(net::redirect_error(net::use_awaitable, ec));
      if (stopping_) break;
      if (const std::int64_t spin_start = now_ns(); spin_start < intended) {
        while (now_ns() < intended && !stopping_) co_await net::post(ioc_, net::use_awaitable);
        outcome_.health.dispatch_spin_s += core::ns_to_seconds(now_ns() - spin_start);
      }
      if (stopping_) break;
      std::int64_t ready = intended;
      while (plan_.max_concurrency > 0 && in_flight_ >= plan_.max_concurrency && !stopping_) {
        co_await slot_timer_.async_wait(net::redirect_error(net::use_awaitable, ec));
        ready = std::max(intended, now_ns());
      }
      if (stopping_) break;
      ++issued_;
      if (!warmup) ++measured_issued_;
      net::co_spawn(ioc_, run_request(index, warmup, intended, ready, std::move(item), std::move(req)), net::detached);
    }
    worker_done();
  }

  void worker_done() {
    if (--workers_left_ == 0) {
      issuing_done_ = true;
      if (in_flight_ > 0 && !stopping_) {
        // Give what is in flight its drain time, then cancel the rest.
        drain_timer_.expires_after(std::chrono::nanoseconds(plan_.drain_timeout_ns));
        drain_timer_.async_wait([this](const ErrorCode& ec) {
          if (!ec) stop("drain timeout", false);
        });
      }
      maybe_finish();
    }
  }

  void maybe_finish() {
    if (issuing_done_ && workers_left_ == 0 && in_flight_ == 0 && !finished_) {
      finished_ = true;
      drain_timer_.cancel();
      signals_.cancel();
      ticker_stop_ = true;
      for (auto& c : idle_) {
        ErrorCode ignored;
        c->lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
      }
      idle_.clear();
    }
  }

  void stop(std::string reason, bool interrupted) {
    if (stopping_) return;
    stopping_ = true;
    outcome_.interrupted = outcome_.interrupted || interrupted;
    outcome_.stop_reason = std::move(reason);
    issuing_done_ = true;
    dispatch_timer_.cancel();
    slot_timer_.cancel();
    for (Connection* c : active_) c->lowest().cancel();
    maybe_finish();
  }

  awaitable<void> ticker() {
    net::steady_timer t(ioc_);
    auto expected = Clock::now();
    for (int n = 1; !ticker_stop_; ++n) {
      expected += kTick;
      t.expires_at(expected);
      ErrorCode ec;
      co_await t.async_wait(net::redirect_error(net::use_awaitable, ec));
      outcome_.health.loop_lag_ns.record(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - expected).count());
      if (n % kTicksPerProgress == 0 && !ticker_stop_) {
        sink_.on_progress(Progress{static_cast<double>(now_ns()) / 1e9, issued_, finished_count_, failed_count_, in_flight_});
      }
    }
  }

  // An idle pooled connection, or a new one; nullptr with `record` filled when none could be opened. `fresh`
  // skips the pool (the retry after a stale one: the server may have closed every connection idle as long, so
  // the next in the pool would fail the same way).
  awaitable<std::unique_ptr<Connection>> acquire(RequestRecord& record, Clock::time_point deadline, bool fresh) {
    if (!fresh && !idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      co_return c;
    }
    ErrorCode ec;
    if (endpoints_.empty()) {
      endpoints_ = co_await resolver_.async_resolve(client_.url.host, client_.url.port,
                                                    net::redirect_error(net::use_awaitable, ec));
      if (ec) {
        endpoints_ = {};
        record_failure(record, ErrorKind::kDns, fmt::format("resolving '{}': {}", client_.url.host, ec.message()));
        co_return nullptr;
      }
    }
    auto c = std::make_unique<Connection>(ioc_, tls_.get());
    active_.insert(c.get());
    c->lowest().expires_at(deadline);
    co_await c->lowest().async_connect(endpoints_, net::redirect_error(net::use_awaitable, ec));
    if (!ec) c->lowest().socket().set_option(tcp::no_delay(true), ec);
    if (!ec && !tls_) c->stamped = enable_receive_timestamps(c->lowest().socket().native_handle());
    if (!ec && tls_) {
      auto& tls = std::get<TlsStream>(c->stream);
      if (!SSL_set_tlsext_host_name(tls.native_handle(), client_.url.host.c_str())) {
        ec = ErrorCode(static_cast<int>(::ERR_get_error()), net::error::get_ssl_category());
      } else {
        co_await tls.async_handshake(ssl::stream_base::client, net::redirect_error(net::use_awaitable, ec));
      }
    }
    active_.erase(c.get());
    if (ec) {
      record_failure(record, stopping_ ? ErrorKind::kCancelled : classify(ec),
                     fmt::format("connecting to {}:{}: {}", client_.url.host, client_.url.port, ec.message()));
      co_return nullptr;
    }
    ++outcome_.health.connections_opened;
    co_return c;
  }

  // A failed operation's kind: a stop cancels everything; the request deadline's timer cancels stamped reads
  // and the write beside them with operation_aborted, which is the timeout.
  ErrorKind failure_kind(const Connection& c, const ErrorCode& ec) const {
    if (stopping_) return ErrorKind::kCancelled;
    if (c.deadline.expired()) return ErrorKind::kTimeout;
    return classify(ec);
  }

  // When the bytes just read reached the client: the kernel's stamp where the stream keeps one, else now. A
  // stamp outside [sent, now] cannot be the arrival of this response's bytes and is not used.
  template <class Stream>
  std::int64_t received_ns(const Stream& stream, const RequestRecord& record) {
    const std::int64_t now = now_ns();
    if constexpr (std::is_same_v<Stream, StampedTcpStream>) {
      const std::int64_t arrival = stream.last_arrival_steady_ns() - steady_ns(start_);
      if (arrival >= record.sent_ns && arrival <= now) return arrival;
      ++outcome_.health.receive.rejected_stamps;
    }
    return now;
  }

  // One exchange on an open connection. Returns whether the connection may be reused; `stale` is set when a
  // reused connection failed before any response byte (the server closed it while idle).
  template <class Stream>
  awaitable<bool> exchange(Stream& stream, Connection& c, const http::request<http::string_body>& req,
                           RequestRecord& record, Clock::time_point deadline, bool& stale) {
    ErrorCode ec;
    c.lowest().expires_at(deadline);
    co_await http::async_write(stream, req, net::redirect_error(net::use_awaitable, ec));
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(boost::none);
    parser.header_limit(kResponseHeaderLimit);
    if (!ec) co_await http::async_read_header(stream, c.buffer, parser, net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      stale = c.uses > 0 && failure_kind(c, ec) == ErrorKind::kReset;
      if (!stale) record_failure(record, failure_kind(c, ec), fmt::format("sending: {}", ec.message()));
      co_return false;
    }
    const std::int64_t header_ns = received_ns(stream, record);
    record.first_byte_ns = header_ns;
    record.http_status = parser.get().result_int();
    ResponseBody body(record, decoder_, client_.max_event_bytes, &outcome_.health.emit_delay_ns, steady_ns(start_));
    std::int64_t last_ns = header_ns;
    while (!parser.is_done()) {
      parser.get().body().data = c.body.data();
      parser.get().body().size = c.body.size();
      co_await http::async_read_some(stream, c.buffer, parser, net::redirect_error(net::use_awaitable, ec));
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t n = c.body.size() - parser.get().body().size;
      // Bytes of one segment read in two reads get the same stamp, carried over to the steady clock by two clock
      // pairs read a few ns apart: keep the times of one stream in order.
      const std::int64_t t = std::max(last_ns, received_ns(stream, record));
      last_ns = t;
      record.bytes_received += static_cast<std::int64_t>(n);
      if (n > 0 && !body.feed(std::string_view(c.body.data(), n), t)) {
        record.end_ns = t;
        co_return false;  // drop the connection: the rest of the stream is not worth reading
      }
      if (ec) {
        record.end_ns = t;
        record_failure(record, failure_kind(c, ec), fmt::format("after {} chunks: {}", record.content_chunks(), ec.message()));
        co_return false;
      }
    }
    record.end_ns = last_ns;  // when the last bytes arrived
    body.finish();
    co_return parser.keep_alive() && (record.error == ErrorKind::kNone || record.error == ErrorKind::kHttpStatus);
  }

  // exchange() over a plain connection whose reads keep the kernel's receive times.
  awaitable<bool> exchange_stamped(PlainStream& plain, Connection& c, const http::request<http::string_body>& req,
                                   RequestRecord& record, Clock::time_point deadline, bool& stale) {
    StampedTcpStream stream(plain, c.deadline, outcome_.health.receive);
    c.deadline.arm(plain.socket(), deadline);
    const bool reusable = co_await exchange(stream, c, req, record, deadline, stale);
    c.deadline.disarm();
    co_return reusable;
  }

  awaitable<void> run_request(std::uint64_t index, bool warmup, std::int64_t intended, std::int64_t ready,
                              WorkItem item, http::request<http::string_body> req) {
    RequestRecord record;
    record.index = index;
    record.warmup = warmup;
    record.intended_ns = intended;
    record.sent_ns = now_ns();
    if (plan_.mode == LoadMode::kClosedLoop) record.intended_ns = record.sent_ns;  // no schedule to lag behind
    record.input_tokens = item.input_tokens;
    record.max_tokens = item.max_tokens;
    record.chunk_ns.reserve(static_cast<std::size_t>(std::min<std::int64_t>(item.max_tokens, 1 << 16)));
    if (plan_.mode != LoadMode::kClosedLoop) {
      outcome_.health.dispatch_lag_ns.record(record.sent_ns - ready);
    }
    ++in_flight_;
    outcome_.health.max_in_flight = std::max(outcome_.health.max_in_flight, in_flight_);
    const Clock::time_point deadline = at(record.sent_ns) + std::chrono::nanoseconds(client_.timeout_ns);

    for (int attempt = 0; attempt < 2; ++attempt) {
      std::unique_ptr<Connection> c = co_await acquire(record, deadline, /*fresh=*/attempt > 0);
      if (!c) break;
      bool stale = false;
      active_.insert(c.get());
      const bool reusable = co_await std::visit(
          [&](auto& stream) {
            if constexpr (std::is_same_v<std::decay_t<decltype(stream)>, PlainStream>) {
              if (c->stamped) return exchange_stamped(stream, *c, req, record, deadline, stale);
            }
            return exchange(stream, *c, req, record, deadline, stale);
          },
          c->stream);
      active_.erase(c.get());
      ++c->uses;
      if (reusable && !stopping_) {
        c->lowest().expires_never();
        idle_.push_back(std::move(c));
      }
      if (!stale) break;
      ++outcome_.health.stale_connection_retries;
      record.first_byte_ns = -1;
      record.bytes_received = 0;
    }
    if (record.end_ns < 0) record.end_ns = now_ns();
    if (record.error == ErrorKind::kNone && record.http_status == 0) {
      record_failure(record, ErrorKind::kReset, "the connection closed before a response");
    }
    --in_flight_;
    ++finished_count_;
    if (!record.ok()) ++failed_count_;
    ++outcome_.records;
    sink_.on_record(std::move(record));
    slot_timer_.cancel();  // wake the dispatcher if it waits for a slot
    slot_timer_.expires_at(Clock::time_point::max());
    maybe_finish();
  }

  const ClientOptions& client_;
  const RunPlan& plan_;
  const Workload& workload_;
  RecordSink& sink_;
  net::io_context ioc_{1};
  std::unique_ptr<ssl::context> tls_;
  tcp::resolver resolver_;
  tcp::resolver::results_type endpoints_;
  net::steady_timer dispatch_timer_, slot_timer_, drain_timer_;
  net::signal_set signals_;
  ChunkDecoder decoder_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::unordered_set<Connection*> active_;
  Clock::time_point start_;
  RunOutcome outcome_;
  std::uint64_t issued_ = 0, measured_issued_ = 0, finished_count_ = 0, failed_count_ = 0;
  std::optional<std::int64_t> measured_start_ns_;  // when --duration started counting (see may_issue)
  std::int64_t in_flight_ = 0, workers_left_ = 0;
  bool issuing_done_ = false, stopping_ = false, finished_ = false, ticker_stop_ = false;
};

}  // namespace

std::int64_t replay_intended_ns(const Workload& workload, std::uint64_t index, double speedup) {
  return static_cast<std::int64_t>(static_cast<double>(workload.arrival_ns(index)) / speedup);
}

core::Result<RunOutcome> run_load(const ClientOptions& client, const RunPlan& plan, const Workload& workload,
                                  RecordSink& sink) {
  if (plan.index_stride < 1 || plan.index_first >= plan.index_stride) {
    return core::Error{fmt::format("shard: first index {} with stride {}", plan.index_first, plan.index_stride)};
  }
  if (plan.mode == LoadMode::kClosedLoop && plan.concurrency < 1) {
    return core::Error{fmt::format("--concurrency: must be at least 1, got {}", plan.concurrency)};
  }
  if (plan.mode == LoadMode::kOpenLoop && !plan.intended_ns) return core::Error{"open loop without an arrival schedule"};
  if (plan.mode == LoadMode::kTraceReplay && !workload.size()) return core::Error{"trace replay needs a workload with a size"};
  if (!plan.measured_requests && !plan.index_limit && plan.duration_ns <= 0 && !workload.size()) {
    return core::Error{"nothing ends the run: give --requests or --duration"};
  }
  Runner runner(client, plan, workload, sink);
  return runner.run();
}

core::Result<HttpGetResponse> http_get(const ClientOptions& client, const std::string& path, std::int64_t timeout_ns) {
  net::io_context ioc;
  std::optional<core::Result<HttpGetResponse>> result;
  auto fetch = [&]() -> awaitable<void> {
    const auto fail = [&](std::string what) { result = core::Error{fmt::format("GET {}: {}", path, what)}; };
    ErrorCode ec;
    tcp::resolver resolver(ioc);
    auto endpoints = co_await resolver.async_resolve(client.url.host, client.url.port, net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return fail(ec.message());
    const std::unique_ptr<ssl::context> tls = make_tls_context(client);
    Connection c(ioc, tls.get());
    c.lowest().expires_after(std::chrono::nanoseconds(timeout_ns));
    co_await c.lowest().async_connect(endpoints, net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return fail(ec.message());
    http::request<http::empty_body> req{http::verb::get, path, 11};
    req.set(http::field::host, client.url.host);
    req.set(http::field::user_agent, "perfhound-load");
    if (!client.api_key.empty()) req.set(http::field::authorization, "Bearer " + client.api_key);
    for (const auto& [name, value] : client.headers) req.set(name, value);
    http::response<http::string_body> res;
    auto talk = [&](auto& stream) -> awaitable<void> {
      co_await http::async_write(stream, req, net::redirect_error(net::use_awaitable, ec));
      if (!ec) co_await http::async_read(stream, c.buffer, res, net::redirect_error(net::use_awaitable, ec));
    };
    if (client.url.tls) {
      auto& s = std::get<TlsStream>(c.stream);
      SSL_set_tlsext_host_name(s.native_handle(), client.url.host.c_str());
      co_await s.async_handshake(ssl::stream_base::client, net::redirect_error(net::use_awaitable, ec));
      if (ec) co_return fail(ec.message());
      co_await talk(s);
    } else {
      co_await talk(std::get<PlainStream>(c.stream));
    }
    if (ec) co_return fail(ec.message());
    result = HttpGetResponse{res.result_int(), std::move(res.body())};
  };
  net::co_spawn(ioc, fetch(), net::detached);
  ioc.run();
  if (!result) return core::Error{fmt::format("GET {} did not complete", path)};
  return std::move(*result);
}

core::Result<std::string> fetch_first_model(const ClientOptions& client) {
  const std::string path = models_path(client.url);
  // The URL as given, less what models_path adds again
  const std::string_view base = without_api_suffix(client.url.text);
  const auto fail = [&](const std::string& what) {
    return core::Error{fmt::format("--model not given and GET {}{} failed: {}", base,
                                   path.substr(client.url.base_path.size()), what)};
  };
  auto response = http_get(client, path, 30'000'000'000);
  if (!response.ok()) {
    const std::string& m = response.error().message;
    // http_get's errors start "GET <path>: "; this one names the URL and the flag instead.
    return fail(m.substr(std::min(m.size(), m.find(": ") == std::string::npos ? 0 : m.find(": ") + 2)));
  }
  if (response->status != 200) return fail(error_message_from_body(response->status, response->body));
  return first_model_id(response->body);
}

}  // namespace perfhound::load
