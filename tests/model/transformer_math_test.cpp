// Parameter counts against the published sizes of real models; KV cache, FLOPs, bytes and MBU against the
// worked numbers of the Databricks/MosaicML post "LLM Inference Performance Engineering: Best Practices"
// (Oct 2023); and the traps public calculators get wrong (GQA KV heads, MoE bytes, MLA latent cache).
#include "model/transformer_math.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "model/efficiency.h"
#include "model/model_shape.h"

namespace perfhound::model {
namespace {

ModelShape preset(std::string_view name) {
  auto s = model_preset(name);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return s.ok() ? std::move(s).value() : ModelShape{};
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Exact counts by hand from the configs (the sums in each comment), checked against the published sizes.
TEST(ParameterCount, Llama3_8B_Is8_03B) {
  // embed 128256*4096 = 525,336,576, untied head the same; per layer q 4096^2 + k,v 2*4096*1024 + o 4096^2
  // = 41,943,040, MLP 3*4096*14336 = 176,160,768, norms 8192; 32 layers + final norm 4096.
  const auto c = count_parameters(preset("llama-3-8b"));
  EXPECT_EQ(c.total, 2 * 525336576LL + 32 * (41943040LL + 176160768LL + 8192LL) + 4096);
  EXPECT_EQ(c.total, 8030261248LL);  // "8.03B" on the model card
  EXPECT_EQ(c.active, c.total);
}

TEST(ParameterCount, Llama3_70B_Is70_6B) {
  const auto c = count_parameters(preset("llama-3-70b"));
  EXPECT_EQ(c.total, 70553706496LL);  // published 70.6B
}

TEST(ParameterCount, Llama2_7B_AndGpt2) {
  EXPECT_EQ(count_parameters(preset("llama-2-7b")).total, 6738415616LL);  // transformers: 6,738,415,616
  // GPT-2 small as transformers counts it: wte 38,597,376 + wpe 786,432 + 12 x 7,087,872 + ln_f 1,536.
  EXPECT_EQ(count_parameters(preset("gpt2")).total, 124439808LL);
}

TEST(ParameterCount, Mixtral8x7B_Is46_7BTotal12_9BActive) {
  const auto c = count_parameters(preset("mixtral-8x7b"));
  EXPECT_EQ(c.per_expert, 3LL * 4096 * 14336);
  EXPECT_EQ(c.total, 46702792704LL);   // published 46.7B
  EXPECT_EQ(c.active, 12879925248LL);  // published 12.9B: attention + 2 of 8 experts + embeddings
}

TEST(ParameterCount, DeepSeekV3_Is671BTotal37BActive) {
  const auto c = count_parameters(preset("deepseek-v3"));
  // Per layer MLA: q_a 7168*1536 + 1536 + q_b 1536*128*192 + kv_a 7168*576 + 512 + kv_b 512*128*256 +
  // o 128*128*7168 = 187,107,328; 3 dense layers of 3*7168*18432; 58 MoE layers of 256 routed + 1 shared
  // expert of 3*7168*2048 and a 7168x256 router; embed and head 129280*7168 each.
  EXPECT_EQ(c.attention, 61LL * 187107328LL);
  EXPECT_EQ(c.total, 671026404352LL);      // published 671B (without the multi-token-prediction module)
  EXPECT_NEAR(static_cast<double>(c.active), 37e9, 0.6e9);  // published 37B
}

TEST(KvCache, Llama2_70B_MatchesTheDatabricksTable) {
  // Databricks: Llama-2-70B, fp16, batch 1 at 1024 tokens is 0.312 GiB (80 layers x 8 KV heads x 128 x 2 x 2 B).
  const double per_token = kv_bytes_per_token(preset("llama-2-70b"), Precision::kFp16);
  EXPECT_EQ(per_token, 2.0 * 80 * 8 * 128 * 2);
  EXPECT_NEAR(per_token * 1024 / kGiB, 0.3125, 1e-12);
  EXPECT_NEAR(16 * 1024 * per_token / kGiB, 5.0, 1e-12);   // batch 16
  EXPECT_NEAR(32 * 1024 * per_token / kGiB, 10.0, 1e-12);  // batch 32
  EXPECT_NEAR(64 * 1024 * per_token / kGiB, 20.0, 1e-12);  // batch 64
}

TEST(KvCache, GqaUsesTheKvHeadsNotTheQueryHeads) {
  const ModelShape s = preset("llama-3-8b");
  const double per_token = kv_bytes_per_token(s, Precision::kBf16);
  EXPECT_EQ(per_token, 2.0 * 32 * 8 * 128 * 2);  // 131,072 B
  const double mha_shortcut = 2.0 * 32 * 32 * 128 * 2;  // the public-calculator bug: query heads
  EXPECT_EQ(mha_shortcut / per_token, 4.0);
}

TEST(KvCache, MlaCachesTheLatent) {
  // DeepSeek-V3: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes = 70,272 B per token.
  EXPECT_EQ(kv_bytes_per_token(preset("deepseek-v3"), Precision::kBf16), 61.0 * 576 * 2);
}

TEST(Moe, ExpertsTouchedGrowWithTheBatch) {
  const ModelShape s = preset("mixtral-8x7b");
  EXPECT_DOUBLE_EQ(experts_touched(s, 1), 2.0);                    // one token: its 2 experts
  EXPECT_DOUBLE_EQ(experts_touched(s, 2), 8.0 * (1 - 0.75 * 0.75));  // 3.5
  EXPECT_NEAR(experts_touched(s, 64), 8.0, 1e-6);                  // a batch of 64 touches all 8
  // Decode bytes therefore grow from the active experts towards all of them.
  const auto p = count_parameters(s);
  Workload w;
  w.input_len = 0;
  w.output_len = 0;
  const double bytes_b1 = decode_step_cost(s, p, w).weight_bytes;
  w.batch = 64;
  const double bytes_b64 = decode_step_cost(s, p, w).weight_bytes;
  EXPECT_NEAR(bytes_b1, 2.0 * static_cast<double>(p.active - p.embedding + 0), 1.0);  // bf16, untied head counted
  EXPECT_NEAR(bytes_b64 - bytes_b1, 2.0 * 32 * 6 * static_cast<double>(p.per_expert), 1e4);  // 6 more experts/layer
}

TEST(Flops, DecodeIsTwiceTheActiveMatmulWeightsPlusAttention) {
  const ModelShape s = preset("llama-3-8b");
  const auto p = count_parameters(s);
  Workload w;
  w.batch = 4;
  w.input_len = 1000;
  w.output_len = 200;  // mean context 1000 + 100 = 1100
  const StepCost c = decode_step_cost(s, p, w);
  EXPECT_EQ(c.context, 1100.0);
  // Matmul weights: everything but the input embedding (8,030,261,248 - 525,336,576).
  EXPECT_EQ(p.matmul_active, 7504924672LL);
  // Attention: 32 layers x 2 x 32 heads x (128 + 128) x 1100 per token; GQA does not reduce it.
  const double attention = 32.0 * 2 * 32 * 256 * 1100;
  EXPECT_DOUBLE_EQ(c.flops, 4 * (2.0 * 7504924672.0 + attention));
  // Bytes: every weight but the input embedding once in bf16 (the RMSNorm weights are among them), plus
  // 4 sequences x 1100 tokens x 131,072 B of KV cache.
  EXPECT_DOUBLE_EQ(c.weight_bytes, 2.0 * 7504924672.0);
  EXPECT_DOUBLE_EQ(c.kv_bytes, 4.0 * 1100 * 131072);
}

TEST(Flops, CausalPrefillCountsHalfTheAttentionAndTheHeadOncePerSequence) {
  const ModelShape s = preset("llama-3-8b");
  const auto p = count_parameters(s);
  Workload w;
  w.batch = 2;
  w.input_len = 1024;
  const StepCost c = prefill_cost(s, p, w);
  const double head = 128256.0 * 4096;
  const double body = 7504924672.0 - head;
  const double attention = 32.0 * 2 * 32 * 256 * (1024.0 * 1025 / 2);
  EXPECT_DOUBLE_EQ(c.flops, 2 * (2 * body * 1024 + 2 * head + attention));
  EXPECT_DOUBLE_EQ(c.kv_bytes, 2.0 * 1024 * 131072);  // the prompt's KV cache is written
}

TEST(Flops, TensorParallelSplitsPerGpu) {
  const ModelShape s = preset("llama-3-70b");
  const auto p = count_parameters(s);
  Workload w;
  w.input_len = 512;
  const StepCost one = decode_step_cost(s, p, w);
  w.tensor_parallel = 4;
  const StepCost four = decode_step_cost(s, p, w);
  EXPECT_DOUBLE_EQ(four.flops * 4, one.flops);
  EXPECT_DOUBLE_EQ(four.weight_bytes * 4, one.weight_bytes);
  EXPECT_DOUBLE_EQ(four.kv_bytes * 4, one.kv_bytes);
}

// Databricks: "a 7B parameter model in 16-bit precision ... at 14 ms per token on a GPU with 2 TB/s of
// memory bandwidth" has MBU 50%: 14 GB / 14 ms = 1 TB/s of 2 TB/s.
TEST(Efficiency, DatabricksWorkedExampleIsMbu50) {
  StepCost c;
  c.weight_bytes = 7e9 * 2;
  c.flops = 2 * 7e9;
  const Efficiency e = efficiency(c, 0.014, 312e12, 2e12);
  EXPECT_DOUBLE_EQ(e.mbu, 0.5);
  EXPECT_DOUBLE_EQ(e.achieved_bytes_per_s, 1e12);
  EXPECT_DOUBLE_EQ(e.memory_time_s, 0.007);  // the bandwidth bound: half the measured time
  EXPECT_TRUE(e.memory_bound);
  EXPECT_THAT(efficiency_verdict(Phase::kDecode, e, c), ::testing::StartsWith("decode at MBU 50.0%: below the bandwidth roof"));
}

TEST(Efficiency, VerdictWordsFollowTheBindingRoof) {
  StepCost memory;
  memory.weight_bytes = 16e9;
  memory.flops = 16e9;
  EXPECT_THAT(efficiency_verdict(Phase::kDecode, efficiency(memory, 16e9 / (0.8 * 4.8e12), 989e12, 4.8e12), memory),
              ::testing::StartsWith("decode at MBU 80.0%: at the bandwidth roof (MFU"));
  EXPECT_THAT(efficiency_verdict(Phase::kDecode, efficiency(memory, 16e9 / (0.1 * 4.8e12), 989e12, 4.8e12), memory),
              ::testing::HasSubstr("far below the bandwidth roof"));
  StepCost compute;
  compute.flops = 1e15;
  compute.weight_bytes = 16e9;
  EXPECT_THAT(efficiency_verdict(Phase::kPrefill, efficiency(compute, 1e15 / (0.55 * 989e12), 989e12, 4.8e12), compute),
              ::testing::StartsWith("prefill at MFU 55.0%: compute-bound and well tuned"));
  const Efficiency bound_only = efficiency(compute, std::nullopt, 989e12, 4.8e12);
  EXPECT_DOUBLE_EQ(bound_only.bound_time_s, 1e15 / 989e12);
  EXPECT_THAT(efficiency_verdict(Phase::kPrefill, bound_only, compute), ::testing::HasSubstr("compute-bound on this chip"));
}

TEST(Efficiency, FasterThanTheRoofAndKvDominatedSayWhatIsWrong) {
  StepCost c;
  c.weight_bytes = 16e9;
  // 16 GB in 1 ms on a 4.8 TB/s chip is MBU 333%: an input is wrong.
  EXPECT_THAT(efficiency_verdict(Phase::kDecode, efficiency(c, 1e-3, 989e12, 4.8e12), c),
              ::testing::HasSubstr("faster than the chip allows"));
  // KV bytes above the weights at the roof: batching is not the lever.
  StepCost kv;
  kv.weight_bytes = 4e9;
  kv.kv_bytes = 12e9;
  kv.tokens = 64;
  const std::string v = efficiency_verdict(Phase::kDecode, efficiency(kv, 16e9 / (0.8 * 4.8e12), 989e12, 4.8e12), kv);
  EXPECT_THAT(v, ::testing::HasSubstr("the KV cache is most of the bytes"));
  EXPECT_THAT(v, ::testing::HasSubstr("batching does not shrink KV bytes per token"));
}

TEST(Flops, TensorParallelBeyondTheKvHeadsReplicatesThem) {
  // Llama-3-8B has 8 KV heads: at TP 16 each GPU still holds a whole KV head, 1/8 of the cache, not 1/16.
  const ModelShape s = preset("llama-3-8b");
  const auto p = count_parameters(s);
  Workload w;
  w.input_len = 1000;
  const StepCost one = decode_step_cost(s, p, w);
  w.tensor_parallel = 16;
  const StepCost sixteen = decode_step_cost(s, p, w);
  EXPECT_DOUBLE_EQ(sixteen.kv_bytes * 8, one.kv_bytes);
  EXPECT_DOUBLE_EQ(sixteen.weight_bytes * 16, one.weight_bytes);
}

TEST(Flops, MlaAttentionIsTheAbsorbedFormOverTheLatent) {
  // DeepSeek-V3 decode at context 1000 (input 1000, output 0): attention per token = 61 layers x
  // 2 x 128 heads x (2 x 512 + 64) x 1000 attended tokens.
  const ModelShape s = preset("deepseek-v3");
  const auto p = count_parameters(s);
  Workload w;
  w.input_len = 1000;
  const StepCost c = decode_step_cost(s, p, w);
  const double attention = 61.0 * 2 * 128 * (2 * 512 + 64) * 1000;
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * static_cast<double>(p.matmul_active) + attention);
}

TEST(ModelShape, ConfigErrorsNameTheField) {
  auto r = model_shape_from_config(nlohmann::json::parse(R"({"model_type": "llama", "hidden_size": 4096})"), "c.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "config 'c.json': missing field 'num_hidden_layers'");
  r = model_shape_from_config(nlohmann::json::parse(R"({"hidden_size": "big"})"), "c.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "config 'c.json': field 'hidden_size' must be a positive integer, got \"big\"");
  r = model_shape_from_config(nlohmann::json::parse(
                                  R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 6,
                                      "num_key_value_heads": 4, "intermediate_size": 128, "vocab_size": 100})"),
                              "c.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, ::testing::HasSubstr("not a multiple of num_key_value_heads 4"));
  EXPECT_FALSE(model_preset("llama-9-1t").ok());
}

TEST(ModelShape, QwenBiasesAndUnknownTypesAreNoted) {
  // Qwen2 has q, k, v biases but no o bias: 28 layers x (3584 + 2 x 512) more parameters than without.
  const auto with_bias = count_parameters(preset("qwen2-7b"));
  EXPECT_EQ(with_bias.total, 7615616512LL);  // transformers: Qwen2-7B has 7,615,616,512 parameters
  auto r = model_shape_from_config(nlohmann::json::parse(
                                       R"({"model_type": "olmo", "hidden_size": 64, "num_hidden_layers": 2,
                                           "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})"),
                                   "c.json");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_THAT(r->notes[0], ::testing::HasSubstr("'olmo' read as a llama-style decoder"));
}

// step_cost, the continuous-batching step: the closed forms are its special cases, exactly.
TEST(StepCost, DecodeIsBatchChunksOfOneTokenAfterContextMinusOne) {
  const ModelShape s = preset("llama-3-8b");
  const auto p = count_parameters(s);
  Workload w;
  w.batch = 4;
  w.input_len = 1000;
  w.output_len = 201;  // mean context 1100.5: the half token must survive the correspondence
  const StepCost closed = decode_step_cost(s, p, w);
  const std::vector<SequenceChunk> chunks(4, SequenceChunk{1, 1099.5});
  const StepCost stepped = step_cost(s, p, w, chunks);
  EXPECT_DOUBLE_EQ(stepped.flops, closed.flops);
  EXPECT_DOUBLE_EQ(stepped.weight_bytes, closed.weight_bytes);
  EXPECT_DOUBLE_EQ(stepped.kv_bytes, closed.kv_bytes);
  EXPECT_EQ(stepped.tokens, 4.0);
  EXPECT_EQ(stepped.context, 1100.5);
  // By hand: 4 x (2 x 7,504,924,672 + 32 x 2 x 32 x 256 x 1100.5); KV: 1099.5 read + 1 written per sequence.
  EXPECT_DOUBLE_EQ(stepped.flops, 4 * (2.0 * 7504924672.0 + 32.0 * 2 * 32 * 256 * 1100.5));
  EXPECT_DOUBLE_EQ(stepped.kv_bytes, 4 * 1100.5 * 131072);
}

TEST(StepCost, PrefillIsBatchChunksOfThePromptFromNothing) {
  const ModelShape s = preset("mixtral-8x7b");  // MoE: experts touched by all 2 x 300 tokens either way
  const auto p = count_parameters(s);
  Workload w;
  w.batch = 2;
  w.input_len = 300;
  w.tensor_parallel = 2;
  const StepCost closed = prefill_cost(s, p, w);
  const std::vector<SequenceChunk> chunks(2, SequenceChunk{300, 0});
  const StepCost stepped = step_cost(s, p, w, chunks);
  EXPECT_DOUBLE_EQ(stepped.flops, closed.flops);
  EXPECT_DOUBLE_EQ(stepped.weight_bytes, closed.weight_bytes);
  EXPECT_DOUBLE_EQ(stepped.kv_bytes, closed.kv_bytes);
  EXPECT_EQ(stepped.tokens, 600.0);
  EXPECT_EQ(stepped.context, 300.0);
}

TEST(StepCost, ChunkedPrefillComputesThePrefillButRereadsTheCacheAndWeights) {
  const ModelShape s = preset("llama-3-8b");
  const auto p = count_parameters(s);
  Workload w;
  w.input_len = 1024;
  const StepCost whole = prefill_cost(s, p, w);
  // Two steps of 512: the first samples nothing (no LM head), the second attends to the first's 512 tokens.
  const SequenceChunk first[] = {{512, 0, false}};
  const SequenceChunk second[] = {{512, 512, true}};
  const StepCost a = step_cost(s, p, w, first);
  const StepCost b = step_cost(s, p, w, second);
  const double head = 128256.0 * 4096;
  const double body = 7504924672.0 - head;
  const double per_pair = 32.0 * 2 * 32 * 256;
  EXPECT_DOUBLE_EQ(a.flops, 2 * body * 512 + per_pair * (512.0 * 513 / 2));                     // 131,328 pairs
  EXPECT_DOUBLE_EQ(b.flops, 2 * body * 512 + 2 * head + per_pair * (512.0 * 512 + 512.0 * 513 / 2));  // 393,472
  EXPECT_DOUBLE_EQ(a.flops + b.flops, whole.flops);  // 131,328 + 393,472 = 1024 x 1025 / 2 pairs
  EXPECT_DOUBLE_EQ(a.kv_bytes, 512.0 * 131072);            // written
  EXPECT_DOUBLE_EQ(b.kv_bytes, (512.0 + 512) * 131072);    // the first chunk's cache read, its own written
  EXPECT_DOUBLE_EQ(a.weight_bytes + b.weight_bytes, 2 * whole.weight_bytes);  // each step reads the weights
}

TEST(StepCost, MixedDecodeAndPrefillByHand) {
  const ModelShape s = preset("llama-3-8b");
  const auto p = count_parameters(s);
  const Workload w;
  const SequenceChunk chunks[] = {{1, 99}, {100, 0}};  // a decode at 100 tokens and a whole 100-token prompt
  const StepCost c = step_cost(s, p, w, chunks);
  const double head = 128256.0 * 4096;
  const double body = 7504924672.0 - head;
  // 101 new tokens, two LM heads, (99 + 1) + 5050 attended pairs.
  EXPECT_DOUBLE_EQ(c.flops, 2 * body * 101 + 2 * head * 2 + 32.0 * 2 * 32 * 256 * 5150);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 2.0 * 7504924672.0);  // dense: the weights once, whatever the tokens
  EXPECT_DOUBLE_EQ(c.kv_bytes, (99.0 + 1 + 100) * 131072);
  EXPECT_EQ(c.tokens, 101.0);
  EXPECT_EQ(c.context, 100.0);  // both sequences hold 100 tokens afterwards
  const StepCost none = step_cost(s, p, w, {});
  EXPECT_EQ(none.tokens, 0.0);
  EXPECT_EQ(none.flops, 0.0);
  EXPECT_EQ(none.weight_bytes, 0.0);  // no step, no weight read
  EXPECT_EQ(none.kv_bytes, 0.0);
  EXPECT_EQ(none.context, 0.0);
}

}  // namespace
}  // namespace perfhound::model
