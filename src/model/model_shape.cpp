#include "model/model_shape.h"

#include <algorithm>
#include <fmt/format.h>

namespace perfhound::model {
namespace {

using Json = nlohmann::json;

class ConfigReader {
 public:
  ConfigReader(const Json& config, std::string_view source) : config_(config), source_(source) {}

  core::Result<std::int64_t> required(std::string_view key) const {
    const auto it = config_.find(std::string(key));
    if (it == config_.end() || it->is_null()) {
      return core::Error{fmt::format("config '{}': missing field '{}'", source_, key)};
    }
    if (!it->is_number_integer() || it->get<std::int64_t>() <= 0) {
      return core::Error{fmt::format("config '{}': field '{}' must be a positive integer, got {}", source_, key,
                                     it->dump())};
    }
    return it->get<std::int64_t>();
  }

  // The first of several spellings that is present (gpt2's n_embd is llama's hidden_size).
  core::Result<std::int64_t> required_any(std::initializer_list<std::string_view> keys) const {
    for (auto key : keys) {
      if (has(key)) return required(key);
    }
    return required(*keys.begin());
  }

  core::Result<std::int64_t> optional(std::string_view key, std::int64_t fallback) const {
    if (!has(key)) return fallback;
    const auto& v = config_.at(std::string(key));
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0) {
      return core::Error{fmt::format("config '{}': field '{}' must be a non-negative integer, got {}", source_, key,
                                     v.dump())};
    }
    return v.get<std::int64_t>();
  }

  core::Result<bool> flag(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    const auto& v = config_.at(std::string(key));
    if (!v.is_boolean()) {
      return core::Error{fmt::format("config '{}': field '{}' must be true or false, got {}", source_, key, v.dump())};
    }
    return v.get<bool>();
  }

  bool has(std::string_view key) const {
    const auto it = config_.find(std::string(key));
    return it != config_.end() && !it->is_null();
  }

  std::string_view source() const { return source_; }

  std::string text(std::string_view key) const {
    const auto it = config_.find(std::string(key));
    return it != config_.end() && it->is_string() ? it->get<std::string>() : std::string();
  }

 private:
  const Json& config_;
  std::string_view source_;
};

// One check for every MoE family: experts, experts per token and leading dense layers consistent.
core::Status validate_moe(const ModelShape& s, std::string_view source) {
  if (s.num_experts == 0) return {};
  if (s.experts_per_token < 1 || s.experts_per_token > s.num_experts) {
    return core::Error{fmt::format("config '{}': num_experts_per_tok must be between 1 and the {} experts, got {}",
                                   source, s.num_experts, s.experts_per_token)};
  }
  if (s.moe_intermediate_size < 1) {
    return core::Error{fmt::format("config '{}': MoE experts need moe_intermediate_size (or intermediate_size)", source)};
  }
  if (s.first_dense_layers > s.num_layers) {
    return core::Error{fmt::format("config '{}': first_k_dense_replace {} exceeds the {} layers", source,
                                   s.first_dense_layers, s.num_layers)};
  }
  return {};
}

core::Result<ModelShape> read_gpt2(const ConfigReader& c, ModelShape s) {
  PH_ASSIGN_OR_RETURN(s.hidden_size, c.required_any({"n_embd", "hidden_size"}));
  PH_ASSIGN_OR_RETURN(s.num_layers, c.required_any({"n_layer", "num_hidden_layers"}));
  PH_ASSIGN_OR_RETURN(s.num_attention_heads, c.required_any({"n_head", "num_attention_heads"}));
  PH_ASSIGN_OR_RETURN(s.vocab_size, c.required("vocab_size"));
  PH_ASSIGN_OR_RETURN(s.max_position_embeddings, c.required_any({"n_positions", "max_position_embeddings"}));
  // n_inner: null means 4 * n_embd (transformers GPT2Config).
  PH_ASSIGN_OR_RETURN(s.intermediate_size, c.optional("n_inner", 4 * s.hidden_size));
  s.num_kv_heads = s.num_attention_heads;
  s.head_dim = s.v_head_dim = s.hidden_size / s.num_attention_heads;
  s.tied_embeddings = true;
  s.gated_mlp = false;
  s.attention_qkv_bias = s.attention_out_bias = s.mlp_bias = s.layer_norm_bias = s.learned_positions = true;
  return s;
}

core::Result<ModelShape> read_deepseek(const ConfigReader& c, ModelShape s) {
  s.attention = AttentionKind::kMla;
  PH_ASSIGN_OR_RETURN(s.q_lora_rank, c.optional("q_lora_rank", 0));  // null in DeepSeek-V2-Lite: no q compression
  PH_ASSIGN_OR_RETURN(s.kv_lora_rank, c.required("kv_lora_rank"));
  PH_ASSIGN_OR_RETURN(s.qk_nope_head_dim, c.required("qk_nope_head_dim"));
  PH_ASSIGN_OR_RETURN(s.qk_rope_head_dim, c.required("qk_rope_head_dim"));
  PH_ASSIGN_OR_RETURN(s.v_head_dim, c.required("v_head_dim"));
  s.head_dim = s.qk_nope_head_dim + s.qk_rope_head_dim;
  PH_ASSIGN_OR_RETURN(s.num_experts, c.optional("n_routed_experts", 0));
  PH_ASSIGN_OR_RETURN(s.experts_per_token, c.optional("num_experts_per_tok", 0));
  PH_ASSIGN_OR_RETURN(s.moe_intermediate_size, c.optional("moe_intermediate_size", 0));
  PH_ASSIGN_OR_RETURN(s.num_shared_experts, c.optional("n_shared_experts", 0));
  s.shared_expert_intermediate_size = s.num_shared_experts * s.moe_intermediate_size;
  PH_ASSIGN_OR_RETURN(s.first_dense_layers, c.optional("first_k_dense_replace", 0));
  PH_TRY(validate_moe(s, c.source()));
  if (c.has("num_nextn_predict_layers")) {
    s.notes.push_back("multi-token-prediction layers (num_nextn_predict_layers) are not counted: they are not "
                      "used for ordinary decoding");
  }
  return s;
}

}  // namespace

core::Result<ModelShape> model_shape_from_config(const nlohmann::json& config, std::string_view source) {
  if (!config.is_object()) return core::Error{fmt::format("config '{}': expected a JSON object", source)};
  const ConfigReader c(config, source);
  ModelShape s;
  s.model_type = c.text("model_type");
  s.name = c.text("_name_or_path");
  if (s.model_type == "gpt2") return read_gpt2(c, std::move(s));

  PH_ASSIGN_OR_RETURN(s.hidden_size, c.required("hidden_size"));
  PH_ASSIGN_OR_RETURN(s.num_layers, c.required("num_hidden_layers"));
  PH_ASSIGN_OR_RETURN(s.num_attention_heads, c.required("num_attention_heads"));
  PH_ASSIGN_OR_RETURN(s.num_kv_heads, c.optional("num_key_value_heads", s.num_attention_heads));
  if (s.num_kv_heads == 0 || s.num_attention_heads % s.num_kv_heads != 0) {
    return core::Error{fmt::format("config '{}': num_attention_heads {} is not a multiple of num_key_value_heads {}",
                                   source, s.num_attention_heads, s.num_kv_heads)};
  }
  if (!c.has("head_dim") && s.hidden_size % s.num_attention_heads != 0) {
    return core::Error{fmt::format("config '{}': hidden_size {} is not a multiple of num_attention_heads {}; give head_dim",
                                   source, s.hidden_size, s.num_attention_heads)};
  }
  PH_ASSIGN_OR_RETURN(s.head_dim, c.optional("head_dim", s.hidden_size / s.num_attention_heads));
  s.v_head_dim = s.head_dim;
  PH_ASSIGN_OR_RETURN(s.intermediate_size, c.required("intermediate_size"));
  PH_ASSIGN_OR_RETURN(s.vocab_size, c.required("vocab_size"));
  PH_ASSIGN_OR_RETURN(s.max_position_embeddings, c.optional("max_position_embeddings", 0));
  PH_ASSIGN_OR_RETURN(s.tied_embeddings, c.flag("tie_word_embeddings", false));
  PH_ASSIGN_OR_RETURN(s.attention_qkv_bias, c.flag("attention_bias", s.model_type == "qwen2" || s.model_type == "qwen2_moe"));
  s.attention_out_bias = s.model_type != "qwen2" && s.model_type != "qwen2_moe" && s.attention_qkv_bias;
  PH_ASSIGN_OR_RETURN(s.mlp_bias, c.flag("mlp_bias", false));

  if (s.model_type == "deepseek_v3" || s.model_type == "deepseek_v2") return read_deepseek(c, std::move(s));
  if (c.has("num_local_experts") || c.has("num_experts")) {  // mixtral: num_local_experts; qwen2_moe: num_experts
    PH_ASSIGN_OR_RETURN(s.num_experts, c.has("num_local_experts") ? c.required("num_local_experts") : c.required("num_experts"));
    PH_ASSIGN_OR_RETURN(s.experts_per_token, c.required("num_experts_per_tok"));
    PH_ASSIGN_OR_RETURN(s.moe_intermediate_size, c.optional("moe_intermediate_size", s.intermediate_size));
    PH_ASSIGN_OR_RETURN(s.shared_expert_intermediate_size, c.optional("shared_expert_intermediate_size", 0));
    s.num_shared_experts = s.shared_expert_intermediate_size > 0 ? 1 : 0;
    PH_TRY(validate_moe(s, source));
  }
  static constexpr std::string_view kKnown[] = {"llama", "mistral", "qwen2", "mixtral", "qwen2_moe", "qwen3", "qwen3_moe"};
  if (std::find(std::begin(kKnown), std::end(kKnown), s.model_type) == std::end(kKnown)) {
    s.notes.push_back(fmt::format("model_type '{}' read as a llama-style decoder (RMSNorm, gated MLP, RoPE)",
                                  s.model_type.empty() ? "(none)" : s.model_type));
  }
  return s;
}

}  // namespace perfhound::model
