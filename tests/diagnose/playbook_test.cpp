// The playbook tree, branch by branch. Each scenario is an input (a bundled H200 trace run through the trace
// analysis, a real perfhound result from tests/data/diagnose, or synthetic Evidence) and the path the seed's
// section 9 rules give for it, with the numbers that decide each step in the comment. The last tests check
// that the scenarios together take every branch of the table, and the thresholds' edges.
#include "diagnose/playbook.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "diagnose/evidence_reader.h"
#include "roofline/ncu_csv_reader.h"
#include "trace/importer.h"
#include "trace/trace_analysis.h"

namespace perfhound::diagnose {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

const std::string kData = std::string(PERFHOUND_TEST_DATA) + "/";

// ---- Inputs.

void add_trace_file(Evidence& e, const std::string& name) {
  const std::string path = kData + "traces/h200/" + name;
  auto t = trace::import_trace(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  const auto status = add_trace_result(e, trace::to_json(trace::analyze_trace(*t)), path);
  ASSERT_TRUE(status.ok()) << status.error().message;
}

void add_document_file(Evidence& e, const std::string& relative) {
  std::ifstream in(kData + relative);
  ASSERT_TRUE(in) << relative;
  std::stringstream text;
  text << in.rdbuf();
  const auto status = add_document(e, nlohmann::ordered_json::parse(text.str()), relative);
  ASSERT_TRUE(status.ok()) << status.error().message;
}

void add_ncu_file(Evidence& e) {
  auto csv = roofline::read_ncu_csv(kData + "ncu/h200_roofline_raw.csv");
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  const auto status = add_ncu_kernels(e, *csv, "h200_roofline_raw.csv");
  ASSERT_TRUE(status.ok()) << status.error().message;
}

TraceEvidence synthetic_trace(std::string bottleneck, double busy_ratio,
                              std::vector<std::pair<std::string, double>> split = {}) {
  TraceEvidence t;
  t.source = "synthetic.json.gz";
  t.bottleneck = std::move(bottleneck);
  t.summary = "synthetic";
  t.active_span_s = 0.1;
  t.busy_s = 0.1 * busy_ratio;
  t.active_busy_ratio = busy_ratio;
  t.idle_s = 0.1 - t.busy_s;
  t.gap_count = 100;
  t.idle_by_host_state = std::move(split);
  t.dominant_kernel = "flash_fwd_kernel";
  t.dominant_kernel_share = 0.4;
  return t;
}

// An mfu result; a measured time only when MFU and MBU are given.
MfuEvidence synthetic_mfu(std::string phase, std::string binding, std::optional<double> mfu,
                          std::optional<double> mbu) {
  MfuEvidence m;
  m.source = "mfu.json";
  m.phase = std::move(phase);
  m.model = "llama-3-8b";
  m.hardware = "H200";
  m.binding_roof = std::move(binding);
  m.roofline_time_s = 0.004;
  if (mfu && mbu) {
    m.time_s = 0.005;
    m.mfu = mfu;
    m.mbu = mbu;
  }
  return m;
}

KernelPosition kernel(std::int64_t id, std::string roofline_case, double duration_s, double fraction) {
  KernelPosition k;
  k.id = id;
  k.name = "kernel_" + std::to_string(id);
  k.roofline_case = std::move(roofline_case);
  k.duration_s = duration_s;
  k.fraction_of_attainable = fraction;
  k.bound_time_s = duration_s * fraction;
  k.arithmetic_intensity = 1;
  return k;
}

RooflineEvidence synthetic_roofline(std::vector<KernelPosition> kernels) {
  RooflineEvidence r;
  r.source = "kernels.csv";
  r.kernels = std::move(kernels);
  return r;
}

LoadPoint point(std::string label, double load, double ttft_p50_s, double tpot_p50_s,
                std::optional<bool> slo_passed = {}) {
  LoadPoint p;
  p.source = label + ".json";
  p.label = std::move(label);
  p.load = load;
  p.completed = 200;
  p.latency_from = "sent";
  p.ttft_p50_s = ttft_p50_s;
  p.ttft_p95_s = ttft_p50_s * 1.3;
  p.tpot_p50_s = tpot_p50_s;
  p.tpot_p95_s = tpot_p50_s * 1.2;
  p.requests_per_s = load;
  p.output_tokens_per_s = load * 100;
  p.slo_passed = slo_passed;
  return p;
}

// The path as "node=branch" (decided), "node?" (missing evidence), "node-" (not applicable).
std::vector<std::string> path_of(const Diagnosis& d) {
  std::vector<std::string> out;
  for (const auto& s : d.path) {
    switch (s.decision.status) {
      case StepStatus::kDecided:
        out.push_back(s.node->name + "=" + s.branch->id);
        break;
      case StepStatus::kMissing:
        out.push_back(s.node->name + "?");
        break;
      case StepStatus::kNotApplicable:
        out.push_back(s.node->name + "-");
        break;
    }
  }
  return out;
}

// The steps every trace-only walk takes before the GPU: nothing to check, no serving run, no mfu.
const std::vector<std::string> kTraceOnlyPrefix = {"goal=step", "measurement-", "slo-", "serving-", "capacity-"};

std::vector<std::string> trace_only(std::vector<std::string> rest) {
  std::vector<std::string> p = kTraceOnlyPrefix;
  p.insert(p.end(), rest.begin(), rest.end());
  return p;
}

struct Scenario {
  std::string name;
  void (*build)(Evidence&);
  std::optional<Goal> goal;
  std::vector<std::string> expected;
};

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> kScenarios = {
      // ---- The bundled H200 traces, through the trace analysis.
      // 64 tiny fp32 matmuls per iteration, eager: busy 14.65 ms of a 136.3 ms active span (10.8%, under the 80%
      // "packed solid" bound) -> idle; the host is launching during 80% of the idle time -> launch-bound (seed §9
      // step 2: IDLE + CPU busy -> overhead-bound -> CUDA Graphs, fusion, bigger batch).
      {"eager_small_ops", [](Evidence& e) { add_trace_file(e, "small_ops_eager.json.gz"); }, std::nullopt,
       trace_only({"busy_idle=overhead", "overhead=launch-bound"})},
      // The same chain replayed as a CUDA Graph: busy 15.17 ms of 17.68 ms (85.8% >= 80%) -> BUSY -> step 3 needs
      // the dominant kernel's roofline, which a timeline does not carry -> undecided, ask for ncu.
      {"cudagraph_small_ops", [](Evidence& e) { add_trace_file(e, "small_ops_cudagraph.json.gz"); }, std::nullopt,
       trace_only({"busy_idle=busy", "roofline?"})},
      // 256 MiB pageable copies: the GPU is "busy" 98.8% of its span but 413.5 of its 414.1 ms busy are PCIe copies
      // (99.8% >= 50%): data movement (IDLE + waiting on memcpy; pin, keep on device, overlap).
      {"pageable_memcpy", [](Evidence& e) { add_trace_file(e, "pageable_memcpy.json.gz"); }, std::nullopt,
       trace_only({"busy_idle=data-movement"})},
      // Batch-1 HF decode: busy 28.6 ms of 607 ms (4.7%), the host launching 72% of the idle time: launch-bound.
      {"llama_decode", [](Evidence& e) { add_trace_file(e, "llama1b_decode_bs1.json.gz"); }, std::nullopt,
       trace_only({"busy_idle=overhead", "overhead=launch-bound"})},
      // 8x1024 prefill: busy 33.7 of 37.5 ms (89.8%) -> busy. Its mfu at the trace's 37.5 ms: compute roof binds
      // (12.5 ms compute vs 0.38 ms memory bound), MFU 33.3% >= the 30% "below both" line -> compute-roof;
      // 33.3% < the 40% of a well-tuned prefill -> headroom. The goal is TTFT: the mfu result is a prefill.
      {"llama_prefill_with_mfu",
       [](Evidence& e) {
         add_trace_file(e, "llama1b_prefill_bs8x1024.json.gz");
         add_document_file(e, "diagnose/mfu_llama1b_prefill_8x1024.json");
       },
       std::nullopt,
       {"goal=ttft", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle=busy",
        "roofline=compute-roof", "compute_roof=headroom"}},
      // Decode trace + its mfu (MBU 0.87% at 38 ms TPOT) + an ncu export: the trace's launch-bound idle GPU is
      // decided at step 2, before any kernel question (fix the host side first).
      {"llama_decode_with_mfu_and_ncu",
       [](Evidence& e) {
         add_trace_file(e, "llama1b_decode_bs1.json.gz");
         add_document_file(e, "diagnose/mfu_llama1b_decode_tpot38ms.json");
         add_ncu_file(e);
       },
       std::nullopt,
       {"goal=tpot", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle=overhead",
        "overhead=launch-bound"}},
      // The decode mfu alone: 1.70 GB weights fit; no trace (missing); the step runs at max(MBU 0.87%, MFU 0.004%)
      // of its roof, under 30%: below both (seed §6 step 5: overhead or a badly shaped kernel).
      {"decode_mfu_alone",
       [](Evidence& e) { add_document_file(e, "diagnose/mfu_llama1b_decode_tpot38ms.json"); },
       std::nullopt,
       {"goal=tpot", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle?", "roofline=below-both"}},
      // The ncu export alone, against ncu's own ceilings: the nvjet GEMM (1.41 ms of 2.08 ms kernel time, 67.5%) sits
      // on the compute roof at 93.4% of attainable (>= 70%): at the roof, stop. No kernel is above 105%: trusted.
      {"ncu_alone",
       [](Evidence& e) { add_ncu_file(e); },
       std::nullopt,
       {"goal=step", "measurement=trusted", "slo-", "serving-", "capacity-", "busy_idle?", "roofline=compute-roof",
        "compute_roof=at-roof"}},
      // The same export judged by `perfhound roofline --hw h200-sxm`: the GEMM at 80.3% of the catalogue roof, still
      // >= 70%: at the roof.
      {"roofline_document",
       [](Evidence& e) { add_document_file(e, "diagnose/roofline_h200_ncu.json"); },
       std::nullopt,
       {"goal=step", "measurement=trusted", "slo-", "serving-", "capacity-", "busy_idle?", "roofline=compute-roof",
        "compute_roof=at-roof"}},
      // Two simulator runs, 2 server slots, concurrency 1 and 8 (mean in flight 1.0 and 7.0): VALID; no SLO given;
      // TTFT p50 8.73 -> 216 ms (24.8x >= 2x and >= 2x TPOT's 1.00x): queueing.
      {"load_queueing",
       [](Evidence& e) {
         add_document_file(e, "diagnose/load_sim_c1.json");
         add_document_file(e, "diagnose/load_sim_c8.json");
       },
       std::nullopt,
       {"goal=throughput", "measurement=trusted", "slo?", "serving=queueing"}},
      // The report tests' sweep: its concurrency-32 point is INVALID and client-limited, so no serving number can
      // be read until the measurement is fixed (seed §7; LoadGen's VALID/INVALID).
      {"sweep_with_client_limited_point",
       [](Evidence& e) { add_document_file(e, "report/sweep_concurrency.json"); },
       std::nullopt,
       {"goal=throughput", "measurement=client-limited"}},

      // ---- Synthetic evidence for the branches no bundled input takes.
      // --goal overrides the inference; a throughput goal without a load result asks for one.
      {"goal_flag_throughput_without_load",
       [](Evidence& e) { e.trace = synthetic_trace("kernel-bound", 0.95); },
       Goal::kThroughput,
       {"goal=throughput", "measurement-", "slo?", "serving-", "capacity-", "busy_idle=busy", "roofline?"}},
      // INVALID without the client being the limit (e.g. nothing completed): fix the measurement.
      {"invalid_run",
       [](Evidence& e) {
         auto p = point("rate 8", 8, 0.1, 0.02);
         p.valid = false;
         p.invalid_reasons = {"no request completed; check the server"};
         e.load.push_back(p);
       },
       std::nullopt,
       {"goal=throughput", "measurement=invalid"}},
      // 3 of 100 requests failed: 3% >= 1%, the p99 may be exactly the requests that were lost.
      {"requests_failed",
       [](Evidence& e) {
         auto p = point("rate 8", 8, 0.1, 0.02);
         p.completed = 97;
         p.failed = 3;
         e.load.push_back(p);
       },
       std::nullopt,
       {"goal=throughput", "measurement=requests-failed"}},
      // MBU 120% > 105%: the measurement beat the bandwidth roof, so an input is wrong.
      {"mfu_beats_the_roof",
       [](Evidence& e) { e.mfu = synthetic_mfu("decode", "memory", 0.02, 1.20); },
       std::nullopt,
       {"goal=tpot", "measurement=beats-the-roof"}},
      // A kernel at 130% of attainable: the same for the roofline (wrong precision roof, sparse spec figure).
      {"kernel_beats_the_roof",
       [](Evidence& e) { e.roofline = synthetic_roofline({kernel(1, "compute_roof", 1e-3, 1.3)}); },
       std::nullopt,
       {"goal=step", "measurement=beats-the-roof"}},
      // A TPOT goal whose run passes its SLO gate: the goal is reached, stop (seed §9 step 5).
      {"slo_met",
       [](Evidence& e) { e.load.push_back(point("concurrency 8", 8, 0.2, 0.02, true)); },
       Goal::kTpot,
       {"goal=tpot", "measurement=trusted", "slo=met"}},
      // Throughput goal, SLO met at the heaviest load; TTFT 0.10 -> 0.17 s (1.7x) and TPOT 20 -> 32 ms (1.6x): TTFT
      // grew less than 2x TPOT's growth, TPOT grew >= 1.25x -> decode-bound; no mfu, no trace, no kernels.
      {"slo_met_at_this_load_decode",
       [](Evidence& e) {
         e.load.push_back(point("concurrency 4", 4, 0.10, 0.020, true));
         e.load.push_back(point("concurrency 32", 32, 0.17, 0.032, true));
       },
       std::nullopt,
       {"goal=throughput", "measurement=trusted", "slo=met-at-this-load", "serving=decode", "capacity-", "busy_idle?",
        "roofline?"}},
      // SLO missed; TTFT 1.2x, TPOT 1.1x: neither grows, and the goal is throughput: raise the load to the knee.
      {"slo_missed_headroom",
       [](Evidence& e) {
         e.load.push_back(point("concurrency 2", 2, 0.50, 0.060, false));
         e.load.push_back(point("concurrency 8", 8, 0.60, 0.066, false));
       },
       std::nullopt,
       {"goal=throughput", "measurement=trusted", "slo=missed", "serving=headroom"}},
      // A TTFT goal, SLO missed, latency flat with load (below the knee) -> the step decides: the GPU is busy
      // (95%), the kernels are on the memory slope (8 of 10 ms) at 80% of the bandwidth roof (>= 75%): stop.
      {"below_knee_then_bandwidth_roof_from_kernels",
       [](Evidence& e) {
         e.load.push_back(point("concurrency 1", 1, 0.30, 0.020, false));
         e.load.push_back(point("concurrency 4", 4, 0.33, 0.021, false));
         e.trace = synthetic_trace("kernel-bound", 0.95);
         e.trace->dominant_kernel = "kernel_1";  // the export profiled the trace's dominant kernel
         e.roofline = synthetic_roofline({kernel(1, "memory_slope", 8e-3, 0.80), kernel(2, "compute_roof", 2e-3, 0.9)});
       },
       Goal::kTtft,
       {"goal=ttft", "measurement=trusted", "slo=missed", "serving=below-knee", "capacity-", "busy_idle=busy",
        "roofline=memory-slope", "bandwidth_roof=at-roof"}},
      // One load point cannot show how latency moves with load: serving asks for a second.
      {"one_load_point",
       [](Evidence& e) { e.load.push_back(point("concurrency 8", 8, 0.2, 0.02, true)); },
       std::nullopt,
       {"goal=throughput", "measurement=trusted", "slo=met-at-this-load", "serving?", "capacity-", "busy_idle?",
        "roofline?"}},
      // A step goal with a load result: the SLO does not decide a step time (not applicable).
      {"step_goal_with_load",
       [](Evidence& e) {
         e.load.push_back(point("concurrency 8", 8, 0.2, 0.02, false));
         e.trace = synthetic_trace("kernel-bound", 0.9);
       },
       Goal::kStep,
       {"goal=step", "measurement=trusted", "slo-", "serving?", "capacity-", "busy_idle=busy", "roofline?"}},
      // Weights + KV cache exceed the chip: capacity-bound before either roof (seed §2's fourth class).
      {"does_not_fit",
       [](Evidence& e) {
         e.mfu = synthetic_mfu("decode", "memory", 0.01, 0.5);
         e.mfu->fits = false;
         e.mfu->verdict = "capacity-bound: weights and KV cache need 160 GB per GPU";
       },
       std::nullopt,
       {"goal=tpot", "measurement=trusted", "slo-", "serving-", "capacity=does-not-fit"}},
      // Exposed collectives: the trace says communication (IDLE + waiting on NCCL).
      {"communication",
       [](Evidence& e) {
         e.trace = synthetic_trace("communication", 0.6, {{"communication", 0.7}});
       },
       std::nullopt, trace_only({"busy_idle=communication"})},
      // Idle 40%, the host in synchronize calls most of it: sync-bound.
      {"sync_bound",
       [](Evidence& e) {
         e.trace = synthetic_trace("sync-bound", 0.6, {{"sync", 0.8}});
       },
       std::nullopt, trace_only({"busy_idle=overhead", "overhead=sync-bound"})},
      // Idle with nothing recorded on the host: data loading, Python, I/O outside the trace.
      {"untraced_host",
       [](Evidence& e) {
         e.trace = synthetic_trace("untraced-host", 0.3, {{"nothing_recorded", 0.9}});
       },
       std::nullopt, trace_only({"busy_idle=overhead", "overhead=untraced-host"})},
      // Idle although the next work was queued: device-side gaps.
      {"device_side_gaps",
       [](Evidence& e) {
         e.trace = synthetic_trace("device-side-gaps", 0.7, {{"queued", 0.95}});
       },
       std::nullopt, trace_only({"busy_idle=overhead", "overhead=device-side-gaps"})},
      // Decode at MBU 78% with the GPU busy: the seed's own example, at the bandwidth roof (>= 75%): stop.
      {"decode_at_bandwidth_roof",
       [](Evidence& e) {
         e.trace = synthetic_trace("kernel-bound", 0.97);
         e.mfu = synthetic_mfu("decode", "memory", 0.03, 0.78);
       },
       std::nullopt,
       {"goal=tpot", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle=busy",
        "roofline=memory-slope", "bandwidth_roof=at-roof"}},
      // Decode at MBU 50%: memory-bound (50% >= the 30% below-both line) but under 75%: headroom.
      {"decode_bandwidth_headroom",
       [](Evidence& e) { e.mfu = synthetic_mfu("decode", "memory", 0.02, 0.50); },
       std::nullopt,
       {"goal=tpot", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle?", "roofline=memory-slope",
        "bandwidth_roof=headroom"}},
      // An mfu result without a measured time: the binding roof (memory) comes from the arithmetic, MBU is missing.
      {"bandwidth_roof_without_time",
       [](Evidence& e) { e.mfu = synthetic_mfu("decode", "memory", std::nullopt, std::nullopt); },
       std::nullopt,
       {"goal=tpot", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle?", "roofline=memory-slope",
        "bandwidth_roof?"}},
      // Prefill at MFU 55% (>= 40%, in the seed's well-tuned 40-70%): at the compute roof, stop.
      {"prefill_at_compute_roof",
       [](Evidence& e) { e.mfu = synthetic_mfu("prefill", "compute", 0.55, 0.02); },
       std::nullopt,
       {"goal=ttft", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle?", "roofline=compute-roof",
        "compute_roof=at-roof"}},
      // A prefill mfu without a measured time: MFU is missing.
      {"compute_roof_without_time",
       [](Evidence& e) { e.mfu = synthetic_mfu("prefill", "compute", std::nullopt, std::nullopt); },
       std::nullopt,
       {"goal=ttft", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle?", "roofline=compute-roof",
        "compute_roof?"}},
      // Kernels below both roofs hold 6 of 10 ms: the most actionable case (occupancy, launch config, tiling).
      {"kernels_below_both",
       [](Evidence& e) {
         e.trace = synthetic_trace("kernel-bound", 0.92);
         e.trace->dominant_kernel = "kernel_1";
         e.roofline = synthetic_roofline({kernel(1, "below_both", 6e-3, 0.2), kernel(2, "memory_slope", 4e-3, 0.9)});
       },
       std::nullopt,
       {"goal=step", "measurement=trusted", "slo-", "serving-", "capacity-", "busy_idle=busy", "roofline=below-both"}},
      // The trace spends 40% of its kernel time in flash_fwd_kernel and the export does not hold it: the
      // export's kernels answer for other work, so the roofline is undecided (no STOP on them).
      {"dominant_kernel_not_profiled",
       [](Evidence& e) {
         e.trace = synthetic_trace("kernel-bound", 0.92);
         e.roofline = synthetic_roofline({kernel(1, "compute_roof", 6e-3, 0.95)});
       },
       std::nullopt,
       {"goal=step", "measurement=trusted", "slo-", "serving-", "capacity-", "busy_idle=busy", "roofline?"}},
      // The trace's display name and ncu's name of one kernel differ in form, not in the function: it is profiled.
      {"dominant_kernel_profiled_under_ncus_name",
       [](Evidence& e) {
         e.trace = synthetic_trace("kernel-bound", 0.92);
         e.trace->dominant_kernel = "at::native::vectorized_elementwise_kernel";
         KernelPosition k = kernel(2, "memory_slope", 6e-3, 0.9);
         k.name = "void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>, std::array<char *, 3>>(int, T2, T3)";
         e.roofline = synthetic_roofline({k});
       },
       std::nullopt,
       {"goal=step", "measurement=trusted", "slo-", "serving-", "capacity-", "busy_idle=busy", "roofline=memory-slope",
        "bandwidth_roof=at-roof"}},
      // A measured decode step bound by memory and export kernels on the compute roof cannot be one step.
      {"mfu_and_kernels_disagree",
       [](Evidence& e) {
         e.mfu = synthetic_mfu("decode", "memory", 0.001, 0.01);
         e.roofline = synthetic_roofline({kernel(1, "compute_roof", 6e-3, 0.95)});
       },
       std::nullopt,
       {"goal=tpot", "measurement=trusted", "slo-", "serving-", "capacity=fits", "busy_idle?", "roofline?"}},
      // Memory-slope kernels at 60% of their roof (time-weighted): under 75%, headroom.
      {"kernels_bandwidth_headroom",
       [](Evidence& e) {
         e.roofline = synthetic_roofline({kernel(1, "memory_slope", 5e-3, 0.6), kernel(2, "memory_slope", 1e-3, 0.6)});
       },
       std::nullopt,
       {"goal=step", "measurement=trusted", "slo-", "serving-", "capacity-", "busy_idle?", "roofline=memory-slope",
        "bandwidth_roof=headroom"}},
      // A compute-roof kernel at 60% of attainable: under the 70% a single kernel reaches at the roof: headroom.
      {"kernels_compute_headroom",
       [](Evidence& e) { e.roofline = synthetic_roofline({kernel(1, "compute_roof", 5e-3, 0.6)}); },
       std::nullopt,
       {"goal=step", "measurement=trusted", "slo-", "serving-", "capacity-", "busy_idle?", "roofline=compute-roof",
        "compute_roof=headroom"}},
  };
  return kScenarios;
}

class PlaybookScenario : public ::testing::TestWithParam<Scenario> {};

TEST_P(PlaybookScenario, TakesTheSeedsPath) {
  const Scenario& s = GetParam();
  Evidence e;
  s.build(e);
  if (::testing::Test::HasFatalFailure()) return;
  const Diagnosis d = diagnose(e, s.goal);
  EXPECT_THAT(path_of(d), ElementsAreArray(s.expected));
  // Every diagnosis ends with something to do and a rule for when to stop, and says "one change" (step 4).
  EXPECT_FALSE(d.conclusion.empty());
  EXPECT_FALSE(d.stop_when.empty());
  ASSERT_FALSE(d.next.empty());
  EXPECT_THAT(d.next.back(), HasSubstr("ONE change"));
  // A question the inputs could not decide is listed with the input that would.
  for (const auto& step : d.path) {
    if (step.decision.status == StepStatus::kMissing) {
      EXPECT_FALSE(step.decision.hint.empty()) << step.node->name;
    }
    if (step.decision.status == StepStatus::kDecided) {
      EXPECT_FALSE(step.decision.evidence.empty()) << step.node->name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllBranches, PlaybookScenario, ::testing::ValuesIn(scenarios()),
                         [](const auto& info) { return info.param.name; });

TEST(Playbook, TheScenariosTakeEveryBranchOfTheTable) {
  std::set<std::string> taken;
  for (const auto& s : scenarios()) taken.insert(s.expected.begin(), s.expected.end());
  for (const auto& node : playbook_nodes()) {
    for (const auto& b : node.branches) EXPECT_TRUE(taken.contains(node.name + "=" + b.id)) << node.name << "=" << b.id;
  }
}

TEST(Playbook, TheTableIsWellFormed) {
  std::set<std::string> reachable = {playbook_nodes().front().name};
  for (const auto& node : playbook_nodes()) {
    EXPECT_FALSE(node.question.empty());
    EXPECT_FALSE(node.reads.empty());
    EXPECT_FALSE(node.seed.empty());
    ASSERT_NE(node.decide, nullptr);
    if (node.when_absent) reachable.insert(playbook_node(*node.when_absent).name);
    for (const auto& b : node.branches) {
      EXPECT_FALSE(b.finding.empty()) << b.id;
      if (b.next) {
        reachable.insert(playbook_node(*b.next).name);
      } else {
        // An end says what to do and when to stop.
        EXPECT_FALSE(b.fixes.empty()) << node.name << "=" << b.id;
        EXPECT_FALSE(b.stop_when.empty()) << node.name << "=" << b.id;
      }
    }
  }
  for (const auto& node : playbook_nodes()) EXPECT_TRUE(reachable.contains(node.name)) << node.name;
}

TEST(Playbook, DecodeAtTheBandwidthRoofSaysStopInTheSeedsWords) {
  // seed §9: "we're at 78% MBU, decode is at the bandwidth roofline, there's no more to get".
  Evidence e;
  e.trace = synthetic_trace("kernel-bound", 0.97);
  e.mfu = synthetic_mfu("decode", "memory", 0.03, 0.78);
  const Diagnosis d = diagnose(e, std::nullopt);
  EXPECT_TRUE(d.stop);
  EXPECT_THAT(d.conclusion, HasSubstr("at 78.0% MBU decode is at the bandwidth roof: stop"));
  EXPECT_THAT(d.next.front(), HasSubstr("quantize"));
  // The low decode MFU is named as expected, not as a problem (seed §5's pairing rule).
  EXPECT_THAT(d.path.back().decision.evidence, testing::Contains(HasSubstr("expected to be low for decode")));
}

TEST(Playbook, MissingEvidenceNamesTheInputThatWouldDecide) {
  Evidence e;
  e.mfu = synthetic_mfu("decode", "memory", 0.02, 0.5);
  const Diagnosis d = diagnose(e, std::nullopt);
  ASSERT_FALSE(d.missing.empty());
  EXPECT_THAT(d.missing.front(), HasSubstr("give a trace to tell busy from idle"));
  EXPECT_THAT(d.missing.front(), HasSubstr("perfhound trace"));
}

TEST(Playbook, UndecidedRooflineAsksForNcuOnTheTracesDominantKernel) {
  Evidence e;
  add_trace_file(e, "small_ops_cudagraph.json.gz");
  const Diagnosis d = diagnose(e, std::nullopt);
  EXPECT_FALSE(d.stop);
  EXPECT_THAT(d.conclusion, HasSubstr("undecided at roofline"));
  EXPECT_THAT(d.next.front(), HasSubstr("ncu --set roofline"));
  EXPECT_THAT(d.next.front(), HasSubstr("regex:'cutlass::Kernel2'"));
  // The trace's own kernel-side fix rides along: its dominant GEMM is fp32 SIMT.
  EXPECT_THAT(d.next, testing::Contains(HasSubstr("TF32 or BF16")));
}

TEST(Playbook, ClientLimitedRemediesComeFirst) {
  Evidence e;
  auto p = point("concurrency 64", 64, 0.4, 0.03);
  p.valid = false;
  p.client_limited = true;
  p.invalid_reasons = {"client-limited: event-loop lag p99 8 ms > 5 ms; give the client an idle core"};
  e.load.push_back(p);
  const Diagnosis d = diagnose(e, std::nullopt);
  EXPECT_THAT(d.next.front(), HasSubstr("give the client an idle core"));
  EXPECT_THAT(d.stop_when, HasSubstr("VALID"));
}

TEST(Playbook, InferredGoalSaysSo) {
  Evidence e;
  e.mfu = synthetic_mfu("prefill", "compute", 0.5, 0.01);
  const Diagnosis inferred = diagnose(e, std::nullopt);
  EXPECT_EQ(inferred.goal.goal, Goal::kTtft);
  EXPECT_TRUE(inferred.goal.goal_inferred);
  EXPECT_THAT(inferred.goal.reason, HasSubstr("prefill"));
  const Diagnosis given = diagnose(e, Goal::kStep);
  EXPECT_FALSE(given.goal.goal_inferred);
  EXPECT_THAT(given.goal.reason, HasSubstr("--goal step"));
}

TEST(Playbook, ThresholdEdges) {
  // MBU exactly 75% is at the roof (>=), just under is headroom.
  for (const auto& [mbu, branch] : {std::pair{0.75, "at-roof"}, std::pair{0.7499, "headroom"}}) {
    Evidence e;
    e.mfu = synthetic_mfu("decode", "memory", 0.01, mbu);
    EXPECT_EQ(path_of(diagnose(e, std::nullopt)).back(), std::string("bandwidth_roof=") + branch) << mbu;
  }
  // MFU exactly 40% is well tuned.
  {
    Evidence e;
    e.mfu = synthetic_mfu("prefill", "compute", 0.40, 0.01);
    EXPECT_EQ(path_of(diagnose(e, std::nullopt)).back(), "compute_roof=at-roof");
  }
  // A step at 29% of its binding roof is below both; at 30% it is judged on its roof.
  for (const auto& [mbu, last] : {std::pair{0.29, "roofline=below-both"}, std::pair{0.30, "bandwidth_roof=headroom"}}) {
    Evidence e;
    e.mfu = synthetic_mfu("decode", "memory", 0.001, mbu);
    EXPECT_EQ(path_of(diagnose(e, std::nullopt)).back(), last) << mbu;
  }
  // TTFT growing exactly 2x with TPOT flat is queueing; 1.9x is not (and TPOT 1.0x: below the knee).
  for (const auto& [ttft, branch] : {std::pair{0.2, "serving=queueing"}, std::pair{0.19, "serving=below-knee"}}) {
    Evidence e;
    e.load = {point("c1", 1, 0.1, 0.02), point("c8", 8, ttft, 0.02)};
    const auto p = path_of(diagnose(e, Goal::kTpot));
    EXPECT_THAT(p, testing::Contains(branch)) << ttft;
  }
  // 1% failed is too many; 0.9% is not.
  for (const auto& [failed, branch] :
       {std::pair{10, "measurement=requests-failed"}, std::pair{9, "measurement=trusted"}}) {
    Evidence e;
    auto p = point("c8", 8, 0.1, 0.02);
    p.completed = 1000 - static_cast<std::uint64_t>(failed);
    p.failed = static_cast<std::uint64_t>(failed);
    e.load.push_back(p);
    EXPECT_EQ(path_of(diagnose(e, std::nullopt))[1], branch) << failed;
  }
}

TEST(Playbook, JsonCarriesThePath) {
  Evidence e;
  add_trace_file(e, "small_ops_eager.json.gz");
  const auto j = to_json(diagnose(e, std::nullopt));
  EXPECT_EQ(j["goal"]["metric"], "step");
  EXPECT_EQ(j["goal"]["inferred"], true);
  ASSERT_TRUE(j["path"].is_array());
  EXPECT_EQ(j["path"].back()["node"], "overhead");
  EXPECT_EQ(j["path"].back()["branch"], "launch-bound");
  EXPECT_EQ(j["path"][1]["status"], "not_applicable");
  EXPECT_EQ(j["conclusion"]["branch"], "launch-bound");
  EXPECT_EQ(j["conclusion"]["stop"], false);
  EXPECT_FALSE(j["next"].empty());
  EXPECT_FALSE(j["stop_when"].get<std::string>().empty());
}

TEST(Playbook, ParseGoal) {
  EXPECT_EQ(*parse_goal("tpot"), Goal::kTpot);
  EXPECT_EQ(*parse_goal("goodput"), Goal::kThroughput);
  const auto bad = parse_goal("latency");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("'latency'"));
  EXPECT_THAT(bad.error().message, HasSubstr("ttft, tpot, throughput or step"));
}

}  // namespace
}  // namespace perfhound::diagnose
