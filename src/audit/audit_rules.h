// The rules `perfhound audit` checks a claim against: the honest-benchmarking rules and the traps of
// Knowledge 06 (sections 5, 7 and 10), each a named check with a severity, the seed section it comes from and
// a remedy. docs/audit.md lists the same table, with each rule's thresholds and why. Pure: a Claim in,
// findings out.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "audit/claim.h"
#include "core/diagnostics.h"

namespace perfhound::audit {

struct AuditRule {
  std::string_view id;  // kebab-case, stable: scripts match on it
  core::Severity severity;
  std::string_view seed;     // "Knowledge 06 §7.7"
  std::string_view meaning;  // what the rule checks
  std::string_view remedy;
};

inline constexpr AuditRule kConditionsMissing{
    "conditions-missing", core::Severity::kSevere, "Knowledge 06 §7.7",
    "a condition the number depends on is not stated (model, precision, hardware, batch or serving load, input "
    "and output lengths, framework and its version): a number without conditions is noise",
    "state it with the number, where the file's format keeps it (docs/audit.md: a claim file's conditions, "
    "vllm bench serve's --metadata)"};
inline constexpr AuditRule kThroughputWithoutLatency{
    "throughput-without-latency", core::Severity::kSevere, "Knowledge 06 §7.6, §10",
    "a throughput is quoted with no latency at all: tokens/s at a huge batch with a 10-second TTFT is useless "
    "for interactive use",
    "quote TTFT and TPOT percentiles (p50/p95/p99) at the same load, or the goodput under an SLO"};
inline constexpr AuditRule kMeanWithoutTail{
    "mean-without-tail", core::Severity::kSevere, "Knowledge 06 §7.3, §10",
    "a latency is quoted as a mean or median with no tail percentile (p90 or above): users live in the tail",
    "report p50, p95 and p99 beside the mean"};
inline constexpr AuditRule kNoWarmup{
    "no-warmup", core::Severity::kWarning, "Knowledge 06 §7.1",
    "no warm-up was discarded, or the file does not say: first iterations include context creation, "
    "autotuning, CUDA graph capture and cold caches",
    "discard a warm-up (perfhound load --warmup, vllm bench serve --num-warmups, genai-perf "
    "--warmup-request-count) and record it with the result"};
inline constexpr AuditRule kUnrealisticLengths{
    "unrealistic-lengths", core::Severity::kSevere, "Knowledge 06 §7.5, §10",
    "the input or output length is far from a real workload (output under 32 tokens hides the decode cost, "
    "input under 64 tokens the prefill cost), or from the workload the claim says it is for",
    "benchmark the customer's real length distribution (a dataset or an arrival trace), or at least "
    "lengths like 2000 in / 500 out"};
inline constexpr AuditRule kSpecSheetRoof{
    "spec-sheet-roof", core::Severity::kWarning, "Knowledge 06 §6, §10",
    "an MFU, MBU or roofline figure is judged against the spec sheet's theoretical peak, not a measured or "
    "sustained one: real workloads see a fraction of it, so the headroom it implies is not there",
    "measure the achievable roof on the device (a GEMM / copy benchmark, ncu's measured ceilings) and judge "
    "against that, or say plainly that the roof is the spec sheet's"};
inline constexpr AuditRule kSparsePeakRoof{
    "sparse-peak-roof", core::Severity::kSevere, "Knowledge 06 §10",
    "the roof is the vendor's 'with sparsity' figure, twice the dense peak: dense inference never reaches it",
    "use the dense peak (perfhound hw lists it) or, better, a measured one"};
inline constexpr AuditRule kPrecisionMismatch{
    "precision-mismatch", core::Severity::kSevere, "Knowledge 06 §10",
    "the claim and its baseline ran at different precisions (their FP8 against your FP16) and the claim does "
    "not say that precision is what it compares",
    "compare at the same precision, or state the precisions in the claim ('at FP8 vs FP16') and set variable: "
    "precision"};
inline constexpr AuditRule kBaselineConditionsDiffer{
    "baseline-conditions-differ", core::Severity::kSevere, "Knowledge 06 §7.4",
    "the claim and its baseline differ in a condition other than the one the comparison is about (hardware, "
    "model, batch or load, input/output lengths, framework version)",
    "fix everything that is not the variable: rerun the baseline under the claim's conditions"};
inline constexpr AuditRule kSingleRun{
    "single-run", core::Severity::kWarning, "Knowledge 06 §7 (honesty standard), §7.4",
    "the headline number comes from one run with no spread (no stddev, no confidence interval over runs): "
    "run-to-run noise of a few percent can make or undo the claim",
    "repeat the measurement (3 or more runs, clocks locked) and quote the spread or a confidence interval"};
inline constexpr AuditRule kFewSamplesForTail{
    "few-samples-for-tail", core::Severity::kWarning, "Knowledge 06 §7.3",
    "a tail percentile rests on too few samples to be more than the largest value (p99 needs 100, p99.9 "
    "1000, pQ 1 / (1 - Q/100))",
    "measure more requests or iterations before quoting that percentile"};
inline constexpr AuditRule kUnboundedLoad{
    "unbounded-load", core::Severity::kWarning, "Knowledge 06 §8, §10",
    "every request was sent at once (request rate inf, no concurrency cap): the throughput is the server's "
    "best-case batch and the latencies are mostly queueing, a load no user produces",
    "sweep a request rate or a concurrency (perfhound sweep, or vllm bench serve --request-rate / "
    "--max-concurrency) and quote the curve"};
inline constexpr AuditRule kRequestsFailed{
    "requests-failed", core::Severity::kWarning, "Knowledge 06 §8",
    "some requests failed, and the figures are over the completed ones only: a server shedding load looks "
    "faster than it is",
    "read the errors; quote the failure rate with the figures, or the goodput, which counts failures"};
inline constexpr AuditRule kSourceInvalid{
    "source-invalid", core::Severity::kSevere, "Knowledge 06 §7 (honesty standard)",
    "the tool that measured the figures itself marked them untrustworthy (INVALID, client-limited, "
    "partial, a severe diagnostic)",
    "fix what the tool's diagnostic says and measure again"};
inline constexpr AuditRule kUtilizationAsEfficiency{
    "utilization-as-efficiency", core::Severity::kWarning, "Knowledge 06 §5, §10",
    "the claim quotes GPU utilization (nvidia-smi's 'a kernel was resident') as efficiency: 100% util can be "
    "5% MFU",
    "quote MFU for prefill and MBU for decode instead"};
inline constexpr AuditRule kDecodeJudgedByMfu{
    "decode-judged-by-mfu", core::Severity::kWarning, "Knowledge 06 §5",
    "a decode figure is judged by MFU without MBU: decode is memory-bound, so its MFU is supposed to be low",
    "judge decode by MBU (bytes the model must read / (peak bandwidth x time)); prefill by MFU"};
inline constexpr AuditRule kUnsynchronizedTiming{
    "unsynchronized-timing", core::Severity::kSevere, "Knowledge 06 §7.2",
    "the timer stopped without waiting for the device: GPU work is asynchronous, so it measured the launch, "
    "not the execution",
    "synchronize before stopping the timer (torch.cuda.synchronize()) or time with CUDA events"};

// Every rule, in the order findings are listed.
std::span<const AuditRule* const> all_audit_rules();

struct Finding {
  Finding(const AuditRule* r, std::string w, std::string format_remedy = {})
      : rule(r), what(std::move(w)), remedy(std::move(format_remedy)) {}

  const AuditRule* rule;
  std::string what;    // the specific problem, e.g. "precision is not stated"
  std::string remedy;  // the fix for this file's format when it differs from the rule's; empty: the rule's

  std::string_view remedy_text() const { return remedy.empty() ? rule->remedy : std::string_view(remedy); }
};

// Checks, thresholds and their reasons (all in tokens; docs/audit.md says why each value):
inline constexpr double kMinRealisticOutputLen = 32;  // below: the output is a few decode steps
inline constexpr double kMinRealisticInputLen = 64;   // below: shorter than a system prompt and a question
inline constexpr double kMaxTargetLengthRatio = 2;    // farther than 2x from the target workload's lengths
// Peaks within this fraction of a catalogue figure are that figure (datasheets round to 3-4 digits).
inline constexpr double kPeakMatchTolerance = 0.01;

// All findings for the claim, in rule order. Never fails: a claim the rules cannot judge on some point
// (a field not stated) either is the finding (conditions-missing) or passes that rule.
std::vector<Finding> audit_claim(const Claim& claim);

bool has_severe(const std::vector<Finding>& findings);
nlohmann::ordered_json findings_to_json(const std::vector<Finding>& findings);
nlohmann::ordered_json rules_to_json();  // the registry, for docs and scripts

}  // namespace perfhound::audit
