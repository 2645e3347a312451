// The bottleneck-hunting playbook (Knowledge 06 section 9) as an explicit decision tree over the Evidence
// the inputs carry. The tree is data: a table of nodes (playbook_nodes()), each with its question, the
// evidence it reads, the seed section it follows, its branches (each with a finding, the next node or the
// fix to try, and when to stop) and where the walk goes when the evidence is absent. A node's decide
// function only picks a branch and states the numbers; walking, wording and output are the same for all.
//
//   goal            which metric is being optimized: TTFT, TPOT, throughput/goodput or a step time (1)
//   measurement     can the numbers be trusted at all: VALID, not client-limited, few failures, no
//                   result beating the roof (fix the measurement first: seed section 7, section 10)
//   slo             is a latency goal already met (section 9 step 5: stop at the SLO)
//   serving         does load cost waiting (TTFT grows, TPOT flat: queueing) or step time (TPOT grows)
//   capacity        do weights and KV cache fit (the fourth class, section 2)
//   busy_idle       is the GPU busy or idle, and idle waiting on what (section 9 step 2, section 4)
//   overhead        idle with the host busy: launching, synchronizing, untraced work, device-side gaps
//   roofline        where the dominant kernels sit (section 9 step 3, section 6)
//   bandwidth_roof  memory-bound: how close to the bandwidth roof (MBU, section 5)
//   compute_roof    compute-bound: how close to the compute roof (MFU, section 5)
//
// Thresholds are named constants below, each with its reason; docs/diagnose.md draws the tree. Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "diagnose/evidence.h"

namespace perfhound::diagnose {

// ---- Thresholds (each also in docs/diagnose.md).

// A memory-bound step or kernel is at the bandwidth roof from 75% of it: the seed says "MBU ~80%+ you're
// near the bandwidth roofline" and calls 75% "as hard as physics allows"; 75% leaves room for the
// achievable ceiling being below the spec sheet (H200: 4.06 of 4.8 TB/s measured copy, 85%). The same
// value as model::kAtBandwidthRoof, so `mfu` and `diagnose` never disagree.
inline constexpr double kAtBandwidthRoof = 0.75;
// A compute-bound step is well tuned from MFU 40%: the seed's "well-tuned prefill hits 40-70%" (a step also
// runs norms, softmax and elementwise work off the tensor cores). model::kWellTunedMfu.
inline constexpr double kAtComputeRoofMfu = 0.40;
// A single compute-bound kernel is at the roof from 70% of attainable: the reference H200's best bf16 GEMM
// reaches 758 of 989 TFLOP/s (77%, tests/data/traces/h200/info.json), so 70% is within a tenth of what the
// best kernel achieves against the spec sheet.
inline constexpr double kAtComputeRoofKernel = 0.70;
// A whole step below 30% of its binding roof is "far below both" (seed section 6 step 5): the same value
// as model::kFarBelowRoof. Per kernel the roofline's own 50% applies (roofline::kBelowBothFraction).
inline constexpr double kStepFarBelowRoof = 0.30;
// A measurement above 105% of a roof beat it: the inputs, not the kernel, are wrong (model::kBeatsRoof).
inline constexpr double kBeatsRoof = 1.05;
// Failed requests at or above 1% of the measured ones make the latency percentiles untrustworthy: the p99
// describes the slowest 1%, and failures (timeouts above all) are the slow requests the distribution lost.
inline constexpr double kFailedShareMatters = 0.01;
// Queueing: from the lightest to the heaviest load, TTFT grew at least 2x as much as TPOT did. A request's
// prefill slows with the batch about as much as its decode steps do, so TTFT growing in step with TPOT is
// the step getting slower; growth beyond twice TPOT's is time spent waiting for a slot (an M/M/1 queue's
// wait equals its service time at 50% utilization: doubling is the onset of queueing).
inline constexpr double kQueueingGrowthRatio = 2.0;
// TPOT growing at least 1.25x across the loads is the step getting slower with the batch: the same 1.25x
// "worth fixing" bound as trace::kBusyEnough (removing every gap of an 80%-busy GPU gains 1.25x).
inline constexpr double kTpotGrowthMatters = 1.25;

// ---- The goal.

enum class Goal { kTtft, kTpot, kThroughput, kStep };

std::string_view goal_name(Goal goal);  // "ttft", "tpot", "throughput", "step"
// "ttft", "tpot", "throughput" (also "goodput"), "step"; the error lists the choices.
core::Result<Goal> parse_goal(std::string_view text);

// ---- The tree.

enum class NodeId {
  kGoal,
  kMeasurement,
  kSlo,
  kServing,
  kCapacity,
  kBusyIdle,
  kOverhead,
  kRoofline,
  kBandwidthRoof,
  kComputeRoof
};

struct Branch {
  std::string id;                  // "launch-bound", stable for JSON and tests
  std::string finding;             // what taking it means, in the seed's words
  std::optional<NodeId> next;      // the next question; nullopt: the walk ends here
  std::vector<std::string> fixes;  // at an end: the next measurement or change, in the order to try
  std::string stop_when;           // at an end: when to stop optimizing along this branch
  bool stop = false;               // the branch itself says stop: at the roof or at the SLO
};

struct WalkState {
  Goal goal = Goal::kStep;
  bool goal_inferred = true;
  std::string reason;  // "given with --goal tpot", "inferred: the mfu result 'm.json' is a decode step ..."
};

enum class StepStatus {
  kDecided,        // a branch was taken on the evidence
  kMissing,        // the evidence that decides it is absent: the hint names the input
  kNotApplicable,  // the question does not arise for these inputs and this goal
};

struct Decision {
  StepStatus status = StepStatus::kDecided;
  std::string branch;                 // when decided
  std::string finding;                // when decided: the branch's finding with the numbers (empty: the table's)
  std::vector<std::string> evidence;  // the numbers behind the branch (or behind "not applicable")
  std::vector<std::string> detail;    // extra next steps that need the inputs' names and numbers
  std::string hint;                   // when missing: which input would decide it, as a command
};

struct Node {
  NodeId id;
  std::string name;      // "busy_idle"
  std::string question;  // "Is the GPU busy or idle?"
  std::string reads;     // the evidence it reads: "trace: verdict, busy / active span, idle split"
  std::string seed;      // "section 9 step 2; section 4"
  std::vector<Branch> branches;
  std::optional<NodeId> when_absent;  // where the walk goes when missing or not applicable; nullopt: it ends
  Decision (*decide)(const Evidence&, const WalkState&);
};

// Every node, in walk order (the first is the root). Built once.
std::span<const Node> playbook_nodes();
const Node& playbook_node(NodeId id);

// ---- The walk.

struct Step {
  const Node* node = nullptr;
  Decision decision;
  const Branch* branch = nullptr;  // when decided
};

struct Diagnosis {
  WalkState goal;
  std::vector<Step> path;         // every node visited, in order
  std::string conclusion;         // the final branch's finding, or the undecided question
  std::vector<std::string> next;  // the next measurements and changes, in order
  std::string stop_when;
  bool stop = false;                 // at the roof or at the SLO: further work is wasted
  std::vector<std::string> missing;  // hints for every question the inputs could not decide
};

// Walks the tree from the root. `goal` from --goal, or nullopt to infer it from the evidence.
Diagnosis diagnose(const Evidence& evidence, std::optional<Goal> goal);

std::string_view step_status_name(StepStatus status);  // "decided", "missing", "not_applicable"

// The diagnosis: goal, path (node, question, status, branch, evidence, hint), conclusion, next, stop.
nlohmann::ordered_json to_json(const Diagnosis& diagnosis);

}  // namespace perfhound::diagnose
