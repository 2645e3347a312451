// The HTTP side of `perfhound serve`: Boost.Beast on one Asio thread with C++20 coroutines. One coroutine per
// connection (keep-alive), one coroutine driving the engine in simulated time: each engine step takes
// duration / time_scale of wall time, then its tokens are handed to the waiting streams, which write them as
// Server-Sent Events in chunked encoding.
//
// Endpoints: POST /v1/completions, POST /v1/chat/completions (stream or not), GET /v1/models, GET /health,
// GET /metrics (Prometheus text with vLLM's metric names). Bad requests get the OpenAI error body and 400;
// nothing a client sends takes the server down.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "core/result.h"
#include "serve/token_engine.h"

namespace perfhound::serve {

// Client-reliability faults, each a fraction of requests in [0, 1], drawn per request from `seed`.
struct FaultConfig {
  double status_429 = 0;   // answer 429 (rate limited) with the OpenAI error body
  double status_500 = 0;
  double status_503 = 0;
  double reset = 0;        // close the connection mid-stream, after half the tokens
  double stall = 0;        // stop sending for stall_ms mid-stream, then continue
  double malformed = 0;    // send one chunk whose data is not JSON
  double overlong = 0;     // send one SSE line of overlong_bytes
  // Dishonest servers, for perfhound audit's live checks to catch:
  double usage_short = 0;  // report usage.completion_tokens one below the tokens streamed
  double early_stop = 0;   // end the stream with finish_reason "stop" after half the tokens, ignore_eos or not
  std::int64_t stall_ms = 2000;
  std::size_t overlong_bytes = 1u << 20;
  std::uint64_t seed = 1;

  bool any() const {
    return status_429 + status_500 + status_503 + reset + stall + malformed + overlong + usage_short + early_stop > 0;
  }
};

struct ServerConfig {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8000;  // 0: any free port (port() tells which)
  std::string model_name = "perfhound-sim";
  double time_scale = 1.0;    // simulated seconds per wall second
  FaultConfig faults;
  // Stop on SIGINT / SIGTERM. An embedded server (perfhound load with no --url) leaves the signals to the
  // client, which ends its run cleanly and then stops the server.
  bool handle_signals = true;
  // A keep-alive connection idle this long is closed, so abandoned clients cannot pile up sockets. Real servers
  // are quicker than the default: uvicorn (under vLLM) closes after 5 s.
  std::int64_t idle_timeout_ms = 120'000;
};

class HttpServer {
 public:
  // Binds the listening socket (errors name the address and port). The engine is owned by the server.
  static core::Result<std::unique_ptr<HttpServer>> create(ServerConfig config, std::unique_ptr<TokenEngine> engine);
  ~HttpServer();

  std::uint16_t port() const;
  // Serves until stop() (from any thread), SIGINT or SIGTERM (when handle_signals), or `duration_s` of wall time when positive.
  void run(double duration_s = 0);
  void stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace perfhound::serve
