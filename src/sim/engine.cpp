#include "sim/engine.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "core/check.h"
#include "core/units.h"

namespace perfhound::sim {

core::Result<Engine> Engine::create(EngineConfig config) {
  PH_TRY(validate(config));
  const auto& precision = model::precision_info(config.weight_precision);
  PH_ASSIGN_OR_RETURN(hw::Roof compute, hw::compute_roof(config.chip, precision.peak_key));
  hw::Roof memory = hw::memory_roof(config.chip);
  PH_ASSIGN_OR_RETURN(KvCapacity capacity, sim::kv_capacity(config));
  return Engine(std::move(config), capacity, std::move(compute), std::move(memory));
}

Engine::Engine(EngineConfig config, KvCapacity capacity, hw::Roof compute, hw::Roof memory)
    : config_(std::move(config)),
      params_(model::count_parameters(config_.shape)),
      capacity_(capacity),
      compute_roof_(std::move(compute)),
      memory_roof_(std::move(memory)),
      free_blocks_(capacity.blocks),
      free_at_ns_(std::numeric_limits<std::int64_t>::min()),
      last_arrival_ns_(std::numeric_limits<std::int64_t>::min()) {
  workload_.weight_precision = config_.weight_precision;
  workload_.kv_precision = config_.kv_precision;
  workload_.tensor_parallel = config_.tensor_parallel;
  time_model_ = {compute_roof_.value, memory_roof_.value, config_.compute_efficiency, config_.bandwidth_efficiency,
                 config_.step_overhead_ns};
  const auto seqs = static_cast<std::size_t>(config_.max_num_seqs);
  running_.reserve(seqs);
  scheduled_.reserve(seqs);
  chunks_.reserve(seqs);
  result_.tokens.reserve(seqs);
  result_.preempted_ids.reserve(seqs);
}

std::int64_t Engine::blocks_for(std::int64_t tokens) const {
  return (tokens + config_.block_size_tokens - 1) / config_.block_size_tokens;
}

core::Status Engine::add_request(const Request& r) {
  const auto error = [&](const std::string& what) { return core::Error{fmt::format("request {}: {}", r.id, what)}; };
  if (r.prompt_tokens < 1) return error(fmt::format("prompt_tokens must be at least 1, got {}", r.prompt_tokens));
  if (r.max_output_tokens < 1) {
    return error(fmt::format("max_output_tokens must be at least 1, got {}", r.max_output_tokens));
  }
  const std::int64_t max_len = config_.shape.max_position_embeddings;
  if (max_len > 0 && r.prompt_tokens + r.max_output_tokens > max_len) {
    return error(fmt::format("{} prompt + {} output tokens exceed the {}-token context of '{}' "
                             "(max_position_embeddings); shorten the prompt or lower max_tokens",
                             r.prompt_tokens, r.max_output_tokens, max_len, config_.shape.name));
  }
  const std::int64_t need = blocks_for(r.prompt_tokens + r.max_output_tokens - 1);
  if (need > capacity_.blocks) {
    return error(fmt::format("{} prompt + {} output tokens need {} KV blocks of {} tokens, more than the {} the "
                             "cache holds; it could never run: lower max_tokens, or give the cache more memory",
                             r.prompt_tokens, r.max_output_tokens, need, config_.block_size_tokens,
                             capacity_.blocks));
  }
  if (r.arrival_ns < last_arrival_ns_) {
    return error(fmt::format("arrival_ns {} is before the previous request's {}: add requests in arrival order",
                             r.arrival_ns, last_arrival_ns_));
  }
  last_arrival_ns_ = r.arrival_ns;
  waiting_.push_back({.request = r, .tokens = r.prompt_tokens});
  ++counters_.requests_added;
  return {};
}

void Engine::schedule(std::size_t running_index, std::int64_t new_tokens) {
  Sequence& s = running_[running_index];
  const std::int64_t grow = blocks_for(s.computed + new_tokens) - s.blocks;
  PH_CHECK(grow <= free_blocks_);
  s.blocks += grow;
  free_blocks_ -= grow;
  scheduled_.push_back({running_index, new_tokens});
  chunks_.push_back({.new_tokens = static_cast<double>(new_tokens),
                     .context_before = static_cast<double>(s.computed),
                     .emits_token = s.computed + new_tokens == s.tokens});
}

void Engine::preempt_last_running() {
  Sequence s = running_.back();
  running_.pop_back();
  free_blocks_ += s.blocks;
  s.blocks = 0;
  s.computed = 0;  // recompute: the prompt and the tokens generated so far are prefilled again
  result_.preempted_ids.push_back(s.request.id);
  waiting_.push_front(s);
  ++result_.record.preempted;
  ++counters_.preemptions;
}

const StepResult& Engine::step(std::int64_t now_ns) {
  PH_CHECK(now_ns >= free_at_ns_);
  result_.tokens.clear();
  result_.preempted_ids.clear();
  result_.record = StepRecord{};
  result_.record.start_ns = now_ns;
  scheduled_.clear();
  chunks_.clear();
  std::int64_t budget = config_.max_num_batched_tokens;

  // 1. Running sequences first, in admission order.
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    const Sequence& s = running_[i];
    const std::int64_t new_tokens = std::min(s.tokens - s.computed, budget);
    const std::int64_t grow = blocks_for(s.computed + new_tokens) - s.blocks;
    bool preempted_self = false;
    while (grow > free_blocks_) {
      preempted_self = i + 1 == running_.size();
      preempt_last_running();  // the most recently admitted; never one scheduled already (they are before i)
      if (preempted_self) break;
    }
    if (preempted_self) break;
    schedule(i, new_tokens);
    budget -= new_tokens;
  }

  // 2. Admission, first come first served, unless this step had to preempt (vLLM V1 does the same: the
  // freed blocks go to the preempted first when they return to the head of the queue).
  if (result_.record.preempted == 0) {
    while (!waiting_.empty() && budget > 0 && static_cast<std::int64_t>(running_.size()) < config_.max_num_seqs &&
           waiting_.front().request.arrival_ns <= now_ns) {
      const Sequence& head = waiting_.front();
      const std::int64_t new_tokens = std::min(head.tokens - head.computed, budget);
      if (blocks_for(new_tokens) > free_blocks_) break;
      running_.push_back(head);
      waiting_.pop_front();
      schedule(running_.size() - 1, new_tokens);
      budget -= new_tokens;
      ++result_.record.admitted;
    }
  }

  StepRecord& rec = result_.record;
  rec.num_seqs = static_cast<std::int64_t>(scheduled_.size());
  if (scheduled_.empty()) {
    free_at_ns_ = now_ns;
  } else {
    // 3. The roofline duration of everything scheduled, as one forward pass.
    rec.cost = model::step_cost(config_.shape, params_, workload_, chunks_);
    rec.time = step_time(rec.cost, time_model_);
    rec.dur_ns = rec.time.dur_ns;
    const std::int64_t end_ns = now_ns + rec.dur_ns;

    // 4. Sample, in batch order.
    for (const Scheduled& sch : scheduled_) {
      Sequence& s = running_[sch.running_index];
      // A decode computes exactly the one token sampled last step; anything else is (re)prefill.
      const bool decode = s.generated > 0 && sch.new_tokens == 1 && s.computed + 1 == s.tokens;
      (decode ? rec.decode_tokens : rec.prefill_tokens) += sch.new_tokens;
      s.computed += sch.new_tokens;
      if (s.computed < s.tokens) continue;  // a prefill chunk short of the end samples nothing
      ++s.generated;
      ++s.tokens;
      ++counters_.generation_tokens;
      if (s.generated == 1) counters_.prompt_tokens += s.request.prompt_tokens;
      const bool finished = s.generated == s.request.max_output_tokens;
      result_.tokens.push_back({.request_id = s.request.id,
                                .time_ns = end_ns,
                                .output_index = s.generated,
                                .first = s.generated == 1,
                                .finished = finished});
      if (finished) {
        free_blocks_ += s.blocks;
        s.blocks = 0;
        ++rec.finished;
      }
    }
    counters_.prefill_tokens += rec.prefill_tokens;
    counters_.requests_finished += rec.finished;
    if (rec.finished > 0) {
      // Finished sequences leave in place: the survivors keep their admission order.
      std::erase_if(running_, [](const Sequence& s) { return s.generated == s.request.max_output_tokens; });
    }
    ++counters_.steps;
    counters_.busy_ns += rec.dur_ns;
    free_at_ns_ = end_ns;
  }
  rec.running = static_cast<std::int64_t>(running_.size());
  rec.waiting = static_cast<std::int64_t>(waiting_.size());
  rec.kv_blocks_used = capacity_.blocks - free_blocks_;
  return result_;
}

bool Engine::abort_request(std::uint64_t id) {
  const auto matches = [id](const Sequence& s) { return s.request.id == id; };
  if (const auto it = std::find_if(running_.begin(), running_.end(), matches); it != running_.end()) {
    free_blocks_ += it->blocks;
    running_.erase(it);  // the others keep their admission order
  } else if (const auto w = std::find_if(waiting_.begin(), waiting_.end(), matches); w != waiting_.end()) {
    waiting_.erase(w);  // waiting sequences hold no blocks (a preempted one gave them back)
  } else {
    return false;
  }
  ++counters_.requests_aborted;
  return true;
}

EngineGauges Engine::gauges() const {
  EngineGauges g;
  g.running = static_cast<std::int64_t>(running_.size());
  g.waiting = static_cast<std::int64_t>(waiting_.size());
  g.kv_blocks_total = capacity_.blocks;
  g.kv_blocks_used = capacity_.blocks - free_blocks_;
  g.kv_usage_ratio = core::ratio_or_zero(g.kv_blocks_used, g.kv_blocks_total);
  return g;
}

}  // namespace perfhound::sim
