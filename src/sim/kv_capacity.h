// How many paged KV-cache blocks fit on each GPU, as vLLM sizes its cache:
//   blocks = floor((memory_capacity x gpu_memory_utilization - weight bytes) / bytes per block), per GPU,
// where the weights are every stored parameter (all experts of an MoE: they are resident, even if a step
// reads only some) at the weight precision over tensor_parallel, and a block is block_size_tokens tokens of
// KV cache at the KV precision over tensor_parallel (an MLA latent is replicated, not divided; the same rule
// as model::step_cost, from which the per-token figure is taken).
// vLLM also subtracts the peak activation memory of its profiling run and the CUDA graph pool, which this does
// not size, so the capacity here is an upper bound of vLLM's (vLLM logs its own at start-up as "GPU KV cache
// size: N tokens": compare with tokens() before trusting a simulated knee that depends on it).
#pragma once

#include <cstdint>

#include "core/result.h"
#include "sim/engine_config.h"

namespace perfhound::sim {

struct KvCapacity {
  double usable_bytes = 0;     // per GPU: memory capacity x gpu_memory_utilization
  double weight_bytes = 0;     // per GPU: every stored parameter
  double bytes_per_block = 0;  // per GPU
  std::int64_t block_size_tokens = 0;
  std::int64_t blocks = 0;     // >= 1

  std::int64_t tokens() const { return blocks * block_size_tokens; }
};

// Error when the weights do not fit in the usable memory, or fit with no room for one block; the message
// gives both sizes and the levers: "weights of 'llama-3-70b' need 141 GB per GPU at bf16 and
// tensor_parallel 1, more than the 127 GB usable (0.9 of the 141 GB of NVIDIA H200 SXM 141GB): raise
// tensor_parallel, quantize the weights, or use a chip with more memory".
core::Result<KvCapacity> kv_capacity(const EngineConfig& config);

}  // namespace perfhound::sim
