#include "load/dataset_readers.h"

#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "serve/openai_protocol.h"

#ifndef PERFHOUND_TEST_DATA
#define PERFHOUND_TEST_DATA "data"
#endif

namespace perfhound::load {
namespace {

const std::string kData = std::string(PERFHOUND_TEST_DATA) + "/load/";

void expect_error(const core::Result<std::unique_ptr<Workload>>& r, std::string_view substring, std::string_view what) {
  ASSERT_FALSE(r.ok()) << what << " parsed";
  EXPECT_NE(r.error().message.find(substring), std::string::npos) << what << " gave: " << r.error().message;
}

// A ShareGPT conversation whose turns have exactly these approximate token counts.
nlohmann::json conversation(std::int64_t prompt_tokens, std::int64_t reply_tokens, std::uint64_t salt) {
  std::string id = "c";  // appended, not "c" + to_string(): g++ 12 warns falsely (-Wrestrict) on the latter
  id += std::to_string(salt);
  return {{"id", id},
          {"conversations",
           {{{"from", "human"}, {"value", synthetic_prompt(1, salt, prompt_tokens)}},
            {{"from", "gpt"}, {"value", synthetic_prompt(2, salt, reply_tokens)}}}}};
}

// ---- ShareGPT

TEST(ShareGpt, ReadsTheFixtureAndCountsEachFilter) {
  auto r = read_sharegpt(kData + "sharegpt_small.json", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Workload& w = **r;
  const auto d = w.describe();
  EXPECT_EQ(d["kind"], "sharegpt");
  EXPECT_EQ(d["conversations"], 7);
  EXPECT_EQ(d["kept"], 3);
  EXPECT_EQ(d["dropped"].dump(),
            R"({"fewer_than_2_turns":2,"prompt_under_4_tokens":1,"output_under_4_tokens":1,)"
            R"("prompt_over_1024_tokens":0,"total_over_2048_tokens":0})");
  EXPECT_EQ(d["output_len"], "recorded");
  EXPECT_FALSE(w.size().has_value());
  // The kept pairs, first turn -> approximate_tokens of the second (roles are not checked, as in vLLM: the
  // system-first conversation keeps its system text as the prompt).
  std::map<std::string, std::int64_t> kept;
  const auto doc = nlohmann::json::parse(std::ifstream(kData + "sharegpt_small.json"));
  for (const auto& c : doc) {
    const auto& t = c["conversations"];
    if (t.size() < 2) continue;
    const auto p = t[0]["value"].template get<std::string>();
    const auto o = serve::approximate_tokens(t[1]["value"].template get<std::string>());
    if (serve::approximate_tokens(p) >= 4 && o >= 4) kept[p] = o;
  }
  ASSERT_EQ(kept.size(), 3u);
  std::set<std::string> seen;
  for (std::uint64_t i = 0; i < 200; ++i) {
    const WorkItem item = w.item(i);
    ASSERT_EQ(kept.count(item.prompt), 1u) << item.prompt;
    EXPECT_EQ(item.max_tokens, kept[item.prompt]);
    EXPECT_EQ(item.input_tokens, serve::approximate_tokens(item.prompt));
    seen.insert(item.prompt);
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST(ShareGpt, AppliesVllmsBoundsAtTheirEdges) {
  // Each pair sits on one side of one bound; the others pass.
  nlohmann::json doc = nlohmann::json::array();
  doc.push_back(conversation(4, 4, 1));        // kept: both at the minimum
  doc.push_back(conversation(3, 100, 2));      // prompt_under_4_tokens
  doc.push_back(conversation(100, 3, 3));      // output_under_4_tokens
  doc.push_back(conversation(1024, 1024, 4));  // kept: prompt at 1024, total at 2048
  doc.push_back(conversation(1025, 10, 5));    // prompt_over_1024_tokens
  doc.push_back(conversation(1000, 1049, 6));  // total_over_2048_tokens (2049)
  doc.push_back(conversation(2, 2, 7));        // first rule broken wins: prompt_under_4_tokens
  auto r = parse_sharegpt(doc.dump(), "edges.json", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto d = (*r)->describe();
  EXPECT_EQ(d["kept"], 2);
  EXPECT_EQ(d["dropped"]["prompt_under_4_tokens"], 2);
  EXPECT_EQ(d["dropped"]["output_under_4_tokens"], 1);
  EXPECT_EQ(d["dropped"]["prompt_over_1024_tokens"], 1);
  EXPECT_EQ(d["dropped"]["total_over_2048_tokens"], 1);
  EXPECT_DOUBLE_EQ(d["mean_input_tokens"].get<double>(), (4 + 1024) / 2.0);
  EXPECT_DOUBLE_EQ(d["mean_output_tokens"].get<double>(), (4 + 1024) / 2.0);
}

TEST(ShareGpt, AnOutputLengthOverrideReplacesTheRepliesAndTheirFilters) {
  nlohmann::json doc = nlohmann::json::array();
  doc.push_back(conversation(100, 1, 1));     // kept: output < 4 is not checked with an override
  doc.push_back(conversation(1000, 2000, 2)); // kept with a fixed 100: total 1100
  doc.push_back(conversation(1000, 5, 3));    // dropped with a fixed 1100: total 2100
  ShareGptOptions fixed;
  fixed.output_len = LengthDistribution::fixed(100);
  auto r = parse_sharegpt(doc.dump(), "o.json", fixed);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)->describe()["kept"], 3);
  for (std::uint64_t i = 0; i < 20; ++i) EXPECT_EQ((*r)->item(i).max_tokens, 100);
  EXPECT_EQ((*r)->describe()["output_len"]["kind"], "fixed");

  fixed.output_len = LengthDistribution::fixed(1100);
  auto big = parse_sharegpt(doc.dump(), "o.json", fixed);
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_EQ((*big)->describe()["dropped"]["total_over_2048_tokens"], 2);

  ShareGptOptions spread;
  spread.output_len = parse_length_distribution("uniform:10,20").value();
  auto u = parse_sharegpt(doc.dump(), "o.json", spread);
  ASSERT_TRUE(u.ok()) << u.error().message;
  // A non-fixed override: the total filter uses the recorded reply (1000 + 2000 > 2048 drops pair 2).
  EXPECT_EQ((*u)->describe()["kept"], 2);
  for (std::uint64_t i = 0; i < 50; ++i) {
    const auto m = (*u)->item(i).max_tokens;
    EXPECT_GE(m, 10);
    EXPECT_LE(m, 20);
  }
}

TEST(ShareGpt, SamplesKeptPairsUniformlyAndDeterministically) {
  nlohmann::json doc = nlohmann::json::array();
  for (std::uint64_t k = 0; k < 3; ++k) doc.push_back(conversation(10 + static_cast<std::int64_t>(k), 20, k));
  ShareGptOptions options;
  options.seed = 5;
  auto r = parse_sharegpt(doc.dump(), "u.json", options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  constexpr int kN = 30'000;
  std::map<std::int64_t, int> counts;
  for (int i = 0; i < kN; ++i) ++counts[(*r)->item(static_cast<std::uint64_t>(i)).input_tokens];
  ASSERT_EQ(counts.size(), 3u);
  for (const auto& [len, c] : counts) {
    // Binomial(kN, 1/3): 5 standard errors.
    EXPECT_NEAR(c / static_cast<double>(kN), 1.0 / 3, 5 * std::sqrt((1.0 / 3) * (2.0 / 3) / kN)) << len;
  }
  auto again = parse_sharegpt(doc.dump(), "u.json", options);
  for (std::uint64_t i = 0; i < 100; ++i) EXPECT_EQ((*again)->item(i).prompt, (*r)->item(i).prompt);
}

TEST(ShareGpt, ErrorsNameTheByte) {
  // Byte offsets count from 0.
  expect_error(parse_sharegpt("{\"a\": 1}", "s.json", {}),
               "'s.json' byte 0: expected a JSON array '[' of ShareGPT conversations, got '{'", "an object");
  expect_error(parse_sharegpt("  ", "s.json", {}), "'s.json' byte 2: expected a JSON array", "blank");
  expect_error(parse_sharegpt("[]", "s.json", {}), "'s.json': no conversation passed the filters (0 read", "empty");
  expect_error(parse_sharegpt("[1]", "s.json", {}), "'s.json' byte 1: conversation 0 is an integer, not an object",
               "a number element");
  expect_error(parse_sharegpt(R"([{"id": "x1"}])", "s.json", {}),
               R"('s.json' byte 1: conversation 0 (id "x1"): expected a "conversations" array)", "no conversations");
  expect_error(parse_sharegpt(R"([{"conversations": [{"from": "human", "value": 5}, {"value": "b"}]}])", "s.json", {}),
               R"('s.json' byte 1: conversation 0: turn 0 "value" must be a string, got an integer (5))", "number value");
  expect_error(parse_sharegpt(R"([{"conversations": [{"value": "a b c d"}, {"from": "gpt"}]}])", "s.json", {}),
               R"(conversation 0: turn 1 has no "value")", "no value");
  const std::string good = conversation(10, 10, 1).dump();
  // A syntax error inside the second element: the offset is where nlohmann stopped, in file coordinates.
  const std::string bad_second = "[" + good + ", {\"conversations\": [}]";
  const auto r = parse_sharegpt(bad_second, "s.json", {});
  ASSERT_FALSE(r.ok());
  const std::size_t brace = bad_second.find("[}");
  EXPECT_NE(r.error().message.find(fmt::format("'s.json' byte {}: invalid JSON in conversation 1", brace + 1)),
            std::string::npos)
      << r.error().message;
  expect_error(parse_sharegpt("[" + good + " " + good + "]", "s.json", {}),
               fmt::format("'s.json' byte {}: expected ',' or ']' after conversation 0, got '{{'", good.size() + 2),
               "missing comma");
  expect_error(parse_sharegpt("[" + good + ", {\"conversations\": [", "s.json", {}),
               "conversation 1 is not terminated (the file ends inside it)", "unterminated");
  expect_error(parse_sharegpt("[" + good, "s.json", {}),
               fmt::format("'s.json' byte {}: expected ',' or ']' after conversation 0, got the end of the file",
                           good.size() + 1),
               "no ]");
  expect_error(parse_sharegpt("[" + good + ",", "s.json", {}), "the file ends inside the array (no closing ']')",
               "no ] after a comma");
  expect_error(parse_sharegpt("[" + good + "] x", "s.json", {}),
               fmt::format("'s.json' byte {}: unexpected 'x' after the closing ']'", good.size() + 3), "trailing");
  expect_error(parse_sharegpt(R"([{"conversations": [{"value": "hi"}, {"value": "hello there my friend"}]}])", "s.json", {}),
               R"(no conversation passed the filters (1 read; dropped: {"fewer_than_2_turns":0,"prompt_under_4_tokens":1)",
               "all filtered");
  expect_error(read_sharegpt(kData + "missing.json", {}), "cannot read '" + kData + "missing.json'", "missing file");
}

// ---- JSONL prompts

TEST(JsonlPrompts, ReadsEveryOutputKeyAndTheDefault) {
  JsonlPromptOptions options;
  options.default_output_len = LengthDistribution::fixed(99);
  options.in_order = true;
  auto r = read_jsonl_prompts(kData + "prompts.jsonl", options);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Workload& w = **r;
  ASSERT_EQ(w.size(), 4u);  // the blank line is skipped
  EXPECT_EQ(w.item(0).prompt, "Write a haiku about the ocean at night.");
  EXPECT_EQ(w.item(0).max_tokens, 32);
  EXPECT_EQ(w.item(1).max_tokens, 64);  // "output_tokens"
  EXPECT_EQ(w.item(2).max_tokens, 48);  // "output_len"
  EXPECT_EQ(w.item(3).max_tokens, 99);  // the default
  for (std::uint64_t i = 0; i < 4; ++i) EXPECT_EQ(w.item(i).input_tokens, serve::approximate_tokens(w.item(i).prompt));
  const auto d = w.describe();
  EXPECT_EQ(d["kind"], "jsonl");
  EXPECT_EQ(d["prompts"], 4);
  EXPECT_EQ(d["order"], "file");
  EXPECT_EQ(d["lines_with_max_tokens"], 3);
  EXPECT_EQ(d["default_output_len"]["tokens"], 99);
}

TEST(JsonlPrompts, SampledOrderIsUnboundedAndCoversThePrompts) {
  const std::string text = "{\"prompt\": \"a\", \"max_tokens\": 1}\n{\"prompt\": \"b c\", \"max_tokens\": 2}\n";
  auto r = parse_jsonl_prompts(text, "p.jsonl", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE((*r)->size().has_value());
  EXPECT_EQ((*r)->describe()["order"], "sampled");
  int b = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const WorkItem item = (*r)->item(i);
    EXPECT_EQ(item.max_tokens, item.prompt == "a" ? 1 : 2);
    b += item.prompt == "b c";
  }
  EXPECT_NEAR(b, 500, 5 * std::sqrt(250.0));
}

TEST(JsonlPrompts, ErrorsNameTheLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"prompt\": \"a\", \"max_tokens\": 1}\n\n{\"prompt\": \"b\", \"max_tokens\": 1\n",
       "'p.jsonl' line 3: invalid JSON at byte"},
      {"[1, 2]\n", "'p.jsonl' line 1: expected an object {\"prompt\": ..., \"max_tokens\": ...}, got array"},
      {"{\"max_tokens\": 3}\n", "'p.jsonl' line 1: no \"prompt\""},
      {"{\"prompt\": \"\", \"max_tokens\": 3}\n", "'p.jsonl' line 1: \"prompt\" must be a non-empty string, got string (\"\")"},
      {"{\"prompt\": 7, \"max_tokens\": 3}\n", "'p.jsonl' line 1: \"prompt\" must be a non-empty string, got an integer (7)"},
      {"{\"prompt\": \"a\", \"max_tokens\": 0}\n", "'p.jsonl' line 1: \"max_tokens\" must be an integer from 1 to 100000000, got 0"},
      {"{\"prompt\": \"a\", \"max_tokens\": \"12\"}\n", "\"max_tokens\" must be an integer from 1 to 100000000, got \"12\""},
      {"{\"prompt\": \"a\", \"max_tokens\": 2.5}\n", "\"max_tokens\" must be an integer from 1 to 100000000, got 2.5"},
      {"{\"prompt\": \"a\", \"max_tokens\": 2, \"output_len\": 3}\n",
       "'p.jsonl' line 1: both \"max_tokens\" and \"output_len\" are given (use one)"},
      {"{\"prompt\": \"a\", \"max_tokens\": 2}\n{\"prompt\": \"b\"}\n",
       "'p.jsonl' line 2: no \"max_tokens\" (or \"output_tokens\" / \"output_len\"); give one or a default output length"},
      {"\n  \n", "'p.jsonl': no prompts"},
  };
  for (const auto& c : cases) expect_error(parse_jsonl_prompts(c.text, "p.jsonl", {}), c.message, c.text);
  expect_error(read_jsonl_prompts(kData + "missing.jsonl", {}), "cannot read", "missing file");
}

// ---- arrival traces

TEST(ParseDatetime, ConvertsToUnixNanoseconds) {
  EXPECT_EQ(parse_datetime_ns("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(parse_datetime_ns("2023-11-16 18:15:46"), 1700158546000000000);  // Python datetime agrees
  EXPECT_EQ(parse_datetime_ns("2023-11-16 18:15:46.6805900"), 1700158546680590000);
  EXPECT_EQ(parse_datetime_ns("2023-11-16T18:15:46.680590123"), 1700158546680590123);
  EXPECT_EQ(parse_datetime_ns("2023-11-16 18:15:46.6805901239"), 1700158546680590123);  // below 1 ns dropped
  EXPECT_EQ(parse_datetime_ns("2024-05-10 00:00:00+00:00"), 1715299200000000000);
  EXPECT_EQ(parse_datetime_ns("2024-05-10 00:00:00Z"), 1715299200000000000);
  EXPECT_EQ(parse_datetime_ns("2024-02-29 12:00:00+01:30"), 1709202600000000000);  // leap day, offset
  EXPECT_EQ(parse_datetime_ns("2024-02-29 12:00:00+0130"), 1709202600000000000);
  EXPECT_EQ(parse_datetime_ns("2261-12-31 23:59:59"), 9214646399000000000);
  for (const char* bad : {"", "2023-11-16", "2023-02-29 00:00:00", "2023-13-01 00:00:00", "2023-11-16 24:00:00",
                          "2023-11-16 18:15:46.", "2023-11-16 18:15:46 junk", "1969-12-31 23:59:59", "12.5",
                          "2023/11/16 18:15:46", "2023-11-16 18:15:46+1"}) {
    EXPECT_FALSE(parse_datetime_ns(bad).has_value()) << bad;
  }
}

TEST(ArrivalTrace, ReadsTheAzureFormat) {
  auto r = read_arrival_trace(kData + "azure_conv_2023.csv", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Workload& w = **r;
  ASSERT_EQ(w.size(), 6u);
  EXPECT_TRUE(w.has_arrival_times());
  // Exact: 100 ns ticks in the text, relative to the first row.
  const std::vector<std::int64_t> arrivals = {0, 4314579000, 4473718000, 4473718000, 6519828000, 10852199000};
  const std::vector<std::int64_t> inputs = {374, 396, 879, 91, 91, 1552};
  const std::vector<std::int64_t> outputs = {44, 109, 55, 16, 1, 373};  // the 0 is raised to 1
  for (std::uint64_t i = 0; i < 6; ++i) {
    const WorkItem item = w.item(i);
    EXPECT_EQ(item.arrival_ns, arrivals[i]) << i;
    EXPECT_EQ(w.arrival_ns(i), arrivals[i]) << i;
    EXPECT_EQ(item.input_tokens, inputs[i]) << i;
    EXPECT_EQ(item.max_tokens, outputs[i]) << i;
    EXPECT_EQ(serve::approximate_tokens(item.prompt), inputs[i]) << i;
  }
  const auto d = w.describe();
  EXPECT_EQ(d["format"], "azure");
  EXPECT_EQ(d["timestamp_unit"], "datetime");
  EXPECT_EQ(d["columns"].dump(), R"({"timestamp":"TIMESTAMP","input":"ContextTokens","output":"GeneratedTokens"})");
  EXPECT_EQ(d["zero_output_rows_raised_to_1"], 1);
  EXPECT_EQ(d["zero_input_rows_raised_to_1"], 0);
  EXPECT_DOUBLE_EQ(d["duration_s"].get<double>(), 10.852199);
}

TEST(ArrivalTrace, ReadsTheMooncakeFormatInMilliseconds) {
  auto r = read_arrival_trace(kData + "mooncake_trace.jsonl", {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Workload& w = **r;
  ASSERT_EQ(w.size(), 5u);
  const std::vector<std::int64_t> arrivals = {0, 0, 3'052'000'000, 10'535'000'000, 27'482'000'000};
  for (std::uint64_t i = 0; i < 5; ++i) EXPECT_EQ(w.arrival_ns(i), arrivals[i]) << i;
  EXPECT_EQ(w.item(2).input_tokens, 8325);
  EXPECT_EQ(w.item(2).max_tokens, 48);
  EXPECT_EQ(serve::approximate_tokens(w.item(2).prompt), 8325);
  EXPECT_EQ(w.describe()["format"], "mooncake");
  EXPECT_EQ(w.describe()["timestamp_unit"], "ms");
}

TEST(ArrivalTrace, ReadsTheGenericFormsInSeconds) {
  auto csv = read_arrival_trace(kData + "generic_trace.csv", {});
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  EXPECT_EQ((*csv)->size(), 4u);
  EXPECT_EQ((*csv)->arrival_ns(1), 250'000'000);
  EXPECT_EQ((*csv)->arrival_ns(3), 1'123'456'789);  // decimal text converts exactly
  EXPECT_EQ((*csv)->describe()["format"], "generic");
  EXPECT_EQ((*csv)->describe()["timestamp_unit"], "s");

  // JSONL with "timestamp" in seconds (the lengths are not Mooncake's names), fractions, extra keys.
  const std::string jsonl =
      "{\"timestamp\": 100.5, \"input_tokens\": 10, \"output_tokens\": 5, \"user\": \"u1\"}\n"
      "{\"timestamp\": 101, \"input_tokens\": 0, \"output_tokens\": 7}\n";
  auto j = parse_arrival_trace(jsonl, "t.jsonl", {});
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ((*j)->arrival_ns(1), 500'000'000);
  EXPECT_EQ((*j)->item(1).input_tokens, 1);  // 0 raised to 1, counted
  EXPECT_EQ((*j)->describe()["zero_input_rows_raised_to_1"], 1);

  // timestamp_ms, case-insensitive names, columns in any order, datetime text in a generic column.
  auto ms = parse_arrival_trace("Output_Tokens,TIMESTAMP_MS,Input_Tokens\n3,1000,4\n5,1500,6\n", "m.csv", {});
  ASSERT_TRUE(ms.ok()) << ms.error().message;
  EXPECT_EQ((*ms)->arrival_ns(1), 500'000'000);
  EXPECT_EQ((*ms)->item(1).max_tokens, 5);
  EXPECT_EQ((*ms)->item(1).input_tokens, 6);
  auto dt = parse_arrival_trace("timestamp,input_tokens,output_tokens\n2024-05-10 00:00:00.5+00:00,4,4\n"
                                "2024-05-10 00:00:01Z,4,4\n",
                                "d.csv", {});
  ASSERT_TRUE(dt.ok()) << dt.error().message;
  EXPECT_EQ((*dt)->arrival_ns(1), 500'000'000);
}

TEST(ArrivalTrace, TokenIdPromptsAndSeedsAreDeterministic) {
  TraceOptions options;
  options.token_ids = true;
  options.seed = 3;
  auto a = read_arrival_trace(kData + "generic_trace.csv", options);
  auto b = read_arrival_trace(kData + "generic_trace.csv", options);
  ASSERT_TRUE(a.ok() && b.ok());
  for (std::uint64_t i = 0; i < 4; ++i) {
    const WorkItem x = (*a)->item(i);
    EXPECT_TRUE(x.prompt.empty());
    EXPECT_EQ(static_cast<std::int64_t>(x.prompt_token_ids.size()), x.input_tokens);
    EXPECT_EQ(x.prompt_token_ids, (*b)->item(i).prompt_token_ids);
  }
  EXPECT_EQ((*a)->describe()["prompt"], "token_ids");
  auto words = read_arrival_trace(kData + "generic_trace.csv", {});
  EXPECT_NE((*words)->item(0).prompt, (*words)->item(2).prompt);  // every row its own prompt
}

TEST(ArrivalTrace, ErrorsNameTheLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:50.0,1,1\n2023-11-16 18:15:49.9,1,1\n",
       "'t.csv' line 3: TIMESTAMP '2023-11-16 18:15:49.9' is earlier than the previous row's (line 2); trace rows "
       "must be in time order"},
      {"{\"timestamp\": 5, \"input_length\": 1, \"output_length\": 1}\n{\"timestamp\": 4, \"input_length\": 1, "
       "\"output_length\": 1}\n",
       "'t.csv' line 2: timestamp '4' is earlier than the previous row's (line 1)"},
      {"time,ContextTokens,GeneratedTokens\n1,2,3\n",
       "'t.csv' line 1: no timestamp column in the header 'time,ContextTokens,GeneratedTokens' (use one of TIMESTAMP"},
      {"timestamp_s,prompt,output_tokens\n1,2,3\n", "'t.csv' line 1: no input length column in the header"},
      {"timestamp_s,input_tokens\n1,2\n", "no output length column in the header 'timestamp_s,input_tokens'"},
      {"timestamp_s,input_tokens,output_tokens\n1,2\n", "'t.csv' line 2: 2 fields, the header has 3"},
      {"timestamp_s,input_tokens,output_tokens\nsoon,2,3\n",
       "'t.csv' line 2: cannot parse timestamp_s 'soon' (use datetime text like 2023-11-16 18:15:46.6805900 or a "
       "number of seconds)"},
      {"timestamp_s,input_tokens,output_tokens\n1,2.5,3\n", "'t.csv' line 2: input_tokens '2.5' must be an integer >= 0"},
      {"timestamp_s,input_tokens,output_tokens\n1,2,-3\n", "'t.csv' line 2: output_tokens -3 must be an integer from 0"},
      {"timestamp_s,input_tokens,output_tokens\n", "'t.csv': the trace has no rows"},
      {"\n# nothing\n", "'t.csv': the trace is empty"},
      {"{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1}\n{\"timestamp\": 2, \"input_length\": 1}\n",
       "'t.csv' line 2: no \"output_length\" (the first row has it)"},
      {"{\"timestamp\": 1, \"input_length\": 1, \"output_length\": 1}\n{\"timestamp\": 2,\n",
       "'t.csv' line 2: invalid JSON at byte"},
      {"{\"timestamp\": \"noon\", \"input_length\": 1, \"output_length\": 1}\n",
       "'t.csv' line 1: cannot parse \"timestamp\" \"noon\" as a time (use a number of milliseconds"},
      {"{\"timestamp\": 1, \"input_length\": 1.5, \"output_length\": 1}\n",
       "'t.csv' line 1: \"input_length\" must be an integer >= 0, got 1.5"},
      {"{\"ts\": 1, \"input_length\": 1, \"output_length\": 1}\n",
       "'t.csv' line 1: no timestamp column in the first row's keys"},
  };
  for (const auto& c : cases) expect_error(parse_arrival_trace(c.text, "t.csv", {}), c.message, c.text);
  expect_error(read_arrival_trace(kData + "missing.csv", {}), "cannot read '" + kData + "missing.csv'", "missing");
}

}  // namespace
}  // namespace perfhound::load
