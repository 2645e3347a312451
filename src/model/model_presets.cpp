// Built-in model shapes: the architecture fields of each model's published Hugging Face config.json (the
// repository named beside it), so `--model llama-3-8b` needs no download.
#include <array>
#include <fstream>
#include <sstream>
#include <fmt/format.h>

#include "model/model_shape.h"

namespace perfhound::model {
namespace {

struct Preset {
  std::string_view name;
  std::string_view config;
};

constexpr std::array<Preset, 10> kPresets{{
    {"llama-3-8b",  // meta-llama/Meta-Llama-3-8B
     R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
         "max_position_embeddings": 8192, "tie_word_embeddings": false})"},
    {"llama-3-70b",  // meta-llama/Meta-Llama-3-70B
     R"({"model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 128256,
         "max_position_embeddings": 8192, "tie_word_embeddings": false})"},
    {"llama-2-7b",  // meta-llama/Llama-2-7b-hf
     R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 32000,
         "max_position_embeddings": 4096, "tie_word_embeddings": false})"},
    {"llama-2-70b",  // meta-llama/Llama-2-70b-hf
     R"({"model_type": "llama", "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64,
         "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 32000,
         "max_position_embeddings": 4096, "tie_word_embeddings": false})"},
    {"mistral-7b",  // mistralai/Mistral-7B-v0.1
     R"({"model_type": "mistral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000,
         "max_position_embeddings": 32768, "tie_word_embeddings": false})"},
    {"mixtral-8x7b",  // mistralai/Mixtral-8x7B-v0.1
     R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8,
         "num_experts_per_tok": 2, "max_position_embeddings": 32768, "tie_word_embeddings": false})"},
    {"qwen2-7b",  // Qwen/Qwen2-7B
     R"({"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
         "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
         "max_position_embeddings": 131072, "tie_word_embeddings": false})"},
    {"qwen2.5-7b",  // Qwen/Qwen2.5-7B: the same architecture fields as Qwen2-7B
     R"({"model_type": "qwen2", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
         "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
         "max_position_embeddings": 131072, "tie_word_embeddings": false})"},
    {"deepseek-v3",  // deepseek-ai/DeepSeek-V3
     R"({"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
         "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048,
         "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
         "vocab_size": 129280, "max_position_embeddings": 163840, "tie_word_embeddings": false,
         "num_nextn_predict_layers": 1})"},
    {"gpt2",  // openai-community/gpt2
     R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_inner": null, "vocab_size": 50257,
         "n_positions": 1024})"},
}};

}  // namespace

core::Result<ModelShape> model_preset(std::string_view name) {
  for (const auto& p : kPresets) {
    if (p.name != name) continue;
    auto shape = model_shape_from_config(nlohmann::json::parse(p.config), fmt::format("preset {}", name));
    if (shape.ok()) shape->name = std::string(name);
    return shape;
  }
  std::string names;
  for (const auto& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return core::Error{fmt::format("unknown model '{}': give a config.json path or one of {}", name, names)};
}

core::Result<ModelShape> load_model_shape(const std::string& spec) {
  if (spec.find('/') == std::string::npos && !spec.ends_with(".json")) return model_preset(spec);
  std::ifstream in(spec);
  if (!in) return core::Error{fmt::format("cannot open '{}'", spec)};
  std::stringstream buffer;
  buffer << in.rdbuf();
  const auto json = nlohmann::json::parse(buffer.str(), nullptr, false);
  if (json.is_discarded()) return core::Error{fmt::format("'{}' is not valid JSON", spec)};
  return model_shape_from_config(json, spec);
}

std::vector<std::string_view> model_preset_names() {
  std::vector<std::string_view> names;
  for (const auto& p : kPresets) names.push_back(p.name);
  return names;
}

}  // namespace perfhound::model
