#include "sim/engine_config.h"

#include <fmt/format.h>

namespace perfhound::sim {
namespace {

core::Status fraction(std::string_view field, double value) {
  if (!(value > 0 && value <= 1)) return core::Error{fmt::format("{} must be in (0, 1], got {}", field, value)};
  return {};
}

core::Status at_least_one(std::string_view field, std::int64_t value) {
  if (value < 1) return core::Error{fmt::format("{} must be at least 1, got {}", field, value)};
  return {};
}

}  // namespace

core::Status validate(const EngineConfig& c) {
  PH_TRY(at_least_one("tensor_parallel", c.tensor_parallel));
  PH_TRY(at_least_one("block_size_tokens", c.block_size_tokens));
  PH_TRY(at_least_one("max_num_seqs", c.max_num_seqs));
  PH_TRY(at_least_one("max_num_batched_tokens", c.max_num_batched_tokens));
  PH_TRY(fraction("gpu_memory_utilization", c.gpu_memory_utilization));
  PH_TRY(fraction("compute_efficiency", c.compute_efficiency));
  PH_TRY(fraction("bandwidth_efficiency", c.bandwidth_efficiency));
  if (c.step_overhead_ns < 0) {
    return core::Error{fmt::format("step_overhead_ns must not be negative, got {}", c.step_overhead_ns)};
  }
  // vLLM's SchedulerConfig rejects this too: each running sequence needs one token of the budget per step, or
  // decodes would starve.
  if (c.max_num_batched_tokens < c.max_num_seqs) {
    return core::Error{fmt::format("max_num_batched_tokens {} is below max_num_seqs {}: every running sequence "
                                   "needs one token of the step budget; raise max_num_batched_tokens or lower "
                                   "max_num_seqs",
                                   c.max_num_batched_tokens, c.max_num_seqs)};
  }
  // Tensor parallelism shards the attention heads (vLLM requires the same).
  if (c.shape.num_attention_heads % c.tensor_parallel != 0) {
    return core::Error{fmt::format("tensor_parallel {} does not divide the {} attention heads of '{}'",
                                   c.tensor_parallel, c.shape.num_attention_heads, c.shape.name)};
  }
  return {};
}

}  // namespace perfhound::sim
