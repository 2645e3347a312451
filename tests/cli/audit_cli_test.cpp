// perfhound audit end to end: exit 0 with no severe finding, 1 with one, 2 on bad input (one line naming the
// file and the field), and the versioned JSON document.
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unistd.h>
#include <vector>

#include "cli/cli_runner.h"

namespace perfhound::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string fixture(const std::string& name) { return std::string(PERFHOUND_TEST_DATA) + "/audit/" + name; }

std::string temp_file(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("perfhound_audit_cli_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << content;
  return path.string();
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(AuditCli, CleanPerfhoundLoadResultPasses) {
  const CliRun r = run({"audit", fixture("perfhound_load_clean.json")});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("(perfhound.load)"));
  EXPECT_THAT(r.out, HasSubstr("0 findings (0 severe)"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS (no finding)"));
  EXPECT_THAT(r.out, HasSubstr("closed loop, concurrency 4"));
}

TEST(AuditCli, CleanClaimFileAndVllmResultPass) {
  EXPECT_EQ(run({"audit", fixture("claim_clean.yaml")}).code, 0);
  EXPECT_EQ(run({"audit", fixture("vllm_bench_serve_clean.json")}).code, 0);
}

TEST(AuditCli, SevereFindingExitsOne) {
  const CliRun r = run({"audit", fixture("vllm_bench_serve_defaults.json")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("severe  [conditions-missing] precision is not stated (Knowledge 06 §7.7)"));
  EXPECT_THAT(r.out, HasSubstr("warning [unbounded-load]"));
  EXPECT_THAT(r.out, HasSubstr("remedy: "));
  EXPECT_THAT(r.out, HasSubstr("verdict: FAIL"));
}

TEST(AuditCli, WarningsOnlyExitZero) {
  const CliRun r = run({"audit", fixture("claim_no_warmup.json")});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("warning [no-warmup]"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS (no severe finding)"));
}

TEST(AuditCli, EachSevereRuleFixtureExitsOne) {
  for (const char* f : {"claim_conditions_missing.json", "claim_throughput_without_latency.json",
                        "claim_mean_without_tail.json", "claim_unrealistic_lengths.json", "claim_sparse_peak_roof.json",
                        "claim_precision_mismatch.json", "claim_baseline_conditions_differ.json",
                        "claim_unsynchronized_timing.json", "perfhound_load_invalid.json", "genai_perf_flat.json"}) {
    EXPECT_EQ(run({"audit", fixture(f)}).code, 1) << f;
  }
  for (const char* f : {"claim_spec_sheet_roof.json", "claim_single_run.json", "claim_few_samples_for_tail.json",
                        "claim_unbounded_load.json", "claim_requests_failed.json", "claim_utilization_as_efficiency.json",
                        "claim_decode_judged_by_mfu.json"}) {
    EXPECT_EQ(run({"audit", fixture(f)}).code, 0) << f;
  }
}

TEST(AuditCli, JsonDocument) {
  const CliRun r = run({"audit", fixture("claim_precision_mismatch.json"), "--json"});
  EXPECT_EQ(r.code, 1);
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "perfhound.audit");
  EXPECT_EQ(doc["conditions"]["parameters"]["format"], "claim file");
  EXPECT_EQ(doc["result"]["verdict"], "FAIL");
  EXPECT_EQ(doc["result"]["counts"]["severe"], 1);
  ASSERT_EQ(doc["result"]["findings"].size(), 1u);
  EXPECT_EQ(doc["result"]["findings"][0]["rule"], "precision-mismatch");
  EXPECT_EQ(doc["result"]["findings"][0]["severity"], "severe");
  EXPECT_EQ(doc["result"]["claim"]["conditions"]["precision"], "fp8");
  EXPECT_EQ(doc["result"]["claim"]["baseline"]["conditions"]["precision"], "fp16");
}

TEST(AuditCli, OutputFileGetsTheDocument) {
  const std::string out = temp_file("audit.json", "");
  const CliRun r = run({"audit", fixture("claim_clean.yaml"), "-o", out});
  EXPECT_EQ(r.code, 0);
  std::ifstream in(out);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["kind"], "perfhound.audit");
  EXPECT_EQ(doc["result"]["verdict"], "PASS");
}

TEST(AuditCli, BadInputIsOneLineAndExitTwo) {
  const CliRun missing = run({"audit", "/nonexistent/claim.json"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "perfhound audit: cannot open '/nonexistent/claim.json': no such file or not readable\n");

  const std::string bad_field = temp_file("bad.yaml", "claim: fast\nconditions:\n  batch: eight\n");
  const CliRun field = run({"audit", bad_field});
  EXPECT_EQ(field.code, 2);
  EXPECT_EQ(lines(field.err), 1);
  EXPECT_THAT(field.err, HasSubstr("bad.yaml' line 3: conditions.batch: expected a number"));

  const std::string bad_json = temp_file("bad.json", "{\"claim\": \"fast\",\n\"value\": }\n");
  const CliRun syntax = run({"audit", bad_json});
  EXPECT_EQ(syntax.code, 2);
  EXPECT_EQ(lines(syntax.err), 1);
  EXPECT_THAT(syntax.err, HasSubstr("bad.json': not JSON: line 2"));

  const CliRun none = run({"audit"});
  EXPECT_EQ(none.code, 2);
  EXPECT_THAT(none.err, HasSubstr("give the FILE to audit"));
}

// Nonsense numbers in a claim file or a tool's result are input errors (exit 2, one line naming the field),
// never a verdict: they once passed with exit 0 (a batch of -1; a vllm p99 TTFT of "12" under an 80 ms median).
TEST(AuditCli, ImpossibleNumbersExitTwo) {
  std::ifstream in(fixture("vllm_bench_serve_clean.json"));
  auto vllm = nlohmann::json::parse(in);
  vllm["p99_ttft_ms"] = "12";
  for (const auto& [name, content, needle] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"batch.json", R"({"claim": "x", "conditions": {"batch": -1}})", "conditions.batch: expected a whole number >= 1, got -1"},
           {"order.yaml", "claim: x\nlatency:\n  ttft_ms: {p50: 2000, p99: 900}\n",
            "line 3: latency.ttft_ms.p99: 900 is below latency.ttft_ms.p50 (2000)"},
           {"vllm.json", vllm.dump(), "p99_ttft_ms: expected a number, got the string \"12\""}}) {
    const CliRun r = run({"audit", temp_file(name, content)});
    EXPECT_EQ(r.code, 2) << name << r.out;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(name + "'"));
    EXPECT_THAT(r.err, HasSubstr(needle));
  }
}

// perfhound's own micro-benchmark harness output: the warm-up is read from it and no LLM-serving condition
// is asked of a std::sort, so it passes; its p99s, from 34 and 29 samples (the fixture's counts), are warned of.
TEST(AuditCli, BenchDocumentPasses) {
  const CliRun r = run({"audit", fixture("perfhound_bench_cpu_sort.json")});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("3 samples per benchmark"));
  EXPECT_THAT(r.out, HasSubstr("std::sort p99 (needs 100) from 34 samples"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS (no severe finding)"));
}

// The remedy for a missing condition names the way this file's format has to state it.
TEST(AuditCli, ConditionsRemedyFitsTheFormat) {
  const auto remedies = [](const std::string& file) {
    const CliRun r = run({"audit", fixture(file), "--json"});
    const auto doc = nlohmann::json::parse(r.out);
    std::string all;
    for (const auto& f : doc["result"]["findings"]) {
      if (f["rule"] == "conditions-missing") all += f["remedy"].get<std::string>() + "\n";
    }
    EXPECT_FALSE(all.empty()) << file;
    return all;
  };
  EXPECT_THAT(remedies("vllm_bench_serve_defaults.json"), HasSubstr("--metadata"));
  EXPECT_THAT(remedies("genai_perf_flat.json"), Not(HasSubstr("--metadata")));
  EXPECT_THAT(remedies("genai_perf_flat.json"), HasSubstr("genai-perf's export has no field"));
  EXPECT_THAT(remedies("claim_conditions_missing.json"), Not(HasSubstr("--metadata")));
  EXPECT_THAT(remedies("claim_conditions_missing.json"), HasSubstr("add it under conditions"));
}

TEST(AuditCli, ListRules) {
  const CliRun r = run({"audit", "--list-rules"});
  EXPECT_EQ(r.code, 0);
  for (const char* id : {"conditions-missing", "throughput-without-latency", "mean-without-tail", "no-warmup",
                         "unrealistic-lengths", "spec-sheet-roof", "precision-mismatch", "single-run"}) {
    EXPECT_THAT(r.out, HasSubstr(id));
  }
  const CliRun j = run({"audit", "--list-rules", "--json"});
  EXPECT_EQ(nlohmann::json::parse(j.out)["result"]["rules"].size(), 17u);
}

TEST(AuditCli, HelpNamesTheFormats) {
  const CliRun r = run({"audit", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("vllm bench serve"));
  EXPECT_THAT(r.out, HasSubstr("genai-perf"));
  EXPECT_THAT(r.out, HasSubstr("--url"));  // the live checks
  EXPECT_THAT(r.out, HasSubstr("--live"));
}

}  // namespace
}  // namespace perfhound::cli

namespace perfhound::cli {
namespace {

nlohmann::json live_check(const nlohmann::json& doc, const std::string& id) {
  for (const auto& c : doc["result"]["checks"]) {
    if (c["check"] == id) return c;
  }
  ADD_FAILURE() << "no check " << id;
  return {};
}

// The live checks against the embedded simulator, which caches nothing, streams one token a chunk, reports usage
// exactly and generates exactly max_tokens: every check passes. One request at a time: at concurrency 4 a request
// sent as another ends joins the next step or the one after, by a race with the engine's thread, so a seed's TTFT
// p50 could double on a busy host and fail seed stability (a clone's test run beside a compiler saw it at 5 ms
// steps); alone, each request finds the engine idle and its TTFT is the same one step every time.
TEST(AuditCli, LiveChecksOfAnHonestServerPass) {
  const CliRun r = run({"audit", "--live", "--sim-fixed-step-time", "20ms", "--requests", "16", "--output-len", "8",
                        "--cache-input-len", "256", "--input-len", "64", "--concurrency", "1", "--json"});
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["kind"], "perfhound.audit");
  EXPECT_EQ(doc["result"]["verdict"], "PASS");
  ASSERT_EQ(doc["result"]["checks"].size(), 4u);
  for (const auto& c : doc["result"]["checks"]) EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
  const auto accounting = live_check(doc, "stream-accounting");
  EXPECT_EQ(accounting["numbers"]["completed"], 16);
  EXPECT_EQ(accounting["numbers"]["content_chunks"], 16 * 8);  // one token a chunk
  EXPECT_EQ(accounting["numbers"]["usage_completion_tokens"], 16 * 8);
  const auto repeated = live_check(doc, "repeated-prompt");
  EXPECT_EQ(repeated["numbers"]["same"], 8);  // 16 measured, alternating
  EXPECT_EQ(repeated["numbers"]["distinct"], 8);
  EXPECT_EQ(live_check(doc, "output-length")["numbers"]["at_max_tokens"], 16);
  EXPECT_EQ(doc["conditions"]["parameters"]["audit"], "live");
}

// A server that under-reports usage on half the streams and stops the other half early despite ignore_eos: both
// accounting checks fail, and the command exits 1.
TEST(AuditCli, LiveChecksCatchUsageShortAndEarlyStop) {
  const CliRun r = run({"audit", "--live", "--sim-fixed-step-time", "2ms", "--requests", "16", "--output-len", "8",
                        "--cache-input-len", "64", "--input-len", "64", "--ignore-eos", "--sim-fault-usage-short", "0.5",
                        "--sim-fault-early-stop", "0.5", "--json"});
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["result"]["verdict"], "FAIL");
  const auto accounting = live_check(doc, "stream-accounting");
  EXPECT_FALSE(accounting["passed"].get<bool>());
  EXPECT_GT(accounting["numbers"]["more_chunks_than_usage_tokens"].get<int>(), 0);
  // Every stream had one of the two faults, and each leaves the output (by usage) short of max_tokens.
  const auto length = live_check(doc, "output-length");
  EXPECT_FALSE(length["passed"].get<bool>());
  EXPECT_EQ(length["numbers"]["under_max_tokens"], length["numbers"]["completed"]);
  EXPECT_GT(length["numbers"]["finish_reasons"].value("stop", 0), 0);
}

TEST(AuditCli, LiveBadFlagsAreOneLineAndExitTwo) {
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"audit", "--live", "--requests", "4"}, "--requests"},
           {{"audit", "--live", "--output-len", "1"}, "--output-len"},
           {{"audit", "claim.json", "--url", "http://127.0.0.1:9"}, "not both"},
           {{"audit", "--url", "ftp://x"}, "--url"}}) {
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 2) << needle;
    EXPECT_THAT(r.err, HasSubstr(needle));
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
}

}  // namespace
}  // namespace perfhound::cli
