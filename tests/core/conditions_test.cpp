#include "core/conditions.h"

#include <gtest/gtest.h>

namespace perfhound::core {
namespace {

Conditions example() {
  ToolInfo tool{"perfhound", "0.1.0", "abc123def456", "Release", "GNU-12.2.0"};
  HostInfo host{"box", "Intel(R) Xeon(R)", 2, 24ULL << 30, "Linux 6.1.0"};
  return Conditions(tool, host, "2026-12-02T14:30:13Z", {"perfhound", "stats", "x.txt"});
}

TEST(Conditions, OpenKeysKeepInsertionOrderAndReplace) {
  Conditions c = example();
  c.set("model", "llama-3-8b");
  c.set("batch", 8);
  c.set("precision", "bf16");
  c.set("batch", 16);  // replaces, keeps its place
  ASSERT_TRUE(c.has("batch"));
  EXPECT_EQ(c.get("batch").get<int>(), 16);
  EXPECT_TRUE(c.get("missing").is_null());
  std::vector<std::string> keys;
  for (const auto& [k, v] : c.parameters().items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "batch", "precision"}));
}

TEST(Conditions, JsonRoundTrip) {
  Conditions c = example();
  c.set("input_len", 2000);
  c.set("framework", "vLLM 0.6.3");
  const auto j = c.to_json();
  EXPECT_EQ(j["tool"]["git_sha"], "abc123def456");
  EXPECT_EQ(j["host"]["memory_bytes"], 24ULL << 30);
  EXPECT_EQ(j["command_line"][1], "stats");
  const auto back = Conditions::from_json(j);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->to_json(), j);
}

TEST(Conditions, FromJsonNamesTheMissingOrMistypedField) {
  auto j = example().to_json();
  j["host"].erase("cpu_model");
  auto r = Conditions::from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "conditions: missing field 'host.cpu_model'");

  j = example().to_json();
  j["host"]["logical_cores"] = "two";
  r = Conditions::from_json(j);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("'host.logical_cores' has type string"), std::string::npos) << r.error().message;

  EXPECT_FALSE(Conditions::from_json(nlohmann::ordered_json::array()).ok());
}

TEST(Conditions, LinesForPeople) {
  Conditions c = example();
  c.set("unit", "us");
  c.set("warmup_discarded", 3);
  const auto lines = c.to_lines();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "perfhound 0.1.0 (abc123def456, Release, GNU-12.2.0)");
  EXPECT_EQ(lines[1], "host box: Intel(R) Xeon(R), 2 logical cores, 24.0 GiB memory, Linux 6.1.0");
  EXPECT_EQ(lines[2], "started 2026-12-02T14:30:13Z");
  EXPECT_EQ(lines[3], "unit: us");
  EXPECT_EQ(lines[4], "warmup_discarded: 3");
}

TEST(Conditions, CaptureFillsToolHostTimeAndArgv) {
  const char* argv[] = {"perfhound", "stats", "f.txt"};
  const Conditions c = Conditions::capture(3, argv);
  EXPECT_EQ(c.tool().name, "perfhound");
  EXPECT_FALSE(c.tool().version.empty());
  EXPECT_FALSE(c.tool().git_sha.empty());
  EXPECT_GT(c.host().logical_cores, 0);
  EXPECT_GT(c.host().memory_bytes, 0u);
  EXPECT_EQ(c.timestamp_utc().size(), 20u);  // YYYY-MM-DDTHH:MM:SSZ
  EXPECT_EQ(c.timestamp_utc().back(), 'Z');
  EXPECT_EQ(c.command_line(), (std::vector<std::string>{"perfhound", "stats", "f.txt"}));
}

}  // namespace
}  // namespace perfhound::core
