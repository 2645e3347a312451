// What the continuous-batching engine model simulates: a model on a chip at a precision and tensor parallel
// degree, with vLLM's scheduler limits, and how close to the chip's roofs the engine runs. The defaults are
// vLLM's where vLLM has one (named below with where it comes from), so a simulated run is comparable with a
// default `vllm serve`.
#pragma once

#include <cstdint>

#include "core/result.h"
#include "hw/chip_spec.h"
#include "model/model_shape.h"
#include "model/precision.h"

namespace perfhound::sim {

// vLLM's default --block-size on CUDA: the paged-attention KV page, in tokens.
inline constexpr std::int64_t kDefaultBlockSizeTokens = 16;
// vLLM's default --gpu-memory-utilization: the share of device memory for weights and KV cache; the rest is
// left to activations, CUDA graphs and the allocator, which this model does not size.
inline constexpr double kDefaultGpuMemoryUtilization = 0.9;
// vLLM's default --max-num-seqs (V0, and V1 on GPUs under 70 GiB; V1 raises it to 1024 on larger ones:
// vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults).
inline constexpr std::int64_t kDefaultMaxNumSeqs = 256;
// vLLM V1's default --max-num-batched-tokens for the OpenAI server on GPUs with at least 70 GiB (H100, H200,
// MI300X; same function): the per-step token budget chunked prefill splits prompts by.
inline constexpr std::int64_t kDefaultMaxNumBatchedTokens = 8192;
// Achievable over spec-sheet peak FLOP/s: the top of the seed's "well-tuned prefill hits 40-70% MFU", since
// the engine modelled is a tuned one (FlashAttention, fused GEMMs).
inline constexpr double kDefaultComputeEfficiency = 0.7;
// Achievable over spec-sheet bandwidth: the seed's "MBU ~80%+ is near the bandwidth roofline"; a measured
// device-to-device copy reaches 0.85 on H200 (4.06 of 4.8 TB/s, data/hw/h200-sxm.json), kernels less.
inline constexpr double kDefaultBandwidthEfficiency = 0.8;
// Host time per engine step the GPU waits for (scheduling, input preparation, sampling, output processing,
// launch gaps), which can exceed half of vLLM's inference time on fast kernels
// (mlsys.wuklab.io/posts/scheduling_overhead, 2024). 300 us is an order of magnitude, not a measurement: set
// it from the gaps `perfhound trace` finds in a trace of the real engine.
inline constexpr std::int64_t kDefaultStepOverheadNs = 300'000;

struct EngineConfig {
  model::ModelShape shape;
  hw::ChipSpec chip;  // per GPU; its measured ceilings win over the spec sheet (hw::compute_roof, memory_roof)
  model::Precision weight_precision = model::Precision::kBf16;  // also picks the compute roof
  model::Precision kv_precision = model::Precision::kBf16;
  std::int64_t tensor_parallel = 1;  // GPUs the model is split over; every figure here is per GPU
  std::int64_t block_size_tokens = kDefaultBlockSizeTokens;
  double gpu_memory_utilization = kDefaultGpuMemoryUtilization;  // (0, 1]
  std::int64_t max_num_seqs = kDefaultMaxNumSeqs;                // running sequences at most
  std::int64_t max_num_batched_tokens = kDefaultMaxNumBatchedTokens;  // tokens computed per step at most
  double compute_efficiency = kDefaultComputeEfficiency;      // (0, 1], of the compute roof
  double bandwidth_efficiency = kDefaultBandwidthEfficiency;  // (0, 1], of the memory roof
  std::int64_t step_overhead_ns = kDefaultStepOverheadNs;     // added to every step, >= 0
  // Recorded with every result (STYLE rule 14). The model draws nothing random today (requests generate
  // exactly max_output_tokens, no EOS), so results do not depend on it; anything random added later must.
  std::uint64_t seed = 0;
};

// Errors name the field and the value: "max_num_seqs must be at least 1, got 0".
core::Status validate(const EngineConfig& config);

}  // namespace perfhound::sim
