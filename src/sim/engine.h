// An iteration-level continuous-batching engine model after vLLM V1's scheduler
// (vllm/v1/core/sched/scheduler.py, Scheduler.schedule), with paged KV blocks and a roofline step time. Pure:
// no threads and no clock. The caller owns simulated time: it adds requests as they arrive and calls
// step(now_ns) whenever the engine is free (now_ns >= free_at_ns()); a step's events are stamped at its end.
//
// One step, as vLLM V1 schedules it (V1 has no prefill or decode phase: a sequence just has tokens whose KV
// is not computed yet):
//  1. Running sequences, in admission order, each take their uncomputed tokens from the step's token budget
//     (max_num_batched_tokens): one for a decode, the rest of the prompt (capped by what is left of the
//     budget) for a sequence mid-prefill: chunked prefill. If those tokens need a KV block and none is free,
//     the most recently admitted running sequence is preempted (recompute: its blocks are freed, it goes back
//     to the front of the waiting queue, and when readmitted it prefills its prompt and the tokens it already
//     generated, then goes on generating; tokens already emitted are not emitted again). A sequence that
//     would have to preempt itself is preempted, and the pass ends.
//  2. Only if nothing was preempted: waiting requests whose arrival_ns <= now_ns are admitted first come,
//     first served while running < max_num_seqs, budget is left, and the KV blocks of their first chunk are
//     free; the head of the queue blocks those behind it.
//  3. The step lasts step_time() of model::step_cost over the scheduled chunks (step_time.h).
//  4. At its end every scheduled sequence whose KV now covers all its tokens samples one token. The first is
//     the TTFT point (end of the step that completes the prefill). A request finishes when it has
//     max_output_tokens: ignore_eos semantics, no EOS is drawn, so every request generates exactly
//     max_output_tokens; its blocks are freed at the end of that step.
// Deterministic: the same config, requests and step times give the same events.
//
// Not modelled: prefix caching, speculative decoding, swap preemption (V1 only recomputes), priority
// scheduling, async scheduling (host work overlapping the GPU), the memory vLLM's profiling run reserves (see
// kv_capacity.h), and EOS.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "core/result.h"
#include "hw/chip_spec.h"
#include "model/transformer_math.h"
#include "sim/engine_config.h"
#include "sim/kv_capacity.h"
#include "sim/step_time.h"

namespace perfhound::sim {

struct Request {
  std::uint64_t id = 0;  // the caller's; echoed in events, not checked for uniqueness
  std::int64_t arrival_ns = 0;
  std::int64_t prompt_tokens = 0;      // >= 1
  std::int64_t max_output_tokens = 0;  // >= 1; generated exactly (ignore_eos)
};

// One generated token of one request.
struct TokenEvent {
  std::uint64_t request_id = 0;
  std::int64_t time_ns = 0;       // end of the step that sampled it
  std::int64_t output_index = 0;  // 1-based; 1 is the first token (TTFT)
  bool first = false;             // output_index == 1
  bool finished = false;          // the request's last token (output_index == max_output_tokens)
};

// What one step did, for per-step records and traces.
struct StepRecord {
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;          // 0 for an idle step
  std::int64_t num_seqs = 0;        // sequences in the batch; 0: idle, nothing was runnable
  std::int64_t prefill_tokens = 0;  // prompt tokens computed, including chunks and recomputation
  std::int64_t decode_tokens = 0;   // sequences that computed their one last-sampled token
  std::int64_t admitted = 0;
  std::int64_t preempted = 0;
  std::int64_t finished = 0;
  std::int64_t running = 0;         // after the step
  std::int64_t waiting = 0;         // after the step
  std::int64_t kv_blocks_used = 0;  // after the step (finished requests' blocks freed)
  model::StepCost cost;             // per GPU
  StepTime time;
};

struct StepResult {
  StepRecord record;
  std::vector<TokenEvent> tokens;            // in batch order: running sequences, then the admitted
  std::vector<std::uint64_t> preempted_ids;  // back in the waiting queue, to be recomputed

  bool idle() const { return record.num_seqs == 0; }
};

// Monotonic counters, named as vLLM's Prometheus metrics are (vllm:<name>_total).
struct EngineCounters {
  std::int64_t steps = 0;              // non-idle steps
  std::int64_t busy_ns = 0;            // sum of their durations
  std::int64_t prompt_tokens = 0;      // each request's prompt once, when its first token is emitted (vLLM's)
  std::int64_t prefill_tokens = 0;     // prompt tokens computed, recomputation after preemption included
  std::int64_t generation_tokens = 0;  // tokens emitted
  std::int64_t preemptions = 0;
  std::int64_t requests_added = 0;
  std::int64_t requests_finished = 0;  // all with finish reason "length" (ignore_eos)
  std::int64_t requests_aborted = 0;   // abort_request
};

struct EngineGauges {
  std::int64_t running = 0;  // vllm:num_requests_running
  std::int64_t waiting = 0;  // vllm:num_requests_waiting: queued, preempted ones included
  std::int64_t kv_blocks_used = 0;
  std::int64_t kv_blocks_total = 0;
  double kv_usage_ratio = 0;  // 0..1, vllm:kv_cache_usage_perc
};

class Engine {
 public:
  // Errors: an invalid config (validate), a chip without a peak for the weight precision, weights that do not
  // fit (kv_capacity).
  static core::Result<Engine> create(EngineConfig config);

  // Queues a request behind those already waiting. Errors, quoting the request id: prompt_tokens or
  // max_output_tokens below 1; prompt + output beyond the model's max_position_embeddings (vLLM's
  // max_model_len check); more KV than the whole cache (prompt + output - 1 tokens: the last token's KV is
  // never computed), which could never run; arrival_ns before the previous request's.
  core::Status add_request(const Request& request);

  // Drops a request that is waiting or running (the client went away, as vLLM aborts on disconnect) and frees
  // its KV blocks; it emits nothing more. Returns false when no unfinished request has that id. Call between
  // steps: the last step's events stay valid.
  bool abort_request(std::uint64_t id);

  // Runs one step starting at now_ns (>= free_at_ns(), else an internal error). Returns the engine's own
  // buffer, valid until the next step(); it is reused, so steady-state steps allocate nothing. Nothing
  // runnable (no running request, none arrived): an idle record of zero duration and no events.
  const StepResult& step(std::int64_t now_ns);

  bool has_unfinished_requests() const { return !running_.empty() || !waiting_.empty(); }
  std::int64_t free_at_ns() const { return free_at_ns_; }  // end of the last step

  const EngineCounters& counters() const { return counters_; }
  EngineGauges gauges() const;
  const EngineConfig& config() const { return config_; }
  const KvCapacity& kv_capacity() const { return capacity_; }
  const hw::Roof& compute_roof() const { return compute_roof_; }
  const hw::Roof& memory_roof() const { return memory_roof_; }

 private:
  struct Sequence {
    Request request;
    std::int64_t tokens = 0;     // prompt + generated: tokens whose KV must exist before the next sample
    std::int64_t computed = 0;   // tokens whose KV is in the cache
    std::int64_t generated = 0;  // tokens emitted so far (kept across preemption)
    std::int64_t blocks = 0;     // KV blocks held
  };
  struct Scheduled {
    std::size_t running_index = 0;
    std::int64_t new_tokens = 0;
  };

  Engine(EngineConfig config, KvCapacity capacity, hw::Roof compute, hw::Roof memory);
  std::int64_t blocks_for(std::int64_t tokens) const;
  void schedule(std::size_t running_index, std::int64_t new_tokens);
  void preempt_last_running();

  EngineConfig config_;
  model::ParameterCount params_;
  model::Workload workload_;  // precisions and tensor parallel degree for step_cost
  KvCapacity capacity_;
  hw::Roof compute_roof_, memory_roof_;
  StepTimeModel time_model_;

  std::deque<Sequence> waiting_;
  std::vector<Sequence> running_;  // admission order: the back is preempted first
  std::int64_t free_blocks_ = 0;
  std::int64_t free_at_ns_ = 0;
  std::int64_t last_arrival_ns_ = 0;
  EngineCounters counters_;

  // Per-step scratch, reused.
  std::vector<Scheduled> scheduled_;
  std::vector<model::SequenceChunk> chunks_;
  StepResult result_;
};

}  // namespace perfhound::sim
