// End-to-end tests of `perfhound diagnose`, driven in-process through run_app, over a mix of inputs: the
// bundled H200 traces given raw, mfu and roofline results written by this perfhound in the test, an ncu
// export, and the load results in tests/data/diagnose (simulator runs; README.md there). The expected
// branches follow the seed's section 9 rules from each input's numbers, worked out in the comments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/cli_runner.h"

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

const std::string kData = std::string(PERFHOUND_TEST_DATA) + "/";
const std::string kModel = kData + "../../data/demo/llama1b_config.json";
const std::string kDecodeTrace = kData + "traces/h200/llama1b_decode_bs1.json.gz";
const std::string kPrefillTrace = kData + "traces/h200/llama1b_prefill_bs8x1024.json.gz";
const std::string kNcuCsv = kData + "ncu/h200_roofline_raw.csv";

// ctest runs cases as parallel processes: the process id keeps their files apart.
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("perfhound_diagnose_cli_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// Writes `perfhound <args> -o FILE` and returns FILE.
std::string result_of(std::vector<std::string> args, const std::string& name) {
  const std::string path = temp_path(name);
  args.push_back("-o");
  args.push_back(path);
  const CliRun r = run(args);
  EXPECT_EQ(r.code, 0) << r.err;
  return path;
}

// A field of the wrong type in a result is named by its whole path, wherever the reader found it: a trace result's
// busy time edited to text had been read as absent.
TEST(DiagnoseCli, AWrongTypedFieldIsNamedByItsPath) {
  const std::string result = result_of({"trace", kDecodeTrace}, "trace_result.json");
  Json doc;
  {
    std::ifstream in(result);
    doc = Json::parse(in);
  }
  doc["result"]["utilization"]["devices"][0]["busy_s"] = "lots";
  std::ofstream(result) << doc.dump();
  EXPECT_TRUE(is_one_line_error(run({"diagnose", result}),
                                {"perfhound diagnose: '" + result + "': perfhound.trace result has "
                                 "'result.utilization.devices[0].busy_s' that is a string, not a number"}));
  std::filesystem::remove(result);
}

TEST(DiagnoseCli, DecodeTraceMfuAndNcuMix) {
  // The seed's decode example: 38 ms per token for a 0.85B model on an H200 (MBU 0.87%), its trace, and an ncu
  // export. The goal is TPOT (the mfu result is a decode step); the trace shows the GPU busy 4.7% of its active
  // span with the host launching: the idle branch decides before any kernel question (seed section 9 step 2).
  const std::string mfu = result_of({"mfu", "--model", kModel, "--hw", "h200-sxm", "--phase", "decode", "--input-len",
                                     "128", "--output-len", "16", "--tpot", "38ms"},
                                    "mfu_decode.json");
  const CliRun r = run({"diagnose", kDecodeTrace, mfu, kNcuCsv});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("perfhound diagnose: 3 inputs"));
  // Each input with the conditions its figures hold under: the roofs an ncu export's fractions divide by.
  EXPECT_THAT(r.out, HasSubstr(kNcuCsv + " (roofs measured by ncu on the device, at each kernel's clocks)\n"));
  EXPECT_THAT(r.out, HasSubstr(mfu + " (hardware NVIDIA H200 SXM 141GB, precision bf16)\n"));
  EXPECT_THAT(r.out, HasSubstr("goal: tpot (inferred: the mfu result"));
  EXPECT_THAT(r.out, HasSubstr("capacity: Do the weights and the KV cache fit? -> fits"));
  EXPECT_THAT(r.out, HasSubstr("busy_idle: Is the GPU busy or idle? -> overhead"));
  EXPECT_THAT(r.out, HasSubstr("GPU 0 busy 4.71% of its active span"));
  EXPECT_THAT(r.out, HasSubstr("overhead: Idle, with the host doing what? -> launch-bound"));
  EXPECT_THAT(r.out, HasSubstr("DIAGNOSIS: overhead-bound (launch)"));
  EXPECT_THAT(r.out, HasSubstr("next:\n  1. capture the steady-state loop in a CUDA Graph"));
  EXPECT_THAT(r.out, HasSubstr("stop when: the GPU is busy >= 80% of its active span"));
  EXPECT_THAT(r.out, Not(HasSubstr("roofline: Where")));  // the walk ended at the overhead branch
  std::filesystem::remove(mfu);
}

TEST(DiagnoseCli, PrefillTraceAndItsMfuAsJson) {
  // The 8x1024 prefill trace: busy 89.8% of a 37.5 ms active span (>= 80%: busy). Its mfu at 37.5 ms: the compute
  // roof binds, MFU 33.3% (>= 30%: on the roof's side, not below both; < 40%: not yet well tuned): headroom.
  const std::string mfu = result_of({"mfu", "--model", kModel, "--hw", "h200-sxm", "--phase", "prefill", "--batch", "8",
                                     "--input-len", "1024", "--ttft", "37.5ms"},
                                    "mfu_prefill.json");
  const CliRun r = run({"diagnose", kPrefillTrace, mfu, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["kind"], "perfhound.diagnose");
  const Json& res = j["result"];
  EXPECT_EQ(res["goal"]["metric"], "ttft");
  std::vector<std::string> path;
  for (const auto& s : res["path"])
    path.push_back(s["node"].get<std::string>() + "=" +
                   (s["branch"].is_null() ? std::string("") : s["branch"].get<std::string>()));
  EXPECT_THAT(path, testing::ElementsAre("goal=ttft", "measurement=trusted", "slo=", "serving=", "capacity=fits",
                                         "busy_idle=busy", "roofline=compute-roof", "compute_roof=headroom"));
  EXPECT_EQ(res["conclusion"]["node"], "compute_roof");
  EXPECT_EQ(res["conclusion"]["stop"], false);
  EXPECT_THAT(res["conclusion"]["finding"].get<std::string>(),
              HasSubstr("at 33.3% MFU prefill is below the compute roof"));
  EXPECT_NEAR(res["evidence"]["mfu"]["mfu"].get<double>(), 0.333, 0.001);
  // Which roofs the MFU is a fraction of: the H200's spec sheet (989.5 TFLOP/s dense bf16, 4.8 TB/s), not a
  // measured ceiling (against the measured 758 TFLOP/s the same step would be 43.5%).
  EXPECT_EQ(res["evidence"]["mfu"]["roofs"], "NVIDIA H200 SXM 141GB: 990 TFLOP/s (spec sheet), 4.80 TB/s (spec sheet)");
  EXPECT_NEAR(res["evidence"]["trace"]["active_busy_ratio"].get<double>(), 33724030.0 / 37541565.0, 1e-9);
  const Json& inputs = j["conditions"]["parameters"]["inputs"];
  ASSERT_EQ(inputs.size(), 2u);
  // What each input's figures hold under: the trace's GPU (its deviceProperties), the MFU's chip and precision.
  EXPECT_EQ(inputs[0]["stated"], Json({{"gpu", "NVIDIA H200"}}));
  EXPECT_EQ(inputs[1]["stated"], Json({{"hardware", "NVIDIA H200 SXM 141GB"}, {"precision", "bf16"}}));
  std::filesystem::remove(mfu);
}

TEST(DiagnoseCli, NcuRooflineAloneStopsAtTheComputeRoof) {
  // Via `perfhound roofline --json`: the nvjet GEMM holds 67.5% of the kernel time on the compute roof at 80.3% of
  // the H200's catalogue roof (>= 70% for one kernel): at the roof, stop. No trace: busy/idle is asked for.
  const std::string roof = result_of({"roofline", "--ncu", kNcuCsv, "--hw", "h200-sxm"}, "roofline.json");
  const CliRun r = run({"diagnose", roof});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("roofline: Where do the dominant kernels sit on the roofline? -> compute-roof"));
  EXPECT_THAT(r.out, HasSubstr("compute_roof: How close to the compute roof? -> at-roof"));
  EXPECT_THAT(r.out, HasSubstr("[STOP]"));
  EXPECT_THAT(r.out, HasSubstr("missing: give a trace to tell busy from idle"));
  std::filesystem::remove(roof);
}

// The inputs' warnings hold for every figure diagnose reads from them, so they come along, each with its file:
// the two load runs' p99s rest on 12 and 32 completed requests (their summaries' requests.completed), under the
// 100 a p99 needs; the raw ncu export says ncu ran at unmodified clocks. Notes (info) stay behind.
TEST(DiagnoseCli, TheInputsWarningsComeAlongWithTheirFile) {
  const std::string c1 = kData + "diagnose/load_sim_c1.json";
  const std::string c8 = kData + "diagnose/load_sim_c8.json";
  const CliRun r = run({"diagnose", c1, c8, kNcuCsv, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json diagnostics = Json::parse(r.out)["diagnostics"];
  ASSERT_EQ(diagnostics.size(), 3u) << diagnostics.dump();
  EXPECT_EQ(diagnostics[0]["id"], "few-samples-for-tail");
  EXPECT_EQ(diagnostics[0]["source"], c1);
  EXPECT_THAT(diagnostics[0]["message"].get<std::string>(), HasSubstr("12 completed requests"));
  EXPECT_EQ(diagnostics[1]["source"], c8);
  EXPECT_THAT(diagnostics[1]["message"].get<std::string>(), HasSubstr("32 completed requests"));
  EXPECT_EQ(diagnostics[2]["id"], "unlocked-clocks");
  EXPECT_EQ(diagnostics[2]["severity"], "warning");
  EXPECT_EQ(diagnostics[2]["source"], kNcuCsv);
  for (const auto& d : diagnostics) EXPECT_NE(d["severity"], "info");
  EXPECT_THAT(r.err, HasSubstr("warning [few-samples-for-tail]: '" + c1 + "': p99 from 12 completed requests."));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 3) << r.err;
}

// A raw trace's own warnings, computed as perfhound trace computes them: a recorder that lost 4096 records left
// GPU work out of the busy time diagnose reads. Named once, by the message itself.
TEST(DiagnoseCli, ARawTracesRecordsDroppedComesAlong) {
  const std::string lost = temp_path("dropped.json");
  std::ofstream(lost) << R"({"perfhound_record": {"dropped_records": 4096}, "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100.000, "dur": 500.000}
]})";
  const CliRun r = run({"diagnose", lost, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json diagnostics = Json::parse(r.out)["diagnostics"];
  ASSERT_EQ(diagnostics.size(), 1u) << diagnostics.dump();
  EXPECT_EQ(diagnostics[0]["id"], "records-dropped");
  EXPECT_EQ(diagnostics[0]["source"], lost);
  EXPECT_EQ(r.err, "warning [records-dropped]: '" + lost +
                       "': perfhound record lost 4096 records (CUPTI had no buffer free). Remedy: record again with "
                       "larger buffers (perfhound record --buffer-mb) or a shorter run (--capture-range).\n");
  std::filesystem::remove(lost);
}

// A diagnostic this perfhound does not know (an older or newer writer's id), without a remedy, comes along as
// written: its id kept, and no empty "Remedy: ." line.
TEST(DiagnoseCli, AnUnknownInputDiagnosticComesAlongAsWritten) {
  std::ifstream in(kData + "diagnose/load_sim_c1.json");
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(in);  // kind and schema_version first, as written
  doc["diagnostics"] = nlohmann::ordered_json::array(
      {{{"id", "from-another-version"}, {"severity", "warning"}, {"message", "x"}}});
  const std::string path = temp_path("unknown_diagnostic.json");
  std::ofstream(path) << doc.dump();
  const CliRun r = run({"diagnose", path});
  ASSERT_EQ(r.code, 0) << r.err;
  // In the text report, after the diagnosis and before its conditions.
  const std::string line = "\nwarning [from-another-version]: '" + path + "': x. Remedy: none given by the input.\n";
  EXPECT_THAT(r.out, HasSubstr(line));
  EXPECT_LT(r.out.find(line), r.out.find("\nconditions:\n"));
  EXPECT_GT(r.out.find(line), r.out.find("DIAGNOSIS"));
  EXPECT_TRUE(r.err.empty()) << r.err;
  std::filesystem::remove(path);
}

// A result document with its keys sorted (jq -S, Python's sort_keys) has "conditions" first and its kind past
// the bytes diagnose sniffs: it was read as a trace ("no 'traceEvents' array"). It is the same load point.
TEST(DiagnoseCli, AResultWithSortedKeysIsStillAResult) {
  std::ifstream in(kData + "diagnose/load_sim_c1.json");
  const Json sorted = Json::parse(in);  // nlohmann::json keeps its keys sorted
  const std::string path = temp_path("sorted.json");
  std::ofstream(path) << sorted.dump(2);
  const CliRun r = run({"diagnose", path, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["conditions"]["parameters"]["inputs"][0]["kind"], "perfhound.load");
  EXPECT_EQ(doc["result"]["evidence"]["load"].size(), 1u);
  std::filesystem::remove(path);
}

TEST(DiagnoseCli, TwoLoadRunsShowQueueing) {
  // 2 server slots, concurrency 1 then 8: TTFT p50 8.7 -> 216 ms while TPOT stays 3.97 ms: queueing.
  const CliRun r = run({"diagnose", kData + "diagnose/load_sim_c1.json", kData + "diagnose/load_sim_c8.json",
                        kDecodeTrace, "--goal", "tpot"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("goal: tpot (given with --goal tpot)"));
  EXPECT_THAT(r.out, HasSubstr("measurement: Can the numbers be trusted? -> trusted"));
  EXPECT_THAT(r.out, HasSubstr("slo: Does the serving run meet its SLO? -> ? (the inputs do not say)"));
  EXPECT_THAT(r.out, HasSubstr("re-run perfhound load with --slo"));
  EXPECT_THAT(r.out, HasSubstr("serving: Does load cost waiting (queueing) or step time (decode)? -> queueing"));
  EXPECT_THAT(r.out, HasSubstr("DIAGNOSIS: queueing-bound: TTFT p50 grew"));
  EXPECT_THAT(r.out, HasSubstr("max_num_seqs"));
}

TEST(DiagnoseCli, ARealLoadRunIsTrustedOrStopsAtTheMeasurement) {
  // A live run against the embedded simulator: whether the client keeps up depends on this host's load, so the
  // run may end VALID or client-limited. Either way the tree must not read a serving figure from an INVALID
  // run: client-limited ends the walk at the measurement node.
  const std::string load = temp_path("load.json");
  const CliRun l =
      run({"load", "--sim-fixed-step-time", "200us", "--concurrency", "4", "--requests", "40", "-o", load});
  ASSERT_TRUE(l.code == 0 || l.code == 1) << l.err;  // 1: the run ended INVALID (client-limited on a busy host)
  const CliRun r = run({"diagnose", load, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json j = Json::parse(r.out);
  const Json& res = j["result"];
  const bool client_limited = res["evidence"]["load"][0]["client_limited"].get<bool>();
  EXPECT_EQ(res["path"][1]["branch"], client_limited ? "client-limited" : "trusted");
  EXPECT_EQ(l.code, client_limited ? 1 : 0);  // the load run's exit code agrees with what diagnose read
  if (client_limited) {
    EXPECT_EQ(res["path"].size(), 2u);
  }
  std::filesystem::remove(load);
}

TEST(DiagnoseCli, BadInputIsOneLineNamingTheFile) {
  EXPECT_TRUE(
      is_one_line_error(run({"diagnose", "no-such-trace.json.gz"}), {"perfhound diagnose:", "no-such-trace.json.gz"}));
  EXPECT_TRUE(is_one_line_error(run({"diagnose", kData + "report/not_json.txt"}),
                                {"not_json.txt", "is not a trace perfhound reads"}));
  EXPECT_TRUE(is_one_line_error(run({"diagnose", kData + "report/trace_h200.json"}),
                                {"trace_h200.json", "perfhound.trace result lacks 'result.verdict.bottleneck'"}));
  EXPECT_TRUE(is_one_line_error(run({"diagnose", kData + "diagnose/mfu_llama1b_decode_tpot38ms.json",
                                     kData + "diagnose/mfu_llama1b_prefill_8x1024.json"}),
                                {"mfu_llama1b_prefill_8x1024.json", "a second mfu input"}));
  EXPECT_TRUE(is_one_line_error(run({"diagnose", kData + "traces/h200"}), {"is a folder"}));
  EXPECT_TRUE(is_one_line_error(run({"diagnose", kDecodeTrace, "--goal", "latency"}), {"--goal"}));
  EXPECT_TRUE(is_one_line_error(run({"diagnose"}), {"files"}));
  // One run twice would be two points of a load curve.
  EXPECT_TRUE(
      is_one_line_error(run({"diagnose", kData + "diagnose/load_sim_c1.json", kData + "diagnose/load_sim_c1.json"}),
                        {"load_sim_c1.json' is given twice"}));
  EXPECT_TRUE(is_one_line_error(run({"diagnose", kData + "diagnose/load_sim_c1.json",
                                     kData + "audit/perfhound_load_clean.json", "--goal", "ttft"}),
                                {"perfhound_load_clean.json' measured another system or workload than"}));
}

TEST(DiagnoseCli, OutputFileIsTheJsonDocument) {
  const std::string out = temp_path("diagnosis.json");
  const CliRun r = run({"diagnose", kData + "traces/h200/pageable_memcpy.json.gz", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  // 413.5 of 414.1 ms GPU busy are pageable PCIe copies (99.8% >= 50%): data movement.
  EXPECT_THAT(r.out, HasSubstr("DIAGNOSIS: data-movement-bound"));
  std::ifstream in(out);
  const Json j = Json::parse(in);
  EXPECT_EQ(j["kind"], "perfhound.diagnose");
  EXPECT_EQ(j["result"]["conclusion"]["branch"], "data-movement");
  std::filesystem::remove(out);
  // -o naming an input is refused before anything is written (a copy, so a regression cannot clobber a fixture).
  const std::string input = temp_path("input.json");
  std::filesystem::copy_file(kData + "diagnose/mfu_llama1b_decode_tpot38ms.json", input,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_TRUE(is_one_line_error(run({"diagnose", input, "-o", input}), {"is the input"}));
  std::filesystem::remove(input);
}

}  // namespace
}  // namespace perfhound::cli
