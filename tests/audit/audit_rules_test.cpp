// Each audit rule fires on the fixture made to break it (tests/data/audit/claim_<rule>.json: the clean claim
// with that one defect) and on nothing else there, and no rule fires on the clean claim.
#include "audit/audit_rules.h"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

#include "audit/claim_importer.h"
#include "audit/audit_fixtures.h"

namespace perfhound::audit {
namespace {

using ::testing::HasSubstr;


std::set<std::string> rules_fired(const std::vector<Finding>& findings) {
  std::set<std::string> ids;
  for (const auto& f : findings) ids.insert(std::string(f.rule->id));
  return ids;
}

std::string describe(const std::vector<Finding>& findings) {
  std::string s;
  for (const auto& f : findings) s += std::string(f.rule->id) + ": " + f.what + "\n";
  return s;
}

TEST(AuditRules, CleanClaimHasNoFinding) {
  const auto findings = audit_claim(import_fixture("claim_clean.yaml"));
  EXPECT_TRUE(findings.empty()) << describe(findings);
  EXPECT_FALSE(has_severe(findings));
}

struct RuleCase {
  std::string fixture;
  const AuditRule* rule;
  std::string what;  // a substring of one of its findings
};

void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.fixture; }

class EachRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(EachRule, FiresOnItsFixtureAndNothingElse) {
  const RuleCase& c = GetParam();
  const auto findings = audit_claim(import_fixture(c.fixture));
  EXPECT_EQ(rules_fired(findings), std::set<std::string>{std::string(c.rule->id)}) << describe(findings);
  EXPECT_THAT(describe(findings), HasSubstr(c.what));
  EXPECT_EQ(has_severe(findings), c.rule->severity == core::Severity::kSevere);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, EachRule,
    ::testing::Values(
        RuleCase{"claim_conditions_missing.json", &kConditionsMissing, "precision is not stated"},
        RuleCase{"claim_throughput_without_latency.json", &kThroughputWithoutLatency, "2450 output tokens/s with no TTFT"},
        RuleCase{"claim_mean_without_tail.json", &kMeanWithoutTail, "tpot: mean 38.5 ms, p50 37.9 ms, and no percentile at p90"},
        RuleCase{"claim_no_warmup.json", &kNoWarmup, "no warm-up was discarded (stated: 0)"},
        RuleCase{"claim_unrealistic_lengths.json", &kUnrealisticLengths, "output length 8 tokens (under 32)"},
        RuleCase{"claim_spec_sheet_roof.json", &kSpecSheetRoof, "is the spec sheet's dense bf16 peak of NVIDIA H100 SXM5 80GB"},
        RuleCase{"claim_sparse_peak_roof.json", &kSparsePeakRoof, "twice the NVIDIA H100 SXM5 80GB dense bf16 peak"},
        RuleCase{"claim_precision_mismatch.json", &kPrecisionMismatch, "the claim is at fp8, its baseline at fp16"},
        RuleCase{"claim_baseline_conditions_differ.json", &kBaselineConditionsDiffer,
                 "hardware: NVIDIA H100 SXM5 80GB against the baseline's NVIDIA A100 SXM4 80GB"},
        RuleCase{"claim_single_run.json", &kSingleRun, "output_tokens_per_s from 1 run"},
        RuleCase{"claim_few_samples_for_tail.json", &kFewSamplesForTail, "ttft p99 (needs 100) from 40 samples"},
        RuleCase{"claim_unbounded_load.json", &kUnboundedLoad, "every request was sent at once"},
        RuleCase{"claim_requests_failed.json", &kRequestsFailed, "100 of 2000 requests failed (5.00%)"},
        RuleCase{"claim_utilization_as_efficiency.json", &kUtilizationAsEfficiency, "'gpu_utilization' = 98"},
        RuleCase{"claim_decode_judged_by_mfu.json", &kDecodeJudgedByMfu, "decode MFU 4.00% quoted without its MBU"},
        RuleCase{"claim_unsynchronized_timing.json", &kUnsynchronizedTiming, "did not synchronize"},
        RuleCase{"perfhound_load_invalid.json", &kSourceInvalid, "client-limited"}),
    [](const ::testing::TestParamInfo<RuleCase>& info) {
      std::string name(info.param.rule->id);
      for (char& ch : name) ch = ch == '-' ? '_' : ch;
      return name;
    });

TEST(AuditRules, EveryRuleHasASeedSectionMeaningAndRemedy) {
  for (const AuditRule* r : all_audit_rules()) {
    EXPECT_FALSE(r->seed.empty()) << r->id;
    EXPECT_FALSE(r->meaning.empty()) << r->id;
    EXPECT_FALSE(r->remedy.empty()) << r->id;
    EXPECT_TRUE(r->seed.starts_with("Knowledge 06 §")) << r->id;
  }
  // EachRule above has one fixture per rule: a new rule needs its fixture there too.
  EXPECT_EQ(all_audit_rules().size(), 17u);
}

TEST(AuditRules, ConditionsMissingNamesEachCondition) {
  const auto findings = audit_claim(import_fixture("claim_conditions_missing.json"));
  const std::string text = describe(findings);
  for (const char* what : {"precision is not stated", "hardware is not stated", "batch (for a serving figure",
                           "input length is not stated", "output length is not stated",
                           "framework and its version are not stated"}) {
    EXPECT_THAT(text, HasSubstr(what));
  }
  EXPECT_THAT(text, ::testing::Not(HasSubstr("model is not stated")));
}

TEST(AuditRules, AStatedVariableIsNotAMismatch) {
  Claim claim = import_fixture("claim_precision_mismatch.json");
  claim.variable = "precision and framework_version";
  EXPECT_TRUE(audit_claim(claim).empty()) << describe(audit_claim(claim));
}

TEST(AuditRules, BaselineWithoutPrecisionIsAMissingCondition) {
  Claim claim = import_fixture("claim_precision_mismatch.json");
  claim.baseline->conditions.precision.reset();
  EXPECT_THAT(describe(audit_claim(claim)), HasSubstr("conditions-missing: baseline precision is not stated"));
}

TEST(AuditRules, LengthsFarFromTheTargetWorkload) {
  Claim claim = import_fixture("claim_clean.yaml");
  claim.conditions.input_len = 128;
  claim.conditions.output_len = 128;
  claim.baseline->conditions.input_len = 128;
  claim.baseline->conditions.output_len = 128;
  const auto findings = audit_claim(claim);
  EXPECT_EQ(rules_fired(findings), std::set<std::string>{"unrealistic-lengths"});
  EXPECT_THAT(describe(findings), HasSubstr("input length 128 tokens, but the workload it is for has 2000 (0.064x)"));
  EXPECT_THAT(describe(findings), HasSubstr("output length 128 tokens, but the workload it is for has 500"));
}

TEST(AuditRules, PeakStatedAsMeasuredButEqualToTheSpecSheet) {
  Claim claim = import_fixture("claim_spec_sheet_roof.json");
  claim.roofs.at(0).measured = true;
  EXPECT_THAT(describe(audit_claim(claim)), HasSubstr("though stated as measured"));
}

TEST(AuditRules, BareH100MatchesEitherCard) {
  Claim claim = import_fixture("claim_spec_sheet_roof.json");
  claim.conditions.hardware = "H100";
  claim.roofs.at(0).peak = 756e12;  // H100 PCIe's dense bf16
  EXPECT_THAT(describe(audit_claim(claim)), HasSubstr("dense bf16 peak of NVIDIA H100 PCIe"));
}

TEST(AuditRules, MemoryRoofAtTheSpecSheetBandwidth) {
  Claim claim = import_fixture("claim_spec_sheet_roof.json");
  claim.roofs = {{RoofFigure::Resource::kMemory, 3.35e12, "", std::nullopt, ""}};
  EXPECT_THAT(describe(audit_claim(claim)), HasSubstr("memory roof 3.35 TB/s is the spec sheet's bandwidth"));
}

TEST(AuditRules, TailPercentileSampleThresholds) {
  Claim claim;
  claim.latencies.push_back({"ttft", 0.1, std::nullopt, {{50, 0.1}, {99.9, 0.5}}, 999});
  claim.latencies.push_back({"tpot", 0.01, std::nullopt, {{50, 0.01}, {95, 0.02}}, 20});
  const auto findings = audit_claim(claim);
  const std::string text = describe(findings);
  EXPECT_THAT(text, HasSubstr("ttft p99.9 (needs 1000) from 999 samples"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("tpot p95")));  // p95 needs 20
  // Every short tail is named, not only the highest: from 60 samples p95 holds (20), p99 and p99.9 do not (100,
  // 1000), so the reader knows p95 is the highest that may be quoted.
  Claim several;
  several.latencies.push_back({"e2e", 0.1, std::nullopt, {{50, 0.1}, {95, 0.2}, {99, 0.3}, {99.9, 0.4}}, 60});
  EXPECT_THAT(describe(audit_claim(several)),
              HasSubstr("e2e p99 (needs 100) and p99.9 (needs 1000) from 60 samples"));
}

TEST(AuditRules, FindingsJsonCarriesRuleSeverityAndRemedy) {
  const auto json = findings_to_json(audit_claim(import_fixture("claim_no_warmup.json")));
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["rule"], "no-warmup");
  EXPECT_EQ(json[0]["severity"], "warning");
  EXPECT_EQ(json[0]["seed"], "Knowledge 06 §7.1");
  EXPECT_FALSE(json[0]["remedy"].get<std::string>().empty());
}

}  // namespace
}  // namespace perfhound::audit
