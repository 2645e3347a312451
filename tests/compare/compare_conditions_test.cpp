// compare_conditions: which keys of two Conditions blocks differ, and whether each is the declared variable,
// ignored, or a reason to refuse the comparison.
#include "compare/compare_conditions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhound::compare {
namespace {

using ::testing::ElementsAre;
using Json = nlohmann::ordered_json;

// A conditions block as Conditions::to_json() writes it.
Json conditions(Json parameters, std::string sha = "abc1234", std::string host = "gpu-1",
                std::string time = "2026-01-01T00:00:00Z") {
  Json j;
  j["tool"] = {{"name", "perfhound"}, {"version", "0.1.0"}, {"git_sha", sha}, {"build_type", "Release"},
               {"compiler", "GNU 12.2.0"}};
  j["host"] = {{"hostname", host}, {"cpu_model", "EPYC"}, {"logical_cores", 2}, {"memory_bytes", 1}, {"os", "Linux"}};
  j["timestamp_utc"] = time;
  j["command_line"] = {"perfhound", "load", time};
  j["parameters"] = std::move(parameters);
  return j;
}

std::vector<std::string> keys(const std::vector<KeyDifference>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.key);
  return out;
}

TEST(DiffConditions, TimestampAndCommandLineAreIgnored) {
  const Json p = {{"precision", "fp16"}, {"load", "closed loop, concurrency 4"}};
  const auto d = diff_conditions(conditions(p), conditions(p, "abc1234", "gpu-1", "2026-01-02T00:00:00Z"), {});
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->comparable());
  EXPECT_TRUE(d->differing.empty());
  EXPECT_THAT(d->ignored, ElementsAre("timestamp_utc", "command_line"));
}

TEST(DiffConditions, AnUndeclaredDifferenceRefusesAndIsNamed) {
  const auto d = diff_conditions(conditions({{"precision", "fp16"}, {"batch", 8}}),
                                 conditions({{"precision", "fp8"}, {"batch", 8}}, "abc1234", "gpu-2"), {});
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->comparable());
  EXPECT_THAT(keys(d->differing), ElementsAre("host.hostname", "precision"));
  EXPECT_EQ(describe_differences(d->differing), "host.hostname ('gpu-1' vs 'gpu-2'), precision ('fp16' vs 'fp8')");
}

TEST(DiffConditions, TheDeclaredVariableMayDiffer) {
  ConditionsRule rule;
  rule.variables = {"precision"};
  const auto d = diff_conditions(conditions({{"precision", "fp16"}, {"batch", 8}}),
                                 conditions({{"precision", "fp8"}, {"batch", 8}}), rule);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->comparable());
  EXPECT_THAT(keys(d->variable), ElementsAre("precision"));
  EXPECT_EQ(d->variable[0].a, "fp16");
  EXPECT_EQ(d->variable[0].b, "fp8");
  EXPECT_TRUE(d->unchanged_variables.empty());
  EXPECT_TRUE(d->unknown_variables.empty());
}

TEST(DiffConditions, AVariableNamesASubtree) {
  ConditionsRule rule;
  rule.variables = {"tool"};
  const auto d = diff_conditions(conditions({}, "abc1234"), conditions({}, "def5678"), rule);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->comparable());
  EXPECT_THAT(keys(d->variable), ElementsAre("tool.git_sha"));
  EXPECT_TRUE(pattern_matches("tool", "tool.git_sha"));
  EXPECT_TRUE(pattern_matches("tool.git_sha", "tool.git_sha"));
  EXPECT_FALSE(pattern_matches("tool", "toolbox"));
  EXPECT_FALSE(pattern_matches("tool.git", "tool.git_sha"));
  EXPECT_FALSE(pattern_matches("", "tool"));
  // Without the declaration the git sha is a difference like any other: a rebuilt harness is a change.
  const auto refused = diff_conditions(conditions({}, "abc1234"), conditions({}, "def5678"), {});
  ASSERT_TRUE(refused.ok());
  EXPECT_THAT(keys(refused->differing), ElementsAre("tool.git_sha"));
}

TEST(DiffConditions, NestedParametersAreFlattenedAndOneSidedKeysDiffer) {
  const Json a = {{"workload", {{"input_len", 128}, {"output_len", 64}}}};
  const Json b = {{"workload", {{"input_len", 2048}, {"output_len", 64}}}, {"seed", 7}};
  const auto d = diff_conditions(conditions(a), conditions(b), {});
  ASSERT_TRUE(d.ok());
  EXPECT_THAT(keys(d->differing), ElementsAre("workload.input_len", "seed"));
  EXPECT_EQ(describe_differences(d->differing), "workload.input_len (128 vs 2048), seed (absent vs 7)");
  ConditionsRule rule;
  rule.variables = {"workload", "seed"};
  const auto allowed = diff_conditions(conditions(a), conditions(b), rule);
  ASSERT_TRUE(allowed.ok());
  EXPECT_TRUE(allowed->comparable());
}

TEST(DiffConditions, ReportsVariablesThatDidNotChangeOrDoNotExist) {
  ConditionsRule rule;
  rule.variables = {"precision", "precison"};
  const auto d = diff_conditions(conditions({{"precision", "fp16"}}), conditions({{"precision", "fp16"}}), rule);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->comparable());
  EXPECT_THAT(d->unchanged_variables, ElementsAre("precision"));
  EXPECT_THAT(d->unknown_variables, ElementsAre("precison"));
}

TEST(DiffConditions, ExtraIgnorePatternsAndLongValues) {
  ConditionsRule rule;
  rule.ignored.push_back("source");
  const std::string long_a(60, 'a');
  const auto d = diff_conditions(conditions({{"source", "'a.txt'"}, {"model", long_a}}),
                                 conditions({{"source", "'b.txt'"}, {"model", "m"}}), rule);
  ASSERT_TRUE(d.ok());
  EXPECT_THAT(d->ignored, ElementsAre("source"));
  // A long value is cut; the short one shows whole.
  EXPECT_EQ(describe_differences(d->differing), "model ('" + std::string(36, 'a') + "... vs 'm')");
  // Two long values that differ late are cut to 12 characters before the first difference.
  const std::string head(50, 'x');
  const auto late = diff_conditions(conditions({{"target", head + "fixed 200 us, scale 1"}}),
                                    conditions({{"target", head + "fixed 220 us, scale 1"}}), {});
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(describe_differences(late->differing),
            "target (...xxxxxfixed 200 us, scale 1' vs ...xxxxxfixed 220 us, scale 1')");
  const Json j = to_json(*d);
  EXPECT_FALSE(j["comparable"].get<bool>());
  EXPECT_EQ(j["differing"][0]["key"], "model");
}

TEST(DiffConditions, NotAnObjectIsAnError) {
  const auto d = diff_conditions(Json::array(), conditions({}), {});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "A: conditions: expected a JSON object, got array");
}

}  // namespace
}  // namespace perfhound::compare
