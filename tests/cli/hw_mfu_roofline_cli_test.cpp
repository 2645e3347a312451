// End-to-end tests of `perfhound hw`, `perfhound mfu` and `perfhound roofline`, driven in-process through
// run_app. Expected figures are worked out by hand in each test from the model's published config.json, the
// conventions of src/model/transformer_math.h (docs/metrics.md), and the chip files in data/hw.
#include "cli/app.h"
#include "cli/cli_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#ifndef PERFHOUND_TEST_DATA
#define PERFHOUND_TEST_DATA "data"
#endif

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using Json = nlohmann::json;

const std::filesystem::path kCatalogueDir = std::filesystem::path(PERFHOUND_TEST_DATA) / ".." / ".." / "data" / "hw";
const std::string kNcuCsv = std::string(PERFHOUND_TEST_DATA) + "/ncu/h200_roofline_raw.csv";

const std::vector<std::string> kRequiredChips = {"a100-sxm-80gb", "h100-sxm", "h100-pcie", "h200-sxm",
                                                 "b200",          "l40s",     "l4",        "mi300x"};


std::string temp_file(const std::string& name, const std::string& content) {
  // The process id keeps test cases apart: ctest runs them as parallel processes, and two writing one name
  // would read each other's half-written files.
  const auto path = std::filesystem::temp_directory_path() /
                    ("perfhound_hw_mfu_roofline_cli_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << content;
  return path.string();
}

Json parse_json_output(const CliRun& r) {
  Json j = Json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

void expect_near_rel(double actual, double expected, double rel) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << "expected " << expected << " within " << rel;
}

Json read_json_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return Json::parse(in);
}

// A chip file with 2 TB/s of bandwidth, the Databricks post's example part.
std::string two_tb_per_s_chip() {
  return temp_file("chip_2tbs.json", R"json({
    "schema_version": 1, "name": "two-tb", "display_name": "Test part at 2 TB/s", "vendor": "NVIDIA",
    "sm_count": 100,
    "peak_flops": {"bf16": {"value": 300e12, "source": "test"}, "fp32": {"value": 20e12, "source": "test"}},
    "memory": {"type": "HBM", "capacity_bytes": 80e9,
               "bandwidth_bytes_per_s": {"value": 2e12, "source": "test: 2 TB/s"}},
    "measured": null
  })json");
}

// ---------------------------------------------------------------------------------------------------------
// Llama-3-8B (meta-llama/Meta-Llama-3-8B config.json: hidden 4096, 32 layers, 32 heads, 8 KV heads, head_dim
// 128, intermediate 14336, vocab 128256, untied), counted by hand:
//   attention per layer  q 4096*4096 + k 4096*1024 + v 4096*1024 + o 4096*4096 = 41,943,040
//   MLP per layer        3 * 4096 * 14336                                      = 176,160,768
//   norms per layer      2 * 4096                                              = 8,192
//   32 layers                                                                  = 6,979,584,000
//   + final norm 4096 + LM head 128256*4096 (525,336,576)                      = 7,504,924,672
// which is every parameter but the input embedding: the weights a step reads, and the matmul base of FLOPs.
// KV bytes per token (bf16): 2 (K, V) * 32 layers * 8 KV heads * 128 * 2 bytes = 131,072.
constexpr double kLlama3WeightsRead = 7504924672.0;
constexpr double kLlama3LmHead = 128256.0 * 4096.0;
constexpr double kLlama3KvBytesPerToken = 131072.0;
// Attention FLOPs per attended token, all layers: 32 layers * 2 * 32 heads * (128 + 128).
constexpr double kLlama3AttentionPerContextToken = 32.0 * 2 * 32 * 256;

// Llama-2-7B (meta-llama/Llama-2-7b-hf): 6,738,415,616 parameters, of which the input embedding is
// 32000 * 4096.
constexpr double kLlama2WeightsRead = 6738415616.0 - 32000.0 * 4096.0;

// From the catalogue (data/hw/h200-sxm.json): H200 SXM datasheet 4.8 TB/s, BF16 1,979 TFLOPS sparse.
constexpr double kH200Bandwidth = 4.8e12;
constexpr double kH200Bf16 = 989.5e12;

// ---------------------------------------------------------------------------------------------------------
// hw

TEST(CliHw, ListNamesEveryRequiredChip) {
  const CliRun r = run({"hw", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& name : kRequiredChips) EXPECT_THAT(r.out, HasSubstr(name));
  EXPECT_THAT(r.out, HasSubstr("dense"));
  // The default action is list.
  const CliRun bare = run({"hw"});
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_EQ(bare.out, r.out);
}

TEST(CliHw, ListJsonIsAVersionedHwDocument) {
  const CliRun r = run({"hw", "list", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "perfhound.hw");
  std::vector<std::string> names;
  for (const auto& c : doc["result"]["chips"]) names.push_back(c["name"].get<std::string>());
  for (const auto& name : kRequiredChips) EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  for (const auto& c : doc["result"]["chips"]) {
    if (c["name"] != "h200-sxm") continue;
    EXPECT_DOUBLE_EQ(c["memory_bandwidth_bytes_per_s"]["value"].get<double>(), kH200Bandwidth);
    EXPECT_DOUBLE_EQ(c["peak_flops_per_s"]["bf16"]["value"].get<double>(), kH200Bf16);
    EXPECT_DOUBLE_EQ(c["memory_capacity_bytes"].get<double>(), 141e9);
  }
}

TEST(CliHw, ShowGivesTheBandwidthAndEverySource) {
  const CliRun r = run({"hw", "show", "h200-sxm"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NVIDIA H200 SXM 141GB"));
  EXPECT_THAT(r.out, HasSubstr("memory bandwidth"));
  EXPECT_THAT(r.out, HasSubstr("4.80 TB/s"));  // 4.8e12 B/s, three significant digits
  // Every figure's source, as the file gives it.
  const Json file = read_json_file(kCatalogueDir / "h200-sxm.json");
  EXPECT_THAT(r.out, HasSubstr(file["memory"]["bandwidth_bytes_per_s"]["source"].get<std::string>()));
  for (const auto& [key, v] : file["peak_flops"].items()) {
    if (!v.is_null()) {
      EXPECT_THAT(r.out, HasSubstr(v["source"].get<std::string>())) << key;
    }
  }
}

// Integer peaks are operations, not floating-point ones (the H200 datasheet: "INT8 Tensor Core 3,958 TOPS*", with
// sparsity; 1,979 dense): OP/s in hw and in mfu's compute roof. int4 is weights only, on the bf16 roof (989.5 TFLOP/s).
TEST(CliHw, IntegerPeaksAreOperationsPerSecond) {
  const CliRun show = run({"hw", "show", "h200-sxm"});
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("peak int8 (dense)           1.98 POP/s"));
  EXPECT_THAT(show.out, HasSubstr("peak bf16 (dense)          990 TFLOP/s"));
  const auto roof = [](const char* precision) {
    const CliRun r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode", "--precision", precision});
    EXPECT_EQ(r.code, 0) << r.err;
    const auto at = r.out.find("compute roof");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  EXPECT_THAT(roof("int8"), HasSubstr("1.98 POP/s (spec sheet)"));
  EXPECT_THAT(roof("int4"), HasSubstr("990 TFLOP/s (spec sheet)"));
}

TEST(CliHw, ShowAChipFileByPath) {
  const CliRun r = run({"hw", "show", two_tb_per_s_chip(), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  EXPECT_EQ(doc["kind"], "perfhound.hw");
  EXPECT_EQ(doc["result"]["name"], "two-tb");
  EXPECT_DOUBLE_EQ(doc["result"]["memory_bandwidth_bytes_per_s"]["value"].get<double>(), 2e12);
}

// A probe's chip file: each measured ceiling in its unit (from the key's suffix) with its p10-p90 spread.
TEST(CliHw, ShowGivesMeasuredCeilingsInTheirUnitsWithSpread) {
  const std::string chip = temp_file("h200_probe_show.json", R"json({
    "schema_version": 1, "name": "h200-sxm-measured", "display_name": "H200 (measured)", "vendor": "NVIDIA",
    "sm_count": 132,
    "peak_flops": {"bf16": {"value": 989.5e12, "source": "H200 datasheet"}},
    "memory": {"type": "HBM3e", "capacity_bytes": 141e9,
               "bandwidth_bytes_per_s": {"value": 4.8e12, "source": "H200 datasheet"}},
    "measured": {"bf16_flops_per_s": {"value": 758.5e12, "source": "probe GEMM", "p10": 751e12, "p90": 760e12, "repeats": 20},
                 "copy_bytes_per_s": {"value": 4.06e12, "source": "probe copy"},
                 "kernel_launch_round_trip_s": {"value": 8.54e-6, "source": "probe launch", "p10": 8.1e-6, "p90": 9.0e-6}}
  })json");
  const CliRun r = run({"hw", "show", chip});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("758 TFLOP/s (p10 751 TFLOP/s, p90 760 TFLOP/s)"));
  EXPECT_THAT(r.out, HasSubstr("4.06 TB/s"));
  EXPECT_THAT(r.out, HasSubstr("8.54 us (p10 8.10 us, p90 9.00 us)"));
  const Json doc = parse_json_output(run({"hw", "show", chip, "--json"}));
  EXPECT_DOUBLE_EQ(doc["result"]["measured"]["bf16_flops_per_s"]["p10"].get<double>(), 751e12);
  EXPECT_FALSE(doc["result"]["measured"]["copy_bytes_per_s"].contains("p10"));
}

TEST(CliHw, ShowUnknownChipIsOneLineExitTwo) {
  const CliRun r = run({"hw", "show", "nosuch"});
  EXPECT_TRUE(is_one_line_error(r, {"perfhound hw: ", "'nosuch'", "h200-sxm"}));
  EXPECT_TRUE(is_one_line_error(run({"hw", "show"}), {"perfhound hw: show: name a chip (see 'perfhound hw list')"}));
  EXPECT_TRUE(is_one_line_error(run({"hw", "frobnicate"}), {"perfhound hw: ", "frobnicate", "(see 'perfhound hw --help')"}));
}

// ---------------------------------------------------------------------------------------------------------
// mfu

TEST(CliMfu, Llama3DecodeOnH200ByHand) {
  const CliRun r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode", "--batch", "1",
                        "--input-len", "1000", "--output-len", "200", "--tpot", "5ms", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  EXPECT_EQ(doc["kind"], "perfhound.mfu");
  const Json& res = doc["result"];
  // Mean context of the generation: 1000 + 200 / 2 = 1100 tokens; the KV cache read is 1100 * 131,072 bytes.
  const double context = 1000 + 200 / 2.0;
  const double bytes = 2 * kLlama3WeightsRead + 1 * context * kLlama3KvBytesPerToken;  // 15,154,028,544
  EXPECT_DOUBLE_EQ(bytes, 15154028544.0);
  EXPECT_DOUBLE_EQ(res["step"]["mean_context"].get<double>(), context);
  EXPECT_DOUBLE_EQ(res["step"]["weight_bytes_per_gpu"].get<double>(), 2 * kLlama3WeightsRead);
  EXPECT_DOUBLE_EQ(res["step"]["kv_bytes_per_gpu"].get<double>(), context * kLlama3KvBytesPerToken);
  EXPECT_DOUBLE_EQ(res["kv_bytes_per_token"].get<double>(), kLlama3KvBytesPerToken);
  // FLOPs: 2 * matmul weights + attention over the context.
  const double flops = 2 * kLlama3WeightsRead + kLlama3AttentionPerContextToken * context;
  expect_near_rel(res["step"]["flops_per_gpu"].get<double>(), flops, 1e-12);

  const double mbu = bytes / 5e-3 / kH200Bandwidth;  // 0.6314178...
  expect_near_rel(res["measured"]["mbu"].get<double>(), mbu, 1e-9);
  expect_near_rel(res["measured"]["mfu"].get<double>(), flops / 5e-3 / kH200Bf16, 1e-9);
  expect_near_rel(res["measured"]["time_s"].get<double>(), 5e-3, 1e-12);
  EXPECT_EQ(res["bound"]["binding_roof"], "memory");
  expect_near_rel(res["bound"]["memory_time_s"].get<double>(), bytes / kH200Bandwidth, 1e-9);
  expect_near_rel(res["bound"]["compute_time_s"].get<double>(), flops / kH200Bf16, 1e-9);
  EXPECT_FALSE(res["roofs"]["peak_flops_measured"].get<bool>());
  EXPECT_FALSE(res["roofs"]["peak_bytes_measured"].get<bool>());
  // MBU 63%: below the 75% bandwidth-roof line, above the 30% far-below line.
  EXPECT_THAT(res["verdict"].get<std::string>(), StartsWith("decode at MBU 63.1%: below the bandwidth roof"));

  const Json& p = doc["conditions"]["parameters"];
  EXPECT_EQ(p["model"], "llama-3-8b");
  EXPECT_EQ(p["hardware"], "NVIDIA H200 SXM 141GB");
  EXPECT_EQ(p["phase"], "decode");
  EXPECT_EQ(p["batch"], 1);
  EXPECT_EQ(p["input_len"], 1000);
  EXPECT_EQ(p["output_len"], 200);
  EXPECT_EQ(p["precision"], "bf16");
  EXPECT_EQ(p["kv_precision"], "bf16");
  EXPECT_EQ(p["tensor_parallel"], 1);
  EXPECT_THAT(p["compute_roof"].get<std::string>(), StartsWith("spec sheet"));
  EXPECT_THAT(p["compute_roof"].get<std::string>(), HasSubstr("H200 Tensor Core GPU datasheet"));
  EXPECT_THAT(p["memory_roof"].get<std::string>(), StartsWith("spec sheet"));
}

TEST(CliMfu, HumanOutputHasVerdictMfuMbuAndConditions) {
  const CliRun r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode", "--input-len",
                        "1000", "--output-len", "200", "--tpot", "5ms"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("VERDICT: decode at MBU 63.1%"));
  EXPECT_THAT(r.out, HasSubstr("MBU"));
  EXPECT_THAT(r.out, HasSubstr("MFU"));
  EXPECT_THAT(r.out, HasSubstr("(spec sheet)"));
  EXPECT_THAT(r.out, HasSubstr("conditions:"));
}

// What ran a measured step and what its timing left out go into the result's conditions, where audit reads them:
// a measured MFU without them fails audit's conditions check (the remedy names these flags), with them it passes;
// the bound alone is arithmetic, and audit asks for neither.
TEST(CliMfu, TheMeasuredStepsFrameworkAndWarmupReachAudit) {
  const std::vector<std::string> step = {"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode",
                                         "--batch", "32", "--input-len", "512", "--output-len", "128"};
  const auto mfu_file = [&](const std::string& name, std::vector<std::string> extra) {
    const std::string path = temp_file(name, "");
    std::vector<std::string> args = step;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--json", "-o", path});
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 0) << r.err;
    return path;
  };
  const auto audit_of = [](const std::string& path) {
    const CliRun r = run({"audit", path, "--json"});
    EXPECT_TRUE(r.code == 0 || r.code == 1) << r.err;
    const Json doc = Json::parse(r.out);
    Json rules = Json::array();
    for (const auto& f : doc["result"]["findings"]) rules.push_back(f["rule"]);
    return std::pair{r.code, rules};
  };

  const std::string stated = mfu_file("stated.json", {"--tpot", "12ms", "--framework", "vLLM", "--framework-version",
                                                      "0.11.0", "--warmup", "10 steps"});
  const Json parameters = read_json_file(stated)["conditions"]["parameters"];
  EXPECT_EQ(parameters["framework"], "vLLM");
  EXPECT_EQ(parameters["framework_version"], "0.11.0");
  EXPECT_EQ(parameters["warmup_discarded"], "10 steps");
  const auto [stated_code, stated_rules] = audit_of(stated);
  EXPECT_EQ(stated_code, 0);
  EXPECT_EQ(stated_rules, Json::array({"spec-sheet-roof", "spec-sheet-roof"}));

  const std::string unstated = mfu_file("unstated.json", {"--tpot", "12ms"});
  const auto [unstated_code, unstated_rules] = audit_of(unstated);
  EXPECT_EQ(unstated_code, 1);
  EXPECT_EQ(unstated_rules, Json::array({"conditions-missing", "no-warmup", "spec-sheet-roof", "spec-sheet-roof"}));
  const CliRun text = run({"audit", unstated});
  EXPECT_THAT(text.out, HasSubstr("perfhound mfu states what ran the measured step with --framework NAME"));
  EXPECT_THAT(text.out, HasSubstr("perfhound mfu --warmup '10 steps'"));
  EXPECT_THAT(text.out, Not(HasSubstr("vllm bench serve --num-warmups")));  // the other formats' remedy

  // mfu accepts a warm-up exactly when audit can read it: "off" is stated as none (no-warmup fails), "5s" as
  // discarded, and each is read the way audit reads a claim file's warm-up.
  const std::string off = mfu_file("off.json", {"--tpot", "12ms", "--framework", "vLLM", "--framework-version", "0.11.0",
                                                "--warmup", "off"});
  EXPECT_EQ(audit_of(off).second, Json::array({"no-warmup", "spec-sheet-roof", "spec-sheet-roof"}));
  const std::string seconds = mfu_file("seconds.json", {"--tpot", "12ms", "--framework", "vLLM",
                                                        "--framework-version", "0.11.0", "--warmup", "5s"});
  EXPECT_EQ(audit_of(seconds), std::pair(0, Json::array({"spec-sheet-roof", "spec-sheet-roof"})));

  const std::string bound = mfu_file("bound.json", {});
  EXPECT_FALSE(read_json_file(bound)["result"].contains("measured"));
  const auto [bound_code, bound_rules] = audit_of(bound);
  EXPECT_EQ(bound_code, 0);
  EXPECT_EQ(bound_rules, Json::array({"spec-sheet-roof", "spec-sheet-roof"}));
  for (const auto& path : {stated, unstated, off, seconds, bound}) std::filesystem::remove(path);
}

// Databricks/MosaicML, "LLM Inference Performance Engineering: Best Practices" (2023): a 7B model in 16-bit at
// 14 ms per output token on a 2 TB/s part: MBU = (14 GB / 14 ms) / 2 TB/s = 50%. With the weights counted by
// the convention (Llama-2-7B less its input embedding, 2 bytes each, no KV at context 0) it is
// 2 * 6,607,343,616 / 0.014 / 2e12 = 0.472.
TEST(CliMfu, DatabricksSevenBExample) {
  const std::string chip = two_tb_per_s_chip();
  const CliRun r = run({"mfu", "--model", "llama-2-7b", "--hw", chip, "--phase", "decode", "--batch", "1",
                        "--input-len", "0", "--output-len", "0", "--tpot", "14ms", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  const double bytes = 2 * kLlama2WeightsRead;  // 13,214,687,232
  EXPECT_DOUBLE_EQ(doc["result"]["step"]["weight_bytes_per_gpu"].get<double>(), bytes);
  EXPECT_DOUBLE_EQ(doc["result"]["step"]["kv_bytes_per_gpu"].get<double>(), 0);
  const double mbu = bytes / 0.014 / 2e12;
  expect_near_rel(doc["result"]["measured"]["mbu"].get<double>(), mbu, 1e-9);
  EXPECT_NEAR(mbu, 0.472, 0.001);
  EXPECT_EQ(doc["result"]["parameters"]["total"], 6738415616);
  EXPECT_EQ(doc["result"]["bound"]["binding_roof"], "memory");
  EXPECT_EQ(doc["conditions"]["parameters"]["hardware"], "Test part at 2 TB/s");
  EXPECT_THAT(doc["conditions"]["parameters"]["memory_roof"].get<std::string>(), HasSubstr("test: 2 TB/s"));
}

// Batch 8 at 400 tokens/s over the batch: each step makes 8 tokens, so a step is 8 / 400 = 20 ms.
TEST(CliMfu, TokensPerSecondIsTurnedIntoAStepTime) {
  const CliRun r = run({"mfu", "--model", "llama-2-7b", "--hw", two_tb_per_s_chip(), "--phase", "decode",
                        "--batch", "8", "--tokens-per-s", "400", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  expect_near_rel(doc["result"]["measured"]["time_s"].get<double>(), 0.020, 1e-12);
  // Dense model, context 0: the batch reads the weights once, 2 * 6,607,343,616 bytes in 20 ms.
  expect_near_rel(doc["result"]["measured"]["mbu"].get<double>(), 2 * kLlama2WeightsRead / 0.020 / 2e12, 1e-9);
  EXPECT_EQ(doc["conditions"]["parameters"]["batch"], 8);
}

// A config.json path instead of a preset. A small llama, counted by hand (hidden 1024, 2 layers, 8 heads =
// 8 KV heads of 128, intermediate 4096, vocab 1000, untied):
//   per layer: attention 4 * 1024^2 = 4,194,304; MLP 3 * 1024 * 4096 = 12,582,912; norms 2 * 1024 = 2,048
//   2 layers 33,558,528 + final norm 1,024 + LM head 1000 * 1024 = 1,024,000 -> 34,583,552 weights read.
TEST(CliMfu, ConfigJsonPath) {
  const std::string config = temp_file("small_llama_config.json", R"json({
    "model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
    "num_key_value_heads": 8, "intermediate_size": 4096, "vocab_size": 1000, "tie_word_embeddings": false})json");
  const CliRun r = run({"mfu", "--model", config, "--hw", two_tb_per_s_chip(), "--phase", "decode", "--tpot", "1ms",
                        "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  EXPECT_DOUBLE_EQ(doc["result"]["step"]["weight_bytes_per_gpu"].get<double>(), 2 * 34583552.0);
  expect_near_rel(doc["result"]["measured"]["mbu"].get<double>(), 2 * 34583552.0 / 1e-3 / 2e12, 1e-9);
  // Total adds the input embedding, 1000 * 1024.
  EXPECT_EQ(doc["result"]["parameters"]["total"], 34583552 + 1024000);
}

// Llama-3-8B prefill of 2000 tokens, by hand (src/model/transformer_math.h: the LM head runs once per
// sequence; causal attention attends 1..L tokens, L(L+1)/2 in all):
//   body    2 * (7,504,924,672 - 525,336,576) * 2000 = 27,918,352,384,000
//   head    2 * 525,336,576                          =      1,050,673,152
//   attn    524,288 * 2000 * 2001 / 2                =  1,049,100,288,000
//   total                                            = 28,968,503,345,152 FLOPs
// 28.97e12 / 989.5e12 = 29.3 ms of compute; the bytes, 2 * 7.5e9 + 2000 * 131,072, take 3.18 ms at 4.8 TB/s.
constexpr double kLlama3Prefill2000Flops = 28968503345152.0;

TEST(CliMfu, PrefillWithTtftIsJudgedByMfu) {
  EXPECT_DOUBLE_EQ(2 * (kLlama3WeightsRead - kLlama3LmHead) * 2000 + 2 * kLlama3LmHead +
                       kLlama3AttentionPerContextToken * 2000 * 2001 / 2,
                   kLlama3Prefill2000Flops);
  const CliRun r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "prefill", "--input-len",
                        "2000", "--ttft", "50ms", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  const Json& res = doc["result"];
  expect_near_rel(res["step"]["flops_per_gpu"].get<double>(), kLlama3Prefill2000Flops, 1e-12);
  // Prefill writes the new tokens' KV cache.
  EXPECT_DOUBLE_EQ(res["step"]["kv_bytes_per_gpu"].get<double>(), 2000 * kLlama3KvBytesPerToken);
  const double mfu = kLlama3Prefill2000Flops / 0.050 / kH200Bf16;  // 0.5855
  expect_near_rel(res["measured"]["mfu"].get<double>(), mfu, 1e-9);
  EXPECT_EQ(res["bound"]["binding_roof"], "compute");
  // MFU 58.6% >= 40%: well tuned.
  EXPECT_THAT(res["verdict"].get<std::string>(), StartsWith("prefill at MFU 58.6%: compute-bound and well tuned"));
  EXPECT_EQ(doc["conditions"]["parameters"]["phase"], "prefill");
}

TEST(CliMfu, WithoutATimeOnlyTheBoundsAndTheBindingRoof) {
  // Decode: memory-bound; the bound is 15,154,028,544 B / 4.8e12 B/s = 3.157 ms.
  CliRun r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode", "--input-len", "1000",
                  "--output-len", "200", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = parse_json_output(r);
  EXPECT_FALSE(doc["result"].contains("measured"));
  const double decode_bound = 15154028544.0 / kH200Bandwidth;
  expect_near_rel(doc["result"]["bound"]["roofline_time_s"].get<double>(), decode_bound, 1e-9);
  std::string verdict = doc["result"]["verdict"].get<std::string>();
  EXPECT_THAT(verdict, HasSubstr("memory-bandwidth-bound"));
  EXPECT_THAT(verdict, HasSubstr("3.16 ms"));

  // Prefill: compute-bound; the bound is 28.97e12 / 989.5e12 = 29.28 ms.
  r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "prefill", "--input-len", "2000", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  doc = parse_json_output(r);
  EXPECT_FALSE(doc["result"].contains("measured"));
  expect_near_rel(doc["result"]["bound"]["roofline_time_s"].get<double>(), kLlama3Prefill2000Flops / kH200Bf16, 1e-9);
  verdict = doc["result"]["verdict"].get<std::string>();
  EXPECT_THAT(verdict, HasSubstr("compute-bound"));
  EXPECT_THAT(verdict, HasSubstr("29.3 ms"));

  // The human output has the bound but no MFU/MBU rows.
  r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "prefill", "--input-len", "2000"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("compute-bound"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("MBU")));
}

// A chip file with measured ceilings (shared/data/README.md: the reference H200, bf16 GEMM 758 TFLOP/s and
// copy 4.06 TB/s): mfu judges against them and says so.
TEST(CliMfu, MeasuredCeilingsAreUsedAndReported) {
  const std::string chip = temp_file("h200_measured.json", R"json({
    "schema_version": 1, "name": "h200-measured", "display_name": "H200 (measured)", "vendor": "NVIDIA",
    "sm_count": 132,
    "peak_flops": {"bf16": {"value": 989.5e12, "source": "H200 datasheet"}},
    "memory": {"type": "HBM3e", "capacity_bytes": 141e9,
               "bandwidth_bytes_per_s": {"value": 4.8e12, "source": "H200 datasheet"}},
    "measured": {"bf16_flops_per_s": {"value": 758.5e12, "source": "probe GEMM"},
                 "copy_bytes_per_s": {"value": 4.06e12, "source": "probe copy"}}
  })json");
  const CliRun r = run({"mfu", "--model", "llama-3-8b", "--hw", chip, "--phase", "decode", "--input-len", "1000",
                        "--output-len", "200", "--tpot", "5ms", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  EXPECT_TRUE(doc["result"]["roofs"]["peak_flops_measured"].get<bool>());
  EXPECT_TRUE(doc["result"]["roofs"]["peak_bytes_measured"].get<bool>());
  EXPECT_DOUBLE_EQ(doc["result"]["roofs"]["peak_bytes_per_s"].get<double>(), 4.06e12);
  expect_near_rel(doc["result"]["measured"]["mbu"].get<double>(), 15154028544.0 / 5e-3 / 4.06e12, 1e-9);
  EXPECT_THAT(doc["conditions"]["parameters"]["compute_roof"].get<std::string>(), StartsWith("measured"));
  EXPECT_THAT(doc["conditions"]["parameters"]["memory_roof"].get<std::string>(), StartsWith("measured"));
}

// The capacity check splits the KV cache as the step cost does: by KV head, never more ways than the heads.
// Llama-3-8B's KV cache is 32 layers x 8 KV heads x (128 + 128) x 2 bytes = 131,072 B a token; at TP 16 each
// of the 8 heads is on 2 GPUs, so a GPU holds 131,072 / 8 = 16,384 B a token, not / 16. 1024 sequences of
// 10,000 tokens: 10,240,000 x 16,384 = 167.77 GB per GPU, over the H200's 141 GB (split 16 ways, 83.9 GB
// plus 1.0 GB of weights would have fitted).
TEST(CliMfu, CapacitySplitsTheKvCacheByKvHeadNotByGpu) {
  CliRun r = run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode", "--batch", "1024",
                  "--input-len", "10000", "--output-len", "0", "--tp", "16", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  Json doc = parse_json_output(r);
  const Json& memory = doc["result"]["memory_per_gpu"];
  EXPECT_DOUBLE_EQ(memory["kv_cache_at_end_bytes"].get<double>(), 1024.0 * 10000 * 16384);
  EXPECT_FALSE(memory["fits"].get<bool>());
  EXPECT_THAT(doc["result"]["verdict"].get<std::string>(), StartsWith("capacity-bound"));
  ASSERT_FALSE(doc["diagnostics"].empty());
  EXPECT_EQ(doc["diagnostics"][0]["id"], "does-not-fit");
  // Printed in the capacity's own decimal units, so the two sides compare at a glance.
  EXPECT_THAT(doc["diagnostics"][0]["message"].get<std::string>(), HasSubstr("KV cache 168 GB per GPU exceed the 141 GB"));

  // An MLA latent is on every GPU: DeepSeek-V3 caches 61 layers x (512 + 64) x 2 bytes = 70,272 B a token on
  // each of 8 GPUs; 1,200 tokens hold 84,326,400 B per GPU.
  r = run({"mfu", "--model", "deepseek-v3", "--hw", "h200-sxm", "--phase", "decode", "--input-len", "1000",
           "--output-len", "200", "--tp", "8", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  doc = parse_json_output(r);
  EXPECT_DOUBLE_EQ(doc["result"]["memory_per_gpu"]["kv_cache_at_end_bytes"].get<double>(), 1200.0 * 70272);
}

TEST(CliMfu, BadInputIsOneLineExitTwoNamingTheFlag) {
  const std::vector<std::string> decode = {"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "decode"};
  const std::vector<std::string> prefill = {"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase",
                                            "prefill", "--input-len", "100"};
  const auto with = [](std::vector<std::string> base, std::vector<std::string> extra) {
    base.insert(base.end(), extra.begin(), extra.end());
    return base;
  };
  EXPECT_TRUE(is_one_line_error(run({"mfu", "--model", "llama-9-9b", "--hw", "h200-sxm", "--phase", "decode"}),
                                {"--model", "'llama-9-9b'", "llama-3-8b"}));
  EXPECT_TRUE(is_one_line_error(run({"mfu", "--model", "llama-3-8b", "--hw", "h300", "--phase", "decode"}),
                                {"--hw", "'h300'", "h200-sxm"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--precision", "fp7"})), {"--precision", "'fp7'"}));
  EXPECT_TRUE(is_one_line_error(run(with(prefill, {"--tpot", "5ms"})), {"--tpot"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--ttft", "5ms"})), {"--ttft"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "5ms", "--step-time", "5ms"})), {"--tpot", "--step-time"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "5ms", "--tokens-per-s", "100"})), {"--tokens-per-s"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "0ms"})), {"--tpot", "must be at least 1 ns"}));
  // Llama-3-8B has 32 attention heads: TP 3 splits none evenly, TP 64 leaves GPUs without one.
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "5ms", "--tp", "3"})),
                                {"--tp 3 does not divide the 32 attention heads of 'llama-3-8b'"}));
  EXPECT_TRUE(
      is_one_line_error(run(with(decode, {"--tpot", "5ms", "--tp", "64"})), {"--tp 64 does not divide the 32"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "5ms", "--batch", "x"})), {"--batch", "whole number"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tokens-per-s", "fast"})), {"--tokens-per-s", "must be a number"}));
  EXPECT_TRUE(
      is_one_line_error(run(with(decode, {"--tpot", "12"})), {"--tpot", "'12' has no unit"}));  // 12 ms or 12 s?
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "abc"})), {"--tpot", "'abc'"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot=-5ms"})), {"--tpot"}));
  EXPECT_TRUE(is_one_line_error(run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "prefill"}),
                                {"--input-len"}));
  EXPECT_TRUE(
      is_one_line_error(run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm", "--phase", "sideways"}), {"--phase"}));
  EXPECT_TRUE(is_one_line_error(run({"mfu", "--model", "llama-3-8b", "--hw", "h200-sxm"}), {"--phase"}));
  // The framework and the warm-up are conditions of a measured time: with the bound alone nothing ran.
  EXPECT_TRUE(
      is_one_line_error(run(with(decode, {"--framework", "vLLM"})), {"--framework", "measured step", "--tpot"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--warmup", "10 steps"})), {"--warmup", "measured step"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "5ms", "--framework-version", "0.11.0"})),
                                {"--framework-version 0.11.0", "--framework"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "5ms", "--framework", " "})), {"--framework: empty"}));
  EXPECT_TRUE(is_one_line_error(run(with(decode, {"--tpot", "5ms", "--warmup", "some"})), {"--warmup 'some'", "none"}));
  // fp8 on A100: the chip has no FP8 path; the message lists what it has (data/hw/a100-sxm-80gb.json).
  EXPECT_TRUE(is_one_line_error(
      run({"mfu", "--model", "llama-3-8b", "--hw", "a100-sxm-80gb", "--phase", "decode", "--precision", "fp8"}),
      {"a100-sxm-80gb", "fp8", "bf16", "fp16", "fp32", "tf32", "int8"}));
}

TEST(CliMfu, ConfigFileErrorsNameTheFileAndTheField) {
  const std::string missing_field = temp_file("no_hidden_config.json", R"json({
    "model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 8, "intermediate_size": 4096,
    "vocab_size": 1000})json");
  EXPECT_TRUE(is_one_line_error(run({"mfu", "--model", missing_field, "--hw", "h200-sxm", "--phase", "decode"}),
                                {"--model", missing_field, "'hidden_size'"}));
  const std::string not_json = temp_file("not_json_config.json", "hidden_size = 4096\n");
  EXPECT_TRUE(is_one_line_error(run({"mfu", "--model", not_json, "--hw", "h200-sxm", "--phase", "decode"}),
                                {"--model", not_json, "not valid JSON"}));
  EXPECT_TRUE(
      is_one_line_error(run({"mfu", "--model", "/nonexistent/config.json", "--hw", "h200-sxm", "--phase", "decode"}),
                        {"--model", "'/nonexistent/config.json'"}));
}

// STYLE.md rule 8: each layer adds its context once. load_model() already prefixes "--model: " to the errors
// it makes itself, and run() adds "--model" again around the whole call.
TEST(CliMfu, ConfigFileErrorNamesTheFlagOnce) {
  const CliRun r = run({"mfu", "--model", "/nonexistent/config.json", "--hw", "h200-sxm", "--phase", "decode"});
  ASSERT_EQ(r.code, 2);
  std::size_t count = 0;
  for (std::size_t at = r.err.find("--model:"); at != std::string::npos; at = r.err.find("--model:", at + 1)) ++count;
  if (count != 1) {
  }
  EXPECT_EQ(r.err, "perfhound mfu: --model: cannot open '/nonexistent/config.json'\n");
}

// ---------------------------------------------------------------------------------------------------------
// roofline

struct CatalogueRoofs {
  double bf16;
  double fp32;
  double bandwidth;
};

CatalogueRoofs roofs_from_file(const std::string& name) {
  const Json j = read_json_file(kCatalogueDir / (name + ".json"));
  return {j["peak_flops"]["bf16"]["value"].get<double>(), j["peak_flops"]["fp32"]["value"].get<double>(),
          j["memory"]["bandwidth_bytes_per_s"]["value"].get<double>()};
}

// A bf16 GEMM of 1.0995 TFLOP moving 402.7 MB in 1.5 ms on H100 SXM: AI = 2730 FLOP/byte, far right of the
// ridge (989.5e12 / 3.35e12 = 295); the compute bound is 1.0995e12 / 989.5e12 = 1.111 ms, 74% of 1.5 ms.
TEST(CliRoofline, ComputeBoundGemmOnH100ByHand) {
  const CatalogueRoofs h100 = roofs_from_file("h100-sxm");
  const CliRun r = run({"roofline", "--hw", "h100-sxm", "--flops", "1.0995T", "--bytes", "402.7M", "--time", "1.5ms",
                        "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  EXPECT_EQ(doc["kind"], "perfhound.roofline");
  const Json& p = doc["result"]["point"];
  const double flops = 1.0995e12, bytes = 402.7e6, time = 1.5e-3;
  const double ai = flops / bytes;
  const double ridge = h100.bf16 / h100.bandwidth;
  expect_near_rel(p["arithmetic_intensity_flop_per_byte"].get<double>(), ai, 1e-12);
  expect_near_rel(p["ridge_point_flop_per_byte"].get<double>(), ridge, 1e-12);
  expect_near_rel(p["attainable_flops_per_s"].get<double>(), std::min(h100.bf16, ai * h100.bandwidth), 1e-12);
  expect_near_rel(p["achieved_flops_per_s"].get<double>(), flops / time, 1e-12);
  expect_near_rel(p["achieved_bytes_per_s"].get<double>(), bytes / time, 1e-12);
  const double bound = std::max(flops / h100.bf16, bytes / h100.bandwidth);
  expect_near_rel(p["bound_time_s"].get<double>(), bound, 1e-12);
  expect_near_rel(p["fraction_of_attainable"].get<double>(), bound / time, 1e-12);
  EXPECT_NEAR(bound / time, 0.741, 0.001);
  EXPECT_EQ(p["case"], "compute_roof");
  EXPECT_FALSE(p["advice"].get<std::string>().empty());
  EXPECT_THAT(doc["result"]["roof"].get<std::string>(), HasSubstr("NVIDIA H100 SXM5 80GB"));
  EXPECT_THAT(doc["result"]["roof"].get<std::string>(), HasSubstr("spec sheet"));
  const Json& c = doc["conditions"]["parameters"];
  EXPECT_EQ(c["hardware"], "NVIDIA H100 SXM5 80GB");
  EXPECT_EQ(c["precision"], "bf16");
  expect_near_rel(c["flops"].get<double>(), flops, 1e-12);
  expect_near_rel(c["bytes"].get<double>(), bytes, 1e-12);
  expect_near_rel(c["time_s"].get<double>(), time, 1e-12);
  EXPECT_THAT(c["compute_roof"].get<std::string>(), StartsWith("spec sheet"));
  EXPECT_THAT(c["memory_roof"].get<std::string>(), StartsWith("spec sheet"));
  // The text in floating-point operations, and bytes in the decimal units they were given in (402.7M, not MiB).
  const CliRun text = run({"roofline", "--hw", "h100-sxm", "--flops", "1.0995T", "--bytes", "402.7M", "--time", "1.5ms"});
  EXPECT_THAT(text.out, HasSubstr("perfhound roofline: 1.10 TFLOP, 403 MB moved, in 1.50 ms"));
  EXPECT_THAT(text.out, HasSubstr("2.73e+03 FLOP/byte"));
}

// int8 math is counted in operations, not floating-point ones (the datasheet's "INT8 Tensor Core 3,958 TOPS",
// halved to 1,979 dense): the same figures read in OP, OP/byte and OP/s against the int8 roof, whose ridge is
// 1979e12 / 3.35e12 = 591 OP/byte.
TEST(CliRoofline, Int8IsInOperations) {
  const CliRun r = run({"roofline", "--hw", "h100-sxm", "--precision", "int8", "--flops", "1T", "--bytes", "400M",
                        "--time", "1ms"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("perfhound roofline: 1.00 TOP, 400 MB moved"));
  EXPECT_THAT(r.out, HasSubstr("591 OP/byte"));
  EXPECT_THAT(r.out, HasSubstr("1.98 POP/s"));
  // (The conditions quote the datasheet, TFLOPS and all, and keep the JSON's field names.)
  EXPECT_THAT(r.out.substr(0, r.out.find("\nconditions:")), Not(HasSubstr("FLOP")));
  // The chart draws the int8 roof the kernel is judged against (it had drawn fp64 to fp4 without it).
  const auto chart = std::filesystem::temp_directory_path() / "perfhound_roofline_int8.svg";
  ASSERT_EQ(run({"roofline", "--hw", "h100-sxm", "--precision", "int8", "--flops", "1T", "--bytes", "400M", "--time",
                 "1ms", "--chart", chart.string()})
                .code,
            0);
  std::ifstream svg(chart);
  EXPECT_THAT(std::string(std::istreambuf_iterator<char>(svg), {}), HasSubstr("int8 1.98 POP/s (spec sheet)"));
  std::filesystem::remove(chart);
}

// A 64M-element fp32 add (2^26 elements: 67.1M FLOPs; two 4-byte reads and one write, 805 MB) in 0.2 ms on
// H200 with the fp32 roof: AI 0.083 FLOP/byte against a ridge of 67e12 / 4.8e12 = 14; the bandwidth bound
// 805e6 / 4.8e12 = 0.168 ms is 84% of the time.
TEST(CliRoofline, MemoryBoundAddOnH200ByHand) {
  const CatalogueRoofs h200 = roofs_from_file("h200-sxm");
  const CliRun r = run({"roofline", "--hw", "h200-sxm", "--precision", "fp32", "--flops", "67.1M", "--bytes", "805M",
                        "--time", "0.2ms", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  const Json& p = doc["result"]["point"];
  expect_near_rel(p["arithmetic_intensity_flop_per_byte"].get<double>(), 67.1e6 / 805e6, 1e-12);
  expect_near_rel(p["ridge_point_flop_per_byte"].get<double>(), h200.fp32 / h200.bandwidth, 1e-12);
  expect_near_rel(p["attainable_flops_per_s"].get<double>(), 67.1e6 / 805e6 * h200.bandwidth, 1e-12);
  expect_near_rel(p["bound_time_s"].get<double>(), 805e6 / h200.bandwidth, 1e-12);
  expect_near_rel(p["fraction_of_attainable"].get<double>(), 805e6 / h200.bandwidth / 0.2e-3, 1e-12);
  EXPECT_EQ(p["case"], "memory_slope");
  EXPECT_EQ(doc["conditions"]["parameters"]["precision"], "fp32");

  const CliRun text = run({"roofline", "--hw", "h200-sxm", "--precision", "fp32", "--flops", "67.1M", "--bytes",
                           "805M", "--time", "0.2ms"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("VERDICT: memory_slope"));
  EXPECT_THAT(text.out, HasSubstr("conditions:"));
}

// The same GEMM taking 10 ms: the compute bound 1.111 ms is 11% of it, under the 50% line: below both.
TEST(CliRoofline, SlowKernelIsBelowBoth) {
  const CatalogueRoofs h100 = roofs_from_file("h100-sxm");
  const CliRun r = run({"roofline", "--hw", "h100-sxm", "--flops", "1.0995T", "--bytes", "402.7M", "--time", "10ms",
                        "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  expect_near_rel(doc["result"]["point"]["fraction_of_attainable"].get<double>(), 1.0995e12 / h100.bf16 / 10e-3, 1e-12);
  EXPECT_EQ(doc["result"]["point"]["case"], "below_both");
}

TEST(CliRoofline, BadInputIsOneLineExitTwoNamingTheFlag) {
  EXPECT_TRUE(
      is_one_line_error(run({"roofline", "--hw", "h100-sxm", "--flops", "1T", "--bytes", "400M", "--time", "0s"}),
                        {"--time must be at least 1 ns"}));
  // A bare number was read as seconds (1 ms meant, 0.1% of attainable printed); mfu already asked for a unit.
  EXPECT_TRUE(
      is_one_line_error(run({"roofline", "--hw", "h100-sxm", "--flops", "1T", "--bytes", "400M", "--time", "1"}),
                        {"--time", "'1' has no unit"}));
  // Positive, but under the nanosecond the time is kept in.
  EXPECT_TRUE(
      is_one_line_error(run({"roofline", "--hw", "h100-sxm", "--flops", "1T", "--bytes", "400M", "--time", "1e-12s"}),
                        {"--time must be at least 1 ns, got '1e-12s'"}));
  EXPECT_TRUE(is_one_line_error(run({"roofline", "--hw", "h100-sxm", "--flops=-1", "--bytes", "400M", "--time", "1ms"}),
                                {"--flops"}));
  EXPECT_TRUE(is_one_line_error(
      run({"roofline", "--hw", "h100-sxm", "--flops", "-1", "--bytes", "400M", "--time", "1ms"}), {"--flops"}));
  EXPECT_TRUE(is_one_line_error(run({"roofline", "--hw", "h100-sxm", "--flops", "1T", "--time", "1ms"}), {"--bytes"}));
  EXPECT_TRUE(is_one_line_error(run({"roofline", "--hw", "h300", "--flops", "1T", "--bytes", "400M", "--time", "1ms"}),
                                {"--hw", "'h300'", "h100-sxm"}));
  EXPECT_TRUE(is_one_line_error(
      run({"roofline", "--hw", "h100-sxm", "--flops", "1q", "--bytes", "400M", "--time", "1ms"}), {"--flops", "'1q'"}));
  EXPECT_TRUE(
      is_one_line_error(run({"roofline", "--hw", "h100-sxm", "--flops", "1T", "--bytes", "400M", "--time", "soon"}),
                        {"--time", "'soon'"}));
  EXPECT_TRUE(is_one_line_error(
      run({"roofline", "--hw", "h100-sxm", "--precision", "fp9", "--flops", "1T", "--bytes", "400M", "--time", "1ms"}),
      {"--precision", "'fp9'"}));
  EXPECT_TRUE(is_one_line_error(run({"roofline", "--hw", "h100-sxm", "--flops", "0", "--bytes", "0", "--time", "1ms"}),
                                {"--flops", "--bytes"}));
}

// The real H200 export (tests/data/ncu, from shared/data/ncu): 9 kernel rows. Judged against the roofs ncu
// measured in each row:
//   kernel 4, the bf16 8192^3 GEMM (nvjet_sm90_tst_320x128_...): 1,116,691,496,960 tensor FLOPs in
//     1,406,144 ns against 540,672 ops/cycle * 1,571,872,202.75 Hz = 849.9 TFLOP/s: 93% of the roof, far
//     right of the ridge -> compute_roof.
//   kernel 2, the vectorized fp32 add: DRAM at 4,306,334,210,064.88 B/s against 1,504 B/cycle *
//     3,198,784,265.59 Hz = 4.81 TB/s: 90% of the bandwidth, AI far below the ridge -> memory_slope.
TEST(CliRoofline, NcuCsvPlacesEveryKernel) {
  const CliRun r = run({"roofline", "--ncu", kNcuCsv, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  EXPECT_EQ(doc["kind"], "perfhound.roofline");
  const Json& kernels = doc["result"]["kernels"];
  ASSERT_EQ(kernels.size(), 9u);
  const Json& gemm = kernels[4];
  EXPECT_EQ(gemm["name"], "nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT");
  EXPECT_EQ(gemm["point"]["case"], "compute_roof");
  expect_near_rel(gemm["point"]["fraction_of_attainable"].get<double>(),
                  1116691496960.0 / 1406144e-9 / (540672.0 * 1571872202.75), 1e-3);
  const Json& add = kernels[2];
  EXPECT_EQ(add["name"], "void at::vectorized_elementwise_kernel<4, at::CUDAFunctor_add<float>, std::array<char *, 3>>(int, T2, T3)");
  EXPECT_EQ(add["point"]["case"], "memory_slope");
  expect_near_rel(add["point"]["fraction_of_attainable"].get<double>(),
                  4306334210064.88 / (1504.0 * 3198784265.59), 1e-6);
  EXPECT_EQ(doc["conditions"]["parameters"]["ncu_csv"], kNcuCsv);

  const CliRun text = run({"roofline", "--ncu", kNcuCsv});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("9 kernels"));
  EXPECT_THAT(text.out, HasSubstr("ncu said: ==WARNING== Note: Running with unmodified GPU clocks"));
  // The roof each row was judged against, from its own row: the GEMM's 540672 bf16 tensor ops a cycle at
  // 1.5719 GHz are 849.9 TFLOP/s.
  EXPECT_THAT(text.out, HasSubstr("kernel 4: NVIDIA H200 tensor (sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off)"
                                  " + DRAM at 1.57 GHz: 850 TFLOP/s"));
}

// With --hw the catalogue's roofs replace ncu's: the GEMM against H200's spec-sheet 989.5 TFLOP/s.
TEST(CliRoofline, NcuCsvWithCatalogueRoofs) {
  const CliRun r = run({"roofline", "--ncu", kNcuCsv, "--hw", "h200-sxm", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const Json doc = parse_json_output(r);
  const Json& gemm = doc["result"]["kernels"][4];
  expect_near_rel(gemm["point"]["ridge_point_flop_per_byte"].get<double>(), kH200Bf16 / kH200Bandwidth, 1e-12);
  expect_near_rel(gemm["point"]["fraction_of_attainable"].get<double>(), 1116691496960.0 / kH200Bf16 / 1406144e-9, 1e-3);
  EXPECT_EQ(doc["conditions"]["parameters"]["hardware"], "NVIDIA H200 SXM 141GB");
  // The text names the roofs it divided by: one per precision, the GEMM's bf16 and the rest's fp32.
  const CliRun text = run({"roofline", "--ncu", kNcuCsv, "--hw", "h200-sxm"});
  EXPECT_THAT(text.out, HasSubstr("kernels 0, 1, 2, 3, 5, 6, 7, 8: NVIDIA H200 SXM 141GB fp32 (spec sheet)"));
  EXPECT_THAT(text.out, HasSubstr("kernel 4: NVIDIA H200 SXM 141GB bf16 (spec sheet): 990 TFLOP/s, 4.80 TB/s"));
}

TEST(CliRoofline, NcuBadFilesAreOneLineNamingTheFile) {
  EXPECT_TRUE(is_one_line_error(run({"roofline", "--ncu", "/nonexistent/report.csv"}), {"'/nonexistent/report.csv'"}));
  const std::string plain = temp_file("no_roofline_columns.csv",
                                      "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n"
                                      "\"\",\"\",\"nsecond\"\n"
                                      "\"0\",\"my_kernel\",\"1,000\"\n");
  EXPECT_TRUE(is_one_line_error(run({"roofline", "--ncu", plain}), {"'" + plain + "'", "missing column"}));
  const std::string not_ncu = temp_file("not_ncu.csv", "a,b,c\n1,2,3\n");
  EXPECT_TRUE(is_one_line_error(run({"roofline", "--ncu", not_ncu}), {"'" + not_ncu + "'"}));
}

// ---------------------------------------------------------------------------------------------------------
// Help

TEST(CliHwMfuRoofline, EveryFlagOfTheNewCommandsHasHelp) {
  BuiltApp built = build_app();
  std::vector<std::string> seen;
  for (const CLI::App* sub : built.app->get_subcommands({})) {
    const std::string name = sub->get_name();
    if (name != "hw" && name != "mfu" && name != "roofline") continue;
    seen.push_back(name);
    EXPECT_FALSE(sub->get_description().empty()) << name;
    for (const CLI::Option* opt : sub->get_options()) {
      EXPECT_FALSE(opt->get_description().empty()) << name << " " << opt->get_name();
    }
  }
  EXPECT_EQ(seen.size(), 3u);
  const CliRun r = run({"help", "mfu"});
  EXPECT_EQ(r.code, 0);
  for (const char* flag : {"--model", "--hw", "--phase", "--tpot", "--ttft", "--tokens-per-s", "--precision"}) {
    EXPECT_THAT(r.out, HasSubstr(flag));
  }
}

TEST(CliRooflineChart, WritesAnSvgWithTheChipsRoofsAndOnePointPerKernel) {
  const auto path = std::filesystem::temp_directory_path() / "perfhound_roofline_chart_test.svg";
  std::filesystem::remove(path);
  const CliRun r = run({"roofline", "--ncu", kNcuCsv, "--hw", "h200-sxm", "--chart", path.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(path);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(svg, StartsWith("<svg"));
  std::size_t circles = 0;
  for (auto pos = svg.find("<circle"); pos != std::string::npos; pos = svg.find("<circle", pos + 1)) ++circles;
  EXPECT_EQ(circles, 9u);  // the 9 kernels of the export
  EXPECT_THAT(svg, HasSubstr("bf16 990 TFLOP/s (spec sheet)"));  // H200 SXM: 989.5 TFLOP/s dense bf16
  const CliRun bad = run({"roofline", "--ncu", kNcuCsv, "--chart", "/nonexistent/dir/x.svg"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--chart: cannot write '/nonexistent/dir/x.svg'"));
}

}  // namespace
}  // namespace perfhound::cli
