// What `perfhound diagnose` knows, gathered from the documents it was given: only what is present. Every
// part is optional; the playbook (diagnose/playbook.h) asks for the input that would decide a question
// when the part it needs is absent, instead of guessing.
//
// Units: durations in seconds (`_s`), rates per second (`_per_s`), ratios 0..1 (STYLE.md rule 5). A
// percentile a document did not carry is NaN.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfhound::diagnose {

// From `perfhound trace` (a trace file analyzed in place, or its --json document): the judged GPU's
// utilization, what the host did during its idle gaps, and the trace's own verdict (src/trace/verdict.h,
// the one implementation of the playbook's step 2).
struct TraceEvidence {
  std::string source;
  std::string bottleneck;  // trace::bottleneck_kind_name: "launch-bound", ..., "kernel-bound"
  std::string summary;     // the verdict's one line
  std::vector<std::string> verdict_evidence;
  std::vector<std::string> next_steps;
  std::int32_t device = 0;
  double active_span_s = 0;
  double busy_s = 0;
  double active_busy_ratio = 0;  // busy / active span of the judged device
  double idle_s = 0;             // interior idle (active span - busy)
  std::uint64_t gap_count = 0;
  std::uint64_t short_gap_count = 0;  // gaps under 10 us: one eager launch
  // Interior idle time by what the host was doing (trace/gap_attribution.h categories), largest first;
  // categories holding none are left out.
  std::vector<std::pair<std::string, double>> idle_by_host_state;
  double copy_share_of_busy = 0;     // host<->device copy time / GPU busy time (all devices)
  double exposed_comm_ratio = 0;     // exposed communication / active span of the judged device
  std::string dominant_kernel;       // short name
  double dominant_kernel_share = 0;  // of kernel time
  std::uint64_t kernel_count = 0;
  std::uint64_t graph_launch_count = 0;
};

// From `perfhound mfu --json`: one step of one phase against the chip's roofs.
struct MfuEvidence {
  std::string source;
  std::string phase;  // "prefill" or "decode"
  std::string model;
  std::string hardware;
  std::int64_t batch = 1;
  std::string binding_roof;  // "memory" or "compute": the roof whose bound time is larger
  double roofline_time_s = 0;
  std::optional<double> time_s;  // the measured step; absent when mfu printed the bound alone
  std::optional<double> mfu;
  std::optional<double> mbu;
  bool fits = true;  // weights + KV cache at the end fit the chip's memory per GPU
  std::string verdict;
  // The roofs MFU and MBU are fractions of, e.g. "NVIDIA H200 SXM 141GB spec sheet: 990 TFLOP/s, 4.80 TB/s": a
  // spec-sheet and a measured roof give different fractions of one step, so every figure says which.
  std::string roofs;
};

// One kernel of `perfhound roofline` (an ncu export analyzed in place, or its --json document).
struct KernelPosition {
  std::int64_t id = 0;
  std::string name;
  double duration_s = 0;
  std::string roofline_case;  // roofline::case_name: "memory_slope", "compute_roof", "below_both"
  double fraction_of_attainable = 0;
  double bound_time_s = 0;
  double arithmetic_intensity = 0;  // FLOP/byte
  std::string binding_level;        // hierarchical roofline: "L1", "L2", "DRAM", "compute"; empty when absent
};

struct RooflineEvidence {
  std::string source;
  std::vector<KernelPosition> kernels;  // placed kernels, in file order
  std::uint64_t unplaced = 0;           // kernels without FLOPs, bytes or roof
  bool named_kernels = true;            // false for a roofline by hand (--flops --bytes --time): one unnamed kernel
  // The roofs the fractions of attainable are of: "the ceilings ncu measured on the device" or the chip's.
  std::string roofs;
};

// One measured load level: a `perfhound load --json` document, or one point of a `perfhound sweep`.
struct LoadPoint {
  std::string source;  // file (and point label for a sweep)
  std::string label;   // "concurrency 8", "load 2 (mean in flight 3.9)"
  bool valid = true;
  bool client_limited = false;
  std::vector<std::string> invalid_reasons;
  std::uint64_t completed = 0;
  std::uint64_t failed = 0;
  // The load axis the points are ordered on: the measured mean requests in flight, else a sweep point's
  // offered load (diagnose/evidence_reader.h says why).
  double load = 0;
  std::string latency_from;  // "intended" or "sent": which start the latencies count from
  double ttft_p50_s = 0;
  double ttft_p95_s = 0;
  double tpot_p50_s = 0;
  double tpot_p95_s = 0;
  double requests_per_s = 0;
  double output_tokens_per_s = 0;
  std::optional<double> goodput_per_s;  // absent without an SLO
  std::optional<double> goodput_ratio;
  std::optional<bool> slo_passed;  // the SLO gate's verdict, when the run had one
};

struct Evidence {
  std::optional<TraceEvidence> trace;
  std::optional<MfuEvidence> mfu;
  std::optional<RooflineEvidence> roofline;
  std::vector<LoadPoint> load;  // in the order given
  // What the load points measured (evidence_reader.h: the system keys of the first load or sweep result's
  // conditions) and that file, so that a point of another system or workload is refused, not joined to the curve.
  nlohmann::ordered_json load_system;
  std::string load_system_source;
};

// What each input contributed, in SI units and 0..1 ratios (NaN as null).
nlohmann::ordered_json to_json(const Evidence& evidence);

}  // namespace perfhound::diagnose
