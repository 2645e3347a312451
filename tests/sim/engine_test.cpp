// The engine model against closed-form cases computed by hand: a model small enough to count (below), on a
// chip with round figures, so every step time follows from the formulas in transformer_math.h and
// step_time.h without running the library's arithmetic.
#include "sim/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace perfhound::sim {
namespace {

// Two layers, GQA (4 query heads, 2 KV heads of 16), gated MLP of 128, vocabulary 256, untied head:
//   per layer q 64x64 = 4,096, k and v 64x32 = 2,048 each, o 4,096: attention 12,288; MLP 3 x 64 x 128 =
//   24,576; two norms of 64. Embedding and head 256 x 64 = 16,384 each; the final norm 64.
//   Stored: 2 x 12,288 + 2 x 24,576 + 320 norms + 2 x 16,384 = 106,816 parameters = 213,632 B in bf16.
//   Matmul weights per token without the head: 24,576 + 49,152 + 320 = 74,048 (norms count, as
//   transformer_math counts them); 2 x 74,048 = 148,096 FLOPs per token; the head 2 x 16,384 = 32,768 FLOPs
//   per sampled token.
//   Weights read per step: 74,048 + 16,384 = 90,432 parameters = 180,864 B.
//   KV per token: 2 (K, V) x 2 layers x 2 KV heads x 16 x 2 B = 256 B; a 16-token block 4,096 B.
//   Attention: 2 layers x 2 x 4 heads x (16 + 16) = 512 FLOPs per (query, key) pair.
model::ModelShape tiny_model() {
  model::ModelShape s;
  s.name = "tiny";
  s.model_type = "llama";
  s.hidden_size = 64;
  s.num_layers = 2;
  s.num_attention_heads = 4;
  s.num_kv_heads = 2;
  s.head_dim = 16;
  s.v_head_dim = 16;
  s.intermediate_size = 128;
  s.vocab_size = 256;
  s.max_position_embeddings = 4096;
  return s;
}

constexpr double kWeightsStoredBytes = 213632;
constexpr double kBlockBytes = 4096;

// 1 TFLOP/s bf16 and 100 GB/s, both derated by half: 500 FLOP and 50 B per ns. The overhead is 1 us.
// Memory: util 0.5 of 2 x (weights + blocks x 4,096 B) leaves exactly `blocks` blocks.
EngineConfig tiny_config(std::int64_t blocks) {
  EngineConfig c;
  c.shape = tiny_model();
  c.chip.name = "test-chip";
  c.chip.display_name = "Test chip";
  c.chip.peak_flops["bf16"] = {1e12, "test"};
  c.chip.memory_bandwidth = {1e11, "test"};
  c.chip.memory_capacity_bytes = 2 * (kWeightsStoredBytes + static_cast<double>(blocks) * kBlockBytes);
  c.gpu_memory_utilization = 0.5;
  c.compute_efficiency = 0.5;
  c.bandwidth_efficiency = 0.5;
  c.step_overhead_ns = 1000;
  return c;
}

Engine make_engine(const EngineConfig& config) {
  auto e = Engine::create(config);
  EXPECT_TRUE(e.ok()) << e.error().message;
  return std::move(e).value();
}

// What a run produced: each step's record, each request's tokens, the preempted ids per step.
struct SimRun {
  std::vector<StepRecord> steps;
  std::map<std::uint64_t, std::vector<TokenEvent>> tokens;
  std::map<std::size_t, std::vector<std::uint64_t>> preempted;  // step index (0-based) -> ids
};

// Drives the engine as the server will: adds each request when simulated time reaches its arrival, runs
// steps back to back, and jumps an idle engine to the next arrival. Requests must be in arrival order.
SimRun simulate(Engine& engine, const std::vector<Request>& requests) {
  SimRun out;
  std::size_t next = 0;
  std::int64_t now = 0;
  while (next < requests.size() || engine.has_unfinished_requests()) {
    for (; next < requests.size() && requests[next].arrival_ns <= now; ++next) {
      const core::Status added = engine.add_request(requests[next]);
      EXPECT_TRUE(added.ok()) << added.error().message;
    }
    const StepResult& r = engine.step(now);
    if (r.idle()) {
      if (next == requests.size()) break;  // nothing runnable and nothing to come: a stuck engine
      now = requests[next].arrival_ns;
      continue;
    }
    if (!r.preempted_ids.empty()) out.preempted[out.steps.size()] = r.preempted_ids;
    out.steps.push_back(r.record);
    for (const TokenEvent& t : r.tokens) out.tokens[t.request_id].push_back(t);
    now = r.record.start_ns + r.record.dur_ns;
  }
  EXPECT_FALSE(engine.has_unfinished_requests());
  return out;
}

std::vector<std::int64_t> times(const std::vector<TokenEvent>& tokens) {
  std::vector<std::int64_t> t;
  for (const TokenEvent& e : tokens) t.push_back(e.time_ns);
  return t;
}

TEST(Engine, OneRequestAloneTtftIsThePrefillStepAndTpotTheDecodeSteps) {
  Engine engine = make_engine(tiny_config(1000));
  const SimRun r = simulate(engine, {{.id = 1, .arrival_ns = 0, .prompt_tokens = 100, .max_output_tokens = 4}});
  ASSERT_EQ(r.steps.size(), 4u);
  // Prefill of 100: 148,096 x 100 + 32,768 + 512 x 5,050 pairs = 17,427,968 FLOPs -> 34,855.9 ns; bytes 180,864
  // + 100 x 256 = 206,464 -> 4,129.3 ns. Compute-bound: 34,856 + 1,000 = 35,856 ns = TTFT.
  EXPECT_EQ(r.steps[0].cost.flops, 17427968.0);
  EXPECT_EQ(r.steps[0].cost.bytes(), 206464.0);
  EXPECT_FALSE(r.steps[0].time.memory_bound);
  EXPECT_EQ(r.steps[0].dur_ns, 35856);
  EXPECT_EQ(r.steps[0].prefill_tokens, 100);
  // Decode at 100, 101, 102 cached tokens: bytes 180,864 + (c + 1) x 256 = 206,720, 206,976, 207,232 ->
  // 4,134.4, 4,139.5, 4,144.6 ns (memory-bound: FLOPs 148,096 + 32,768 + 512 (c + 1) take under 470 ns),
  // + 1,000 each: 5,134, 5,140, 5,145 ns.
  EXPECT_EQ(r.steps[1].cost.bytes(), 206720.0);
  EXPECT_TRUE(r.steps[1].time.memory_bound);
  EXPECT_EQ(r.steps[1].dur_ns, 5134);
  EXPECT_EQ(r.steps[2].dur_ns, 5140);
  EXPECT_EQ(r.steps[3].dur_ns, 5145);
  EXPECT_EQ(r.steps[3].decode_tokens, 1);
  const auto& tokens = r.tokens.at(1);
  EXPECT_THAT(times(tokens), ::testing::ElementsAre(35856, 40990, 46130, 51275));
  EXPECT_TRUE(tokens[0].first);
  EXPECT_TRUE(tokens[3].finished);
  EXPECT_EQ(tokens[3].output_index, 4);
  // TPOT = (E2E - TTFT) / (4 - 1) = the mean decode step.
  EXPECT_DOUBLE_EQ((51275.0 - 35856) / 3, (5134.0 + 5140 + 5145) / 3);
  const EngineCounters& c = engine.counters();
  EXPECT_EQ(c.prompt_tokens, 100);
  EXPECT_EQ(c.generation_tokens, 4);
  EXPECT_EQ(c.requests_finished, 1);
  EXPECT_EQ(c.steps, 4);
  EXPECT_EQ(c.busy_ns, 51275);
  EXPECT_EQ(engine.gauges().kv_blocks_used, 0);  // freed at the finish
}

TEST(Engine, RequestsAreNotAdmittedBeforeTheyArrive) {
  Engine engine = make_engine(tiny_config(1000));
  ASSERT_TRUE(engine.add_request({.id = 7, .arrival_ns = 1'000'000, .prompt_tokens = 100, .max_output_tokens = 1}).ok());
  const StepResult& early = engine.step(0);
  EXPECT_TRUE(early.idle());
  EXPECT_EQ(early.record.dur_ns, 0);
  EXPECT_TRUE(early.tokens.empty());
  EXPECT_EQ(engine.gauges().waiting, 1);
  const StepResult& on_time = engine.step(1'000'000);
  ASSERT_EQ(on_time.tokens.size(), 1u);
  EXPECT_EQ(on_time.tokens[0].time_ns, 1'000'000 + 35856);  // the prefill step above
  EXPECT_TRUE(on_time.tokens[0].first && on_time.tokens[0].finished);
  EXPECT_EQ(engine.free_at_ns(), 1'035'856);
}

TEST(Engine, TwoRequestsArrivingTogetherShareEveryStep) {
  Engine engine = make_engine(tiny_config(1000));
  const SimRun r = simulate(engine, {{.id = 1, .arrival_ns = 0, .prompt_tokens = 100, .max_output_tokens = 3},
                             {.id = 2, .arrival_ns = 0, .prompt_tokens = 100, .max_output_tokens = 3}});
  ASSERT_EQ(r.steps.size(), 3u);
  // Both prefills in one step: 2 x 17,427,968 = 34,855,936 FLOPs -> 69,711.9 ns; the weights once, 180,864 +
  // 200 x 256 = 232,064 B -> 4,641.3 ns: 69,712 + 1,000 = 70,712 ns.
  EXPECT_EQ(r.steps[0].num_seqs, 2);
  EXPECT_EQ(r.steps[0].cost.flops, 34855936.0);
  EXPECT_EQ(r.steps[0].cost.bytes(), 232064.0);
  EXPECT_EQ(r.steps[0].dur_ns, 70712);
  // Decode of both at 100 then 101 cached: the weights once plus both caches, 180,864 + 2 x 101 x 256 =
  // 232,576 B -> 4,651.5 ns; then 180,864 + 2 x 102 x 256 = 233,088 B -> 4,661.8 ns. Batching two costs
  // 5,652 ns where one alone took 5,134: the weights are shared.
  EXPECT_EQ(r.steps[1].cost.bytes(), 232576.0);
  EXPECT_EQ(r.steps[1].dur_ns, 5652);
  EXPECT_EQ(r.steps[2].dur_ns, 5662);
  EXPECT_THAT(times(r.tokens.at(1)), ::testing::ElementsAre(70712, 76364, 82026));
  EXPECT_EQ(times(r.tokens.at(1)), times(r.tokens.at(2)));
}

TEST(Engine, FullKvCacheQueuesTheThirdRequestUntilOneFinishes) {
  // 4 blocks. Each request holds 2: prompt 24 and 8 outputs reach 24 + 8 - 1 = 31 cached tokens.
  Engine engine = make_engine(tiny_config(4));
  const SimRun r = simulate(engine, {{.id = 1, .arrival_ns = 0, .prompt_tokens = 24, .max_output_tokens = 8},
                             {.id = 2, .arrival_ns = 0, .prompt_tokens = 24, .max_output_tokens = 8},
                             {.id = 3, .arrival_ns = 0, .prompt_tokens = 24, .max_output_tokens = 8}});
  ASSERT_EQ(r.steps.size(), 16u);  // 8 steps of requests 1 and 2, then 8 of request 3
  EXPECT_EQ(r.steps[0].admitted, 2);
  EXPECT_EQ(r.steps[0].waiting, 1);  // room in max_num_seqs and the budget: only the KV cache is full
  EXPECT_EQ(r.steps[0].kv_blocks_used, 4);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(r.steps[i].num_seqs, 2) << "step " << i;
  EXPECT_EQ(r.steps[7].finished, 2);
  EXPECT_EQ(r.steps[7].kv_blocks_used, 0);
  EXPECT_EQ(r.steps[8].admitted, 1);
  // Steps 1-8: two prefills of 24 (2 x 3,740,672 FLOPs -> 14,962.7 ns, + 1,000 = 15,963), then decodes at
  // 24..30 cached, memory-bound: (180,864 + 2 x (c + 1) x 256) / 50 + 1,000 = 4,873, 4,884, 4,894, 4,904,
  // 4,914, 4,924, 4,935 ns: requests 1 and 2 end at 50,291 ns. Request 3's prefill alone: 148,096 x 24 +
  // 32,768 + 512 x 300 = 3,740,672 FLOPs -> 7,481.3 ns, + 1,000 = 8,481: TTFT 58,772 ns, all of 50,291 queueing.
  EXPECT_EQ(r.tokens.at(1).back().time_ns, 50291);
  EXPECT_EQ(r.steps[8].dur_ns, 8481);
  EXPECT_EQ(r.tokens.at(3).front().time_ns, 58772);
  EXPECT_TRUE(r.tokens.at(3).front().first);
  EXPECT_EQ(engine.counters().preemptions, 0);
  EXPECT_EQ(engine.counters().requests_finished, 3);
}

TEST(Engine, DecodeGrowthBeyondTheCachePreemptsTheNewestAndRecomputesIt) {
  // 4 blocks = 64 tokens. Prompts of 16 take 1 block each; 40 outputs reach 16 + 39 = 55 tokens (4 blocks),
  // so one request fits alone, two do not.
  Engine engine = make_engine(tiny_config(4));
  const SimRun r = simulate(engine, {{.id = 1, .arrival_ns = 0, .prompt_tokens = 16, .max_output_tokens = 40},
                             {.id = 2, .arrival_ns = 0, .prompt_tokens = 16, .max_output_tokens = 40}});
  // Step k (1-based) leaves 16 + k - 1 tokens cached per request: step 2 takes each one's second block (17
  // tokens); step 18 needs a third block for 33 tokens with none free, and request 1 preempts request 2, the
  // most recently admitted, freeing its 2 blocks.
  ASSERT_EQ(r.preempted.size(), 1u);
  EXPECT_EQ(r.preempted.begin()->first, 17u);  // step 18
  EXPECT_THAT(r.preempted.begin()->second, ::testing::ElementsAre(2u));
  EXPECT_EQ(r.steps[17].num_seqs, 1);
  EXPECT_EQ(r.steps[17].admitted, 0);
  EXPECT_EQ(r.steps[17].waiting, 1);
  // Request 2 had emitted 17 tokens; readmitting it needs its 16 + 17 = 33 tokens' 3 blocks, free only when
  // request 1 finishes at step 40. Step 41 recomputes 33 tokens alone: 148,096 x 33 + 32,768 + 512 x 561
  // pairs = 5,207,168 FLOPs -> 10,414.3 ns, + 1,000 = 11,414 ns, and emits request 2's 18th token.
  EXPECT_EQ(r.tokens.at(1).back().output_index, 40);
  EXPECT_EQ(r.steps[39].finished, 1);
  EXPECT_EQ(r.steps[40].admitted, 1);
  EXPECT_EQ(r.steps[40].prefill_tokens, 33);
  EXPECT_EQ(r.steps[40].dur_ns, 11414);
  const auto& second = r.tokens.at(2);
  ASSERT_EQ(second.size(), 40u);
  for (std::size_t i = 0; i < second.size(); ++i) EXPECT_EQ(second[i].output_index, static_cast<std::int64_t>(i) + 1);
  EXPECT_EQ(second[17].time_ns, r.tokens.at(1).back().time_ns + 11414);
  EXPECT_FALSE(second[17].first);  // the TTFT point was the original prefill
  ASSERT_EQ(r.steps.size(), 40u + 23u);  // request 2's tokens 18..40 take steps 41..63
  const EngineCounters& c = engine.counters();
  EXPECT_EQ(c.preemptions, 1);
  EXPECT_EQ(c.prompt_tokens, 32);       // each prompt once
  EXPECT_EQ(c.prefill_tokens, 16 + 16 + 33);  // the recomputation counted where it ran
  EXPECT_EQ(c.generation_tokens, 80);
}

TEST(Engine, ChunkedPrefillSplitsALongPromptByTheTokenBudget) {
  EngineConfig config = tiny_config(1000);
  config.max_num_batched_tokens = 64;
  config.max_num_seqs = 64;
  Engine engine = make_engine(config);
  const SimRun r = simulate(engine, {{.id = 1, .arrival_ns = 0, .prompt_tokens = 150, .max_output_tokens = 2}});
  ASSERT_EQ(r.steps.size(), 4u);
  EXPECT_THAT((std::vector<std::int64_t>{r.steps[0].prefill_tokens, r.steps[1].prefill_tokens,
                                         r.steps[2].prefill_tokens}),
              ::testing::ElementsAre(64, 64, 22));
  // Chunk {64, 0}: 148,096 x 64 + 512 x 2,080 pairs = 10,543,104 FLOPs (no LM head: nothing is sampled)
  // -> 21,086.2 ns. Chunk {64, 64}: 9,478,144 + 512 x (4,096 + 2,080) = 12,640,256 -> 25,280.5 ns. Chunk
  // {22, 128}: 148,096 x 22 + 32,768 + 512 x (2,816 + 253) = 4,862,208 -> 9,724.4 ns. The pairs add up to
  // the whole prompt's 150 x 151 / 2 = 11,325.
  EXPECT_EQ(r.steps[0].cost.flops, 10543104.0);
  EXPECT_EQ(r.steps[1].cost.flops, 12640256.0);
  EXPECT_EQ(r.steps[2].cost.flops, 4862208.0);
  EXPECT_EQ(r.steps[1].cost.bytes(), 180864.0 + 128 * 256);  // the first chunk's cache read, its own written
  EXPECT_THAT((std::vector<std::int64_t>{r.steps[0].dur_ns, r.steps[1].dur_ns, r.steps[2].dur_ns}),
              ::testing::ElementsAre(22086, 26281, 10724));
  // TTFT = the three chunks: 22,086 + 26,281 + 10,724 = 59,091 ns; then a decode at 150 cached: 180,864 + 151
  // x 256 = 219,520 B -> 4,390.4 ns, + 1,000.
  EXPECT_THAT(times(r.tokens.at(1)), ::testing::ElementsAre(59091, 59091 + 5390));
  EXPECT_TRUE(r.tokens.at(1).front().first);
}

TEST(Engine, DecodesGoFirstAndPrefillChunksFillTheRestOfTheBudget) {
  EngineConfig config = tiny_config(1000);
  config.max_num_batched_tokens = 64;
  config.max_num_seqs = 64;
  Engine engine = make_engine(config);
  const SimRun r = simulate(engine, {{.id = 1, .arrival_ns = 0, .prompt_tokens = 10, .max_output_tokens = 5},
                             {.id = 2, .arrival_ns = 0, .prompt_tokens = 150, .max_output_tokens = 1}});
  ASSERT_EQ(r.steps.size(), 5u);
  // Step 1: request 1's whole prompt (10) and 54 of request 2's. Then request 1 decodes first each step and
  // request 2 takes the other 63, then its last 150 - 54 - 63 = 33.
  EXPECT_EQ(r.steps[0].prefill_tokens, 64);
  EXPECT_EQ(r.steps[0].decode_tokens, 0);
  EXPECT_EQ(r.steps[1].decode_tokens, 1);
  EXPECT_EQ(r.steps[1].prefill_tokens, 63);
  EXPECT_EQ(r.steps[2].decode_tokens, 1);
  EXPECT_EQ(r.steps[2].prefill_tokens, 33);
  EXPECT_EQ(r.steps[3].num_seqs, 1);
  EXPECT_EQ(r.tokens.at(2).front().time_ns, r.steps[2].start_ns + r.steps[2].dur_ns);  // request 2's TTFT
  EXPECT_EQ(r.tokens.at(1).size(), 5u);
  EXPECT_EQ(r.tokens.at(1).front().time_ns, r.steps[0].dur_ns);  // request 1 was sampled in the first step
}

TEST(Engine, MaxNumSeqsCapsTheBatchWithKvToSpare) {
  EngineConfig config = tiny_config(1000);
  config.max_num_seqs = 2;
  Engine engine = make_engine(config);
  const SimRun r = simulate(engine, {{.id = 1, .arrival_ns = 0, .prompt_tokens = 16, .max_output_tokens = 3},
                             {.id = 2, .arrival_ns = 0, .prompt_tokens = 16, .max_output_tokens = 3},
                             {.id = 3, .arrival_ns = 0, .prompt_tokens = 16, .max_output_tokens = 3}});
  ASSERT_EQ(r.steps.size(), 6u);
  EXPECT_EQ(r.steps[0].admitted, 2);
  EXPECT_EQ(r.steps[0].running, 2);
  EXPECT_EQ(r.steps[0].waiting, 1);
  EXPECT_EQ(r.steps[0].kv_blocks_used, 2);  // of 1000: the sequence limit, not the cache, held request 3
  EXPECT_EQ(r.steps[2].finished, 2);
  EXPECT_EQ(r.steps[3].admitted, 1);
  EXPECT_EQ(r.tokens.at(3).front().time_ns, r.steps[3].start_ns + r.steps[3].dur_ns);
}

TEST(Engine, GaugesReportRunningWaitingAndKvUsage) {
  Engine engine = make_engine(tiny_config(4));
  for (std::uint64_t id = 1; id <= 3; ++id) {
    ASSERT_TRUE(engine.add_request({.id = id, .arrival_ns = 0, .prompt_tokens = 24, .max_output_tokens = 8}).ok());
  }
  EngineGauges g = engine.gauges();
  EXPECT_EQ(g.waiting, 3);
  EXPECT_EQ(g.kv_usage_ratio, 0.0);
  (void)engine.step(0);
  g = engine.gauges();
  EXPECT_EQ(g.running, 2);
  EXPECT_EQ(g.waiting, 1);
  EXPECT_EQ(g.kv_blocks_used, 4);
  EXPECT_EQ(g.kv_blocks_total, 4);
  EXPECT_EQ(g.kv_usage_ratio, 1.0);
  EXPECT_EQ(engine.counters().requests_added, 3);
}

TEST(Engine, AbortingARunningRequestFreesItsBlocksForTheQueue) {
  Engine engine = make_engine(tiny_config(4));
  for (std::uint64_t id = 1; id <= 3; ++id) {
    ASSERT_TRUE(engine.add_request({.id = id, .arrival_ns = 0, .prompt_tokens = 24, .max_output_tokens = 8}).ok());
  }
  const std::int64_t first_end = engine.step(0).record.dur_ns;  // requests 1 and 2 hold all 4 blocks
  EXPECT_TRUE(engine.abort_request(1));
  EXPECT_FALSE(engine.abort_request(1));   // gone
  EXPECT_FALSE(engine.abort_request(99));  // never added
  EXPECT_EQ(engine.gauges().kv_blocks_used, 2);
  const StepResult& next = engine.step(first_end);
  EXPECT_EQ(next.record.admitted, 1);  // request 3 takes request 1's blocks
  ASSERT_EQ(next.tokens.size(), 2u);
  EXPECT_EQ(next.tokens[0].request_id, 2u);  // request 2's decode first, then request 3's prefill
  EXPECT_EQ(next.tokens[1].request_id, 3u);
  EXPECT_TRUE(next.tokens[1].first);
  EXPECT_TRUE(engine.abort_request(3));
  EXPECT_EQ(engine.counters().requests_aborted, 2);
  EXPECT_EQ(engine.gauges().running, 1);
}

TEST(Engine, SameInputsGiveTheSameEvents) {
  const std::vector<Request> requests = {{.id = 1, .arrival_ns = 0, .prompt_tokens = 16, .max_output_tokens = 40},
                                         {.id = 2, .arrival_ns = 0, .prompt_tokens = 16, .max_output_tokens = 40},
                                         {.id = 3, .arrival_ns = 30'000, .prompt_tokens = 20, .max_output_tokens = 5}};
  Engine a = make_engine(tiny_config(4));
  Engine b = make_engine(tiny_config(4));
  const SimRun ra = simulate(a, requests);
  const SimRun rb = simulate(b, requests);
  ASSERT_EQ(ra.steps.size(), rb.steps.size());
  for (std::size_t i = 0; i < ra.steps.size(); ++i) {
    EXPECT_EQ(ra.steps[i].start_ns, rb.steps[i].start_ns);
    EXPECT_EQ(ra.steps[i].dur_ns, rb.steps[i].dur_ns);
  }
  for (const auto& [id, tokens] : ra.tokens) EXPECT_EQ(times(tokens), times(rb.tokens.at(id))) << "request " << id;
  EXPECT_EQ(ra.preempted, rb.preempted);
}

TEST(Engine, WeightsThatDoNotFitAreAnError) {
  EngineConfig config = tiny_config(0);
  config.chip.memory_capacity_bytes = 400'000;  // half usable: 200,000 B < the 213,632 B of weights
  const auto e = Engine::create(config);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "weights of 'tiny' need 214 kB per GPU at bf16 and tensor_parallel 1, more than the 200 kB usable (0.5 of "
            "the 400 kB of Test chip): raise tensor_parallel, quantize the weights, or use a chip with more memory");
}

TEST(Engine, BadConfigsAreErrorsNamingTheField) {
  EngineConfig config = tiny_config(10);
  config.max_num_batched_tokens = 128;  // below the default 256 sequences
  auto e = Engine::create(config);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, ::testing::StartsWith("max_num_batched_tokens 128 is below max_num_seqs 256"));

  config = tiny_config(10);
  config.tensor_parallel = 3;
  e = Engine::create(config);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "tensor_parallel 3 does not divide the 4 attention heads of 'tiny'");

  config = tiny_config(10);
  config.gpu_memory_utilization = 0;
  e = Engine::create(config);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "gpu_memory_utilization must be in (0, 1], got 0");

  config = tiny_config(10);
  config.weight_precision = model::Precision::kFp8;  // the test chip has only a bf16 peak
  e = Engine::create(config);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "chip 'test-chip' has no fp8 peak (it has: bf16)");
}

TEST(Engine, RequestsThatCouldNeverRunAreRejected) {
  Engine engine = make_engine(tiny_config(4));  // 64 tokens of KV
  core::Status s = engine.add_request({.id = 5, .arrival_ns = 0, .prompt_tokens = 0, .max_output_tokens = 1});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "request 5: prompt_tokens must be at least 1, got 0");
  s = engine.add_request({.id = 5, .arrival_ns = 0, .prompt_tokens = 10, .max_output_tokens = 0});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "request 5: max_output_tokens must be at least 1, got 0");
  s = engine.add_request({.id = 6, .arrival_ns = 0, .prompt_tokens = 4000, .max_output_tokens = 100});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, ::testing::HasSubstr("4000 prompt + 100 output tokens exceed the 4096-token context"));
  // 60 + 10 - 1 = 69 tokens need 5 blocks; 60 + 5 - 1 = 64 need exactly the 4 there are.
  s = engine.add_request({.id = 7, .arrival_ns = 0, .prompt_tokens = 60, .max_output_tokens = 10});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, ::testing::HasSubstr("need 5 KV blocks of 16 tokens, more than the 4 the cache holds"));
  EXPECT_TRUE(engine.add_request({.id = 8, .arrival_ns = 100, .prompt_tokens = 60, .max_output_tokens = 5}).ok());
  s = engine.add_request({.id = 9, .arrival_ns = 50, .prompt_tokens = 1, .max_output_tokens = 1});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.error().message, ::testing::HasSubstr("arrival_ns 50 is before the previous request's 100"));
  EXPECT_EQ(engine.counters().requests_added, 1);
}

}  // namespace
}  // namespace perfhound::sim
