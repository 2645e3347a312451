// KV capacity by hand: (memory x utilization - stored weights) / block bytes, per GPU.
#include "sim/kv_capacity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhound::sim {
namespace {

EngineConfig on(std::string_view model, std::string_view chip) {
  EngineConfig c;
  auto shape = model::model_preset(model);
  EXPECT_TRUE(shape.ok()) << shape.error().message;
  if (shape.ok()) c.shape = std::move(shape).value();
  auto spec = hw::find_chip(chip);
  EXPECT_TRUE(spec.ok()) << spec.error().message;
  if (spec.ok()) c.chip = std::move(spec).value();
  return c;
}

TEST(KvCapacity, Llama3_8BOnH200AtTheDefaults) {
  const auto k = kv_capacity(on("llama-3-8b", "h200-sxm"));
  ASSERT_TRUE(k.ok()) << k.error().message;
  // 0.9 x 141e9 = 126.9e9 usable; weights 8,030,261,248 x 2 = 16,060,522,496 B; a block 16 x 131,072 B =
  // 2,097,152 B. 110,839,477,504 / 2,097,152 = 52,852.4 -> 52,852 blocks, 845,632 tokens.
  EXPECT_EQ(k->usable_bytes, 126.9e9);
  EXPECT_EQ(k->weight_bytes, 16060522496.0);
  EXPECT_EQ(k->bytes_per_block, 2097152.0);
  EXPECT_EQ(k->blocks, 52852);
  EXPECT_EQ(k->tokens(), 845632);
}

TEST(KvCapacity, Fp8KvCacheHoldsTwiceTheTokens) {
  EngineConfig c = on("llama-3-8b", "h200-sxm");
  c.kv_precision = model::Precision::kFp8;
  const auto k = kv_capacity(c);
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->bytes_per_block, 1048576.0);
  EXPECT_EQ(k->blocks, 105704);  // 110,839,477,504 / 1,048,576 = 105,704.8
}

TEST(KvCapacity, Llama3_70BNeedsTwoH200s) {
  EngineConfig c = on("llama-3-70b", "h200-sxm");
  const auto one = kv_capacity(c);
  ASSERT_FALSE(one.ok());
  // 70,553,706,496 x 2 B = 141.1 GB of weights against 126.9 GB usable.
  EXPECT_EQ(one.error().message,
            "weights of 'llama-3-70b' need 141 GB per GPU at bf16 and tensor_parallel 1, more than the 127 GB usable "
            "(0.9 of the 141 GB of NVIDIA H200 SXM 141GB): raise tensor_parallel, quantize the weights, or use a chip "
            "with more memory");
  c.tensor_parallel = 2;
  const auto two = kv_capacity(c);
  ASSERT_TRUE(two.ok()) << two.error().message;
  // Per GPU: 70,553,706,496 B of weights; a block 16 x (2 x 80 x 8 x 128 x 2 B) / 2 = 2,621,440 B.
  // (126.9e9 - 70,553,706,496) / 2,621,440 = 21,494.4.
  EXPECT_EQ(two->weight_bytes, 70553706496.0);
  EXPECT_EQ(two->bytes_per_block, 2621440.0);
  EXPECT_EQ(two->blocks, 21494);
}

TEST(KvCapacity, MlaLatentIsReplicatedUnderTensorParallelism) {
  EngineConfig c = on("deepseek-v3", "h200-sxm");
  c.weight_precision = model::Precision::kFp8;
  c.tensor_parallel = 8;
  const auto k = kv_capacity(c);
  ASSERT_TRUE(k.ok()) << k.error().message;
  // Weights 671,026,404,352 x 1 B / 8 = 83,878,300,544 B per GPU; a block is 16 x 70,272 B on every GPU (the
  // latent is not split): 1,124,352 B. (126.9e9 - 83,878,300,544) / 1,124,352 = 38,263.6.
  EXPECT_EQ(k->weight_bytes, 83878300544.0);
  EXPECT_EQ(k->bytes_per_block, 1124352.0);
  EXPECT_EQ(k->blocks, 38263);
}

TEST(KvCapacity, WeightsThatLeaveLessThanABlockAreAnError) {
  EngineConfig c = on("llama-3-8b", "h200-sxm");
  c.chip.memory_capacity_bytes = (16060522496.0 + 1e6) / 0.9;  // 1 MB over the weights, a block is 2.1 MB
  const auto k = kv_capacity(c);
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.error().message, ::testing::HasSubstr("less than one 16-token block (2.10 MB)"));
}

}  // namespace
}  // namespace perfhound::sim
