// The simulator's continuous-batching engine (src/sim) behind the server's TokenEngine interface.
#pragma once

#include <memory>

#include "serve/token_engine.h"
#include "sim/engine.h"

namespace perfhound::serve {

class SimTokenEngine final : public TokenEngine {
 public:
  explicit SimTokenEngine(sim::Engine engine) : engine_(std::move(engine)) {}
  core::Result<std::uint64_t> submit(std::int64_t prompt_tokens, std::int64_t max_tokens, double now_s) override;
  void abort(std::uint64_t id) override { engine_.abort_request(id); }
  bool has_work() const override { return engine_.has_unfinished_requests(); }
  EngineStep step(double now_s) override;
  EngineGauges gauges() const override;
  const sim::Engine& engine() const { return engine_; }

 private:
  sim::Engine engine_;
  std::uint64_t next_id_ = 1;
};

}  // namespace perfhound::serve
