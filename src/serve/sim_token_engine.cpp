#include "serve/sim_token_engine.h"

#include <cmath>

namespace perfhound::serve {

// A step that schedules nothing while requests wait (they are waiting for nothing the simulator models)
// still advances the clock by this much, so the server never spins.
constexpr double kIdleStepS = 1e-3;

core::Result<std::uint64_t> SimTokenEngine::submit(std::int64_t prompt_tokens, std::int64_t max_tokens, double now_s) {
  sim::Request r;
  r.id = next_id_++;
  r.arrival_ns = static_cast<std::int64_t>(std::llround(now_s * 1e9));
  r.prompt_tokens = std::max<std::int64_t>(prompt_tokens, 1);  // an empty prompt still has a BOS token
  r.max_output_tokens = max_tokens;
  PH_TRY(engine_.add_request(r));
  return r.id;
}

EngineStep SimTokenEngine::step(double now_s) {
  const sim::StepResult& r = engine_.step(static_cast<std::int64_t>(std::llround(now_s * 1e9)));
  EngineStep out;
  out.duration_s = r.idle() ? kIdleStepS : static_cast<double>(r.record.time.dur_ns) * 1e-9;
  out.events.reserve(r.tokens.size());
  for (const auto& t : r.tokens) out.events.push_back({t.request_id, 1, t.finished});
  return out;
}

EngineGauges SimTokenEngine::gauges() const {
  const sim::EngineGauges g = engine_.gauges();
  EngineGauges out;
  out.running = g.running;
  out.waiting = g.waiting;
  out.kv_cache_usage = g.kv_usage_ratio;
  out.preemptions = engine_.counters().preemptions;
  return out;
}

}  // namespace perfhound::serve
