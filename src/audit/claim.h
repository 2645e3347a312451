// A benchmark claim as `perfhound audit` judges it: the numbers a file states and the conditions it states
// them under, normalised from whichever format stated them (a perfhound result, a vllm bench serve result, a
// genai-perf export or a claim file; docs/audit.md maps each format's fields onto these). Every importer fills
// this one struct and the rules (audit/audit_rules.h) read only it.
//
// Units: latencies in seconds, rates per second, lengths in tokens, peaks in FLOP/s or bytes/s. An unset
// optional means "the file does not say", which the rules treat differently from a stated zero.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfhound::audit {

// The seed's (Knowledge 06 section 7.7) conditions, plus the load a serving figure was taken at.
struct ClaimConditions {
  std::optional<std::string> model;
  std::optional<std::string> precision;
  std::optional<std::string> hardware;
  std::optional<std::string> framework;          // "vLLM", "TensorRT-LLM", "perfhound serve"
  std::optional<std::string> framework_version;  // "0.6.3"
  std::optional<double> batch;                   // an offline / kernel batch size
  // The serving load, which stands for the batch of a serving figure: the closed-loop concurrency or the
  // cap on requests in flight, the open-loop arrival rate (+inf: every request sent at once), and the load
  // in words as the source said it ("closed loop, concurrency 4").
  std::optional<double> concurrency;
  std::optional<double> request_rate_per_s;
  std::string load;
  std::optional<double> input_len;   // tokens; the mean when lengths vary
  std::optional<double> output_len;  // tokens; the mean when lengths vary

  bool load_stated() const {
    return batch.has_value() || concurrency.has_value() || request_rate_per_s.has_value() || !load.empty();
  }
};

// One latency metric's distribution as the file states it. Nothing stated at all is "no figure".
struct LatencyFigure {
  std::string metric;  // "ttft", "tpot", "itl", "e2e", or a claim file's own name
  std::optional<double> mean_s;
  std::optional<double> stddev_s;
  std::map<double, double> percentiles_s;  // 50 -> the median, 99 -> p99, ...
  std::optional<std::int64_t> samples;     // how many values the distribution rests on, when known

  // The highest percentile stated at or above p90 (a tail), or none.
  std::optional<double> highest_tail_percentile() const;
};

// A roof an MFU, MBU or roofline figure is judged against.
struct RoofFigure {
  enum class Resource { kCompute, kMemory };
  Resource resource = Resource::kCompute;
  std::optional<double> peak;     // FLOP/s (compute) or bytes/s (memory); unset when the file names only the source
  std::string precision;          // compute: the math precision the peak is for ("bf16"); may be empty
  std::optional<bool> measured;   // stated measured (true), stated spec sheet (false), or not stated
  std::string source;             // as the file states it
};

// What a comparison ("2.3x faster than ...") compares against.
struct Baseline {
  std::string label;
  std::optional<double> value;
  ClaimConditions conditions;
};

// What the figures are of, which decides the rules that apply to them. A serving benchmark (requests through
// a server) is judged on every condition of section 7.7 and on its workload's lengths. One model step (an
// MFU / MBU of a prefill or a decode step) states a model, a precision, the hardware, a batch and a context,
// but it is no workload: a prefill step has no output and a decode step's 16 tokens are not "almost all
// prefill". A micro-benchmark of a kernel or a function (perfhound.bench, roofline, stats) has only the
// hardware it ran on: a model, a framework and token lengths mean nothing there.
enum class Subject { kServing, kModelStep, kMicrobenchmark };

struct Claim {
  std::string path;    // the file, as the user named it
  std::string format;  // "perfhound.load", "vllm bench serve", "genai-perf", "claim file"
  Subject subject = Subject::kServing;

  std::string statement;  // a claim file's own words ("2.3x faster"); empty for result files
  std::string metric;     // the headline metric, e.g. "output_tokens_per_s", "mfu"; empty when there is none
  std::optional<double> value;
  std::string phase;  // "prefill", "decode" or empty

  ClaimConditions conditions;

  // Throughput figures stated.
  std::optional<double> requests_per_s;
  std::optional<double> output_tokens_per_s;
  std::optional<double> total_tokens_per_s;
  std::vector<LatencyFigure> latencies;

  // Method.
  std::optional<bool> warmup_discarded;  // true: some warm-up was discarded; false: stated none
  std::string warmup;                    // the warm-up as stated ("10 requests", "5 s")
  std::optional<std::int64_t> runs;      // independent repetitions of the whole measurement
  bool spread_stated = false;            // a stddev or confidence interval over runs, for the headline
  std::optional<bool> synchronized;      // a claim file's statement that timers waited for the device
  std::optional<std::int64_t> completed;
  std::optional<std::int64_t> failed;

  // Efficiency.
  std::vector<RoofFigure> roofs;
  std::optional<double> mfu;  // 0..1
  std::optional<double> mbu;  // 0..1

  // Comparison.
  std::optional<Baseline> baseline;
  std::string variable;  // what the comparison varies on purpose ("precision", "framework", ...)

  // The workload the claim is meant for (a claim file's target_workload), in tokens.
  std::optional<double> target_input_len;
  std::optional<double> target_output_len;

  // What the source tool itself flagged as making the figures untrustworthy (perfhound's severe
  // diagnostics, an INVALID verdict, a partial run), one line each.
  std::vector<std::string> source_flags;
  // How fields were derived where the file did not state them directly, one line each.
  std::vector<std::string> notes;

  bool states_throughput() const;
  // Whether any latency figure is stated (a mean, a stddev or a percentile).
  bool states_latency() const;
  bool is_comparison() const { return baseline.has_value(); }
  // Whether anything was measured: a figure, a throughput, a latency, an MFU or MBU. perfhound mfu without a
  // measured time states the roofline bound alone, which is arithmetic: no framework ran it, no warm-up applies.
  bool states_a_measurement() const;
};

// "serving", "model step", "micro-benchmark": the audit document's claim.subject.
std::string_view subject_name(Subject subject);

// The claim as the audit document's "claim" object: every condition and figure, null where not stated.
nlohmann::ordered_json claim_to_json(const Claim& claim);

}  // namespace perfhound::audit
