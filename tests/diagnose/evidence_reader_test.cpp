// Evidence from what the other commands write: the bundled H200 trace through the trace analysis (figures
// checked against tests/data/traces/h200/reference_figures.txt), the ncu fixture, and the perfhound result
// documents in tests/data/diagnose (README.md there lists the commands that wrote them); bad documents are
// errors naming the file and the field.
#include "diagnose/evidence_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "trace/importer.h"
#include "trace/trace_analysis.h"

namespace perfhound::diagnose {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

const std::string kData = std::string(PERFHOUND_TEST_DATA) + "/";

Json read_json(const std::string& relative) {
  std::ifstream in(kData + relative);
  std::stringstream text;
  text << in.rdbuf();
  return Json::parse(text.str());
}

TEST(EvidenceReader, EagerTraceThroughTheAnalysis) {
  auto t = trace::import_trace(kData + "traces/h200/small_ops_eager.json.gz");
  ASSERT_TRUE(t.ok()) << t.error().message;
  Evidence e;
  ASSERT_TRUE(add_trace_result(e, trace::to_json(trace::analyze_trace(*t)), "eager").ok());
  ASSERT_TRUE(e.trace.has_value());
  const TraceEvidence& tr = *e.trace;
  EXPECT_EQ(tr.bottleneck, "launch-bound");
  // reference_figures.txt: GPU union busy 14654110 ns over the span [..596249990, ..732531408] ns.
  EXPECT_NEAR(tr.busy_s, 14654110e-9, 1e-12);
  EXPECT_NEAR(tr.active_span_s, (5359686732531408 - 5359686596249990) * 1e-9, 1e-9);
  EXPECT_NEAR(tr.active_busy_ratio, 14654110.0 / (5359686732531408 - 5359686596249990), 1e-12);
  EXPECT_EQ(tr.kernel_count, 5120u);
  EXPECT_EQ(tr.gap_count, 5119u);  // 5120 busy blocks: 5119 gaps between them
  ASSERT_FALSE(tr.idle_by_host_state.empty());
  EXPECT_EQ(tr.idle_by_host_state.front().first, "launch");  // largest first
  EXPECT_GT(tr.idle_by_host_state.front().second, 0.5);
  EXPECT_THAT(tr.dominant_kernel, HasSubstr("cutlass_80_simt_sgemm"));
  EXPECT_EQ(tr.copy_share_of_busy, 0.0);
  EXPECT_FALSE(tr.next_steps.empty());
}

TEST(EvidenceReader, PageableCopiesShareOfBusy) {
  auto t = trace::import_trace(kData + "traces/h200/pageable_memcpy.json.gz");
  ASSERT_TRUE(t.ok()) << t.error().message;
  Evidence e;
  ASSERT_TRUE(add_trace_result(e, trace::to_json(trace::analyze_trace(*t)), "memcpy").ok());
  // reference_figures.txt: copies 413477098 ns of 414109288 ns GPU busy.
  EXPECT_NEAR(e.trace->copy_share_of_busy, 413477098.0 / 414109288.0, 1e-9);
  EXPECT_EQ(e.trace->bottleneck, "data-movement");
}

TEST(EvidenceReader, NcuExportAgainstNcusCeilings) {
  auto csv = roofline::read_ncu_csv(kData + "ncu/h200_roofline_raw.csv");
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  Evidence e;
  ASSERT_TRUE(add_ncu_kernels(e, *csv, "ncu.csv").ok());
  ASSERT_EQ(e.roofline->kernels.size(), 9u);
  const KernelPosition& gemm = e.roofline->kernels[4];
  EXPECT_THAT(gemm.name, HasSubstr("nvjet_sm90"));
  EXPECT_EQ(gemm.roofline_case, "compute_roof");
  EXPECT_NEAR(gemm.duration_s, 1.406144e-3, 1e-12);
  EXPECT_GT(gemm.fraction_of_attainable, 0.9);  // 93% of ncu's measured tensor ceiling
  EXPECT_EQ(gemm.binding_level, "compute");
  EXPECT_EQ(e.roofline->kernels[2].roofline_case, "memory_slope");
}

TEST(EvidenceReader, MfuDocument) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("diagnose/mfu_llama1b_decode_tpot38ms.json"), "mfu.json").ok());
  ASSERT_TRUE(e.mfu.has_value());
  EXPECT_EQ(e.mfu->phase, "decode");
  EXPECT_EQ(e.mfu->binding_roof, "memory");
  EXPECT_EQ(e.mfu->batch, 1);
  ASSERT_TRUE(e.mfu->time_s && e.mfu->mbu && e.mfu->mfu);
  EXPECT_DOUBLE_EQ(*e.mfu->time_s, 0.038);
  EXPECT_NEAR(*e.mfu->mbu, 0.00865, 1e-5);
  EXPECT_TRUE(e.mfu->fits);
}

TEST(EvidenceReader, RooflineDocument) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("diagnose/roofline_h200_ncu.json"), "roofline.json").ok());
  ASSERT_EQ(e.roofline->kernels.size(), 9u);
  EXPECT_EQ(e.roofline->kernels[4].roofline_case, "compute_roof");
  EXPECT_NEAR(e.roofline->kernels[4].fraction_of_attainable, 0.8026, 1e-3);
}

TEST(EvidenceReader, RooflineByHandIsOneKernel) {
  const Json doc = {{"schema_version", 1},
                    {"kind", "perfhound.roofline"},
                    {"conditions", {{"parameters", {{"time_s", 0.0015}}}}},
                    {"result",
                     {{"roof", "H100"},
                      {"point",
                       {{"case", "memory_slope"},
                        {"fraction_of_attainable", 0.81},
                        {"bound_time_s", 0.0012},
                        {"arithmetic_intensity_flop_per_byte", 2.0}}}}}};
  Evidence e;
  ASSERT_TRUE(add_document(e, doc, "hand.json").ok());
  ASSERT_EQ(e.roofline->kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(e.roofline->kernels[0].duration_s, 0.0015);
  EXPECT_EQ(e.roofline->kernels[0].roofline_case, "memory_slope");
}

TEST(EvidenceReader, LoadDocumentsReadFromTheStartTheyMeasured) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("diagnose/load_sim_c1.json"), "c1.json").ok());
  ASSERT_TRUE(add_document(e, read_json("diagnose/load_sim_c8.json"), "c8.json").ok());
  ASSERT_EQ(e.load.size(), 2u);
  const LoadPoint& c8 = e.load[1];
  EXPECT_TRUE(c8.valid);
  EXPECT_FALSE(c8.client_limited);
  EXPECT_EQ(c8.latency_from, "sent");  // closed loop: from the actual send
  EXPECT_EQ(c8.completed, 32u);
  EXPECT_NEAR(c8.load, 6.975, 1e-3);  // mean in flight
  EXPECT_NEAR(c8.ttft_p50_s, 0.2161345345, 1e-9);
  EXPECT_NEAR(c8.tpot_p50_s, 0.0039732437, 1e-9);
  EXPECT_THAT(c8.label, HasSubstr("concurrency 8"));
  EXPECT_FALSE(c8.slo_passed.has_value());  // run without --slo
}

// A load curve joins runs of one system under one workload. The audit's clean run is another simulator (fixed
// 200 us steps, model 'perfhound-fixed-step') at 512 in / 128 out, c1 Llama-3-8B at 128 in / 16 out: joined, its
// lower latencies at more load would read as "load does not cost latency".
TEST(EvidenceReader, LoadResultsOfAnotherSystemOrWorkloadAreRefused) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("diagnose/load_sim_c1.json"), "c1.json").ok());
  const auto other = add_document(e, read_json("audit/perfhound_load_clean.json"), "clean.json");
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.error().message, HasSubstr("'clean.json' measured another system or workload than 'c1.json': "));
  EXPECT_THAT(other.error().message, HasSubstr("model ('llama-3-8b' vs 'perfhound-fixed-step')"));
  EXPECT_THAT(other.error().message, HasSubstr("workload.input_len.tokens (128 vs 512)"));
  EXPECT_EQ(e.load.size(), 1u);

  // The same run with only its workload's seed changed is one workload: other prompts, the same shape.
  Json reseeded = read_json("diagnose/load_sim_c8.json");
  reseeded["conditions"]["parameters"]["workload"]["seed"] = 42;
  EXPECT_TRUE(add_document(e, reseeded, "c8.json").ok());
  // Only the keys both carry are compared: a sweep of another server names only its target and model.
  Evidence f;
  ASSERT_TRUE(add_document(f, read_json("diagnose/load_sim_c1.json"), "c1.json").ok());
  const auto sweep = add_document(f, read_json("report/sweep_concurrency.json"), "sweep.json");
  ASSERT_FALSE(sweep.ok());
  EXPECT_THAT(sweep.error().message, HasSubstr("model ('llama-3-8b' vs 'meta-llama/Llama-3.1-8B-Instruct')"));
}

TEST(EvidenceReader, OpenLoopReadsFromTheIntendedSendTime) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("report/load_rate8.json"), "rate8.json").ok());
  ASSERT_EQ(e.load.size(), 1u);
  EXPECT_EQ(e.load[0].latency_from, "intended");
  EXPECT_EQ(e.load[0].failed, 2u);
}

TEST(EvidenceReader, SweepPointsAreLoadPoints) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("report/sweep_concurrency.json"), "sweep.json").ok());
  ASSERT_EQ(e.load.size(), 5u);
  EXPECT_EQ(e.load[0].label, "concurrency 2");
  EXPECT_DOUBLE_EQ(e.load[0].load, 2);            // no mean in flight in the point: its offered load
  ASSERT_TRUE(e.load[0].slo_passed.has_value());  // the sweep had an SLO: in_slo
  EXPECT_TRUE(*e.load[0].slo_passed);
  EXPECT_TRUE(e.load[4].client_limited);
  EXPECT_FALSE(e.load[4].valid);
}

TEST(EvidenceReader, Errors) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("diagnose/mfu_llama1b_decode_tpot38ms.json"), "a.json").ok());
  auto second = add_document(e, read_json("diagnose/mfu_llama1b_prefill_8x1024.json"), "b.json");
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message, HasSubstr("'b.json': a second mfu input (the first was 'a.json')"));

  Json other = {
      {"schema_version", 1}, {"kind", "perfhound.stats"}, {"conditions", Json::object()}, {"result", Json::object()}};
  auto kind = add_document(e, other, "stats.json");
  ASSERT_FALSE(kind.ok());
  EXPECT_THAT(kind.error().message, HasSubstr("'stats.json': a perfhound.stats document; diagnose reads"));

  // The report tests' stub trace document has no utilization: the field is named.
  Evidence f;
  auto stub = add_document(f, read_json("report/trace_h200.json"), "stub.json");
  ASSERT_FALSE(stub.ok());
  EXPECT_THAT(stub.error().message, HasSubstr("'stub.json': perfhound.trace result lacks 'result."));

  Json mfu_without_bound = {{"schema_version", 1},
                            {"kind", "perfhound.mfu"},
                            {"conditions", {{"parameters", {{"phase", "decode"}}}}},
                            {"result", Json::object()}};
  auto missing = add_document(f, mfu_without_bound, "m.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("'m.json': perfhound.mfu document lacks 'result.bound'"));

  // A field of the wrong type is named with what it is, not read as absent: "mfu": "high" had left the diagnosis
  // without its MFU, and a numeric binding_roof had said only nlohmann's "type must be string, but is number".
  Json mfu_typed = {{"schema_version", 1},
                    {"kind", "perfhound.mfu"},
                    {"conditions", {{"parameters", {{"phase", "decode"}}}}},
                    {"result", {{"bound", {{"binding_roof", "memory"}}}, {"measured", {{"mfu", "high"}}}}}};
  Evidence g;
  auto text_mfu = add_document(g, mfu_typed, "m.json");
  ASSERT_FALSE(text_mfu.ok());
  EXPECT_EQ(text_mfu.error().message, "'m.json': perfhound.mfu document has 'result.measured.mfu' that is a string, not a number");
  mfu_typed["result"]["measured"]["mfu"] = 0.4;
  mfu_typed["result"]["bound"]["binding_roof"] = 3;
  Evidence h;
  auto numeric_roof = add_document(h, mfu_typed, "m.json");
  ASSERT_FALSE(numeric_roof.ok());
  EXPECT_EQ(numeric_roof.error().message,
            "'m.json': perfhound.mfu document has 'result.bound.binding_roof' that is a number, not a string");
  mfu_typed["result"]["bound"]["binding_roof"] = "memory";
  Evidence ok;
  EXPECT_TRUE(add_document(ok, mfu_typed, "m.json").ok());
  // A load point whose status or count is of the wrong type: it had diagnosed as a VALID, trusted point.
  Json load = read_json("diagnose/load_sim_c1.json");
  load["result"]["status"] = 0;
  Evidence l;
  auto status = add_document(l, load, "l.json");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message, "'l.json': perfhound.load document has 'result.status' that is a number, not a string");
  load = read_json("diagnose/load_sim_c1.json");
  load["result"]["summary"]["requests"]["completed"] = "40";
  Evidence n;
  auto count = add_document(n, load, "l.json");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().message,
            "'l.json': perfhound.load document has 'result.summary.requests.completed' that is a string, not a count");

  Json ranks = {{"ranks", Json::array()}, {"comparison", Json::object()}};
  auto folder = add_trace_result(f, ranks, "ranks.json");
  ASSERT_FALSE(folder.ok());
  EXPECT_THAT(folder.error().message, HasSubstr("per-rank"));
}

TEST(EvidenceReader, JsonOfTheEvidence) {
  Evidence e;
  ASSERT_TRUE(add_document(e, read_json("diagnose/mfu_llama1b_decode_tpot38ms.json"), "mfu.json").ok());
  const auto j = to_json(e);
  EXPECT_EQ(j["mfu"]["phase"], "decode");
  EXPECT_DOUBLE_EQ(j["mfu"]["time_s"].get<double>(), 0.038);
  EXPECT_FALSE(j.contains("trace"));
}

}  // namespace
}  // namespace perfhound::diagnose
