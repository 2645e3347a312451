// The importers: each format's fields land in the Claim as docs/audit.md maps them, and bad input is one error
// naming the file and the field (and, for YAML, the line).
#include "audit/claim_importer.h"

#include <cmath>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

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
  EXPECT_EQ(import_error("c.json", R"({"claim": "x", "runs": 2.5})"), "'c.json': runs: expected a whole count >= 0, got 2.5");
  EXPECT_THAT(import_error("v.json", R"({"request_throughput": 1, "completed": "inf", "duration": 1})"),
              HasSubstr("'v.json': completed: expected a whole count"));
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

}  // namespace
}  // namespace perfhound::audit
