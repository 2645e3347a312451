// The importers: each format's fields land in the Claim as docs/audit.md maps them, and bad input is one error
// naming the file and the field (and, for YAML, the line).
#include "audit/claim_importer.h"

#include <cmath>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "audit/audit_rules.h"
#include "audit/audit_fixtures.h"

namespace perfhound::audit {
namespace {

using ::testing::HasSubstr;


std::string import_error(const std::string& path, const std::string& text) {
  auto claim = import_claim(path, text);
  EXPECT_FALSE(claim.ok()) << path;
  return claim.ok() ? std::string() : claim.error().message;
}

const LatencyFigure& figure(const Claim& claim, const std::string& metric) {
  for (const auto& l : claim.latencies) {
    if (l.metric == metric) return l;
  }
  ADD_FAILURE() << "no " << metric;
  static const LatencyFigure kNone;
  return kNone;
}

std::set<std::string> rules_fired(const Claim& claim) {
  std::set<std::string> ids;
  for (const auto& f : audit_claim(claim)) ids.insert(std::string(f.rule->id));
  return ids;
}

TEST(VllmBenchImporter, MapsTheSavedResult) {
  const Claim c = import_fixture("vllm_bench_serve_clean.json");
  EXPECT_EQ(c.format, "vllm bench serve");
  EXPECT_EQ(c.conditions.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(c.conditions.precision, "bf16");  // --metadata precision=bf16
  EXPECT_EQ(c.conditions.hardware, "H100-SXM");
  EXPECT_EQ(c.conditions.framework, "vLLM");  // --backend vllm
  EXPECT_EQ(c.conditions.framework_version, "0.6.3");
  EXPECT_EQ(c.conditions.request_rate_per_s, 8.0);
  EXPECT_FALSE(c.conditions.concurrency.has_value());  // max_concurrency null
  EXPECT_DOUBLE_EQ(*c.conditions.input_len, 2000);     // total_input_tokens / completed
  EXPECT_DOUBLE_EQ(*c.conditions.output_len, 500);
  EXPECT_DOUBLE_EQ(*c.requests_per_s, 7.6799);
  EXPECT_DOUBLE_EQ(*c.output_tokens_per_s, 3839.97);
  EXPECT_EQ(c.completed, 1000);
  EXPECT_EQ(c.failed, 0);
  EXPECT_EQ(c.warmup_discarded, true);  // --metadata num_warmups=20
  const LatencyFigure& ttft = figure(c, "ttft");
  EXPECT_DOUBLE_EQ(*ttft.mean_s, 0.08531);
  EXPECT_DOUBLE_EQ(*ttft.stddev_s, 0.0224);
  EXPECT_DOUBLE_EQ(ttft.percentiles_s.at(50), 0.08012);
  EXPECT_DOUBLE_EQ(ttft.percentiles_s.at(99), 0.16083);
  EXPECT_EQ(ttft.samples, 1000);
  EXPECT_FALSE(figure(c, "itl").samples.has_value());  // pooled over token gaps, not requests
  EXPECT_DOUBLE_EQ(figure(c, "e2e").percentiles_s.at(95), 8.231);
  EXPECT_TRUE(audit_claim(c).empty());
}

TEST(VllmBenchImporter, DefaultsRunIsUnboundedAndUnstated) {
  const Claim c = import_fixture("vllm_bench_serve_defaults.json");
  EXPECT_TRUE(std::isinf(*c.conditions.request_rate_per_s));  // "request_rate": "inf"
  EXPECT_FALSE(c.conditions.framework.has_value());           // openai-chat is a protocol
  EXPECT_FALSE(c.warmup_discarded.has_value());                // --num-warmups is not saved
  EXPECT_EQ(figure(c, "ttft").percentiles_s.size(), 2u);      // median and the default p99
  EXPECT_EQ(rules_fired(c),
            (std::set<std::string>{"conditions-missing", "no-warmup", "unbounded-load", "requests-failed"}));
}

TEST(GenaiPerfImporter, MapsTheFlatInputConfig) {
  const Claim c = import_fixture("genai_perf_flat.json");
  EXPECT_EQ(c.format, "genai-perf");
  EXPECT_EQ(c.conditions.model, "meta-llama/Meta-Llama-3-8B-Instruct");
  EXPECT_EQ(c.conditions.concurrency, 16);
  EXPECT_DOUBLE_EQ(*c.conditions.input_len, 550);  // input_sequence_length.avg
  EXPECT_DOUBLE_EQ(*c.conditions.output_len, 256);
  EXPECT_FALSE(c.conditions.framework.has_value());  // service kind openai: backend names nothing
  EXPECT_EQ(c.warmup_discarded, true);                // warmup_request_count 10
  EXPECT_DOUBLE_EQ(*c.requests_per_s, 6.12);
  EXPECT_DOUBLE_EQ(*c.output_tokens_per_s, 1566.2);
  const LatencyFigure& tpot = figure(c, "tpot");  // genai-perf's inter_token_latency
  EXPECT_DOUBLE_EQ(*tpot.mean_s, 0.00987);
  EXPECT_NEAR(tpot.percentiles_s.at(99), 0.00987 * 1.8, 1e-12);
  EXPECT_EQ(tpot.samples, 612);
  EXPECT_EQ(figure(c, "ttft").percentiles_s.size(), 9u);
  EXPECT_EQ(rules_fired(c), std::set<std::string>{"conditions-missing"});
}

TEST(GenaiPerfImporter, MapsTheNestedInputConfig) {
  const Claim c = import_fixture("genai_perf_nested.json");
  EXPECT_EQ(c.conditions.model, "llama-3-8b-trtllm");
  EXPECT_EQ(c.conditions.framework, "Triton Inference Server (tensorrtllm backend)");
  EXPECT_EQ(c.conditions.request_rate_per_s, 4.0);  // perf_analyzer.stimulus.request_rate
  EXPECT_DOUBLE_EQ(*c.conditions.output_len, 8);
  EXPECT_EQ(c.warmup_discarded, false);  // perf_analyzer.warmup_request_count 0
  EXPECT_EQ(rules_fired(c), (std::set<std::string>{"conditions-missing", "no-warmup", "unrealistic-lengths"}));
}

TEST(PerfhoundResultImporter, MapsALoadResult) {
  const Claim c = import_fixture("perfhound_load_clean.json");
  EXPECT_EQ(c.format, "perfhound.load");
  EXPECT_EQ(c.conditions.model, "perfhound-fixed-step");
  EXPECT_EQ(c.conditions.concurrency, 4);  // "closed loop, concurrency 4"
  EXPECT_EQ(c.conditions.framework, "perfhound serve (simulator)");
  EXPECT_TRUE(c.conditions.framework_version.has_value());
  EXPECT_THAT(*c.conditions.hardware, HasSubstr("fixed 200 us steps"));
  EXPECT_DOUBLE_EQ(*c.conditions.input_len, 516);  // usage.prompt_tokens: the chat template adds 4
  EXPECT_DOUBLE_EQ(*c.conditions.output_len, 128);
  EXPECT_EQ(c.warmup_discarded, true);
  EXPECT_EQ(c.completed, 120);
  EXPECT_EQ(figure(c, "ttft").samples, 120);
  EXPECT_TRUE(figure(c, "ttft").percentiles_s.contains(99));
  EXPECT_FALSE(figure(c, "ttft").percentiles_s.contains(99.9));  // not what perfhound load quotes
  EXPECT_TRUE(c.states_throughput());
  const auto findings = audit_claim(c);
  EXPECT_TRUE(findings.empty()) << (findings.empty() ? "" : findings[0].what);
}

TEST(PerfhoundResultImporter, InvalidRunIsFlagged) {
  const Claim c = import_fixture("perfhound_load_invalid.json");
  ASSERT_FALSE(c.source_flags.empty());
  EXPECT_THAT(c.source_flags[0], HasSubstr("client-limited"));
}

TEST(PerfhoundResultImporter, RefusesANewerSchema) {
  EXPECT_THAT(import_error("new.json", R"({"schema_version": 9, "kind": "perfhound.load", "conditions": {"parameters": {}}})"),
              HasSubstr("'new.json': schema_version: 9 is newer than this perfhound reads (1)"));
}

TEST(PerfhoundResultImporter, MfuDocumentRoofsAndRatios) {
  const Claim c = import_claim("mfu.json", R"({"schema_version": 1, "kind": "perfhound.mfu",
      "conditions": {"parameters": {"model": "llama-3-8b", "hardware": "NVIDIA H100 SXM5 80GB", "phase": "decode",
        "precision": "bf16", "batch": 1, "input_len": 2000, "output_len": 500, "compute_roof": "spec sheet, dense: x"}},
      "result": {"roofs": {"peak_flops_per_s": 989500000000000, "peak_flops_measured": false,
                           "peak_bytes_per_s": 3350000000000, "peak_bytes_measured": false},
                 "measured": {"mfu": 0.01, "mbu": 0.7}}, "diagnostics": []})").value();
  EXPECT_EQ(c.phase, "decode");
  EXPECT_DOUBLE_EQ(*c.mbu, 0.7);
  ASSERT_EQ(c.roofs.size(), 2u);
  EXPECT_EQ(c.roofs[0].measured, false);
  const auto fired = rules_fired(c);
  EXPECT_TRUE(fired.contains("spec-sheet-roof"));
  EXPECT_FALSE(fired.contains("decode-judged-by-mfu"));  // MBU is there
}

TEST(ClaimFileImporter, YamlAndJsonReadTheSame) {
  const Claim yaml = import_fixture("claim_clean.yaml");
  EXPECT_EQ(yaml.format, "claim file");
  EXPECT_EQ(yaml.conditions.framework_version, "0.6.3");
  EXPECT_EQ(yaml.baseline->conditions.framework_version, "0.5.5");
  EXPECT_EQ(yaml.runs, 5);
  EXPECT_TRUE(yaml.spread_stated);
  EXPECT_EQ(figure(yaml, "ttft").samples, 2000);  // the top-level samples
  EXPECT_DOUBLE_EQ(figure(yaml, "ttft").percentiles_s.at(99), 0.91);
  EXPECT_DOUBLE_EQ(*yaml.output_tokens_per_s, 2450);  // the headline is a throughput
  const Claim json = import_fixture("claim_no_warmup.json");
  EXPECT_EQ(json.conditions.model, yaml.conditions.model);
  EXPECT_EQ(json.conditions.concurrency, yaml.conditions.concurrency);
  EXPECT_EQ(json.warmup_discarded, false);
}

TEST(ClaimFileImporter, LatencyHeadlineJoinsItsFigure) {
  const Claim c = import_claim("c.json", R"({"metric": "ttft_p99_ms", "value": 300,
      "latency": {"ttft_ms": {"mean": 120}}})").value();
  ASSERT_EQ(c.latencies.size(), 1u);
  EXPECT_DOUBLE_EQ(c.latencies[0].percentiles_s.at(99), 0.3);
  EXPECT_DOUBLE_EQ(*c.latencies[0].mean_s, 0.12);
}

TEST(ClaimFileImporter, ErrorsNameTheFileFieldAndLine) {
  EXPECT_EQ(import_error("c.yaml", "claim: fast\nconditions:\n  model: x\n  batch: eight\n"),
            "'c.yaml' line 4: conditions.batch: expected a number, got the string \"eight\"");
  EXPECT_THAT(import_error("c.yaml", "claim: fast\nconditions: [unclosed\n"), HasSubstr("'c.yaml' line "));
  EXPECT_THAT(import_error("c.yaml", "claim: fast\nconditions: [unclosed\n"), HasSubstr("not YAML"));
  EXPECT_THAT(import_error("c.json", R"({"claim": "fast", "warmpu": 10})"),
              HasSubstr("'c.json': warmpu: unknown key (known: claim, metric"));
  EXPECT_THAT(import_error("c.json", R"({"claim": "fast", "conditions": {"gpu": "H100"}})"),
              HasSubstr("conditions.gpu: unknown key"));
  EXPECT_THAT(import_error("c.json", "{\"claim\": \"fast\",\n \"value\": }"), HasSubstr("'c.json': not JSON: line 2"));
  EXPECT_EQ(import_error("c.json", R"({"metric": "mfu", "value": 45})"),
            "'c.json': value: mfu is a ratio in 0..1 (45% is 0.45), got 45");
  EXPECT_THAT(import_error("c.json", R"({"claim": "x", "latency": {"ttft": {"mean": 1}}})"),
              HasSubstr("latency.ttft: name the unit"));
  EXPECT_THAT(import_error("c.yaml", "claim: x\nclaim: y\n"), HasSubstr("key 'claim' appears twice"));
  EXPECT_EQ(import_error("c.json", R"({"claim": "x", "runs": 2.5})"), "'c.json': runs: expected a whole number >= 1, got 2.5");
  EXPECT_THAT(import_error("v.json", R"({"request_throughput": 1, "completed": 2.5, "duration": 1})"),
              HasSubstr("'v.json': completed: expected a whole count"));
}

// Every number a claim file states is range-checked, so nonsense is an error naming the field, never a
// condition the rules then judge (a batch of -1 passed, a request rate of -2 vanished from the table).
TEST(ClaimFileImporter, NumbersOutOfRangeAreErrors) {
  const std::string head = R"({"claim": "x", )";
  for (const auto& [body, error] : std::vector<std::pair<std::string, std::string>>{
           {R"("conditions": {"batch": -1}})", "conditions.batch: expected a whole number >= 1, got -1"},
           {R"("conditions": {"batch": 1.5}})", "conditions.batch: expected a whole number >= 1, got 1.5"},
           {R"("conditions": {"concurrency": 0}})", "conditions.concurrency: expected a whole number >= 1, got 0"},
           {R"("conditions": {"request_rate": -2}})", "conditions.request_rate: expected a number > 0 (or inf), got -2"},
           {R"("conditions": {"input_len": -100}})", "conditions.input_len: expected a number > 0, got -100"},
           {R"("conditions": {"output_len": -1}})", "conditions.output_len: expected a number >= 0, got -1"},
           {R"("baseline": {"conditions": {"batch": 0}}})", "baseline.conditions.batch: expected a whole number >= 1, got 0"},
           {R"("latency": {"ttft_ms": {"p99": -5}}})", "latency.ttft_ms.p99: expected a number >= 0, got -5"},
           {R"("latency": {"ttft_ms": {"mean": -1}}})", "latency.ttft_ms.mean: expected a number >= 0, got -1"},
           {R"("throughput": {"requests_per_s": -3}})", "throughput.requests_per_s: expected a number >= 0, got -3"},
           {R"("metric": "ttft_p99_ms", "value": -1})", "value: ttft_p99_ms is a latency: expected a number >= 0, got -1"},
           {R"("spread": {"ci": [5, 1], "confidence": 0.95}})", "spread.ci: expected [low, high] with low <= high, got [5, 1]"},
           {R"("spread": {"ci": [1, 5], "confidence": 7}})",
            "spread.confidence: expected a level between 0 and 1 (95% is 0.95), got 7"},
           {R"("spread": {"stddev": -2}})", "spread.stddev: expected a number >= 0, got -2"},
           {R"("runs": -3})", "runs: expected a whole number >= 1, got -3"},
           {R"("warmup": 2.5})", "warmup: expected a whole count >= 0 (or a duration such as \"5s\"), got 2.5"},
           {R"("roof": {"peak_flops_per_s": 0}})", "roof.peak_flops_per_s: expected a number > 0, got 0"},
           {R"("target_workload": {"input_len": -5}})", "target_workload.input_len: expected a number > 0, got -5"}}) {
    EXPECT_EQ(import_error("c.json", head + body), "'c.json': " + error) << body;
  }
  // In range, and the string "inf" YAML's plain scalar makes of a rate, still read.
  const Claim c = import_claim("c.yaml", "claim: x\nconditions: {batch: 8, request_rate: inf, output_len: 0}\n").value();
  EXPECT_EQ(c.conditions.batch, 8);
  EXPECT_TRUE(std::isinf(*c.conditions.request_rate_per_s));
  EXPECT_EQ(c.conditions.output_len, 0);  // a prefill-only figure
}

// A p99 under the median cannot come from one distribution: the file is inconsistent, whichever format.
TEST(ClaimImporter, PercentilesThatDecreaseAreErrors) {
  EXPECT_EQ(import_error("c.json", R"({"claim": "x", "latency": {"ttft_ms": {"p50": 2000, "p99": 900}}})"),
            "'c.json': latency.ttft_ms.p99: 900 is below latency.ttft_ms.p50 (2000): a higher percentile cannot be "
            "lower, so the file is inconsistent");
  EXPECT_THAT(import_error("c.json", R"({"claim": "x", "latency": {"ttft_ms": {"median": 80, "p90": 70}}})"),
              HasSubstr("latency.ttft_ms.p90: 70 is below latency.ttft_ms.median (80)"));
  // Equal percentiles are a narrow distribution, not an error.
  EXPECT_TRUE(import_claim("c.json", R"({"claim": "x", "latency": {"ttft_ms": {"p50": 80, "p99": 80}}})").ok());
}

// vllm bench serve writes its figures as JSON numbers: a string there is refused, not coerced (a p99 TTFT of
// "12" passed, under an 80 ms median), and impossible values are errors naming the field.
TEST(VllmBenchImporter, WrongTypesAndImpossibleValuesAreErrors) {
  const auto clean = nlohmann::json::parse(read_fixture("vllm_bench_serve_clean.json"));
  const auto error_with = [&](const std::string& key, const nlohmann::json& value) {
    nlohmann::json j = clean;
    j[key] = value;
    return import_error("v.json", j.dump());
  };
  EXPECT_EQ(error_with("request_throughput", -1), "'v.json': request_throughput: expected a number >= 0, got -1");
  EXPECT_EQ(error_with("p99_ttft_ms", "12"),
            "'v.json': p99_ttft_ms: expected a number, got the string \"12\" (the tool writes a number here: was the "
            "file edited?)");
  // 12 ms is below the fixture's p95 (125.2) and its median (80.12).
  EXPECT_EQ(error_with("p99_ttft_ms", 12.0),
            "'v.json': p99_ttft_ms: 12 is below p95_ttft_ms (125.2): a higher percentile cannot be lower, so the file "
            "is inconsistent");
  EXPECT_EQ(error_with("max_concurrency", 0), "'v.json': max_concurrency: expected a whole number >= 1, got 0");
  EXPECT_EQ(error_with("request_rate", -8), "'v.json': request_rate: expected a number > 0 (or inf), got -8");
  EXPECT_EQ(error_with("request_rate", "8"),
            "'v.json': request_rate: expected a number, got the string \"8\" (the tool writes a number here: was the "
            "file edited?)");
  EXPECT_EQ(error_with("total_output_tokens", -500), "'v.json': total_output_tokens: expected a whole number >= 0, got -500");
  EXPECT_EQ(error_with("mean_tpot_ms", -1), "'v.json': mean_tpot_ms: expected a number >= 0, got -1");
  EXPECT_EQ(error_with("duration", 0), "'v.json': duration: expected a number > 0, got 0");
  // --metadata values are strings by design: "20" is read, "twenty" is not shown as "twenty requests".
  EXPECT_EQ(error_with("num_warmups", "twenty"),
            "'v.json': num_warmups: expected the whole number of warm-up requests (--metadata num_warmups=20), got "
            "\"twenty\"");
  EXPECT_EQ(import_fixture("vllm_bench_serve_clean.json").warmup, "20 requests");
}

// Keys shaped like percentiles that name none ("p.", a 400-digit run, past 100) are passed over, as a key the
// writer did not mean as one; std::stod threw on them ("unexpected error: stod").
TEST(ClaimImporter, KeysThatOnlyLookLikePercentilesArePassedOver) {
  const std::string nines(400, '9');
  auto vllm = nlohmann::json::parse(read_fixture("vllm_bench_serve_clean.json"));
  vllm["p._ttft_ms"] = 1.0;
  vllm["p" + nines + "_ttft_ms"] = 1.0;
  vllm["p101_ttft_ms"] = 1.0;
  const auto v = import_claim("v.json", vllm.dump());
  ASSERT_TRUE(v.ok()) << v.error().message;
  auto genai = nlohmann::json::parse(read_fixture("genai_perf_flat.json"));
  genai["time_to_first_token"]["p."] = 1.0;
  genai["time_to_first_token"]["p" + nines] = 1.0;
  const auto g = import_claim("g.json", genai.dump());
  ASSERT_TRUE(g.ok()) << g.error().message;
  for (const auto& l : g->latencies) {
    for (const auto& [q, value] : l.percentiles_s) EXPECT_LE(q, 100) << l.metric;
  }
}

TEST(GenaiPerfImporter, WrongTypesAndImpossibleValuesAreErrors) {
  const auto clean = nlohmann::json::parse(read_fixture("genai_perf_flat.json"));
  const auto error_with = [&](const nlohmann::json::json_pointer& at, const nlohmann::json& value) {
    nlohmann::json j = clean;
    j[at] = value;
    return import_error("g.json", j.dump());
  };
  EXPECT_THAT(error_with("/request_throughput/avg"_json_pointer, "6.12"),
              HasSubstr("'g.json': request_throughput.avg: expected a number, got the string \"6.12\""));
  EXPECT_EQ(error_with("/output_token_throughput/avg"_json_pointer, -1),
            "'g.json': output_token_throughput.avg: expected a number >= 0, got -1");
  EXPECT_EQ(error_with("/input_config/concurrency"_json_pointer, 0),
            "'g.json': input_config.concurrency: expected a whole number >= 1, got 0");
  EXPECT_EQ(error_with("/input_config/output_tokens_mean"_json_pointer, -5),
            "'g.json': input_config.output_tokens_mean: expected a number >= 0, got -5");
  // Below the fixture's p25 of TTFT, the highest percentile under p50 it states.
  EXPECT_THAT(error_with("/time_to_first_token/p50"_json_pointer, 1.0),
              HasSubstr("'g.json': time_to_first_token.p50: 1 is below time_to_first_token.p25"));
  // -1 is genai-perf's "not set": no error, and the measured lengths stand.
  nlohmann::json unset = clean;
  unset["input_config"]["output_tokens_mean"] = -1;
  const auto c = import_claim("g.json", unset.dump());
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(*c->conditions.output_len, 256);
}

Claim import_data(const std::string& relative) {
  std::ifstream in(std::string(PERFHOUND_TEST_DATA) + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  auto claim = import_claim(relative, text.str());
  EXPECT_TRUE(claim.ok()) << (claim.ok() ? "" : claim.error().message);
  return claim.ok() ? std::move(claim).value() : Claim{};
}

// An mfu result is one prefill or decode step, not a serving workload: a prefill step's 0 output tokens and a
// decode step's 16 are what the step is, not "almost all prefill". Its conditions are still judged.
TEST(PerfhoundResultImporter, MfuStepIsNotJudgedAsAServingWorkload) {
  const Claim prefill = import_data("diagnose/mfu_llama1b_prefill_8x1024.json");
  EXPECT_EQ(prefill.subject, Subject::kModelStep);
  EXPECT_EQ(prefill.conditions.output_len, 0);
  EXPECT_EQ(rules_fired(prefill), (std::set<std::string>{"conditions-missing", "no-warmup", "spec-sheet-roof"}));
  const Claim decode = import_data("diagnose/mfu_llama1b_decode_tpot38ms.json");
  EXPECT_EQ(decode.conditions.output_len, 16);
  EXPECT_FALSE(rules_fired(decode).contains("unrealistic-lengths"));
  // The one condition missing is the framework whose step was timed; batch, context and the rest are there.
  for (const auto& f : audit_claim(prefill)) {
    if (f.rule == &kConditionsMissing) {
      EXPECT_EQ(f.what, "framework and its version are not stated");
    }
  }
}

// A roofline document names where its roofs came from, not their values: the roof is shown as missing,
// never as 0 FLOP/s.
TEST(PerfhoundResultImporter, RooflineRoofWithoutAValueIsMissingNotZero) {
  const Claim c = import_data("diagnose/roofline_h200_ncu.json");
  EXPECT_EQ(c.subject, Subject::kMicrobenchmark);
  ASSERT_EQ(c.roofs.size(), 1u);
  EXPECT_FALSE(c.roofs[0].peak.has_value());
  EXPECT_TRUE(claim_to_json(c)["efficiency"]["roofs"][0]["peak_flops_per_s"].is_null());
  std::string spec_sheet;
  for (const auto& f : audit_claim(c)) {
    if (f.rule == &kSpecSheetRoof) spec_sheet = f.what;
  }
  EXPECT_EQ(spec_sheet, "compute roof (value not in the file) is stated as the spec sheet's (chip catalogue)");
  // A kernel measurement states its hardware; a model, lengths and a framework mean nothing for it.
  EXPECT_EQ(rules_fired(c), (std::set<std::string>{"no-warmup", "spec-sheet-roof"}));
}

// perfhound::bench's own output (bench_example_cpu_sort --json F --timeout 2): every benchmark discarded 3
// warm-up samples, it ran on the host's CPU, and no LLM-serving condition applies to a std::sort.
TEST(PerfhoundResultImporter, BenchDocumentStatesItsWarmupAndHardware) {
  const Claim c = import_fixture("perfhound_bench_cpu_sort.json");
  EXPECT_EQ(c.subject, Subject::kMicrobenchmark);
  EXPECT_EQ(c.warmup_discarded, true);
  EXPECT_EQ(c.warmup, "3 samples per benchmark");
  EXPECT_EQ(c.conditions.hardware, "AMD EPYC (the host CPU)");
  // Each timed benchmark is a stated distribution: the fixture's std::sort has 34 samples (samples_s), its
  // std::stable_sort 29, so each p99 is about its maximum, as the document's own diagnostics say.
  ASSERT_EQ(c.latencies.size(), 2u);
  EXPECT_EQ(c.latencies[0].metric, "std::sort");
  EXPECT_EQ(c.latencies[0].samples, 34);
  EXPECT_EQ(c.latencies[1].samples, 29);
  const auto findings = audit_claim(c);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].what, "std::sort p99 (needs 100) from 34 samples");
  EXPECT_EQ(findings[1].what, "std::stable_sort p99 (needs 100) from 29 samples");

  // One benchmark that discarded nothing makes the warm-up "none", and says which.
  auto doc = nlohmann::json::parse(read_fixture("perfhound_bench_cpu_sort.json"));
  doc["result"]["benchmarks"][1]["warmup_discarded"] = 0;
  doc["conditions"]["parameters"]["gpu"] = {{"name", "NVIDIA H200"}};
  const Claim cold = import_claim("b.json", doc.dump()).value();
  EXPECT_EQ(cold.warmup_discarded, false);
  EXPECT_EQ(cold.warmup, "0 to 3 samples per benchmark (std::stable_sort discarded none)");
  EXPECT_EQ(cold.conditions.hardware, "NVIDIA H200");  // a CUDA runner's GPU, not the host
  EXPECT_EQ(rules_fired(cold), (std::set<std::string>{"no-warmup", "few-samples-for-tail"}));
}

TEST(ClaimImporter, UnknownFormatSaysWhatEachIsRecognizedBy) {
  EXPECT_THAT(import_error("x.json", R"({"hello": 1})"), HasSubstr("'x.json': not a format perfhound audit reads"));
  EXPECT_THAT(import_error("x.json", "[1, 2]"), HasSubstr("expected a JSON object at the top, got array"));
}

TEST(SourceDocument, YamlScalarsFollowTheCoreSchema) {
  const auto doc = SourceDocument::parse("t.yaml", "a: 12\nb: 1.5e3\nc: '12'\nd: ~\ne: true\nf: 0.6.3\ng: .inf\n").value();
  EXPECT_TRUE(doc.json()["a"].is_number_integer());
  EXPECT_DOUBLE_EQ(doc.json()["b"].get<double>(), 1500);
  EXPECT_TRUE(doc.json()["c"].is_string());
  EXPECT_TRUE(doc.json()["d"].is_null());
  EXPECT_TRUE(doc.json()["e"].get<bool>());
  EXPECT_EQ(doc.json()["f"], "0.6.3");
  EXPECT_TRUE(std::isinf(doc.json()["g"].get<double>()));
  EXPECT_EQ(SourceDocument::field_name("/baseline/conditions/batch"), "baseline.conditions.batch");
  EXPECT_EQ(SourceDocument::field_name("/spread/ci/1"), "spread.ci[1]");
}

// Aliases repeat their anchor's subtree: nine levels of nine make 9^9 (387 million) values from 300 bytes. Past
// 100000 values the file is refused; a small one with aliases still reads.
TEST(SourceDocument, AliasesThatMultiplyAreRefused) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  for (char level = 'b'; level <= 'i'; ++level) {
    bomb += fmt::format("{}: &{} [", level, level);
    for (int k = 0; k < 9; ++k) bomb += fmt::format("{}*{}", k ? ", " : "", static_cast<char>(level - 1));
    bomb += "]\n";
  }
  const auto refused = SourceDocument::parse("bomb.yaml", bomb);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("'bomb.yaml': more than 100000 values"));
  const auto small = SourceDocument::parse("small.yaml", "a: &a [1, 2, 3]\nb: [*a, *a, *a]\n");
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_EQ(small->json()["b"][2][1], 2);
}

}  // namespace
}  // namespace perfhound::audit
