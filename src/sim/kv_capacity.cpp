#include "sim/kv_capacity.h"

#include <cmath>
#include <fmt/format.h>

#include "core/units.h"
#include "model/transformer_math.h"

namespace perfhound::sim {

core::Result<KvCapacity> kv_capacity(const EngineConfig& c) {
  const model::ParameterCount params = model::count_parameters(c.shape);
  const auto& weights = model::precision_info(c.weight_precision);
  const double tp = static_cast<double>(c.tensor_parallel);
  KvCapacity k;
  k.block_size_tokens = c.block_size_tokens;
  k.usable_bytes = c.chip.memory_capacity_bytes * c.gpu_memory_utilization;
  k.weight_bytes = static_cast<double>(params.total) * weights.bytes_per_element / tp;
  model::Workload w;
  w.kv_precision = c.kv_precision;
  w.tensor_parallel = c.tensor_parallel;
  k.bytes_per_block = static_cast<double>(c.block_size_tokens) * model::kv_bytes_per_token_per_gpu(c.shape, w);

  const std::string usable = fmt::format("{} usable ({} of the {} of {})", core::format_si(k.usable_bytes, "B"),
                                         c.gpu_memory_utilization, core::format_si(c.chip.memory_capacity_bytes, "B"),
                                         c.chip.display_name.empty() ? c.chip.name : c.chip.display_name);
  if (k.weight_bytes >= k.usable_bytes) {
    return core::Error{fmt::format("weights of '{}' need {} per GPU at {} and tensor_parallel {}, more than the {}: "
                                   "raise tensor_parallel, quantize the weights, or use a chip with more memory",
                                   c.shape.name, core::format_si(k.weight_bytes, "B"), weights.name,
                                   c.tensor_parallel, usable)};
  }
  k.blocks = static_cast<std::int64_t>(std::floor((k.usable_bytes - k.weight_bytes) / k.bytes_per_block));
  if (k.blocks < 1) {
    return core::Error{fmt::format("weights of '{}' ({} per GPU) leave {} of the {} for the KV cache, less than one "
                                   "{}-token block ({}): raise gpu_memory_utilization or tensor_parallel, or quantize",
                                   c.shape.name, core::format_si(k.weight_bytes, "B"),
                                   core::format_si(k.usable_bytes - k.weight_bytes, "B"), usable,
                                   c.block_size_tokens, core::format_si(k.bytes_per_block, "B"))};
  }
  return k;
}

}  // namespace perfhound::sim
