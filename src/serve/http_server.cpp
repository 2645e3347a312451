#include "serve/http_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <chrono>
#include <fmt/format.h>
#include <unordered_map>

#include "serve/openai_protocol.h"
#include "serve/server_metrics.h"

namespace perfhound::serve {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using net::awaitable;
using net::use_awaitable;
using Clock = std::chrono::steady_clock;

// After refusing an oversized body: how long and how much of the rest of it to read and drop.
constexpr auto kLingerTimeout = std::chrono::seconds(2);
constexpr std::size_t kMaxLingerBytes = 64u << 20;
// Steps whose ends fall this close together are delivered at once (see engine_loop): 50 us is below the
// ITL of any real engine step (milliseconds) and the scheduling jitter of a loaded host.
constexpr auto kDeliveryWindow = std::chrono::microseconds(50);
constexpr std::size_t kMaxStepsPerDelivery = 64;

// Generated text: a fixed cycle of common words, so streams look like text and every chunk is a known size.
constexpr std::array<std::string_view, 16> kWords = {" the", " model", " streams", " tokens", " at", " the",
                                                     " pace", " of", " a", " continuous", " batching", " engine",
                                                     " on", " a", " simulated", " GPU"};

enum class Fault { kNone, k429, k500, k503, kReset, kStall, kMalformed, kOverlong, kUsageShort, kEarlyStop };

// As the --fault-* flags name them, for /metrics.
std::string_view fault_name(Fault f) {
  switch (f) {
    case Fault::kNone: return "none";
    case Fault::k429: return "429";
    case Fault::k500: return "500";
    case Fault::k503: return "503";
    case Fault::kReset: return "reset";
    case Fault::kStall: return "stall";
    case Fault::kMalformed: return "malformed";
    case Fault::kOverlong: return "overlong";
    case Fault::kUsageShort: return "usage-short";
    case Fault::kEarlyStop: return "early-stop";
  }
  return "none";
}

// Per request, waiting for the engine's tokens. `notify` never expires on its own; the engine loop cancels it
// to wake the stream.
struct StreamState {
  explicit StreamState(const net::any_io_executor& ex) : notify(ex) { notify.expires_at(Clock::time_point::max()); }
  std::int64_t ready = 0;
  bool finished = false;
  net::steady_timer notify;
  double arrival_s = 0;      // simulated clock
  double last_emit_s = -1;   // simulated clock of the last token, -1 before the first
};

}  // namespace

struct HttpServer::Impl {
  Impl(ServerConfig c, std::unique_ptr<TokenEngine> e)
      : config(std::move(c)), engine(std::move(e)), acceptor(ioc), work_arrived(ioc), step_timer(ioc),
        fault_rng(config.faults.seed) {
    work_arrived.expires_at(Clock::time_point::max());
  }

  // Simulated seconds since the server started: the wall clock scaled by --time-scale.
  double sim_now() const {
    return std::chrono::duration<double>(Clock::now() - started).count() * config.time_scale;
  }
  Clock::time_point wall_at(double sim_s) const {
    return started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sim_s / config.time_scale));
  }

  Fault draw_fault() {
    if (!config.faults.any()) return Fault::kNone;
    const double u = std::uniform_real_distribution<double>(0.0, 1.0)(fault_rng);
    const FaultConfig& f = config.faults;
    double edge = 0;
    for (const auto& [p, fault] : {std::pair{f.status_429, Fault::k429}, std::pair{f.status_500, Fault::k500},
                                   std::pair{f.status_503, Fault::k503}, std::pair{f.reset, Fault::kReset},
                                   std::pair{f.stall, Fault::kStall}, std::pair{f.malformed, Fault::kMalformed},
                                   std::pair{f.overlong, Fault::kOverlong}, std::pair{f.usage_short, Fault::kUsageShort},
                                   std::pair{f.early_stop, Fault::kEarlyStop}}) {
      edge += p;
      if (u < edge) return fault;
    }
    return Fault::kNone;
  }

  awaitable<void> accept_loop() {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket = co_await acceptor.async_accept(net::redirect_error(use_awaitable, ec));
      if (ec) {
        if (stopping) co_return;
        continue;  // a failed accept (EMFILE, a reset during the handshake) must not stop the server
      }
      socket.set_option(tcp::no_delay(true), ec);
      net::co_spawn(ioc, session(std::move(socket)), net::detached);
    }
  }

  awaitable<void> engine_loop() {
    double step_start = 0;
    std::vector<std::pair<EngineStep, double>> batch;  // steps waiting to be delivered, with their end times
    for (;;) {
      if (stopping) co_return;
      if (!engine->has_work()) {
        boost::system::error_code ec;
        co_await work_arrived.async_wait(net::redirect_error(use_awaitable, ec));
        work_arrived.expires_at(Clock::time_point::max());
        continue;
      }
      // Steps ending within kDeliveryWindow of the first one's end are run back to back and delivered
      // together at the last one's end: with tiny steps (or a high --time-scale) each stream then writes
      // many tokens per write instead of one write per token. No token is ever delivered before its step's
      // end, nor more than kDeliveryWindow after it. Taking a step admits the requests waiting then, so a step
      // is taken ahead of its start only when it is expected to end inside the window, judged by the last
      // one's length. (Checking after taking it put every second step of milliseconds into the batch:
      // tokens came in pairs a step late, and a request arriving meanwhile missed both steps.)
      batch.clear();
      Clock::time_point first_end;
      while (batch.size() < kMaxStepsPerDelivery && engine->has_work()) {
        step_start = std::max(step_start, sim_now());
        EngineStep step = engine->step(step_start);
        const double step_end = step_start + step.duration_s;
        const Clock::time_point end = wall_at(step_end);
        const Clock::duration length = end - wall_at(step_start);
        if (batch.empty()) first_end = end;
        batch.emplace_back(std::move(step), step_end);
        step_start = step_end;
        if (end + length - first_end >= kDeliveryWindow) break;
      }
      // A step longer than the last one (a prefill after decodes) may end past the window: the steps before
      // it go at their own end, it at its own.
      const Clock::time_point last_end = wall_at(batch.back().second);
      std::size_t delivered = 0;
      if (batch.size() > 1 && last_end - first_end > kDeliveryWindow) {
        co_await sleep_until(wall_at(batch[batch.size() - 2].second));
        for (; delivered + 1 < batch.size(); ++delivered) deliver(batch[delivered].first, batch[delivered].second);
      }
      co_await sleep_until(last_end);
      for (; delivered < batch.size(); ++delivered) deliver(batch[delivered].first, batch[delivered].second);
    }
  }

  awaitable<void> sleep_until(Clock::time_point t) {
    step_timer.expires_at(t);
    boost::system::error_code ec;
    co_await step_timer.async_wait(net::redirect_error(use_awaitable, ec));
  }

  void deliver(const EngineStep& step, double step_end) {
    metrics.record_step(engine->gauges());
    for (const TokenEvent& ev : step.events) {
      const auto it = streams.find(ev.request);
      if (it == streams.end()) continue;  // the client went away; its tokens are dropped
      StreamState& s = *it->second;
      metrics.record_tokens(ev.tokens, s.last_emit_s < 0 ? step_end - s.arrival_s : -1,
                            s.last_emit_s >= 0 ? (step_end - s.last_emit_s) / ev.tokens : -1, ev.tokens);
      s.last_emit_s = step_end;
      s.ready += ev.tokens;
      if (ev.finished) {
        s.finished = true;
        metrics.record_finished(step_end - s.arrival_s);
      }
      s.notify.cancel();
    }
  }

  template <class Body>
  static awaitable<void> send(beast::tcp_stream& stream, http::response<Body>& res) {
    res.prepare_payload();
    co_await http::async_write(stream, res, use_awaitable);
  }

  static http::response<http::string_body> make_response(const http::request<http::string_body>& req,
                                                          http::status status, std::string_view content_type,
                                                          std::string body) {
    http::response<http::string_body> res{status, req.version()};
    res.set(http::field::server, "perfhound-serve");
    res.set(http::field::content_type, content_type);
    res.keep_alive(req.keep_alive());
    res.body() = std::move(body);
    return res;
  }

  // Refuses a request (413, 431) with OpenAI's error body and closes: answer, then a lingering close (stop
  // sending, read and discard what the client is still uploading, so its write completes and it reads the
  // refusal instead of failing with a reset).
  static awaitable<void> refuse_and_close(beast::tcp_stream& stream, const http::request<http::string_body>& req,
                                          http::status status, std::string message) {
    auto res = make_response(req, status, "application/json",
                             error_body({static_cast<int>(status), std::move(message), ""}));
    res.keep_alive(false);
    co_await send(stream, res);
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    std::array<char, 64 * 1024> sink;
    for (std::size_t drained = 0; drained < kMaxLingerBytes;) {
      stream.expires_after(kLingerTimeout);
      boost::system::error_code read_ec;
      drained += co_await stream.async_read_some(net::buffer(sink), net::redirect_error(use_awaitable, read_ec));
      if (read_ec) break;
    }
  }

  awaitable<void> session(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    fmt::memory_buffer out;  // reused for every chunk of every response on this connection
    try {
      for (;;) {
        http::request_parser<http::string_body> parser;
        parser.body_limit(kMaxBodyBytes);
        parser.header_limit(kMaxHeaderBytes);
        stream.expires_after(std::chrono::milliseconds(config.idle_timeout_ms));
        boost::system::error_code ec;
        co_await http::async_read(stream, buffer, parser, net::redirect_error(use_awaitable, ec));
        if (ec == http::error::header_limit) {
          // Nothing of the request is trusted past this point (its version, its keep-alive): a fresh HTTP/1.1
          // request stands in for it, and the connection closes.
          co_await refuse_and_close(stream, http::request<http::string_body>{},
                                    http::status::request_header_fields_too_large,
                                    fmt::format("request headers exceed {} bytes", kMaxHeaderBytes));
          break;
        }
        if (ec == http::error::body_limit) {
          co_await refuse_and_close(stream, parser.get(), http::status::payload_too_large,
                                    fmt::format("request body exceeds {} bytes", kMaxBodyBytes));
          break;
        }
        if (ec) break;  // end of stream, timeout, a malformed request line: close quietly
        stream.expires_never();
        http::request<http::string_body> req = parser.release();
        const bool keep_open = co_await route(stream, req, out);
        if (!keep_open || !req.keep_alive()) break;
      }
    } catch (const std::exception&) {
      // A write to a client that went away: that client's problem, never the server's.
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  awaitable<bool> route(beast::tcp_stream& stream, const http::request<http::string_body>& req, fmt::memory_buffer& out) {
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (req.method() == http::verb::get && path == "/health") {
      auto res = make_response(req, http::status::ok, "text/plain", "");
      co_await send(stream, res);
      co_return true;
    }
    if (req.method() == http::verb::get && path == "/v1/models") {
      auto res = make_response(req, http::status::ok, "application/json", models_body(config.model_name, created_unix));
      co_await send(stream, res);
      co_return true;
    }
    if (req.method() == http::verb::get && path == "/metrics") {
      auto res = make_response(req, http::status::ok, "text/plain; version=0.0.4", metrics.render(config.model_name, engine->gauges()));
      co_await send(stream, res);
      co_return true;
    }
    if (path == "/v1/completions" || path == "/v1/chat/completions") {
      if (req.method() != http::verb::post) {
        auto res = make_response(req, http::status::method_not_allowed, "application/json",
                                 error_body({405, fmt::format("{} takes POST", path), ""}));
        co_await send(stream, res);
        co_return true;
      }
      co_return co_await complete(stream, req, path == "/v1/completions" ? Endpoint::kCompletions : Endpoint::kChatCompletions, out);
    }
    auto res = make_response(req, http::status::not_found, "application/json",
                             error_body({404, fmt::format("no route {} {}", std::string_view(req.method_string()), path), ""}));
    co_await send(stream, res);
    co_return true;
  }

  awaitable<bool> complete(beast::tcp_stream& stream, const http::request<http::string_body>& req, Endpoint endpoint,
                           fmt::memory_buffer& out) {
    const ParseResult parsed = parse_request(req.body(), endpoint);
    if (!parsed.ok) {
      auto res = make_response(req, static_cast<http::status>(parsed.error.status), "application/json", error_body(parsed.error));
      co_await send(stream, res);
      co_return true;
    }
    const ParsedRequest& r = parsed.request;
    const Fault fault = draw_fault();
    if (fault == Fault::k429 || fault == Fault::k500 || fault == Fault::k503) {
      const int status = fault == Fault::k429 ? 429 : fault == Fault::k500 ? 500 : 503;
      metrics.record_fault(fault_name(fault));
      auto res = make_response(req, static_cast<http::status>(status), "application/json",
                               error_body({status, fmt::format("simulated fault: HTTP {} (perfhound serve --fault-{})", status, status), ""}));
      co_await send(stream, res);
      co_return true;
    }

    ResponseIdentity identity;
    identity.endpoint = endpoint;
    identity.model = config.model_name;
    identity.created = created_unix;
    identity.include_usage = r.include_usage;
    identity.id = fmt::format("{}-{}", endpoint == Endpoint::kChatCompletions ? "chatcmpl" : "cmpl", next_response_id++);

    StreamState state(stream.get_executor());
    state.arrival_s = sim_now();
    const auto submitted = engine->submit(r.prompt_tokens, r.max_tokens, state.arrival_s);
    if (!submitted.ok()) {
      auto res = make_response(req, http::status::bad_request, "application/json",
                               error_body({400, submitted.error().message, "max_tokens"}));
      co_await send(stream, res);
      co_return true;
    }
    const std::uint64_t id = submitted.value();
    streams.emplace(id, &state);
    metrics.record_request(r.prompt_tokens);
    work_arrived.cancel();
    struct Unregister {  // the engine loop must never touch a finished stream's state
      Impl& impl;
      std::uint64_t id;
      const StreamState& state;
      ~Unregister() {
        impl.streams.erase(id);
        if (!state.finished) impl.engine->abort(id);  // the client left early: free its KV and batch slot
      }
    } unregister{*this, id, state};

    if (!r.stream) {
      std::int64_t produced = 0;
      while (!state.finished) {
        boost::system::error_code ec;
        co_await state.notify.async_wait(net::redirect_error(use_awaitable, ec));
        state.notify.expires_at(Clock::time_point::max());
      }
      produced = state.ready;
      std::string text;
      for (std::int64_t i = 0; i < produced; ++i) text += kWords[static_cast<std::size_t>(i) % kWords.size()];
      auto res = make_response(req, http::status::ok, "application/json",
                               full_response(identity, text, r.prompt_tokens, produced, "length"));
      co_await send(stream, res);
      co_return true;
    }

    http::response<http::empty_body> header{http::status::ok, req.version()};
    header.set(http::field::server, "perfhound-serve");
    header.set(http::field::content_type, "text/event-stream");
    header.set(http::field::cache_control, "no-cache");
    header.keep_alive(req.keep_alive());
    header.chunked(true);
    http::response_serializer<http::empty_body> serializer{header};
    co_await http::async_write_header(stream, serializer, use_awaitable);

    std::int64_t written = 0;
    bool first = true;
    bool fault_done = fault == Fault::kNone;
    const std::int64_t fault_at = std::max<std::int64_t>(1, r.max_tokens / 2);
    for (;;) {
      while (state.ready == 0 && !state.finished) {
        boost::system::error_code ec;
        co_await state.notify.async_wait(net::redirect_error(use_awaitable, ec));
        state.notify.expires_at(Clock::time_point::max());
      }
      const std::int64_t n = state.ready;
      state.ready = 0;
      out.clear();
      const std::int64_t emit_ts = r.emit_timestamps
                                       ? std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count()
                                       : -1;
      for (std::int64_t i = 0; i < n; ++i, ++written) {
        append_token_chunk(out, identity, kWords[static_cast<std::size_t>(written) % kWords.size()], first, emit_ts);
        first = false;
      }
      if (!fault_done && written >= fault_at) {
        fault_done = true;
        metrics.record_fault(fault_name(fault));
        if (fault == Fault::kReset) {
          if (out.size() > 0) co_await net::async_write(stream, http::make_chunk(net::buffer(out.data(), out.size())), use_awaitable);
          boost::system::error_code ignored;
          stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
          stream.socket().close(ignored);
          co_return false;
        }
        if (fault == Fault::kMalformed) fmt::format_to(std::back_inserter(out), "data: {{\"choices\": [{{\"delta\"\n\n");
        if (fault == Fault::kOverlong) {
          fmt::format_to(std::back_inserter(out), "data: {{\"perfhound_padding\": \"{}\"}}\n\n",
                         std::string(config.faults.overlong_bytes, 'x'));
        }
        if (fault == Fault::kEarlyStop) {
          append_finish_chunk(out, identity, "stop");
          if (r.include_usage) append_usage_chunk(out, identity, r.prompt_tokens, written);
          append_done(out);
          co_await net::async_write(stream, http::make_chunk(net::buffer(out.data(), out.size())), use_awaitable);
          co_await net::async_write(stream, http::make_chunk_last(), use_awaitable);
          co_return true;  // Unregister aborts the sequence in the engine
        }
        if (fault == Fault::kStall) {
          if (out.size() > 0) co_await net::async_write(stream, http::make_chunk(net::buffer(out.data(), out.size())), use_awaitable);
          out.clear();
          net::steady_timer stall(stream.get_executor(), std::chrono::milliseconds(config.faults.stall_ms));
          co_await stall.async_wait(use_awaitable);
        }
      }
      if (state.finished && state.ready == 0) {
        append_finish_chunk(out, identity, "length");
        if (r.include_usage) {
          append_usage_chunk(out, identity, r.prompt_tokens, fault == Fault::kUsageShort ? written - 1 : written);
        }
        append_done(out);
        co_await net::async_write(stream, http::make_chunk(net::buffer(out.data(), out.size())), use_awaitable);
        co_await net::async_write(stream, http::make_chunk_last(), use_awaitable);
        co_return true;
      }
      if (out.size() > 0) co_await net::async_write(stream, http::make_chunk(net::buffer(out.data(), out.size())), use_awaitable);
    }
  }

  ServerConfig config;
  std::unique_ptr<TokenEngine> engine;
  net::io_context ioc{1};
  tcp::acceptor acceptor;
  net::steady_timer work_arrived;
  net::steady_timer step_timer;
  std::mt19937_64 fault_rng;
  std::unordered_map<std::uint64_t, StreamState*> streams;
  ServerMetrics metrics;
  Clock::time_point started = Clock::now();
  std::int64_t created_unix = std::chrono::duration_cast<std::chrono::seconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  std::uint64_t next_response_id = 1;
  std::atomic<bool> stopping{false};
};

core::Result<std::unique_ptr<HttpServer>> HttpServer::create(ServerConfig config, std::unique_ptr<TokenEngine> engine) {
  if (!(config.time_scale > 0)) return core::Error{"--time-scale must be positive"};
  auto impl = std::make_unique<Impl>(std::move(config), std::move(engine));
  boost::system::error_code ec;
  const auto address = net::ip::make_address(impl->config.address, ec);
  if (ec) return core::Error{fmt::format("--host: '{}' is not an IP address", impl->config.address)};
  const tcp::endpoint endpoint(address, impl->config.port);
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return core::Error{fmt::format("cannot listen on {}:{}: {}", impl->config.address, impl->config.port, ec.message())};
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpServer::~HttpServer() = default;

std::uint16_t HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpServer::run(double duration_s) {
  net::co_spawn(impl_->ioc, impl_->accept_loop(), net::detached);
  net::co_spawn(impl_->ioc, impl_->engine_loop(), net::detached);
  net::signal_set signals(impl_->ioc);
  if (impl_->config.handle_signals) {
    signals.add(SIGINT);
    signals.add(SIGTERM);
    signals.async_wait([this](const boost::system::error_code& ec, int) {
      if (!ec) stop();
    });
  }
  net::steady_timer deadline(impl_->ioc);
  if (duration_s > 0) {
    deadline.expires_after(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(duration_s)));
    deadline.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) stop();
    });
  }
  impl_->ioc.run();
}

void HttpServer::stop() {
  impl_->stopping = true;
  net::post(impl_->ioc, [impl = impl_.get()] {
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    impl->work_arrived.cancel();
    impl->step_timer.cancel();
    impl->ioc.stop();
  });
}

}  // namespace perfhound::serve
