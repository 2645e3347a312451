// Transformer arithmetic: parameters, FLOPs and bytes per step, KV cache per token. Pure functions of a
// ModelShape; the conventions below are the ones docs/metrics.md states.
//
// Conventions:
//  - FLOPs count multiply-adds as 2. Matmul FLOPs per token are 2 x the active matmul weights: every
//    active parameter except the input embedding (and learned position) tables, which are looked up, plus
//    the LM head (for tied embeddings the shared matrix is used again as the head and counted there).
//  - Attention FLOPs per token per layer at context c are 2 x heads x (qk_head_dim + v_head_dim) x c (QK^T
//    and AV). They use the query heads: GQA/MQA shrink the KV cache, not this. Causal prefill of length L
//    attends 1, 2, ..., L tokens: sum L(L+1)/2, about half of L^2.
//  - Prefill computes the LM head once per sequence (the last position's logits are all generation needs);
//    decode computes it once per new token.
//  - Bytes per step are the weights read once (for MoE only the experts some token routes to, expected
//    value under uniform routing: E x (1 - (1 - k/E)^T) per layer for T tokens), plus the KV cache: decode
//    reads every sequence's cache at its context length; prefill writes the new tokens' cache. Activations
//    are not counted (they mostly stay on chip in fused kernels).
//  - KV bytes per token: 2 (K and V) x layers x kv_heads x head_dim x bytes (GQA: the KV heads, not the
//    query heads; the MHA shortcut overcounts Llama-3-8B 4x). MLA (DeepSeek) caches the compressed latent:
//    layers x (kv_lora_rank + qk_rope_head_dim) x bytes.
//  - Tensor parallelism over N GPUs divides FLOPs, weight bytes and KV bytes by N per GPU (heads and
//    weights shard evenly; an MLA latent is replicated, so its KV bytes are not divided).
#pragma once

#include <cstdint>

#include "model/model_shape.h"
#include "model/precision.h"

namespace perfhound::model {

struct ParameterCount {
  std::int64_t total = 0;          // every stored parameter
  std::int64_t active = 0;         // used per token (MoE: experts_per_token routed + shared experts)
  std::int64_t embedding = 0;      // input token (+ learned position) tables
  std::int64_t lm_head = 0;        // 0 when tied to the embedding
  std::int64_t attention = 0;      // all layers
  std::int64_t dense_mlp = 0;      // all dense-MLP layers
  std::int64_t routed_experts = 0; // all routed experts of all MoE layers
  std::int64_t per_expert = 0;     // one routed expert of one layer
  std::int64_t shared_experts = 0; // all layers
  std::int64_t routers = 0;
  std::int64_t norms = 0;
  std::int64_t moe_layers = 0;
  std::int64_t matmul_active = 0;  // active matmul weights per token (see conventions), the 2x-FLOPs base
};

ParameterCount count_parameters(const ModelShape& shape);

// KV-cache bytes one token occupies, over all layers, at the given precision.
double kv_bytes_per_token(const ModelShape& shape, Precision kv_precision);

// Expected routed experts one MoE layer touches when `tokens` tokens each pick experts_per_token of
// num_experts uniformly: E x (1 - (1 - k/E)^tokens). Dense models: 0.
double experts_touched(const ModelShape& shape, double tokens);

struct Workload {
  std::int64_t batch = 1;
  std::int64_t input_len = 0;   // prompt tokens per sequence
  std::int64_t output_len = 0;  // generated tokens per sequence
  Precision weight_precision = Precision::kBf16;
  Precision kv_precision = Precision::kBf16;
  std::int64_t tensor_parallel = 1;
};

struct StepCost {
  double flops = 0;         // per GPU
  double weight_bytes = 0;  // per GPU
  double kv_bytes = 0;      // per GPU: read (decode) or written (prefill)
  double tokens = 0;        // tokens the step processes (all sequences)
  double context = 0;       // decode: the mean context a new token attends

  double bytes() const { return weight_bytes + kv_bytes; }
};

// The whole prefill of batch x input_len tokens: what TTFT measures (one forward pass).
StepCost prefill_cost(const ModelShape& shape, const ParameterCount& params, const Workload& w);
// One decode step of the batch at the mean context of the generation, input_len + output_len / 2: what
// TPOT measures on average.
StepCost decode_step_cost(const ModelShape& shape, const ParameterCount& params, const Workload& w);

}  // namespace perfhound::model
