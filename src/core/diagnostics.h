// The one registry of named diagnostics (STYLE.md rules 9 and 12): every warning perfhound can attach to a
// result, with its severity, what it means and what to do. Results carry a list of Diagnostic; the terminal
// prints them after the numbers, JSON writes them under "diagnostics". docs/diagnostics.md lists the same.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace perfhound::core {

enum class Severity { kInfo, kWarning, kSevere };

struct DiagnosticKind {
  std::string_view id;  // kebab-case, stable: scripts match on it
  Severity severity;
  std::string_view meaning;
  std::string_view remedy;
};

// Tail percentiles from few samples are mostly the largest one or two values (p99 of 50 samples is an
// interpolation between the two largest): hyperfine and nvbench warn for the same reason.
inline constexpr DiagnosticKind kFewSamplesForTail{
    "few-samples-for-tail", Severity::kWarning,
    "p99 (or p99.9) rests on fewer than 100 (1000) samples beyond the median, so it is little more than the maximum",
    "collect more samples before quoting the tail"};
inline constexpr DiagnosticKind kNoWarmupDiscarded{
    "no-warmup-discarded", Severity::kInfo,
    "no leading samples were discarded as warm-up; first iterations often include context creation, "
    "autotuning and cold caches",
    "pass --warmup N if the samples are in measurement order"};
inline constexpr DiagnosticKind kHighVariability{
    "high-variability", Severity::kWarning,
    "the coefficient of variation (stddev / mean) exceeds 0.2: the samples are noisy or from more than one mode",
    "check for interference (other tenants, clocks, thermal) or split the samples by phase"};

// Trace importers count events of categories they do not read (STYLE.md rule 9: nothing dropped silently).
inline constexpr DiagnosticKind kUnknownCategory{
    "unknown-category", Severity::kInfo,
    "events of a category perfhound does not read were counted and left out of the analysis",
    "none needed unless that category is GPU work (e.g. another accelerator's): then it is not in the verdict"};

// perfhound record --capture-range records only between the program's cudaProfilerStart and Stop: whatever ran
// between two windows is missing from the trace, and an analysis over both reads that stretch as an idle GPU.
inline constexpr DiagnosticKind kCaptureWindows{
    "capture-windows", Severity::kWarning,
    "the analyzed span holds several capture windows (perfhound record --capture-range): the time between them "
    "was not recorded and counts as idle GPU time",
    "analyze one window at a time: --range 'perfhound capture window' --range-index N"};

// perfhound record counts the records CUPTI had no buffer for: lost kernels and copies read as idle GPU time.
inline constexpr DiagnosticKind kRecordsDropped{
    "records-dropped", Severity::kWarning,
    "the recorder lost records (perfhound record: CUPTI had no buffer free), so some GPU work is missing from the "
    "trace and counts as idle time",
    "record again with larger buffers (perfhound record --buffer-mb) or a shorter run (--capture-range)"};

// A measurement faster than the chip's roof is a wrong input, not a fast kernel.
inline constexpr DiagnosticKind kBeatsTheRoof{
    "beats-the-roof", Severity::kSevere,
    "the measured time implies more than the chip's peak FLOP/s or bandwidth",
    "check the time's unit, --tp, --precision and the lengths; prefix caching or speculative decoding also do "
    "less work than the model arithmetic assumes"};
inline constexpr DiagnosticKind kDoesNotFit{
    "does-not-fit", Severity::kSevere,
    "the weights and the KV cache per GPU exceed the chip's memory",
    "raise --tp, lower the batch or the context, or quantize weights or the KV cache"};
inline constexpr DiagnosticKind kModelAssumption{
    "model-assumption", Severity::kInfo,
    "perfhound assumed something the model config did not say",
    "check the note; give a config.json with the field if the assumption is wrong"};
inline constexpr DiagnosticKind kUnlockedClocks{
    "unlocked-clocks", Severity::kWarning,
    "Nsight Compute ran with unmodified GPU clocks, so per-kernel figures vary with boost and thermals",
    "profile with ncu --clock-control base for comparable runs, or compare only runs taken the same way"};

// Load runs (perfhound load): the client's own limits, failures and partial results.
inline constexpr DiagnosticKind kClientLimited{
    "client-limited", Severity::kSevere,
    "the load generator, not the server, limited the run: it sent late, its event loop lagged or its core was "
    "saturated, so the latencies include the client's own delay",
    "lower the load per client process, run the client on a less busy machine, or spread it over MPI ranks"};
inline constexpr DiagnosticKind kClientBusy{
    "client-busy", Severity::kWarning,
    "the client's event loop lagged, but every chunk time is the kernel's receive stamp, so the latencies stand; "
    "what the lag delays is the client's next send, so a closed-loop run offered less load than its concurrency",
    "lower the load per client process or give the client an idle core if the offered load matters"};
inline constexpr DiagnosticKind kRequestsFailed{
    "requests-failed", Severity::kWarning,
    "some requests did not complete; the latency figures are over the completed ones only",
    "read the errors by kind; a server that sheds load (429/503) at this rate is past its capacity"};
inline constexpr DiagnosticKind kPartialRun{
    "partial-run", Severity::kWarning,
    "the run was interrupted before its end; the figures cover what was measured until then",
    "rerun to completion before quoting the figures"};
// perfhound merge: the files name their shards K/N, and some of the N are not among them.
inline constexpr DiagnosticKind kMissingShards{
    "missing-shards", Severity::kSevere,
    "some shards of the load are not among the merged files, so the figures cover only part of the schedule",
    "merge every shard's records (perfhound load --shard K/N for K = 0 .. N-1)"};
inline constexpr DiagnosticKind kTokensCounted{
    "tokens-counted", Severity::kInfo,
    "the server reported no usage, so output tokens are counted content chunks (a chunk may carry several "
    "tokens, which makes TPOT too long and throughput too low)",
    "use a server that honours stream_options.include_usage, or check tokens per chunk is 1"};
// perfhound load / merge: many chunks shared their arrival time with the one before (see load/delivery_check.h).
inline constexpr DiagnosticKind kChunksTogether{
    "chunks-together", Severity::kWarning,
    "many gaps between content chunks are zero: the chunks arrived in one read, written together by the server "
    "(several tokens' events in one write, a buffering proxy) or read late by a busy client, so the ITL "
    "percentiles describe delivery, not the engine's token steps",
    "read TPOT for the decode pace (it does not depend on delivery); check the server's stream interval or a "
    "proxy's buffering, and the client's dispatch lag"};

// perfhound load / sweep, closed loop: a warm-up count smaller than the concurrency (the default is never).
inline constexpr DiagnosticKind kColdSlots{
    "cold-slots", Severity::kWarning,
    "the closed loop's first requests leave at once, one per slot, each on a new connection to a cold server, "
    "and the warm-up count is smaller than the slots: some of those first requests are measured",
    "give --warmup at least the concurrency (the default does), or a time (--warmup 10s)"};
// perfhound load / sweep, closed loop: fewer measured requests than slots.
inline constexpr DiagnosticKind kConcurrencyNotReached{
    "concurrency-not-reached", Severity::kWarning,
    "there were fewer measured requests than the closed loop's slots, so its concurrency was never in flight and "
    "the figures do not describe the load the run is named after",
    "send several times the concurrency in requests (--requests), or run for a --duration"};

inline constexpr DiagnosticKind kSoakDrift{
    "soak-drift", Severity::kSevere,
    "over the soak, the last third of the run differs from the first: throughput fell, latency or errors grew, "
    "or the target's memory, KV cache use or queue rose",
    "look for a leak, KV fragmentation or a growing queue on the target; rerun the soak after the fix"};

// perfhound compare --force: A and B differ in more than the declared variable (seed methodology 7.4).
inline constexpr DiagnosticKind kConditionsDiffer{
    "conditions-differ", Severity::kSevere,
    "A and B were measured under conditions that differ in more than the declared variable, so a difference in "
    "the numbers cannot be put down to the one change",
    "re-measure with everything but the variable fixed, or declare the key with --variable if it is the change"};

// perfhound probe: the GPU's clock fell during the run, NVML is missing, or a figure could not be measured.
inline constexpr DiagnosticKind kClockDropped{
    "clock-dropped", Severity::kWarning,
    "the GPU's SM clock was lower after the probe than before it (thermal or power throttling), so the later "
    "figures were measured at a lower clock than the earlier ones",
    "check cooling and power limits, or lock the clocks (nvidia-smi -lgc) and rerun"};
// perfhound probe and perfhound::bench: NVML said a thermal or hardware limit held the clocks down while the GPU
// was measured, whether or not the clock fell during the run (a GPU throttled from the start does not fall); or,
// at info, that the GPU ran at its power cap, as datacenter GPUs do under heavy kernels.
inline constexpr DiagnosticKind kClockThrottled{
    "clock-throttled", Severity::kWarning,
    "NVML reported the GPU's clocks held down by a thermal or hardware limit (thermal slowdown, hardware slowdown, "
    "power brake) while it was measured, so the figures are those of a throttled GPU and move with its temperature",
    "check cooling, airflow and the power supply (nvidia-smi -q -d PERFORMANCE), or lock the clocks below the "
    "throttle point (nvidia-smi -lgc) and rerun"};
inline constexpr DiagnosticKind kClockPowerCapped{
    "clock-power-capped", Severity::kInfo,
    "NVML reported the GPU at its software power cap while it was measured: the clocks were lowered to hold the "
    "board's power limit, as on datacenter GPUs under heavy kernels, so the figures are those of the power-limited "
    "card (its real ceiling at that limit)",
    "none needed for a ceiling at the card's power limit; for figures at a fixed clock, lock it (nvidia-smi -lgc) "
    "below what the limit allows"};
inline constexpr DiagnosticKind kNvmlUnavailable{
    "nvml-unavailable", Severity::kInfo,
    "NVML (libnvidia-ml.so.1) could not be loaded or queried, so the clocks and temperature before and after "
    "are not recorded and throttling cannot be detected",
    "run where the NVIDIA driver (and its libnvidia-ml.so.1) is installed"};
inline constexpr DiagnosticKind kFigureUnsupported{
    "figure-unsupported", Severity::kInfo,
    "a figure was not measured on this GPU (no such datapath, or the library refused the setup); it is listed "
    "with the reason and left out of the chip file",
    "none needed unless the GPU should support it: then check the driver, CUDA and cuBLAS versions"};

// perfhound::bench: sampling stopped before the noise target was met, or launches did not queue behind the
// blocking kernel in time.
inline constexpr DiagnosticKind kBenchNotConverged{
    "bench-not-converged", Severity::kWarning,
    "the benchmark stopped at its timeout or sample cap before the relative noise fell under the target, so the "
    "percentiles are as noisy as the noise figure says",
    "find what disturbs the samples (other work on the machine, clocks, a kernel too short for the timer) or "
    "raise --timeout; hot batches average short kernels"};
// perfhound::bench: a sample failed (the callable threw, a launch failed): the benchmark ended there.
inline constexpr DiagnosticKind kBenchFailed{
    "bench-failed", Severity::kSevere,
    "a sample failed and ended the benchmark: its figures describe only the samples before the failure, which "
    "may not be the code's steady state",
    "fix the failure (the message names the sample and the error) and run the benchmark again"};
inline constexpr DiagnosticKind kBlockingKernelTimedOut{
    "blocking-kernel-timed-out", Severity::kWarning,
    "the kernel that holds the stream while launches queue released itself at its timeout: the launch waited "
    "for the GPU (it synchronizes, or the launch queue filled), so host submission time may be in the sample",
    "do not synchronize inside the launch callable; use fewer launches per hot batch"};

std::span<const DiagnosticKind> all_diagnostic_kinds();
std::string_view severity_name(Severity s);

struct Diagnostic {
  const DiagnosticKind* kind;
  std::string message;  // the specific numbers, e.g. "p99 from 42 samples"
};

nlohmann::ordered_json diagnostics_to_json(const std::vector<Diagnostic>& diagnostics);
// "severity [id]: message. Remedy: remedy.\n", the terminal form docs/diagnostics.md describes.
std::string format_diagnostic(const Diagnostic& diagnostic);

}  // namespace perfhound::core
