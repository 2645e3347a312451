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
//    decode computes it once per new token. In general (step_cost) it runs once per sequence that samples a
//    token this step: every decode sequence, and a prefill chunk only when it reaches the end of the prompt.
//  - Bytes per step are the weights read once (for MoE only the experts some token routes to, expected
//    value under uniform routing: E x (1 - (1 - k/E)^T) per layer for T tokens), plus the KV cache: decode
//    reads every sequence's cache at its context length; prefill writes the new tokens' cache; a chunk of a
//    continuous-batching step reads the cache already there and writes its new tokens'. Activations are not
//    counted (they mostly stay on chip in fused kernels).
//  - KV bytes per token: 2 (K and V) x layers x kv_heads x head_dim x bytes (GQA: the KV heads, not the
//    query heads; the MHA shortcut overcounts Llama-3-8B 4x). MLA (DeepSeek) caches the compressed latent:
//    layers x (kv_lora_rank + qk_rope_head_dim) x bytes.
//  - Tensor parallelism over N GPUs divides FLOPs and weight bytes by N per GPU, and KV bytes by
//    min(N, KV heads) (KV heads are replicated beyond that); an MLA latent is replicated, its KV bytes are
//    not divided. MLA attention FLOPs are those of the absorbed form over the cached latent:
//    2 x heads x (2 x kv_lora_rank + qk_rope_head_dim) per attended token per layer.
#pragma once

#include <cstdint>
#include <span>

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

// kv_bytes_per_token on one GPU of w.tensor_parallel: split by KV head, so never more ways than there are KV heads (each
// head is replicated beyond that), and not at all for an MLA latent (on every GPU). The one tensor-parallel KV
// rule: step costs, the simulator's cache size and mfu's capacity check all use it.
double kv_bytes_per_token_per_gpu(const ModelShape& shape, const Workload& w);

struct StepCost {
  double flops = 0;         // per GPU
  double weight_bytes = 0;  // per GPU
  double kv_bytes = 0;      // per GPU: read (decode), written (prefill), or both (step_cost)
  double tokens = 0;        // tokens the step processes (all sequences)
  double context = 0;       // mean KV length per sequence after the step: decode, the context a new token
                            // attends; prefill, the prompt length

  double bytes() const { return weight_bytes + kv_bytes; }
};

// The whole prefill of batch x input_len tokens: what TTFT measures (one forward pass).
StepCost prefill_cost(const ModelShape& shape, const ParameterCount& params, const Workload& w);
// One decode step of the batch at the mean context of the generation, input_len + output_len / 2: what
// TPOT measures on average.
StepCost decode_step_cost(const ModelShape& shape, const ParameterCount& params, const Workload& w);

// One sequence's part of a continuous-batching step (vLLM's iteration-level scheduling): new_tokens tokens
// computed this step, each attending to the context_before tokens already in the sequence's KV cache and,
// causally, to the new tokens up to itself. A decode is {1, tokens cached so far}; a whole prefill {prompt,
// 0}; a prefill chunk {chunk, prompt tokens already prefilled}.
struct SequenceChunk {
  double new_tokens = 0;
  double context_before = 0;
  // The step samples a token for this sequence, so the LM head runs for it once: every decode, and the
  // prefill chunk that reaches the end of the prompt; false for an earlier chunk. (vLLM V1 computes the
  // logits of such a chunk anyway and discards the sample: 2 x vocab x hidden FLOPs, not modelled.)
  bool emits_token = true;
};

// One step over any mix of sequences, per GPU; w gives the precisions and tensor parallel degree (its batch,
// input_len and output_len are ignored). Per chunk: 2 x (matmul weights - head) x new_tokens FLOPs, the
// head's 2 x vocab x hidden when it emits a token, and attention over new x context_before + new x (new + 1)
// / 2 (query, key) pairs; KV bytes read context_before and write new_tokens tokens. Weights are read once
// for the step, MoE experts as touched by all the step's new tokens. No chunks: a zero cost.
// The closed forms are special cases: prefill_cost is batch chunks {input_len, 0}; decode_step_cost is batch
// chunks {1, c - 1} with c = input_len + output_len / 2, because the new token attends to the c - 1 cached
// tokens and itself, and its c - 1 read plus 1 written are the c tokens decode_step_cost reads.
StepCost step_cost(const ModelShape& shape, const ParameterCount& params, const Workload& w,
                   std::span<const SequenceChunk> chunks);

}  // namespace perfhound::model
