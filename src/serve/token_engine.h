// What the HTTP server needs from an engine: requests in, steps that take simulated time and emit tokens.
// The server drives it in simulated time (scaled to wall time by --time-scale); it never sees the scheduler.
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"

namespace perfhound::serve {

struct TokenEvent {
  std::uint64_t request = 0;
  std::int32_t tokens = 1;    // tokens this step produced for the request (1 for decode)
  bool finished = false;      // the request's last token is among them
};

struct EngineStep {
  double duration_s = 0;          // simulated time the step takes
  std::vector<TokenEvent> events;  // emitted at the end of the step
};

struct EngineGauges {
  std::int64_t running = 0;
  std::int64_t waiting = 0;
  double kv_cache_usage = 0;  // 0..1
  std::int64_t preemptions = 0;
};

class TokenEngine {
 public:
  virtual ~TokenEngine() = default;
  // Queues a request; returns its id, or why the engine can never serve it (longer than the model's context,
  // more KV than the whole cache). prompt_tokens >= 0, max_tokens >= 1 (the parser guarantees both).
  virtual core::Result<std::uint64_t> submit(std::int64_t prompt_tokens, std::int64_t max_tokens, double now_s) = 0;
  // The client went away: stop spending steps on it.
  virtual void abort(std::uint64_t /*id*/) {}
  // Whether a step would do anything (no running or waiting request: the server sleeps until a submit).
  virtual bool has_work() const = 0;
  // Runs one scheduler iteration starting at simulated time now_s.
  virtual EngineStep step(double now_s) = 0;
  virtual EngineGauges gauges() const = 0;
};

// A fixed-cost engine: every step takes `step_s`, emits one token for every admitted request (prefill is one
// step of the same cost), admits everything waiting. The load generator's tests and the throughput benchmark
// use it: its timing is exact by construction.
class FixedStepEngine final : public TokenEngine {
 public:
  explicit FixedStepEngine(double step_s) : step_s_(step_s) {}
  core::Result<std::uint64_t> submit(std::int64_t prompt_tokens, std::int64_t max_tokens, double now_s) override;
  void abort(std::uint64_t id) override;
  bool has_work() const override { return !active_.empty(); }
  EngineStep step(double now_s) override;
  EngineGauges gauges() const override;

 private:
  struct Active {
    std::uint64_t id;
    std::int64_t remaining;
  };
  double step_s_;
  std::uint64_t next_id_ = 1;
  std::vector<Active> active_;
};

}  // namespace perfhound::serve
