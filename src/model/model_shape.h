// The shape of a decoder-only transformer: what the FLOP, byte and KV-cache arithmetic needs, read from a
// Hugging Face config.json or taken from a preset.
//
// Supported config families (model_type): llama, mistral, qwen2 (q/k/v biases), mixtral (MoE),
// qwen2_moe / qwen3_moe (MoE with shared experts), deepseek_v3 (MLA attention, MoE, leading dense layers),
// gpt2 (learned positions, biases, LayerNorm, non-gated MLP). Other model_types with the llama field names
// are read as llama-like and say so in `notes`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace perfhound::model {

enum class AttentionKind { kStandard /* MHA, GQA, MQA */, kMla /* DeepSeek multi-head latent attention */ };

struct ModelShape {
  std::string name;
  std::string model_type;
  std::int64_t hidden_size = 0;
  std::int64_t num_layers = 0;
  std::int64_t num_attention_heads = 0;
  std::int64_t num_kv_heads = 0;  // == heads for MHA, fewer for GQA, 1 for MQA
  std::int64_t head_dim = 0;      // per head, for q and k (and v unless v_head_dim says otherwise)
  std::int64_t v_head_dim = 0;
  std::int64_t intermediate_size = 0;  // dense MLP width
  std::int64_t vocab_size = 0;
  std::int64_t max_position_embeddings = 0;  // counted as parameters only when positions are learned
  bool tied_embeddings = false;
  bool gated_mlp = true;          // SwiGLU-style: gate, up and down projections (3 matrices), else 2
  bool attention_qkv_bias = false;
  bool attention_out_bias = false;
  bool mlp_bias = false;
  bool layer_norm_bias = false;   // LayerNorm (weight + bias) rather than RMSNorm (weight)
  bool learned_positions = false;

  // Mixture of experts (num_experts == 0: dense).
  std::int64_t num_experts = 0;
  std::int64_t experts_per_token = 0;
  std::int64_t moe_intermediate_size = 0;     // per routed expert
  std::int64_t num_shared_experts = 0;        // always active
  std::int64_t shared_expert_intermediate_size = 0;
  std::int64_t first_dense_layers = 0;        // leading layers with a dense MLP (DeepSeek first_k_dense_replace)

  // Multi-head latent attention (DeepSeek-V2/V3).
  AttentionKind attention = AttentionKind::kStandard;
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;

  std::vector<std::string> notes;  // assumptions made while reading the config
};

// Reads a Hugging Face config.json object. Errors name the missing or mistyped field:
// "config 'x/config.json': missing field 'hidden_size'".
core::Result<ModelShape> model_shape_from_config(const nlohmann::json& config, std::string_view source);

// Built-in shapes of published models (their config.json values), by name: "llama-3-8b", "llama-3-70b",
// "llama-2-7b", "llama-2-70b", "mistral-7b", "mixtral-8x7b", "qwen2-7b", "qwen2.5-7b", "deepseek-v3", "gpt2".
core::Result<ModelShape> model_preset(std::string_view name);
std::vector<std::string_view> model_preset_names();

// What --model takes: a preset name, or the path of a Hugging Face config.json (anything with a '/' or
// ending in .json). Reads the file; errors name it.
core::Result<ModelShape> load_model_shape(const std::string& name_or_path);

}  // namespace perfhound::model
