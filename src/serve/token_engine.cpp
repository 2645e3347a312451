#include "serve/token_engine.h"

#include <algorithm>

namespace perfhound::serve {

core::Result<std::uint64_t> FixedStepEngine::submit(std::int64_t /*prompt_tokens*/, std::int64_t max_tokens,
                                                     double /*now_s*/) {
  const std::uint64_t id = next_id_++;
  active_.push_back({id, max_tokens});
  return id;
}

void FixedStepEngine::abort(std::uint64_t id) {
  std::erase_if(active_, [id](const Active& a) { return a.id == id; });
}

EngineStep FixedStepEngine::step(double /*now_s*/) {
  EngineStep s;
  s.duration_s = step_s_;
  s.events.reserve(active_.size());
  for (auto& a : active_) {
    --a.remaining;
    s.events.push_back({a.id, 1, a.remaining == 0});
  }
  std::erase_if(active_, [](const Active& a) { return a.remaining == 0; });
  return s;
}

EngineGauges FixedStepEngine::gauges() const {
  EngineGauges g;
  g.running = static_cast<std::int64_t>(active_.size());
  return g;
}

}  // namespace perfhound::serve
