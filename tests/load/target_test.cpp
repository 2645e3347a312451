#include "load/target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhound::load {
namespace {

using ::testing::HasSubstr;

TEST(TargetUrl, DefaultsThePortFromTheSchemeAndStripsV1FromTheBase) {
  auto u = parse_target_url("http://localhost");
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->tls);
  EXPECT_EQ(u->host, "localhost");
  EXPECT_EQ(u->port, "80");
  EXPECT_EQ(endpoint_path(*u, ApiEndpoint::kChat), "/v1/chat/completions");

  u = parse_target_url("https://api.example.com/openai/v1/");
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->tls);
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->base_path, "/openai");
  EXPECT_EQ(endpoint_path(*u, ApiEndpoint::kCompletions), "/openai/v1/completions");
  EXPECT_EQ(models_path(*u), "/openai/v1/models");

  u = parse_target_url("http://10.0.0.5:8000/v1");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "10.0.0.5");
  EXPECT_EQ(u->port, "8000");
  EXPECT_EQ(u->base_path, "");

  u = parse_target_url("http://[::1]:8080");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "8080");
}

TEST(TargetUrl, BadUrlsSayWhatIsWrong) {
  EXPECT_THAT(parse_target_url("ftp://h").error().message, HasSubstr("http:// or https://"));
  EXPECT_THAT(parse_target_url("localhost:8000").error().message, HasSubstr("scheme"));
  EXPECT_THAT(parse_target_url("http://:8000").error().message, HasSubstr("no host"));
  EXPECT_THAT(parse_target_url("http://h:99999").error().message, HasSubstr("port '99999'"));
  EXPECT_THAT(parse_target_url("http://h:").error().message, HasSubstr("port ''"));
  EXPECT_THAT(parse_target_url("http://h/v1?x=1").error().message, HasSubstr("query"));
  EXPECT_THAT(parse_target_url("http://user:pw@h").error().message, HasSubstr("--api-key-env"));
}

TEST(RequestBody, ChatCarriesTheMessageStreamUsageAndExtras) {
  RequestOptions o;
  o.model = "m";
  o.ignore_eos = true;
  o.extra_body = {{"temperature", 0}};
  const auto body = nlohmann::json::parse(build_request_body(o, "hello there", {}, 64));
  EXPECT_EQ(body["model"], "m");
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "hello there");
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["ignore_eos"], true);
  EXPECT_EQ(body["temperature"], 0);
  EXPECT_FALSE(body.contains("perfhound_emit_ts"));

  o.max_tokens_field = "max_completion_tokens";
  o.include_usage = false;
  o.ignore_eos = false;
  const auto body2 = nlohmann::json::parse(build_request_body(o, "x", {}, 8));
  EXPECT_EQ(body2["max_completion_tokens"], 8);
  EXPECT_FALSE(body2.contains("max_tokens"));
  EXPECT_FALSE(body2.contains("stream_options"));
  EXPECT_FALSE(body2.contains("ignore_eos"));
}

TEST(RequestBody, CompletionsSendsTokenIdsAsThePrompt) {
  RequestOptions o;
  o.endpoint = ApiEndpoint::kCompletions;
  o.model = "m";
  o.emit_timestamps = true;
  const auto body = nlohmann::json::parse(build_request_body(o, "", {1001, 1002, 1003}, 5));
  EXPECT_EQ(body["prompt"], nlohmann::json::array({1001, 1002, 1003}));
  EXPECT_EQ(body["max_tokens"], 5);
  EXPECT_EQ(body["perfhound_emit_ts"], true);
  const auto text = nlohmann::json::parse(build_request_body(o, "a b", {}, 5));
  EXPECT_EQ(text["prompt"], "a b");
}

TEST(Header, ParsesNameAndValueAndRefusesWhatTheClientOwns) {
  auto h = parse_header("X-Tenant:  blue ");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->first, "X-Tenant");
  EXPECT_EQ(h->second, "blue");
  EXPECT_THAT(parse_header("novalue").error().message, HasSubstr("'Name: value'"));
  EXPECT_THAT(parse_header("Bad Name: x").error().message, HasSubstr("does not allow"));
  EXPECT_THAT(parse_header("Content-Length: 5").error().message, HasSubstr("sets Content-Length itself"));
}

TEST(Models, TheFirstIdOfTheList) {
  EXPECT_EQ(*first_model_id(R"({"object":"list","data":[{"id":"llama","object":"model"},{"id":"b"}]})"), "llama");
  EXPECT_THAT(first_model_id(R"({"data":[]})").error().message, HasSubstr("listed no models"));
  EXPECT_THAT(first_model_id("<html>").error().message, HasSubstr("not answer JSON"));
}

}  // namespace
}  // namespace perfhound::load
