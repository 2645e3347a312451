#include "model/transformer_math.h"

#include <algorithm>
#include <cmath>

namespace perfhound::model {
namespace {

std::int64_t attention_params(const ModelShape& s) {
  const std::int64_t h = s.hidden_size;
  if (s.attention == AttentionKind::kMla) {
    const std::int64_t qk = s.qk_nope_head_dim + s.qk_rope_head_dim;
    const std::int64_t q = s.q_lora_rank > 0
                               ? h * s.q_lora_rank + s.q_lora_rank /* q_a_layernorm */ +
                                     s.q_lora_rank * s.num_attention_heads * qk
                               : h * s.num_attention_heads * qk;
    const std::int64_t kv_a = h * (s.kv_lora_rank + s.qk_rope_head_dim) + s.kv_lora_rank /* kv_a_layernorm */;
    const std::int64_t kv_b = s.kv_lora_rank * s.num_attention_heads * (s.qk_nope_head_dim + s.v_head_dim);
    const std::int64_t o = s.num_attention_heads * s.v_head_dim * h;
    return q + kv_a + kv_b + o;
  }
  const std::int64_t q_out = s.num_attention_heads * s.head_dim;
  const std::int64_t kv_out = s.num_kv_heads * s.head_dim;
  const std::int64_t v_out = s.num_kv_heads * s.v_head_dim;
  std::int64_t p = h * q_out + h * kv_out + h * v_out + s.num_attention_heads * s.v_head_dim * h;
  if (s.attention_qkv_bias) p += q_out + kv_out + v_out;
  if (s.attention_out_bias) p += h;
  return p;
}

// One MLP of width `width`: gated (gate, up, down) or plain (up, down), with optional biases.
std::int64_t mlp_params(const ModelShape& s, std::int64_t width) {
  const std::int64_t h = s.hidden_size;
  std::int64_t p = (s.gated_mlp ? 3 : 2) * h * width;
  if (s.mlp_bias) p += (s.gated_mlp ? 2 : 1) * width + h;
  return p;
}

std::int64_t norm_params(const ModelShape& s) { return (s.layer_norm_bias ? 2 : 1) * s.hidden_size; }

}  // namespace

ParameterCount count_parameters(const ModelShape& s) {
  ParameterCount c;
  const std::int64_t h = s.hidden_size;
  c.embedding = s.vocab_size * h + (s.learned_positions ? s.max_position_embeddings * h : 0);
  c.lm_head = s.tied_embeddings ? 0 : s.vocab_size * h;
  c.attention = s.num_layers * attention_params(s);
  c.norms = s.num_layers * 2 * norm_params(s) + norm_params(s);  // two per layer and the final one
  const bool moe = s.num_experts > 0;
  c.moe_layers = moe ? s.num_layers - s.first_dense_layers : 0;
  c.dense_mlp = (s.num_layers - c.moe_layers) * mlp_params(s, s.intermediate_size);
  if (moe) {
    c.per_expert = mlp_params(s, s.moe_intermediate_size);
    c.routed_experts = c.moe_layers * s.num_experts * c.per_expert;
    c.shared_experts = s.shared_expert_intermediate_size > 0
                           ? c.moe_layers * mlp_params(s, s.shared_expert_intermediate_size)
                           : 0;
    c.routers = c.moe_layers * h * s.num_experts;
  }
  const std::int64_t always = c.embedding + c.lm_head + c.attention + c.norms + c.dense_mlp + c.shared_experts + c.routers;
  c.total = always + c.routed_experts;
  c.active = always + c.moe_layers * s.experts_per_token * c.per_expert;
  // The head reuses the embedding matrix when tied, and is a matmul either way.
  c.matmul_active = c.active - c.embedding + (s.tied_embeddings ? s.vocab_size * h : 0);
  return c;
}

double kv_bytes_per_token(const ModelShape& s, Precision kv_precision) {
  const double bytes = precision_info(kv_precision).bytes_per_element;
  if (s.attention == AttentionKind::kMla) {
    return static_cast<double>(s.num_layers * (s.kv_lora_rank + s.qk_rope_head_dim)) * bytes;
  }
  return static_cast<double>(s.num_layers * s.num_kv_heads * (s.head_dim + s.v_head_dim)) * bytes;
}

// Llama-3-8B's 8 KV heads at TP 16: each head on 2 GPUs, so the cache splits 8 ways, not 16.
double kv_bytes_per_token_per_gpu(const ModelShape& s, const Workload& w) {
  const double ways = s.attention == AttentionKind::kMla ? 1.0 : static_cast<double>(std::min(w.tensor_parallel, s.num_kv_heads));
  return kv_bytes_per_token(s, w.kv_precision) / ways;
}

double experts_touched(const ModelShape& s, double tokens) {
  if (s.num_experts == 0) return 0;
  const double e = static_cast<double>(s.num_experts);
  const double k = static_cast<double>(s.experts_per_token);
  return e * (1.0 - std::pow(1.0 - k / e, tokens));
}

namespace {

// Attention FLOPs per token per layer and attended token: QK^T and AV over the query heads.
double attention_flops_per_context_token(const ModelShape& s) {
  if (s.attention == AttentionKind::kMla) {
    // MLA caches the compressed latent, which only works with the up-projections absorbed into the query and
    // output (DeepSeek-V2 paper, section 2.1.3): each head then attends over the latent of kv_lora_rank plus
    // the shared rope part, QK^T 2 x (kv_lora + rope) and AV 2 x kv_lora per attended token. Counting the
    // decompressed head dims instead would undercount decode attention ~3.4x for DeepSeek-V3.
    return 2.0 * static_cast<double>(s.num_attention_heads * (2 * s.kv_lora_rank + s.qk_rope_head_dim));
  }
  return 2.0 * static_cast<double>(s.num_attention_heads * (s.head_dim + s.v_head_dim));
}

// Weights one step reads: everything but the input embedding table (looked up row by row) and the routed
// experts, plus the routed experts the step's tokens touch.
double weight_params_read(const ModelShape& s, const ParameterCount& p, double tokens) {
  const double head = static_cast<double>(s.tied_embeddings ? s.vocab_size * s.hidden_size : p.lm_head);
  const double fixed = static_cast<double>(p.attention + p.norms + p.dense_mlp + p.shared_experts + p.routers) + head;
  return fixed + static_cast<double>(p.moe_layers) * experts_touched(s, tokens) * static_cast<double>(p.per_expert);
}

// What a step computes and moves, summed over its sequences: the one place FLOPs and bytes are derived from,
// so the closed forms below and step_cost cannot drift apart.
struct StepTotals {
  double new_tokens = 0;      // tokens computed (all sequences)
  double attended_pairs = 0;  // (query, key) pairs attention computes
  double lm_heads = 0;        // sequences whose logits are computed
  double kv_tokens = 0;       // KV-cache tokens read or written
  double sequences = 0;
};

StepCost cost_of(const ModelShape& s, const ParameterCount& p, const Workload& w, const StepTotals& t) {
  StepCost c;
  const double tp = static_cast<double>(w.tensor_parallel);
  const double head = static_cast<double>(s.vocab_size * s.hidden_size);
  const double body = static_cast<double>(p.matmul_active) - head;  // the head runs per sampled token only
  const double attention = static_cast<double>(s.num_layers) * attention_flops_per_context_token(s) * t.attended_pairs;
  c.tokens = t.new_tokens;
  c.flops = (2.0 * body * t.new_tokens + 2.0 * head * t.lm_heads + attention) / tp;
  c.weight_bytes = weight_params_read(s, p, t.new_tokens) * precision_info(w.weight_precision).bytes_per_element / tp;
  c.kv_bytes = t.kv_tokens * kv_bytes_per_token_per_gpu(s, w);
  c.context = t.sequences > 0 ? t.kv_tokens / t.sequences : 0.0;
  return c;
}

}  // namespace

StepCost prefill_cost(const ModelShape& s, const ParameterCount& p, const Workload& w) {
  const double b = static_cast<double>(w.batch);
  const double len = static_cast<double>(w.input_len);
  StepCost c = cost_of(s, p, w,
                       {.new_tokens = b * len, .attended_pairs = b * (len * (len + 1) / 2), .lm_heads = b,
                        .kv_tokens = b * len, .sequences = b});
  c.context = len;
  return c;
}

StepCost decode_step_cost(const ModelShape& s, const ParameterCount& p, const Workload& w) {
  const double b = static_cast<double>(w.batch);
  const double context = static_cast<double>(w.input_len) + static_cast<double>(w.output_len) / 2.0;
  StepCost c = cost_of(s, p, w,
                       {.new_tokens = b, .attended_pairs = b * context, .lm_heads = b, .kv_tokens = b * context,
                        .sequences = b});
  c.context = context;
  return c;
}

StepCost step_cost(const ModelShape& s, const ParameterCount& p, const Workload& w,
                   std::span<const SequenceChunk> chunks) {
  if (chunks.empty()) return {};  // no forward pass runs, so not even the weights are read
  StepTotals t;
  for (const SequenceChunk& chunk : chunks) {
    t.new_tokens += chunk.new_tokens;
    t.attended_pairs += chunk.new_tokens * chunk.context_before + chunk.new_tokens * (chunk.new_tokens + 1) / 2;
    t.lm_heads += chunk.emits_token ? 1.0 : 0.0;
    t.kv_tokens += chunk.context_before + chunk.new_tokens;
    t.sequences += 1;
  }
  return cost_of(s, p, w, t);
}

}  // namespace perfhound::model
